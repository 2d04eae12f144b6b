// Internal to tlm/cosim: what both FlowSail co-simulation adapters share (docs/cosim.md).
//   impl = rtl     Verilator's C++ output (flowsail_rtl.cpp)
//   impl = rtl_sc  Verilator's SystemC output (flowsail_rtl_sc.cpp)
// RtlFlowsail<Pins> is FlowsailIf on the handshake core (rtl_handshake.h); an adapter supplies `Pins`: the
// core's clock/reset/handshake pins and
//
//     Pins(const std::string& owner, const FlowsailPoint& point);  // builds the model
//     void seed(const Rng& rng);                // seed_i = the generator's state (no evaluation)
//     void drive(const FlowsailRequest& r);     // the request fields
//     FlowsailResponse response() const;        // the response fields
#pragma once

#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tlm/blocks/flowsail.h"
#include "tlm/common/error.h"
#include "tlm/common/rng.h"
#include "tlm/cosim/rtl_handshake.h"

namespace netasic::cosim {

// A Verilated FlowSail: Queues, NftEntries, CftEntries, SizeBits, PauseBits, FlownumBits, DeferredRelease.
struct FlowsailPoint {
  const char* name;
  unsigned queues;
  std::uint32_t nft_entries, cft_entries;
  unsigned size_bits, pause_bits, flownum_bits;
  bool deferred_release;
};

// Operation codes of rtl/flowsail.sv.
enum : unsigned { kFsEnqueue = 0, kFsDequeue = 1, kFsControl = 2, kFsRelease = 3 };

struct FlowsailRequest {
  unsigned op = kFsEnqueue;
  std::uint32_t fid = 0, bytes = 0;
  unsigned queue = 0;
  bool congested = false, pause = false;
  bool thr_load = false;  // load Ql / Qh with this request
  std::uint32_t q_low = 0, q_high = 0;
  bool seed_load = false;  // load the random source from seed_i with this request
};

struct FlowsailResponse {
  unsigned status = 0, queue = 0;
  bool congested = false, over_high = false, pause = false, resume = false;
  std::uint32_t paused_queues = 0;
};

// FlowsailIf answered by one Verilated rtl/flowsail.sv behind `Pins`.
//
// Each operation is one RTL request, back to back (the block has no time-dependent behaviour: the CFT
// release hysteresis is the owner's, which asks for a RELEASE): enqueue -> ENQUEUE, dequeue -> DEQUEUE,
// control -> CONTROL, cft_release -> RELEASE. Thresholds: set_thresholds() only records Ql / Qh (clamped as
// the model clamps them); the next ENQUEUE loads them into the RTL (req_thr_load_i) when they differ from
// the ones it holds. Random queue choice: the model draws from the switch's stream, which every block of
// the switch shares, so every ENQUEUE hands the stream's state over (req_seed_load_i, seed_i) and the RTL
// draws from it as the model does (seed_i is written only when the state changed since it was last written).
//
// What the RTL decides: every answer (status, queue, congestion mark and whether Qh made it, PAUSE, RESUME,
// the paused-queue bitmap, whether a RELEASE freed the entry). What the adapter keeps: a record of the block
// (a Flowsail model fed the same operations and the same stream), from which the network's reads of the
// block's state are answered (in_cft, nft_size, nft_queue, cf_num, nft_busy, cft_occupant_idle, the
// collision count), since the RTL has no port for them. Every RTL answer is checked against the record's:
// a difference stops the run with ModelError naming the operation and both answers.
template <class Pins>
class RtlFlowsail final : public FlowsailIf {
 public:
  RtlFlowsail(const FlowsailConfig& config, Rng& rng, const std::string& owner, const FlowsailPoint& point,
              const char* impl)
      : record_(config, rng), rng_(rng), point_(point),
        hs_(std::make_unique<Pins>(owner, point), owner, "flowsail", point.name, impl) {
    put_seed();
    hs_.reset(4);
  }
  RtlFlowsail(const RtlFlowsail&) = delete;
  RtlFlowsail& operator=(const RtlFlowsail&) = delete;

  FlowsailEnqueue enqueue(std::uint32_t fid, std::uint32_t bytes) override {
    FlowsailRequest r;
    r.op = kFsEnqueue;
    r.fid = fid;
    r.bytes = bytes;
    const FlowsailConfig& c = record_.config();
    if (!thr_loaded_ || c.q_low != q_low_ || c.q_high != q_high_) {
      r.thr_load = true;
      r.q_low = q_low_ = c.q_low;
      r.q_high = q_high_ = c.q_high;
      thr_loaded_ = true;
    }
    if (!seed_current()) put_seed();  // seed_i still holds the stream's state unless someone drew since
    r.seed_load = true;
    const FlowsailResponse got = run("enqueue", r);
    const FlowsailEnqueue want = record_.enqueue(fid, bytes);
    if (got.status != static_cast<unsigned>(want.status) ||
        (want.status == FlowsailStatus::ok &&
         (got.queue != want.queue || got.congested != want.congested || got.over_high != want.over_q_high ||
          got.pause != want.pause)) ||
        (want.status == FlowsailStatus::overflow && got.queue != want.queue)) {
      std::ostringstream m, g;
      m << to_string(want.status) << " queue " << want.queue << " congested " << want.congested << " over_q_high "
        << want.over_q_high << " pause " << want.pause;
      g << "status " << got.status << " queue " << got.queue << " congested " << got.congested << " over_q_high "
        << got.over_high << " pause " << got.pause;
      differ(where(r), m.str(), g.str());
    }
    return want;
  }

  FlowsailDequeue dequeue(std::uint32_t fid, unsigned queue, std::uint32_t bytes, bool congested) override {
    const FlowsailDequeue want = record_.dequeue(fid, queue, bytes, congested);  // a bad queue throws here
    FlowsailRequest r;
    r.op = kFsDequeue;
    r.fid = fid;
    r.queue = queue;
    r.bytes = bytes;
    r.congested = congested;
    const FlowsailResponse got = run("dequeue", r);
    if (got.status != static_cast<unsigned>(want.status) || (want.status == FlowsailStatus::ok && got.resume != want.resume)) {
      std::ostringstream m, g;
      m << to_string(want.status) << " resume " << want.resume;
      g << "status " << got.status << " resume " << got.resume;
      differ(where(r), m.str(), g.str());
    }
    return want;
  }

  FlowsailControl control(std::uint32_t fid, bool pause) override {
    const FlowsailControl want = record_.control(fid, pause);
    FlowsailRequest r;
    r.op = kFsControl;
    r.fid = fid;
    r.pause = pause;
    const FlowsailResponse got = run("control", r);
    if (got.status != static_cast<unsigned>(want.status) || got.paused_queues != want.paused_queues) {
      std::ostringstream m, g;
      m << to_string(want.status) << " paused_queues 0x" << std::hex << want.paused_queues;
      g << "status " << got.status << " paused_queues 0x" << std::hex << got.paused_queues;
      differ(where(r), m.str(), g.str());
    }
    return want;
  }

  bool cft_release(std::uint32_t fid) override {
    const bool want = record_.cft_release(fid);
    FlowsailRequest r;
    r.op = kFsRelease;
    r.fid = fid;
    const FlowsailResponse got = run("release", r);
    const unsigned code = static_cast<unsigned>(want ? FlowsailStatus::ok : FlowsailStatus::not_found);
    if (got.status != code) differ(where(r), want ? "ok (released)" : "not_found", "status " + std::to_string(got.status));
    return want;
  }

  void set_thresholds(std::uint32_t q_low, std::uint32_t q_high) override { record_.set_thresholds(q_low, q_high); }
  bool in_cft(std::uint32_t fid) const override { return record_.in_cft(fid); }
  bool cft_occupant_idle(std::uint32_t fid, std::uint32_t& occupant) const override {
    return record_.cft_occupant_idle(fid, occupant);
  }
  unsigned nft_queue(std::uint32_t fid) const override { return record_.nft_queue(fid); }
  std::uint32_t nft_size(std::uint32_t fid) const override { return record_.nft_size(fid); }
  std::uint32_t nft_index(std::uint32_t fid) const override { return record_.nft_index(fid); }
  std::uint32_t cft_index(std::uint32_t fid) const override { return record_.cft_index(fid); }
  std::uint32_t cf_num(unsigned q) const override { return record_.cf_num(q); }
  std::uint32_t nft_busy() const override { return record_.nft_busy(); }
  std::uint64_t nft_collisions() const override { return record_.nft_collisions(); }
  const FlowsailConfig& config() const override { return record_.config(); }

 private:
  FlowsailResponse run(const char* op, const FlowsailRequest& r) {
    Pins& d = hs_.pins();
    d.drive(r);
    FlowsailResponse got;
    // The first request waits for the RAM clear after reset (max(NFT, CFT) cycles).
    const std::uint64_t ready_wait = std::uint64_t{point_.nft_entries > point_.cft_entries ? point_.nft_entries
                                                                                           : point_.cft_entries} + 8;
    hs_.transact(op, record_.config().latency, ready_wait, 16, [&] { return where(r); }, [&] { got = d.response(); });
    return got;
  }
  // seed_i = the stream's state, remembered so that an unchanged state is not written again.
  void put_seed() {
    hs_.pins().seed(rng_);
    for (int i = 0; i < 4; ++i) seed_[i] = rng_.state(i);
  }
  bool seed_current() const {
    return rng_.state(0) == seed_[0] && rng_.state(1) == seed_[1] && rng_.state(2) == seed_[2] &&
           rng_.state(3) == seed_[3];
  }
  [[noreturn]] void differ(const std::string& what, const std::string& model, const std::string& rtl) const {
    throw ModelError(hs_.name() + ": " + what + ": model " + model + " | rtl " + rtl);
  }
  static std::string where(const FlowsailRequest& r) {
    static const char* const names[] = {"enqueue", "dequeue", "control", "release"};
    std::ostringstream s;
    s << names[r.op & 3] << "(fid " << r.fid;
    if (r.op == kFsEnqueue || r.op == kFsDequeue) s << ", bytes " << r.bytes;
    if (r.op == kFsDequeue) s << ", queue " << r.queue << ", congested " << r.congested;
    if (r.op == kFsControl) s << (r.pause ? ", PAUSE" : ", RESUME");
    if (r.thr_load) s << ", Ql " << r.q_low << " Qh " << r.q_high;
    return s.str() + ")";
  }

  Flowsail record_;
  Rng& rng_;
  FlowsailPoint point_;
  RtlHandshake<Pins> hs_;
  bool thr_loaded_ = false;
  std::uint32_t q_low_ = 0, q_high_ = 0;  // what the RTL holds once loaded
  std::uint64_t seed_[4] = {};             // the state on seed_i
};

// A Verilated point and how to build its block.
using FlowsailPointFactory = std::unique_ptr<FlowsailIf> (*)(const FlowsailConfig&, Rng&, const std::string&,
                                                            const FlowsailPoint&);
struct FlowsailPointEntry {
  FlowsailPoint info;
  FlowsailPointFactory make;
};

inline std::string describe(const FlowsailPoint& p) {
  std::ostringstream s;
  s << p.name << " (" << p.queues << " queues per group, NFT " << p.nft_entries << ", CFT " << p.cft_entries
    << ", " << p.size_bits << "-bit sizes, " << p.pause_bits << "-bit pauseNum, " << p.flownum_bits
    << "-bit flowNum, " << (p.deferred_release ? "deferred" : "immediate") << " CFT release)";
  return s.str();
}

// The block for `config` from `points`, or InputError naming the keys and listing the points.
inline std::unique_ptr<FlowsailIf> make_flowsail_from_points(const std::vector<FlowsailPointEntry>& points,
                                                             const char* impl, const FlowsailConfig& c, Rng& rng,
                                                             const std::string& owner) {
  const auto fits = [&](const FlowsailPoint& i) {
    return i.queues == c.queues && i.nft_entries == c.nft_entries && i.cft_entries == c.cft_entries &&
           i.size_bits == c.size_bits && i.pause_bits == c.pause_bits && i.flownum_bits == c.flownum_bits &&
           i.deferred_release == c.deferred_release && c.latency == 3;
  };
  const auto unmatched = [&] {
    std::ostringstream s;
    s << "switch.flowsail.impl = " << impl << " (" << owner << "): no Verilated FlowSail with " << c.queues
      << " queues per group (switch.fc.queues / switch.fc.groups), NFT " << c.nft_entries
      << " (switch.fc.nft_entries), CFT " << c.cft_entries << " (switch.fc.cft_entries), " << c.size_bits
      << "-bit sizes.";
    return s.str();
  };
  const FlowsailPointEntry& p = find_point(points, fits, unmatched);
  return p.make(c, rng, owner, p.info);
}

}  // namespace netasic::cosim
