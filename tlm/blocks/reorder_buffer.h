// NIC rearrange buffer with ACK/NACK end-to-end flow control (Martinez et al., "In-Order Packet Delivery
// in Interconnection Networks using Adaptive Routing", IPDPS 2005, Sections 3.1 and 3.2).
//
// Per connection: the next expected sequence number and a rearrange buffer of `buffer_units` units.
//   expected packet  -> deliver it and every stored packet that follows it in sequence, then one
//                       cumulative ACK sn (sn = the last delivered);
//   early packet     -> stored if its units fit;
//                       else reject stored packets with a greater sequence number, greatest first,
//                       until it fits, store it and NACK each rejected packet;
//                       if rejecting all of them would not make room, reject only the arrival (NACK);
//   old packet (a duplicate of one already delivered) -> ACK expected-1 again (the paper's sources
//                       retransmit only on NACK, so a duplicate only means an ACK was lost).
// Sequence numbers are seq_bits wide and wrap: "greater" is serial-number order relative to the
// expected number (an offset below 2^(seq_bits-1) is early, at or above it is old), so a source must keep
// fewer than 2^(seq_bits-1) packets outstanding.
//
// Memory: static (one partition of buffer_units per connection, the RTL's organisation) or dynamic (a
// shared pool of pool_units, each connection capped at buffer_units: Section 3.2's dynamic allocation,
// model only). MBS / MMS (the paper's Tables 1-2): the most units one connection / all connections held.
//
// Each arrival returns its events in the order the RTL emits them, one per cycle on a valid/ready
// stream (the last one flagged): latency `latency` cycles (RTL: 3) from request accepted to the first
// event, then one event per accepted cycle. Storage (static): connections x (seq_bits expected) +
// connections x slots x (valid 1 + seq_bits + unit_bits), slots = buffer_units.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace netasic {

enum class ReorderMemory { static_partition, dynamic_pool };

struct ReorderBufferConfig {
  unsigned connections = 64;        // 1 .. 65536
  unsigned seq_bits = 16;           // 3 .. 32
  std::uint32_t buffer_units = 8;   // per connection (static) or cap (dynamic): 1 .. 2^20
  std::uint32_t max_packet_units = 1;  // units one packet occupies at most: 1 .. buffer_units
  ReorderMemory memory = ReorderMemory::static_partition;
  std::uint64_t pool_units = 0;     // dynamic_pool: 1 .. connections * buffer_units
  unsigned latency = 3;
};

enum class ReorderEventKind { deliver, ack, nack, stored };

struct ReorderEvent {
  ReorderEventKind kind;
  std::uint32_t sn;
  friend bool operator==(const ReorderEvent& a, const ReorderEvent& b) { return a.kind == b.kind && a.sn == b.sn; }
};

// What the NIC's reorder transport uses of a rearrange buffer. ReorderBuffer (the C++ model) implements it;
// so does the co-simulation adapter (tlm/cosim/reorder_buffer_rtl.h), the Verilated RTL behind the same calls.
class ReorderBufferIf {
 public:
  virtual ~ReorderBufferIf() = default;
  // A packet of `units` units (1 .. max_packet_units) with sequence number sn arrives on `connection`.
  virtual std::vector<ReorderEvent> arrive(unsigned connection, std::uint32_t sn, std::uint32_t units) = 0;
  virtual std::uint32_t expected(unsigned connection) const = 0;
  virtual std::uint32_t used_units(unsigned connection) const = 0;
  virtual std::uint64_t total_units() const = 0;
  virtual std::uint32_t mbs() const = 0;
  virtual std::uint64_t mms() const = 0;
  virtual std::uint64_t rejections() const = 0;
  virtual std::uint64_t delivered() const = 0;
  virtual std::uint64_t duplicates() const = 0;
  virtual const ReorderBufferConfig& config() const = 0;
};

// Builds the rearrange buffer a NIC uses: the C++ model unless a co-simulation adapter is plugged in.
// `owner` is the NIC's name (messages, latency trace).
using ReorderBufferFactory =
    std::function<std::unique_ptr<ReorderBufferIf>(const ReorderBufferConfig& config, const std::string& owner)>;

class ReorderBuffer final : public ReorderBufferIf {
 public:
  explicit ReorderBuffer(const ReorderBufferConfig& config);

  std::vector<ReorderEvent> arrive(unsigned connection, std::uint32_t sn, std::uint32_t units) override;
  std::vector<ReorderEvent> arrive(unsigned connection, std::uint32_t sn) { return arrive(connection, sn, 1); }

  std::uint32_t expected(unsigned connection) const override { return conns_.at(connection).expected; }
  std::uint32_t used_units(unsigned connection) const override { return conns_.at(connection).used; }
  std::uint64_t total_units() const override { return total_; }
  std::uint32_t mbs() const override { return mbs_; }
  std::uint64_t mms() const override { return mms_; }
  std::uint64_t rejections() const override { return rejections_; }
  std::uint64_t delivered() const override { return delivered_; }
  std::uint64_t duplicates() const override { return duplicates_; }
  const ReorderBufferConfig& config() const override { return config_; }

 private:
  struct Conn {
    std::uint32_t expected = 0;
    std::uint32_t used = 0;
    std::map<std::uint32_t, std::uint32_t> stored;  // offset from expected -> units
  };
  std::uint32_t offset(const Conn& c, std::uint32_t sn) const { return (sn - c.expected) & seq_mask_; }
  bool room(const Conn& c, std::uint32_t units, std::uint32_t freed) const;

  ReorderBufferConfig config_;
  std::uint32_t seq_mask_;
  std::vector<Conn> conns_;
  std::uint64_t total_ = 0;
  std::uint32_t mbs_ = 0;
  std::uint64_t mms_ = 0;
  std::uint64_t rejections_ = 0, delivered_ = 0, duplicates_ = 0;
};

const char* to_string(ReorderEventKind k);

}  // namespace netasic
