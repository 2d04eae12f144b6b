// Packets are pooled objects passed by pointer; nothing is allocated per packet in steady state.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "tlm/common/flow_key.h"
#include "tlm/common/huge_pages.h"
#include "tlm/common/units.h"

namespace netasic {

enum class PacketType : std::uint8_t {
  data = 0,
  ack,      // per-packet end-to-end acknowledgement (control priority)
  nack,     // negative acknowledgement (reorder engines, transports)
  fgfc,     // fine-grained flow control frame, switch to NIC
  pause,    // per-flow or per-class pause frame
  resume,
  order_mark,
  fc_ack,   // Flowcut: egress switch to the flow's ingress (or every tracking switch), control priority
  cnp,      // DCQCN congestion notification, destination NIC to source NIC (control priority)
  ptm,      // telemetry routing: Path Test Message, source NIC to destination NIC on a candidate path
  ptr,      // telemetry routing: Path Test Reply (the PTM's accumulated delay in ack_bytes, in ns)
};
const char* packet_type_name(PacketType t);
inline bool is_control(PacketType t) { return t != PacketType::data; }

constexpr std::uint32_t kNoSwitch = 0xffffffffu;

// Layout: three cache lines, each holding the fields one part of the model reads together. The first line
// holds everything a link and a switch read or write per hop (data packets and ACKs alike), so a packet
// crossing a switch costs one cache line; the second holds what the NICs read (transport, ACK echoes);
// the third holds Flowcut's per-packet state and the fields of one kind of frame each, overlaid. The
// packet is aligned to a cache line so that no line's fields straddle two.
struct alignas(64) Packet {
  // ---- line 0: link and switch, every hop
  Packet* next = nullptr;  // intrusive link for VOQs and pool free list
  Ps t_ready = 0;          // inside a switch: when it reaches the egress port
  Ps t_tail = 0;           // inside a switch: when its tail has arrived at the input
  Ps ser_ps = 0;           // serialization time on the link it last crossed
  std::uint32_t size_bytes = 0;  // header + payload: what occupies buffers (link overhead excluded)
  std::uint32_t in_size = 0;     // size when it entered the current switch (credits return this much)
  std::uint32_t dst_host = 0;
  std::uint32_t flow_hash = 0;  // hash of `key`, computed once by the source NIC (what a switch's hash unit yields)
  std::uint32_t via_group = kNoSwitch;  // dragonfly Valiant/UGAL: intermediate group still to reach
  std::uint16_t in_port = 0;     // input port at the current switch
  PacketType type = PacketType::data;
  std::uint8_t tclass = 0;   // traffic class (0..6 data; control rides its own queue)
  std::uint8_t vc = 0;       // virtual channel on the link it is crossing
  std::uint8_t in_vc = 0;    // VC it occupied in the current switch's input buffer
  std::uint8_t hops = 0;     // switch-to-switch and host links crossed so far
  std::uint8_t global_hops = 0;  // dragonfly: global links crossed (selects the data VC)
  std::uint8_t went_down = 0;    // up*/down* routing: the packet has taken a down link
  // ECN (nic.cc = dctcp): a data packet is ECN-capable (ect), a congested switch output marks it (ce); an
  // ACK/NACK sets ece when the receiver's CE count moved since its previous echo (counts: echo_*_bytes).
  std::uint8_t ect = 0;
  std::uint8_t ce = 0;
  std::uint8_t fc_stamped = 0;   // Flowcut: carries the ingress timestamp header (timestamp_bytes extra)
  // ---- line 1: NICs (transport and acknowledgements)
  std::uint32_t flow = 0;  // index into the run's flow table
  std::uint32_t src_host = 0;
  std::uint32_t psn = 0;
  std::uint32_t payload_bytes = 0;
  // Acknowledgement fields (type ack/nack): what is acknowledged and the echoed timestamp.
  std::uint32_t ack_psn = 0;
  std::uint32_t ack_bytes = 0;
  Ps t_sent = 0;       // when the source NIC put it on the wire
  union {
    Ps echo_ts = 0;         // ACK/NACK: the t_sent of the data packet it acknowledges
    std::uint8_t* bytes;    // data packet of a host-interface message: its payload bytes (PacketPool::get_bytes)
  };
  FlowKey key;
  std::uint8_t retransmit = 0;   // 1 when this is a resend
  std::uint8_t ece = 0;
  std::uint8_t sack_n = 0;  // selective-repeat SACK: ranges carried (sack_start / sack_len)
  std::uint8_t echo_hops = 0;
  std::uint8_t fgfc_xoff = 0;  // FGFC frame
  // Hop-by-hop flow control (switch.flow_control): a data packet's congestion mark at the switch holding
  // it, and whether a PAUSE / RESUME frame is PFC (per class) or per flow (fc_fid).
  std::uint8_t fc_mark = 0;
  std::uint8_t fc_pfc = 0;
  // ---- line 2: Flowcut, and the fields of one kind of packet each
  std::uint64_t id = 0;
  Ps t_ingress = 0;                  // Flowcut: timestamp the ingress switch adds (echoed in the Flowcut ACK)
  std::uint32_t packets_left = 0;    // the NIC marks how many packets of the flow follow this one
  std::uint32_t fc_epoch = 0;        // which flowcut of its flow the ingress counted it in (early resume)
  std::uint16_t fc_tracked = 0;      // bit i: the i-th switch counted this packet in its table
  std::uint8_t path_len = 0;         // switches crossed; path_in[i] = input port at the i-th switch
  std::uint8_t ack_pos = 0;          // Flowcut ACK: index of the switch it goes to next in path_in
  static constexpr int kMaxPath = 16;
  static constexpr int kMaxSackBlocks = 4;
  // The last 32 bytes hold fields of one kind of packet each, overlaid so that the packet stays 192 bytes
  // (three cache lines): the Flowcut path (data packets, Flowcut ACKs), the FGFC frame, or the end-to-end
  // ACK's echoes (ACK/NACK: the receiver's ECN counts, the SACK's ranges).
  union {
    std::uint8_t path_in[kMaxPath] = {};
    std::uint32_t sack_start[kMaxSackBlocks];  // first PSN of each SACK range
  };
  // FGFC frame fields (type fgfc) / ACK echoes. The ECN counts are the receiver's running counts of data
  // payload bytes received and of those that arrived with CE, modulo 2^32 (AccECN-style: a lost ACK
  // loses no marks; the source takes differences).
  union {
    std::uint32_t fgfc_flow_id = 0;
    std::uint32_t echo_rx_bytes;
    std::uint32_t fc_fid;  // PAUSE / RESUME frame: the flow id (hash of its 5-tuple)
  };
  union {
    std::uint32_t fgfc_credit = 0;
    std::uint32_t echo_ce_bytes;
  };
  union {
    std::uint16_t sack_len[kMaxSackBlocks] = {};  // PSNs in each SACK range (a longer range is reported shorter)
    std::uint16_t fgfc_period;                    // microseconds; 0 = XON
  };
  // Telemetry routing (routing.policy = telemetry): the accumulated queuing delay, in ns, every switch adds
  // its local queuing delay to (data packets, PTMs and PTRs); an ACK reflects its data packet's. Only
  // switches running the telemetry policy touch it.
  std::uint32_t tm_delay_ns = 0;

  // SACK range b covers PSNs [start, end) (ACKs of the selective-repeat and the TCP transports); a range
  // longer than 16 bits of PSNs is reported shorter.
  void set_sack(std::size_t b, std::uint32_t start, std::uint32_t end) {
    sack_start[b] = start;
    sack_len[b] = static_cast<std::uint16_t>(std::min<std::uint32_t>(0xffff, end - start));
  }
  std::uint32_t sack_end(std::size_t b) const { return sack_start[b] + sack_len[b]; }
};
static_assert(sizeof(Packet) == 192, "a packet is three cache lines");
static_assert(offsetof(Packet, fc_stamped) < 64 && offsetof(Packet, flow) == 64 && offsetof(Packet, id) == 128,
              "the per-hop fields share the first cache line; the NIC's the second");

class PacketPool {
 public:
  // A chunk fills one 2 MiB huge page.
  explicit PacketPool(std::size_t chunk = (std::size_t{2} << 20) / sizeof(Packet)) : chunk_(chunk) {}
  Packet* get() {
    if (!free_) grow();
    Packet* p = free_;
    free_ = p->next;
    *p = Packet{};
    p->id = next_id_++;
    ++in_use_;
    return p;
  }
  void put(Packet* p) {
    if (byte_size_ && p->type == PacketType::data && p->bytes) release_bytes(p);
    p->next = free_;
    free_ = p;
    --in_use_;
  }
  std::size_t in_use() const { return in_use_; }
  std::size_t capacity() const { return chunks_.size() * chunk_; }

  // Payload bytes, for the data packets that carry them (messages of the NICs' host interfaces): buffers
  // of `size` bytes (the MTU) that a packet holds in `bytes` and gives back when it returns to the pool
  // (or with release_bytes). Off (size 0) unless a host interface asks for it.
  void enable_bytes(std::size_t size) {
    if (byte_size_ == 0) byte_size_ = size;
  }
  std::uint8_t* get_bytes() {
    if (free_bytes_.empty()) {
      byte_chunks_.emplace_back(new std::uint8_t[byte_size_ * kByteChunk]);
      for (std::size_t i = 0; i < kByteChunk; ++i) free_bytes_.push_back(byte_chunks_.back().get() + i * byte_size_);
    }
    std::uint8_t* b = free_bytes_.back();
    free_bytes_.pop_back();
    return b;
  }
  void release_bytes(Packet* p) {
    free_bytes_.push_back(p->bytes);
    p->bytes = nullptr;
  }
  std::size_t bytes_in_use() const { return byte_chunks_.size() * kByteChunk - free_bytes_.size(); }

 private:
  // Chunks come from huge-page memory: packets in flight are touched at random all over the pool.
  void grow() {
    Packet* c = static_cast<Packet*>(allocate_huge(chunk_ * sizeof(Packet)));
    // A switch's VOQ entries keep a packet's address in 48 bits (VoqEntry, tlm/model/voq.h).
    if ((reinterpret_cast<std::uintptr_t>(c + chunk_) >> 48) != 0) {
      free_huge(c);
      throw std::runtime_error("packet pool: memory above the 48-bit user address space");
    }
    chunks_.emplace_back(c);
    for (std::size_t i = 0; i < chunk_; ++i) {
      new (&c[i]) Packet{};
      c[i].next = free_;
      free_ = &c[i];
    }
  }
  struct ChunkDelete {
    void operator()(Packet* c) const { free_huge(c); }  // Packet is trivially destructible
  };
  static_assert(std::is_trivially_destructible_v<Packet>);
  std::size_t chunk_;
  std::vector<std::unique_ptr<Packet, ChunkDelete>> chunks_;
  Packet* free_ = nullptr;
  std::size_t in_use_ = 0;
  std::uint64_t next_id_ = 0;
  static constexpr std::size_t kByteChunk = 256;
  std::size_t byte_size_ = 0;
  std::vector<std::unique_ptr<std::uint8_t[]>> byte_chunks_;
  std::vector<std::uint8_t*> free_bytes_;
};

}  // namespace netasic
