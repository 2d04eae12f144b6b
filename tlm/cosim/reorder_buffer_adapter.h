// Internal to tlm/cosim: what both reorder buffer co-simulation adapters share (docs/cosim.md).
//   impl = rtl     Verilator's C++ output (reorder_buffer_rtl.cpp)
//   impl = rtl_sc  Verilator's SystemC output (reorder_buffer_rtl_sc.cpp)
// RtlReorderBuffer<Pins> is ReorderBufferIf on the handshake core (rtl_handshake.h); an adapter supplies
// `Pins`: the core's clock/reset/handshake pins and
//
//     Pins(const std::string& owner, const ReorderPoint& point);  // builds the model
//     void drive(unsigned connection, std::uint32_t sn, std::uint32_t units);  // the request fields
//     ReorderBeat beat() const;              // the current event: kind, sn, last
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tlm/blocks/reorder_buffer.h"
#include "tlm/common/error.h"
#include "tlm/cosim/rtl_handshake.h"

namespace netasic::cosim {

// A Verilated reorder buffer: SeqBits 32 (what tb/config/nic.cpp configures), `connections` connections
// (a NIC with fewer uses the first ones), BufferUnits, MaxPacketUnits.
struct ReorderPoint {
  const char* name;
  std::uint32_t connections;
  std::uint32_t buffer_units;
  std::uint32_t max_packet_units;
};
inline constexpr unsigned kReorderSeqBits = 32;

struct ReorderBeat {
  unsigned kind;  // 0 DELIVER, 1 ACK, 2 NACK, 3 STORED (ReorderEventKind's order)
  std::uint32_t sn;
  bool last;
};

// ReorderBufferIf answered by one Verilated rtl/reorder_buffer.sv behind `Pins`: each arrive() is one
// request, whose events the RTL streams one per cycle (the last flagged); the latency is that of the first
// event. The RTL keeps no time-dependent state. Statistics (expected numbers, units in use, MBS, MMS,
// rejections, deliveries, duplicates) are kept by the adapter from the events, with the units each stored
// packet arrived with.
template <class Pins>
class RtlReorderBuffer final : public ReorderBufferIf {
 public:
  RtlReorderBuffer(const ReorderBufferConfig& config, const std::string& owner, const ReorderPoint& point,
                   const char* impl)
      : config_(config), point_(point),
        hs_(std::make_unique<Pins>(owner, point), owner, "reorder_buffer", point.name, impl), conns_(config.connections) {
    hs_.reset(4);
  }

  std::vector<ReorderEvent> arrive(unsigned connection, std::uint32_t sn, std::uint32_t units) override {
    if (connection >= conns_.size()) throw ModelError(hs_.name() + ": connection out of range");
    if (units < 1 || units > config_.max_packet_units)
      throw ModelError(hs_.name() + ": units outside 1 .. max_packet_units");
    std::vector<ReorderEvent> ev;
    hs_.pins().drive(connection, sn, units);
    hs_.transact("arrive", config_.latency, point_.connections + 64, 64,
                 [&] { return where(connection, sn, units); },
                 [&] {
                   const ReorderBeat b = hs_.pins().beat();
                   ev.push_back({static_cast<ReorderEventKind>(b.kind & 3), b.sn});
                   return b.last;
                 });
    account(conns_[connection], sn, units, ev);
    return ev;
  }

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
    std::map<std::uint32_t, std::uint32_t> stored;  // sn -> units, as the STORED events left them
  };

  std::string where(unsigned connection, std::uint32_t sn, std::uint32_t units) const {
    std::ostringstream s;
    s << "arrive (connection " << connection << " sn " << sn << " units " << units << ")";
    return s.str();
  }

  void release(Conn& c, std::uint32_t sn) {
    const auto it = c.stored.find(sn);
    if (it == c.stored.end()) return;
    c.used -= it->second;
    total_ -= it->second;
    c.stored.erase(it);
  }

  // The statistics the model keeps, from the events in the order the RTL emitted them.
  void account(Conn& c, std::uint32_t sn, std::uint32_t units, const std::vector<ReorderEvent>& ev) {
    const bool single = ev.size() == 1;
    if (single && (ev[0].kind == ReorderEventKind::ack ||
                   (ev[0].kind == ReorderEventKind::stored && c.stored.count(sn)))) {
      ++duplicates_;  // already delivered (ACK again) or already stored
      return;
    }
    for (const ReorderEvent& e : ev) {
      switch (e.kind) {
        case ReorderEventKind::deliver:
          release(c, e.sn);
          ++delivered_;
          c.expected = e.sn + 1;
          break;
        case ReorderEventKind::nack:
          release(c, e.sn);
          ++rejections_;
          break;
        case ReorderEventKind::stored:
          c.stored.emplace(e.sn, units);
          c.used += units;
          total_ += units;
          mbs_ = std::max(mbs_, c.used);
          mms_ = std::max(mms_, total_);
          break;
        case ReorderEventKind::ack: break;
      }
    }
  }

  ReorderBufferConfig config_;
  ReorderPoint point_;
  RtlHandshake<Pins> hs_;
  std::vector<Conn> conns_;
  std::uint64_t total_ = 0;
  std::uint32_t mbs_ = 0;
  std::uint64_t mms_ = 0;
  std::uint64_t rejections_ = 0, delivered_ = 0, duplicates_ = 0;
};

// A Verilated point and how to build its buffer.
using ReorderPointFactory = std::unique_ptr<ReorderBufferIf> (*)(const ReorderBufferConfig&, const std::string&,
                                                                 const ReorderPoint&);
struct ReorderPointEntry {
  ReorderPoint info;
  ReorderPointFactory make;
};

inline std::string describe(const ReorderPoint& p) {
  std::ostringstream s;
  s << p.name << " (up to " << p.connections << " connections, " << p.buffer_units << " units per connection, "
    << p.max_packet_units << " per packet, 32-bit sequence numbers)";
  return s.str();
}

// The buffer for `config` from `points` (the first with enough connections), or InputError naming the keys
// and listing the points.
inline std::unique_ptr<ReorderBufferIf> make_reorder_from_points(const std::vector<ReorderPointEntry>& points,
                                                                 const char* impl, const ReorderBufferConfig& config,
                                                                 const std::string& owner) {
  const auto fits = [&](const ReorderPoint& i) {
    return config.memory == ReorderMemory::static_partition && config.seq_bits == kReorderSeqBits &&
           i.buffer_units == config.buffer_units && i.max_packet_units == config.max_packet_units &&
           i.connections >= config.connections;
  };
  const auto unmatched = [&] {
    std::ostringstream s;
    s << "nic.reorder_buffer.impl = " << impl << " (" << owner << "): no Verilated reorder buffer for "
      << config.connections << " connections, " << config.buffer_units
      << " units per connection (nic.reorder.buffer_bytes / nic.reorder.unit_bytes), " << config.max_packet_units
      << " units per packet ((nic.mtu_bytes + nic.header_bytes) / nic.reorder.unit_bytes), nic.reorder.memory = "
      << (config.memory == ReorderMemory::static_partition ? "static" : "dynamic (the RTL has static partitions only)")
      << ".";
    return s.str();
  };
  const ReorderPointEntry& p = find_point(points, fits, unmatched, "static memory; ");
  return p.make(config, owner, p.info);
}

}  // namespace netasic::cosim
