// A NIC's host side (nic.host_interface): what a driver model or an Accellera-style initiator talks to.
//
// Three TLM-2.0 base-protocol faces and a signal (docs/tlm.md, "NIC host interface"):
//   regs  a target: the register map below (queue base addresses, producer / consumer indices and
//         doorbells, interrupt status and mask, error status, counters), 32-bit registers, 64-bit counters;
//   dma   an initiator: reads send descriptors and payload bytes from host memory, writes received bytes
//         and completed descriptors back (blocking transport; an AT-only memory works through
//         tlm_utils' conversion);
//   irq   an sc_signal<bool>, high while (interrupt status & mask) != 0.
// A send descriptor names a buffer in host memory, a length and a destination host: the NIC reads the
// bytes, sends them as one message (a flow of MTU packets through the fabric, with its transport), and the
// packets carry the bytes (Packet::bytes). The destination's host interface takes the next receive
// descriptor at the message's first packet, writes each packet's bytes at its offset (direct data
// placement), and completes the descriptor when the whole message is delivered in order.
//
// Descriptors and registers are little-endian. Bad use is reported, never silently corrupting: a doorbell
// past the ring size, a descriptor or buffer outside host memory (the memory's address error), any other
// DMA error response, a descriptor the NIC cannot carry out, a message with no receive descriptor posted or
// larger than its buffer; each sets its bit in ERR_STATUS, counts, and raises the error interrupt.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <array>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "tlm/model/fabric.h"
#include "tlm/model/flow.h"

namespace netasic {

// Register offsets in the `regs` target.
namespace host_reg {
constexpr std::uint64_t kId = 0x000;          // RO: kIdValue
constexpr std::uint64_t kVersion = 0x004;     // RO: 1
constexpr std::uint64_t kHost = 0x008;        // RO: this NIC's host index
constexpr std::uint64_t kHosts = 0x00c;       // RO: hosts in the fabric
constexpr std::uint64_t kMtu = 0x010;         // RO: payload bytes per packet
constexpr std::uint64_t kMaxMessage = 0x014;  // RO: largest message length a descriptor may give
constexpr std::uint64_t kTxBaseLo = 0x020, kTxBaseHi = 0x024;  // RW: send ring address in host memory
constexpr std::uint64_t kTxSize = 0x028;  // RW: descriptors in the send ring (1..65536; resets head and tail)
constexpr std::uint64_t kTxHead = 0x02c;  // RO: next send descriptor the NIC reads (consumer index)
constexpr std::uint64_t kTxTail = 0x030;  // RW doorbell: one past the last descriptor posted (producer index)
constexpr std::uint64_t kRxBaseLo = 0x040, kRxBaseHi = 0x044;
constexpr std::uint64_t kRxSize = 0x048;
constexpr std::uint64_t kRxHead = 0x04c;
constexpr std::uint64_t kRxTail = 0x050;
constexpr std::uint64_t kIrqStatus = 0x060;  // RW1C: kIrq* bits
constexpr std::uint64_t kIrqMask = 0x064;    // RW: 1 = the bit drives irq
constexpr std::uint64_t kErrStatus = 0x068;  // RW1C: kErr* bits
constexpr std::uint64_t kErrAddrLo = 0x070, kErrAddrHi = 0x074;  // RO: host address of the latest error
constexpr std::uint64_t kCounters = 0x100;   // RO: 64-bit counters, HostCounter order, 8 bytes apart
constexpr std::uint32_t kIdValue = 0x4e534e41;  // "ANSN" in memory order
}  // namespace host_reg

constexpr std::uint32_t kIrqTxDone = 1u << 0;  // a send descriptor that asked for it completed
constexpr std::uint32_t kIrqRxDone = 1u << 1;  // a receive descriptor completed
constexpr std::uint32_t kIrqError = 1u << 2;   // ERR_STATUS gained a bit

constexpr std::uint32_t kErrDoorbell = 1u << 0;    // a tail written past the ring size (or no ring)
constexpr std::uint32_t kErrAddress = 1u << 1;     // host memory answered an address error
constexpr std::uint32_t kErrDma = 1u << 2;         // host memory answered any other error (or no memory)
constexpr std::uint32_t kErrDescriptor = 1u << 3;  // length 0 or over the maximum, or a bad destination
constexpr std::uint32_t kErrRxNoBuffer = 1u << 4;  // a message arrived with no receive descriptor posted
constexpr std::uint32_t kErrRxTruncated = 1u << 5; // a message longer than its receive buffer

// Descriptor status word (written back by the NIC): kDescDone, kDescError, and the kErr* bit in 8..15.
constexpr std::uint32_t kDescDone = 1u << 0;
constexpr std::uint32_t kDescError = 1u << 1;
constexpr std::uint32_t kTxInterrupt = 1u << 0;  // TxDescriptor::flags: raise kIrqTxDone on completion

struct TxDescriptor {        // 32 bytes in the send ring
  std::uint64_t addr;        // payload in host memory
  std::uint32_t length;      // bytes
  std::uint32_t dst_host;
  std::uint32_t tag;         // handed to the receiver in its descriptor
  std::uint32_t flags;       // kTxInterrupt
  std::uint32_t status;      // written by the NIC
  std::uint32_t reserved;
};
struct RxDescriptor {        // 32 bytes in the receive ring
  std::uint64_t addr;        // buffer in host memory
  std::uint32_t capacity;    // bytes
  std::uint32_t src_host;    // written by the NIC, as are the fields below
  std::uint32_t tag;
  std::uint32_t length;      // bytes of the message (those beyond capacity are not written)
  std::uint32_t status;
  std::uint32_t reserved;
};
static_assert(sizeof(TxDescriptor) == 32 && sizeof(RxDescriptor) == 32, "descriptors are 32 bytes");
constexpr std::uint64_t kDescStatusOffset = 24;

enum class HostCounter : std::uint32_t {
  tx_messages, tx_bytes, rx_messages, rx_bytes, interrupts,
  err_doorbell, err_address, err_dma, err_descriptor, err_rx_no_buffer, err_rx_truncated, count
};
const char* host_counter_name(HostCounter c);

// What a host interface asks of the fabric around it (the testbench's Simulation implements it).
class MessageFabric {
 public:
  virtual ~MessageFabric() = default;
  virtual std::uint32_t hosts() const = 0;
  // Starts a message of `bytes` from src to dst at the fabric's time; returns its flow id.
  virtual std::uint32_t start_message(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint32_t tag) = 0;
  // The tag a message's first packet carries to its receiver.
  virtual std::uint32_t tag_of(std::uint32_t flow) const = 0;
};

struct NicHostConfig {
  std::uint32_t mtu_bytes = 4096;
  Ps mmio_ps = 100 * kPsPerNs;            // a register access's latency (added to its delay)
  std::uint64_t max_message_bytes = 1u << 30;
};

class NicHost : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket_optional<NicHost> regs;
  tlm_utils::simple_initiator_socket_optional<NicHost> dma;
  sc_core::sc_signal<bool> irq;

  SC_HAS_PROCESS(NicHost);
  NicHost(const sc_core::sc_module_name& name, Fabric& fabric, FlowTable& flows, MessageFabric& messages,
          std::uint32_t host, const NicHostConfig& config);

  // From the NIC, inside the fabric's method: a data packet of a message this host sends gets its bytes; one
  // of a message this host receives gives its bytes up (both do nothing for a flow of the workload).
  void attach_bytes(const Flow& f, Packet* p);
  void take_bytes(const Flow& f, Packet* p);
  // From the flow table (FlowListener), inside the fabric's method.
  void sender_done(const Flow& f);
  void delivered(const Flow& f);

  std::uint64_t counter(HostCounter c) const { return counters_[static_cast<std::uint32_t>(c)]; }
  std::uint32_t host() const { return host_; }

 private:
  struct Ring {
    std::uint64_t base = 0;
    std::uint32_t size = 0, head = 0, tail = 0;
    std::uint64_t slot(std::uint32_t i) const { return base + std::uint64_t{i} * 32; }
  };
  struct TxMessage {
    std::uint64_t desc = 0;   // descriptor address
    std::uint32_t flags = 0;
    std::vector<std::uint8_t> bytes;
  };
  struct RxMessage {
    std::uint64_t desc = 0, addr = 0;
    std::uint32_t capacity = 0, error = 0;
    bool bound = false;       // a receive descriptor was taken
  };
  struct RxItem {
    enum Kind : std::uint8_t { open, data, complete } kind;
    std::uint32_t flow;
    sc_core::sc_time at;
    std::uint64_t offset = 0;
    std::vector<std::uint8_t> bytes;
  };

  void access(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  bool read_register(std::uint64_t a, std::uint32_t len, std::uint8_t* out) const;
  tlm::tlm_response_status write_register(std::uint64_t a, std::uint32_t v);
  // `doorbell`: what a new tail wakes (the send engine), or null (receive descriptors are taken on arrival).
  void ring_register(Ring& r, std::uint64_t field, std::uint32_t v, sc_core::sc_event* doorbell);
  void tx_engine();
  void send_one(std::uint64_t desc_addr);
  void tx_completions();
  void rx_engine();
  void rx_open(RxMessage& m);
  void rx_data(RxMessage& m, RxItem& it);
  void rx_complete(RxMessage& m, std::uint32_t flow);
  // One DMA transaction; returns 0 or the kErr* bit of its failure.
  std::uint32_t dma_access(tlm::tlm_command cmd, std::uint64_t addr, std::uint8_t* data, std::uint32_t len);
  void write_status(std::uint64_t desc, std::uint32_t status);
  void fail(std::uint32_t err, std::uint64_t addr);
  void raise(std::uint32_t irq_bits);
  void update_irq();
  void count(HostCounter c, std::uint64_t n = 1) { counters_[static_cast<std::uint32_t>(c)] += n; }
  sc_core::sc_time fabric_time() const { return sc_core::sc_time_stamp() + fabric_.annotate(0); }

  Fabric& fabric_;
  FlowTable& flows_;
  MessageFabric& messages_;
  std::uint32_t host_;
  NicHostConfig config_;
  Ring tx_, rx_;
  std::uint32_t irq_status_ = 0, irq_mask_ = 0, err_status_ = 0;
  std::uint64_t err_addr_ = 0;
  std::array<std::uint64_t, static_cast<std::size_t>(HostCounter::count)> counters_{};
  std::unordered_map<std::uint32_t, TxMessage> sending_;   // by flow id
  std::unordered_map<std::uint32_t, RxMessage> receiving_;
  std::deque<std::pair<std::uint32_t, sc_core::sc_time>> tx_done_;
  std::deque<RxItem> rx_items_;
  sc_core::sc_event tx_doorbell_, tx_done_ev_, rx_ev_, irq_ev_;
};

}  // namespace netasic
