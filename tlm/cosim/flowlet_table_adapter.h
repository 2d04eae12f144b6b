// Internal to tlm/cosim: what both flowlet table co-simulation adapters share (docs/cosim.md).
//   impl = rtl     Verilator's C++ output (flowlet_table_rtl.cpp)
//   impl = rtl_sc  Verilator's SystemC output (flowlet_table_rtl_sc.cpp)
// RtlFlowletTable<Pins> is FlowletTableIf on the handshake core (rtl_handshake.h); an adapter supplies
// `Pins`: the core's clock/reset/handshake pins and
//
//     Pins(const std::string& owner, const FlowletPoint& point);  // builds the model
//     void seed(const Rng& rng);             // seed_i = the generator's state (no evaluation)
//     void drive(bool check, const WideKey& key, std::uint32_t port_count);  // the request fields
//     FlowletResult response() const;        // port, new flowlet, index
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tlm/blocks/flowlet_table.h"
#include "tlm/common/error.h"
#include "tlm/cosim/rtl_handshake.h"

namespace netasic::cosim {

// A Verilated flowlet table: Entries `entries`, KeyWidth 104, PortWidth 8 (what tb/config/switch.cpp
// configures for LetFlow).
struct FlowletPoint {
  const char* name;
  std::uint32_t entries;
};
inline constexpr unsigned kFlowletKeyBits = 104, kFlowletPortBits = 8;

// FlowletTableIf answered by one Verilated rtl/flowlet_table.sv behind `Pins`.
//
// Time: the RTL ages entries only when it runs its CHECK sweep; the model applies the sweeps of
// floor(now / delta) lazily, per entry, when the entry is accessed. Before each access the adapter issues
// the CHECK requests for the sweeps since the previous access (at most two: two sweeps invalidate every
// entry not accessed in between, a third changes nothing), which leaves every entry as the model's sweeps
// would. The RTL clock itself is local to the table and not tied to network time.
//
// Random ports: the RTL draws from its own xoshiro256**, loaded at reset with the state of the switch's
// random stream; the adapter resets the RTL at the table's first access, when the model would first draw
// from that stream, and advances the stream by one draw for every new flowlet the RTL answers, as the
// model does. Another part of the switch drawing from the same stream (e.g. switch.flow_control = bfc)
// would make the two sources differ; the adapter detects that and throws ModelError.
//
// Statistics (occupancy as of each entry's last access, high water, flowlets, collisions) are kept from
// the RTL's answers with the model's per-entry bookkeeping; an answer that contradicts it (a new flowlet
// on an entry the bookkeeping holds valid, or the reverse) throws ModelError.
template <class Pins>
class RtlFlowletTable final : public FlowletTableIf {
 public:
  RtlFlowletTable(const FlowletTableConfig& config, const std::string& owner, const FlowletPoint& point,
                  const char* impl)
      : config_(config), point_(point), hs_(std::make_unique<Pins>(owner, point), owner, "flowlet_table", point.name, impl),
        entries_(config.entries) {}

  const FlowletTableConfig& config() const override { return config_; }

  FlowletResult access_at_sweep(const WideKey& key, std::uint32_t port_count, Rng& rng, std::uint64_t sweeps) override {
    if (port_count < 1 || port_count > (1u << config_.port_bits))
      throw ModelError(hs_.name() + ": port_count outside 1 .. 2^port_bits");
    if (!key.fits(kFlowletKeyBits)) throw ModelError(hs_.name() + ": key wider than 104 bits");
    if (!started_) {
      start(rng, sweeps);
    } else {
      for (std::uint64_t k = swept_; k < sweeps && k < swept_ + 2; ++k) check();
      swept_ = std::max(swept_, sweeps);
    }
    FlowletResult r{};
    hs_.pins().drive(false, key, port_count);
    hs_.transact("access", config_.access_latency, config_.entries + 64, 64, [&] { return where(key, port_count); },
                 [&] { r = hs_.pins().response(); });
    account(key, r, sweeps, rng);
    return r;
  }

  std::uint32_t occupancy() const override { return occupancy_; }
  std::uint32_t high_water() const override { return high_water_; }
  std::uint64_t flowlets() const override { return flowlets_; }
  std::uint64_t collisions() const override { return collisions_; }

 private:
  struct Entry {  // the model's per-entry bookkeeping (FlowletTable::Entry without the port)
    bool valid = false;
    bool age = false;
    WideKey last_key{};
    std::uint64_t swept = 0;
  };

  // Reset with the switch's stream as the seed; the RAM clear that follows delays the first request.
  void start(const Rng& rng, std::uint64_t sweeps) {
    hs_.pins().seed(rng);
    hs_.reset(4);
    stream_ = rng;
    swept_ = sweeps;
    started_ = true;
  }

  void check() {
    hs_.pins().drive(true, WideKey{}, 1);
    hs_.transact("check", config_.entries + config_.check_overhead, 64, config_.entries + 64,
                 [] { return std::string("check"); }, [] {});
  }

  std::string where(const WideKey& key, std::uint32_t port_count) const {
    std::ostringstream s;
    s << "access (key " << std::hex << key.hi << ':' << key.lo << std::dec << " port_count " << port_count << ")";
    return s.str();
  }

  static bool same(const Rng& a, const Rng& b) {
    for (int i = 0; i < 4; ++i)
      if (a.state(i) != b.state(i)) return false;
    return true;
  }

  void account(const WideKey& key, const FlowletResult& r, std::uint64_t sweeps, Rng& rng) {
    if (r.index >= config_.entries) throw ModelError(hs_.name() + ": index out of range");
    Entry& e = entries_[r.index];
    for (std::uint64_t k = e.swept; k < sweeps && k < e.swept + 2 && e.valid; ++k) {
      if (e.age) e.valid = false;
      else e.age = true;
    }
    live_.advance(sweeps);
    live_.touch(e.valid, e.swept);  // the model's count of what the RTL's sweeps leave valid
    occupancy_ = live_.count();
    high_water_ = std::max(high_water_, occupancy_);
    e.swept = std::max(e.swept, sweeps);
    if (e.valid == r.new_flowlet)
      throw ModelError(hs_.name() + ": " + where(key, 0) + ": the RTL answered " +
                       (r.new_flowlet ? "a new flowlet" : "an existing flowlet") + " for entry " +
                       std::to_string(r.index) + ", which the table's state says is " + (e.valid ? "valid" : "invalid"));
    e.age = false;
    if (!r.new_flowlet) {
      if (e.last_key != key) ++collisions_;
      return;
    }
    if (!same(rng, stream_))
      throw ModelError(hs_.name() + ": the switch's random stream was drawn from by another part of the switch; "
                       "the RTL's random source (loaded from that stream at the first flowlet) cannot follow it, so "
                       "LetFlow co-simulation needs a switch whose flow control draws no random numbers");
    rng.next();  // the model's rng.below(port_count)
    stream_ = rng;
    e.valid = true;
    e.last_key = key;
    ++flowlets_;
  }

  FlowletTableConfig config_;
  FlowletPoint point_;
  RtlHandshake<Pins> hs_;
  std::vector<Entry> entries_;
  bool started_ = false;
  std::uint64_t swept_ = 0;  // checker sweeps the RTL has run (or that found it empty)
  Rng stream_;               // the switch's stream as the RTL's generator has it
  FlowletLiveCount live_;
  std::uint32_t occupancy_ = 0;
  std::uint32_t high_water_ = 0;
  std::uint64_t flowlets_ = 0;
  std::uint64_t collisions_ = 0;
};

// A Verilated point and how to build its table.
using FlowletPointFactory = std::unique_ptr<FlowletTableIf> (*)(const FlowletTableConfig&, const std::string&,
                                                                const FlowletPoint&);
struct FlowletPointEntry {
  FlowletPoint info;
  FlowletPointFactory make;
};

inline std::string describe(const FlowletPoint& p) {
  return std::string(p.name) + " (" + std::to_string(p.entries) + " entries, key 104 bits, port 8 bits)";
}

// The table for `config` from `points`, or InputError naming the key and listing the points.
inline std::unique_ptr<FlowletTableIf> make_flowlet_from_points(const std::vector<FlowletPointEntry>& points,
                                                                const char* impl, const FlowletTableConfig& config,
                                                                const std::string& owner) {
  const auto fits = [&](const FlowletPoint& i) {
    return i.entries == config.entries && config.key_bits == kFlowletKeyBits && config.port_bits == kFlowletPortBits;
  };
  const auto unmatched = [&] {
    std::ostringstream s;
    s << "switch.flowlet_table.impl = " << impl << ": no Verilated flowlet table for letflow.entries = "
      << config.entries << " (key " << config.key_bits << " / port " << config.port_bits << " bits).";
    return s.str();
  };
  const FlowletPointEntry& p = find_point(points, fits, unmatched);
  return p.make(config, owner, p.info);
}

}  // namespace netasic::cosim
