// Flowlet table of LetFlow (Vanini et al., "Let It Flow", NSDI 2017, Section 3 "Flowlet detection" and
// "Load balancing decisions").
//
// CRC-32 of the flow key, modulo the (power-of-two) table size, picks one entry of {port, valid, age}.
// A packet that finds its entry valid follows the stored port and clears the age bit; otherwise a new
// flowlet starts: a port drawn uniformly at random among the candidates, valid set, age cleared.
// check() is the periodic checker (every delta): it sets the age bit of every valid entry whose age bit
// is clear and invalidates the entries already aged, so a flowlet times out after between delta and
// 2 delta of silence. Flows that hash to the same entry share it (collisions() counts packets that found
// a valid entry created by another key; the model keeps that key for the count only, the RTL and the
// paper's table do not store keys).
//
// Latency (cycles, request accepted -> response; FlowletLatency): access 3 (hash, RAM read, write-back);
// check entries + 2 (one read-modify-write per entry, pipelined over a 1R1W RAM).
// Storage per entry: port (port_bits) + valid (1) + age (1).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tlm/blocks/hash.h"
#include "tlm/common/rng.h"

namespace netasic {

struct FlowletTableConfig {
  std::uint32_t entries = 65536;  // 4 .. 2^24, a power of two
  unsigned key_bits = 104;        // 8 .. 128, a multiple of 8
  unsigned port_bits = 8;         // 1 .. 16
  unsigned access_latency = 3;    // cycles per lookup
  unsigned check_overhead = 2;    // check() takes entries + check_overhead cycles
};

struct FlowletResult {
  std::uint16_t port;
  bool new_flowlet;
  std::uint32_t index;
};

// The entries a checker sweeping every delta leaves valid, for a table aged lazily (access_at_sweep): those
// touched in the current sweep interval or the one before. The model and the co-simulation adapter count
// occupancy with it, so both report what the hardware table holds.
class FlowletLiveCount {
 public:
  // A lookup at sweep count `sweeps` (never decreasing): the intervals move on.
  void advance(std::uint64_t sweeps) {
    if (sweeps <= sweep_) return;
    prev_ = sweeps == sweep_ + 1 ? cur_ : 0;
    cur_ = 0;
    sweep_ = sweeps;
  }
  // The looked-up entry, `valid` after its own aging and last touched at `swept`, is touched now (a new
  // flowlet when it was not valid).
  void touch(bool valid, std::uint64_t swept) {
    if (valid) --(swept == sweep_ ? cur_ : prev_);
    ++cur_;
  }
  std::uint32_t count() const { return cur_ + prev_; }

 private:
  std::uint64_t sweep_ = 0;
  std::uint32_t cur_ = 0, prev_ = 0;
};

// What the network uses of a flowlet table: LetFlow's access at the checker's sweep count and the
// statistics. FlowletTable (the C++ model) implements it; so does the co-simulation adapter
// (tlm/cosim/flowlet_table_rtl.h), the Verilated RTL behind the same calls.
class FlowletTableIf {
 public:
  virtual ~FlowletTableIf() = default;
  virtual const FlowletTableConfig& config() const = 0;
  virtual FlowletResult access_at_sweep(const WideKey& key, std::uint32_t port_count, Rng& rng,
                                        std::uint64_t sweeps) = 0;
  virtual std::uint32_t occupancy() const = 0;
  virtual std::uint32_t high_water() const = 0;
  virtual std::uint64_t flowlets() const = 0;
  virtual std::uint64_t collisions() const = 0;
  unsigned entry_bits() const { return config().port_bits + 2; }
  std::uint64_t storage_bits() const { return std::uint64_t{entry_bits()} * config().entries; }
};

// Builds the table a switch uses: the C++ model unless a co-simulation adapter is plugged in. `owner` is
// the switch's name (messages, latency trace).
using FlowletTableFactory =
    std::function<std::unique_ptr<FlowletTableIf>(const FlowletTableConfig& config, const std::string& owner)>;

class FlowletTable final : public FlowletTableIf {
 public:
  explicit FlowletTable(const FlowletTableConfig& config);

  const FlowletTableConfig& config() const override { return config_; }

  // A packet of `key` arrives; on a new flowlet the port is rng.below(port_count) (0 .. port_count-1,
  // the index into the routing protocol's list of candidate ports). port_count in 1 .. 2^port_bits.
  FlowletResult access(const WideKey& key, std::uint32_t port_count, Rng& rng);
  // The checker sweep, every delta.
  void check();
  // access() for a table whose checker has swept `sweeps` times since the start (floor(now / delta)):
  // the sweeps this entry has not seen yet are applied to it first (two are enough: the first sets its
  // age bit, the second clears its valid bit), which gives exactly what check() every delta would, at the
  // cost of one entry instead of the whole table. A network model uses this instead of check(), so an
  // idle switch costs nothing. occupancy() and high_water() still count what check() would leave valid:
  // entries touched in the current or the previous checker interval (the others have expired, whether
  // or not they were touched since), kept as two counters.
  FlowletResult access_at_sweep(const WideKey& key, std::uint32_t port_count, Rng& rng,
                                std::uint64_t sweeps) override;

  std::uint32_t index_of(const WideKey& key) const { return crc32_key(key, config_.key_bits) & (config_.entries - 1); }
  unsigned access_latency() const { return config_.access_latency; }
  unsigned check_latency() const { return config_.entries + config_.check_overhead; }

  bool valid(std::uint32_t index) const { return entries_.at(index).valid; }
  bool aged(std::uint32_t index) const { return entries_.at(index).age; }
  std::uint32_t occupancy() const override { return occupancy_; }
  std::uint32_t high_water() const override { return high_water_; }
  std::uint64_t flowlets() const override { return flowlets_; }
  std::uint64_t collisions() const override { return collisions_; }

 private:
  struct Entry {
    std::uint16_t port = 0;
    bool valid = false;
    bool age = false;
    WideKey last_key{};  // statistics only
    std::uint64_t swept = 0;  // access_at_sweep: checker sweeps already applied to this entry
  };
  FlowletTableConfig config_;
  std::vector<Entry> entries_;
  std::uint32_t occupancy_ = 0;
  std::uint32_t high_water_ = 0;
  FlowletLiveCount live_;  // access_at_sweep's occupancy
  std::uint64_t flowlets_ = 0;
  std::uint64_t collisions_ = 0;
};

}  // namespace netasic
