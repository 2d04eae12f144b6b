// Internal to tlm/cosim: what both Flowcut table co-simulation adapters share (docs/cosim.md).
//   impl = rtl     Verilator's C++ output (flowcut_table_rtl.cpp)
//   impl = rtl_sc  Verilator's SystemC output (flowcut_table_rtl_sc.cpp)
// The Flowcut table's operations, statistics and point selection live here once, in
// RtlFlowcutTable<Pins>, on the handshake core every block shares (rtl_handshake.h); an adapter only
// supplies `Pins`, the access to one Verilated model's ports: the core's clock/reset/handshake pins and
//
//     Pins(const std::string& owner, const PointInfo& point);  // builds the model
//     void drive(const CosimRequest& r, unsigned key_bits);  // the request fields (no evaluation)
//     CosimResponse response() const;        // the response fields
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tlm/blocks/flowcut_table.h"
#include "tlm/common/error.h"
#include "tlm/cosim/rtl_handshake.h"

namespace netasic::cosim {

// Operation and status codes of rtl/flowcut_defs.svh.
enum Op : unsigned { kLookup = 0, kInsert, kAdd, kAck, kDelete, kRead, kWrite };
enum St : unsigned { kOk = 0, kMiss, kFull, kSetFull, kExists, kSaturated, kInvalid, kUnderflow };
inline const char* const kOpName[] = {"lookup", "insert", "add_bytes", "ack_subtract", "delete", "read", "write"};
inline const char* const kStName[] = {"OK", "MISS", "FULL", "SET_FULL", "EXISTS", "SATURATED", "INVALID", "UNDERFLOW"};

inline constexpr unsigned kPortBits = 8, kInflightBits = 24;

struct PointInfo {
  const char* name;
  bool hashed;
  std::uint32_t entries;
  unsigned ways;
  unsigned key_bits;
  bool full_switch;
};

inline const char* variant_name(FlowcutVariant v) {
  return v == FlowcutVariant::full_switch ? "full_switch" : v == FlowcutVariant::ingress_only ? "ingress_only" : "nic_only";
}

inline std::string describe(const PointInfo& p) {
  std::ostringstream s;
  s << p.name << " (" << (p.hashed ? "hashed" : "cam") << ", " << p.entries << " entries";
  if (p.hashed) s << ", " << p.ways << " ways";
  s << ", key " << p.key_bits << " bits, " << (p.full_switch ? "full_switch" : "ingress_only/nic_only") << ")";
  return s.str();
}

struct CosimRequest {
  Op op = kLookup;
  WideKey key{};
  std::uint32_t index = 0, bytes = 0;
  std::uint16_t out_port = 0, in_port = 0, rtt_avg = 0, last_rtt = 0, rtt_diff = 0;
  bool drain = false;
};

struct CosimResponse {
  unsigned status = 0;
  std::uint32_t index = 0, inflight = 0;
  bool deleted = false;
  std::uint16_t out_port = 0, in_port = 0, rtt_avg = 0, last_rtt = 0, rtt_diff = 0;
  bool drain = false;
};

// FlowcutTableIf answered by one Verilated model behind `Pins`. `impl` names the adapter in messages.
template <class Pins>
class RtlFlowcutTable final : public FlowcutTableIf {
 public:
  RtlFlowcutTable(const FlowcutTableConfig& config, const std::string& owner, const PointInfo& point, const char* impl)
      : config_(config), point_(point), storage_(FlowcutTable(config).storage()),
        hs_(std::make_unique<Pins>(owner, point), owner, "flowcut_table", point.name, impl) {
    keys_.resize(config.entries);
    const std::uint32_t buckets = std::min<std::uint32_t>(config.histogram_buckets, config.entries + 1);
    bucket_width_ = (config.entries + 1 + buckets - 1) / buckets;
    histogram_.assign((config.entries + bucket_width_) / bucket_width_, 0);
    hs_.reset(4);
  }

  const FlowcutTableConfig& config() const override { return config_; }

  std::optional<std::uint32_t> lookup(const WideKey& key) override {
    CosimRequest r;
    r.op = kLookup;
    r.key = checked(key);
    const CosimResponse a = transact(r, config_.latency.lookup);
    expect(a, r, {kOk, kMiss});
    sample();
    if (a.status == kMiss) return std::nullopt;
    return a.index;
  }

  InsertResult insert(const WideKey& key, std::uint16_t out_port, std::uint16_t in_port) override {
    CosimRequest r;
    r.op = kInsert;
    r.key = checked(key);
    r.out_port = out_port;
    r.in_port = in_port;
    const CosimResponse a = transact(r, config_.latency.insert);
    expect(a, r, {kOk, kExists, kFull, kSetFull});
    InsertResult res{InsertStatus::ok, a.index};
    switch (a.status) {
      case kOk:
        keys_[a.index] = key;
        ++occupancy_;
        high_water_ = std::max(high_water_, occupancy_);
        break;
      case kExists: res.status = InsertStatus::exists; break;
      case kFull: res = {InsertStatus::full, 0}; break;
      default: res = {InsertStatus::set_full, 0}; break;
    }
    if (res.status == InsertStatus::full || res.status == InsertStatus::set_full) ++insert_failures_;
    sample();
    return res;
  }

  AddResult add_bytes(std::uint32_t index, std::uint32_t bytes) override {
    sample();
    // The RTL's index port is log2(entries) bits wide: an index beyond the table cannot be presented.
    if (index >= config_.entries) return {AddStatus::invalid_index, 0};
    CosimRequest r;
    r.op = kAdd;
    r.index = index;
    r.bytes = bytes;
    const CosimResponse a = transact(r, config_.latency.add_bytes);
    expect(a, r, {kOk, kSaturated, kInvalid});
    if (a.status == kInvalid) return {AddStatus::invalid_index, 0};
    return {a.status == kSaturated ? AddStatus::saturated : AddStatus::ok, a.inflight};
  }

  AckResult ack_subtract(const WideKey& key, std::uint32_t bytes) override {
    CosimRequest r;
    r.op = kAck;
    r.key = checked(key);
    r.bytes = bytes;
    const CosimResponse a = transact(r, config_.latency.ack_subtract);
    expect(a, r, {kOk, kUnderflow, kMiss});
    AckResult res{false, 0, false, false};
    if (a.status != kMiss) {
      res = {true, a.inflight, a.deleted, a.status == kUnderflow};
      if (a.deleted) --occupancy_;
    }
    sample();
    return res;
  }

  bool erase(const WideKey& key) override {
    CosimRequest r;
    r.op = kDelete;
    r.key = checked(key);
    const CosimResponse a = transact(r, config_.latency.erase);
    expect(a, r, {kOk, kMiss});
    if (a.status == kOk) --occupancy_;
    sample();
    return a.status == kOk;
  }

  FlowcutEntry read(std::uint32_t index) const override {
    if (index >= config_.entries) return FlowcutEntry{};
    CosimRequest r;
    r.op = kRead;
    r.index = index;
    const CosimResponse a = transact(r, config_.latency.access);
    expect(a, r, {kOk, kInvalid});
    if (a.status != kOk) return FlowcutEntry{};
    FlowcutEntry e;
    e.valid = true;
    e.key = keys_[index];  // the RTL's READ does not return the key: the one its INSERT answer placed here
    e.out_port = a.out_port;
    e.in_port = a.in_port;
    e.inflight = a.inflight;
    e.rtt_avg = a.rtt_avg;
    e.last_rtt = a.last_rtt;
    e.rtt_diff_avg = a.rtt_diff;
    e.draining = a.drain;
    return e;
  }

  // The RTL's WRITE sets the RTT fields and the drain bit together: read the entry, write it back with
  // the one part changed (two requests, each checked against the `access` latency).
  bool set_rtt(std::uint32_t index, std::uint16_t rtt_avg, std::uint16_t last_rtt, std::uint16_t rtt_diff_avg) override {
    const FlowcutEntry e = read(index);
    if (!e.valid) return false;
    return write(index, rtt_avg, last_rtt, rtt_diff_avg, e.draining);
  }
  bool set_drain(std::uint32_t index, bool draining) override {
    const FlowcutEntry e = read(index);
    if (!e.valid) return false;
    return write(index, e.rtt_avg, e.last_rtt, e.rtt_diff_avg, draining);
  }

  FlowcutStorage storage() const override { return storage_; }
  std::uint32_t occupancy() const override { return occupancy_; }
  std::uint32_t high_water() const override { return high_water_; }
  const std::vector<std::uint64_t>& occupancy_histogram() const override { return histogram_; }
  std::uint32_t histogram_bucket_width() const override { return bucket_width_; }
  std::uint64_t insert_failures() const override { return insert_failures_; }

 private:
  WideKey checked(const WideKey& key) const {
    if (!key.fits(point_.key_bits))
      throw ModelError(hs_.name() + ": key wider than " + std::to_string(point_.key_bits) + " bits");
    return key;
  }

  bool write(std::uint32_t index, std::uint16_t ra, std::uint16_t lr, std::uint16_t rd, bool drain) {
    CosimRequest r;
    r.op = kWrite;
    r.index = index;
    r.rtt_avg = ra;
    r.last_rtt = lr;
    r.rtt_diff = rd;
    r.drain = drain;
    const CosimResponse a = transact(r, config_.latency.access);
    expect(a, r, {kOk, kInvalid});
    return a.status == kOk;
  }

  void sample() { ++histogram_[occupancy_ / bucket_width_]; }

  std::string where(const CosimRequest& r) const {
    std::ostringstream s;
    s << kOpName[r.op] << " (key "
      << std::hex << r.key.hi << ':' << r.key.lo << std::dec << " index " << r.index << " bytes " << r.bytes << ")";
    return s.str();
  }

  void expect(const CosimResponse& a, const CosimRequest& r, std::initializer_list<unsigned> allowed) const {
    if (std::find(allowed.begin(), allowed.end(), a.status) == allowed.end())
      throw ModelError(hs_.name() + ": " + where(r) + ": the RTL answered status " + kStName[a.status & 7] +
                       ", which this operation does not define");
  }

  // One request on the handshake core: ready at once, or after the hashed table's RAM clear that follows
  // reset; the response within 64 cycles.
  CosimResponse transact(const CosimRequest& r, unsigned model_latency) const {
    hs_.pins().drive(r, point_.key_bits);
    CosimResponse a;
    hs_.transact(kOpName[r.op], model_latency, config_.entries + 64, 64, [&] { return where(r); },
                 [&] { a = hs_.pins().response(); });
    return a;
  }

  FlowcutTableConfig config_;
  PointInfo point_;
  FlowcutStorage storage_;
  RtlHandshake<Pins> hs_;  // const operations (read) still clock the RTL
  std::vector<WideKey> keys_;
  std::uint32_t occupancy_ = 0;
  std::uint32_t high_water_ = 0;
  std::uint32_t bucket_width_ = 1;
  std::vector<std::uint64_t> histogram_;
  std::uint64_t insert_failures_ = 0;
};

// A Verilated point and how to build its table.
using PointFactory = std::unique_ptr<FlowcutTableIf> (*)(const FlowcutTableConfig&, const std::string&, const PointInfo&);
struct Point {
  PointInfo info;
  PointFactory make;
};

// The table for `config` from `points`, or InputError naming the keys and listing the points.
inline std::unique_ptr<FlowcutTableIf> make_from_points(const std::vector<Point>& points, const char* impl,
                                                        const FlowcutTableConfig& config, const std::string& owner) {
  const bool hashed = config.organization == FlowcutOrganization::set_associative;
  const bool full = config.variant == FlowcutVariant::full_switch;
  const auto fits = [&](const PointInfo& i) {
    return i.hashed == hashed && i.entries == config.entries && (!hashed || i.ways == config.ways) &&
           i.full_switch == full && i.key_bits == config.key_bits && config.port_bits == kPortBits &&
           config.inflight_bits == kInflightBits;
  };
  const auto unmatched = [&] {
    std::ostringstream s;
    s << "switch.flowcut_table.impl = " << impl << ": no Verilated Flowcut table for flowcut.table.entries = "
      << config.entries << ", flowcut.table.organization = " << (hashed ? "hashed" : "cam")
      << ", flowcut.table.ways = " << config.ways << (hashed ? "" : " (hashed only)")
      << ", flowcut.variant = " << variant_name(config.variant) << " (key " << config.key_bits << " / port "
      << config.port_bits << " / in-flight " << config.inflight_bits << " bits).";
    return s.str();
  };
  const Point& p = find_point(points, fits, unmatched, "port 8, in-flight 24 bits; ");
  return p.make(config, owner, p.info);
}

}  // namespace netasic::cosim
