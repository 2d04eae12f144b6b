// Flowcut table: per-flow state of Flowcut switching (De Sensi et al., "Flowcut Switching", Section II-A
// table operations, Section II-B drain state and RTT averages, Section III-A2 memory model / Table III).
//
// The switch (full-switch and ingress-only variants) and the NIC (NIC-only variant) keep one entry per
// active flow, i.e. per flow with in-flight bytes: an entry is created on the first packet of a flowcut,
// grows with add_bytes() per forwarded packet, shrinks with ack_subtract() per ACK and disappears when the
// in-flight count reaches zero, so the next packet can start a new flowcut on another path.
//
// Two organisations behind one interface, like the two RTL implementations (rtl/flowcut_table_cam.sv,
// rtl/flowcut_table_hashed.sv):
//   fully_associative  a CAM: a key may use any free entry (lowest free index first);
//   set_associative    CRC-32(key) mod sets picks a set of `ways` entries (lowest free way first); a set
//                      can be full while the table is not, reported as InsertStatus::set_full.
//
// Operations and their latency (cycles from request accepted to response valid, a constructor
// parameter each, FlowcutLatency; the RTL defaults are cam 2 for every operation, hashed 3):
//   lookup(key)                      -> index or none (cache miss)
//   insert(key, out_port, in_port)   -> status (ok / exists / full / set_full) + index
//   add_bytes(index, n)              -> status (ok / saturated / invalid_index) + in-flight bytes
//   ack_subtract(key, n)             -> found, remaining, deleted (entry freed when in-flight hits 0)
//   erase(key)                       -> found
//   read(index) / set_rtt(index,...) / set_drain(index, on): the RTT and drain fields (latency `access`)
//
// Storage per entry (storage() reports it, Table III of the paper): out port and in port (port_bits
// each; the in port only in the full-switch variant), in-flight bytes (24 bits: up to 16 MiB - 1,
// saturating; the paper sizes it for 2 MiB per flow), normalized-RTT moving average (16), last
// normalized RTT (16), moving average of the RTT difference (16): 11 bytes full switch, 10 ingress-only
// and NIC-only with 8-bit ports; plus the key, a valid bit and a drain bit the paper does not count.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tlm/blocks/hash.h"

namespace netasic {

enum class FlowcutVariant { full_switch, ingress_only, nic_only };
enum class FlowcutOrganization { fully_associative, set_associative };

// Cycles from request accepted to response valid, per operation.
struct FlowcutLatency {
  unsigned lookup = 2;
  unsigned insert = 2;
  unsigned add_bytes = 2;
  unsigned ack_subtract = 2;
  unsigned erase = 2;
  unsigned access = 2;  // read / set_rtt / set_drain by index
  static FlowcutLatency uniform(unsigned cycles) {
    return FlowcutLatency{cycles, cycles, cycles, cycles, cycles, cycles};
  }
};

struct FlowcutTableConfig {
  std::uint32_t entries = 4096;  // 4 .. 1,048,576 (2^20)
  FlowcutOrganization organization = FlowcutOrganization::fully_associative;
  unsigned ways = 4;                // set_associative only: 1 .. 16, entries/ways a power of two
  unsigned key_bits = 104;          // 8 .. 128, a multiple of 8 (104: 5-tuple, 32: NIC flow id)
  FlowcutVariant variant = FlowcutVariant::full_switch;
  unsigned port_bits = 8;           // 1 .. 16 (8: up to 256 ports)
  unsigned inflight_bits = 24;      // 4 .. 32
  unsigned histogram_buckets = 16;  // 1 .. 4096 (at most entries + 1 are used)
  FlowcutLatency latency{};
};

enum class InsertStatus { ok, exists, full, set_full };
enum class AddStatus { ok, saturated, invalid_index };

struct InsertResult {
  InsertStatus status;
  std::uint32_t index;  // valid for ok and exists
};
struct AddResult {
  AddStatus status;
  std::uint32_t inflight;  // after the operation (the saturated value on saturation)
};
struct AckResult {
  bool found;
  std::uint32_t remaining;
  bool deleted;
  bool underflow;  // the ACK carried more bytes than were in flight (remaining clamps to 0)
};

// One entry as software sees it.
struct FlowcutEntry {
  bool valid = false;
  WideKey key{};
  std::uint16_t out_port = 0;
  std::uint16_t in_port = 0;  // 0 unless full_switch
  std::uint32_t inflight = 0;
  std::uint16_t rtt_avg = 0;       // normalized-RTT moving average
  std::uint16_t last_rtt = 0;      // normalized RTT of the last ACK
  std::uint16_t rtt_diff_avg = 0;  // moving average of the RTT difference
  bool draining = false;
};

struct FlowcutField {
  std::string name;
  unsigned bits;
  bool counted_by_paper;  // part of the paper's per-flow state (Table III)
};
struct FlowcutStorage {
  std::vector<FlowcutField> fields;  // per entry, the key included
  unsigned state_bits;               // paper-counted state (no key, valid or drain bit)
  unsigned entry_bits;               // everything stored per entry
  std::uint64_t total_bits;          // entry_bits * entries
  unsigned state_bytes() const { return (state_bits + 7) / 8; }
};

// The operations the switch and the NIC use. The C++ model implements it; so does the co-simulation
// adapter that answers from the Verilated RTL (switch.flowcut_table.impl = rtl), so either can sit in a
// running network.
class FlowcutTableIf {
 public:
  virtual ~FlowcutTableIf() = default;
  virtual const FlowcutTableConfig& config() const = 0;
  virtual std::optional<std::uint32_t> lookup(const WideKey& key) = 0;
  virtual InsertResult insert(const WideKey& key, std::uint16_t out_port, std::uint16_t in_port = 0) = 0;
  virtual AddResult add_bytes(std::uint32_t index, std::uint32_t bytes) = 0;
  virtual AckResult ack_subtract(const WideKey& key, std::uint32_t bytes) = 0;
  virtual bool erase(const WideKey& key) = 0;
  virtual FlowcutEntry read(std::uint32_t index) const = 0;
  virtual bool set_rtt(std::uint32_t index, std::uint16_t rtt_avg, std::uint16_t last_rtt, std::uint16_t rtt_diff_avg) = 0;
  virtual bool set_drain(std::uint32_t index, bool draining) = 0;
  virtual FlowcutStorage storage() const = 0;
  virtual std::uint32_t occupancy() const = 0;
  virtual std::uint32_t high_water() const = 0;
  virtual const std::vector<std::uint64_t>& occupancy_histogram() const = 0;
  virtual std::uint32_t histogram_bucket_width() const = 0;
  virtual std::uint64_t insert_failures() const = 0;
};

class FlowcutTable : public FlowcutTableIf {
 public:
  explicit FlowcutTable(const FlowcutTableConfig& config);

  const FlowcutTableConfig& config() const override { return config_; }
  std::uint32_t sets() const { return sets_; }
  std::uint32_t inflight_max() const { return inflight_max_; }

  std::optional<std::uint32_t> lookup(const WideKey& key) override;
  InsertResult insert(const WideKey& key, std::uint16_t out_port, std::uint16_t in_port = 0) override;
  AddResult add_bytes(std::uint32_t index, std::uint32_t bytes) override;
  AckResult ack_subtract(const WideKey& key, std::uint32_t bytes) override;
  bool erase(const WideKey& key) override;

  // Entry fields by index; an index outside the table or of a free entry returns/ignores nothing
  // (read returns an entry with valid == false, the setters return false).
  FlowcutEntry read(std::uint32_t index) const override;
  bool set_rtt(std::uint32_t index, std::uint16_t rtt_avg, std::uint16_t last_rtt, std::uint16_t rtt_diff_avg) override;
  bool set_drain(std::uint32_t index, bool draining) override;

  // The set a key maps to (set_associative), the hash the RTL computes; 0 for fully_associative.
  std::uint32_t set_of(const WideKey& key) const;

  FlowcutStorage storage() const override;
  std::uint32_t occupancy() const override { return occupancy_; }
  std::uint32_t high_water() const override { return high_water_; }
  // Occupancy sampled after every operation, in histogram_buckets equal-width buckets over 0..entries.
  const std::vector<std::uint64_t>& occupancy_histogram() const override { return histogram_; }
  std::uint32_t histogram_bucket_width() const override { return bucket_width_; }
  std::uint64_t insert_failures() const override { return insert_failures_; }
  std::uint64_t saturations() const { return saturations_; }

 private:
  std::optional<std::uint32_t> find(const WideKey& key) const;
  void sample();
  std::uint32_t clamp_port(std::uint32_t p) const { return p & ((1u << config_.port_bits) - 1u); }

  // Fully associative only: what the CAM's parallel compare and priority encoder give in hardware, done
  // in software with a hash index of the keys and a bitmap of free entries (two levels, lowest first),
  // so a network-scale table costs O(1) per operation instead of a scan of every entry.
  struct KeyHash {
    std::size_t operator()(const WideKey& k) const {
      std::uint64_t x = k.lo * 0x9e3779b97f4a7c15ULL ^ (k.hi + 0x632be59bd9b4e019ULL);
      x ^= x >> 29;
      x *= 0xbf58476d1ce4e5b9ULL;
      return static_cast<std::size_t>(x ^ (x >> 32));
    }
  };
  std::unordered_map<WideKey, std::uint32_t, KeyHash> index_;
  std::vector<std::uint64_t> free_words_;    // bit i of word w: entry 64w+i is free
  std::vector<std::uint64_t> free_summary_;  // bit j of word s: free_words_[64s+j] has a free entry
  void mark_free(std::uint32_t i, bool free);
  std::uint32_t lowest_free() const;  // entries_.size() when none
  void release(std::uint32_t i);      // invalidates entry i and updates the index

  FlowcutTableConfig config_;
  std::uint32_t sets_ = 1;
  std::uint32_t inflight_max_ = 0;
  std::vector<FlowcutEntry> entries_;
  std::uint32_t occupancy_ = 0;
  std::uint32_t high_water_ = 0;
  std::uint32_t bucket_width_ = 1;
  std::vector<std::uint64_t> histogram_;
  std::uint64_t insert_failures_ = 0;
  std::uint64_t saturations_ = 0;
};

const char* to_string(InsertStatus s);
const char* to_string(AddStatus s);

}  // namespace netasic
