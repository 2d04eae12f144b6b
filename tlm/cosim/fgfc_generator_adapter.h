// Internal to tlm/cosim: what both FGFC generator co-simulation adapters share (docs/cosim.md).
//   impl = rtl     Verilator's C++ output (fgfc_generator_rtl.cpp)
//   impl = rtl_sc  Verilator's SystemC output (fgfc_generator_rtl_sc.cpp)
// RtlFgfcGenerator<Pins> is FgfcGeneratorIf on the handshake core (rtl_handshake.h); an adapter supplies
// `Pins`: the core's clock/reset/handshake pins and
//
//     Pins(const std::string& owner, const FgfcPoint& point);  // builds the model
//     void drive(const FgfcFrame& request);   // the request fields
//     unsigned status() const;                // rsp_status_o
//     void frame_ready(bool);                 // frm_ready_i
//     bool frame_valid() const;               // frm_valid_o
//     FgfcFrame frame() const;                // the frame port's fields
#pragma once

#include <algorithm>
#include <cstdio>
#include <exception>
#include <cstdint>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "tlm/blocks/fgfc.h"
#include "tlm/common/error.h"
#include "tlm/cosim/rtl_handshake.h"

namespace netasic::cosim {

// A Verilated FGFC generator: Slots, Gap (cycles between two frames of one flow).
struct FgfcPoint {
  const char* name;
  unsigned slots;
  std::uint32_t gap;
};

// FgfcGeneratorIf answered by one Verilated rtl/fgfc_generator.sv behind `Pins`.
//
// Time. The generator's gap counters count clock cycles, and `now` is the switch clock cycle, so here (unlike
// the tables) an RTL cycle stands for a network cycle: before each call the adapter clocks the RTL idle up to
// `now` (at most Gap cycles: after Gap idle cycles every gap counter is 0 and further idle cycles change
// nothing). Each operation takes one cycle: a request is handed over at one edge and its status read in the
// next cycle (the response is taken by the following edge, whatever it is); a frame is taken at one edge
// (frm_ready_i high for that cycle only).
//
// Order within a switch cycle. The engine asks for a request and then for the frame of the same cycle (at
// most one per cycle, as the RTL's frame port sends them), which the model answers without the new
// request's frame (eligible from the next cycle). The RTL serves the frame port first and then the request
// within one cycle, so the adapter answers a request from its record (below) and hands it over with that
// cycle's frame (or at the next call); only a request for a flow whose frame is due now goes at once (the
// frame leaves with the new fields: latest wins).
//
// What the RTL decides: each request's status (ACCEPTED / COALESCED / FULL: the slots, their flows and
// their gaps), which frame goes out (the lowest eligible slot) and its fields. What the adapter keeps: per
// flow, whether a frame is pending and the network cycle its gap ends (the frame was taken at cycle t: t +
// Gap; a request that found no slot for its flow: t + 1), from which next_due() answers, as the engine
// schedules its polls in network time, and the status a request returns. Each RTL answer is checked against
// that record: the status of every request, a frame offered whenever one is due and only for a flow whose
// frame is due. A difference stops the run with ModelError.
template <class Pins>
class RtlFgfcGenerator final : public FgfcGeneratorIf {
 public:
  RtlFgfcGenerator(const FgfcGeneratorConfig& config, const std::string& owner, const FgfcPoint& point,
                   const char* impl)
      : config_(config), point_(point),
        hs_(std::make_unique<Pins>(owner, point), owner, "fgfc_generator", point.name, impl) {
    hs_.pins().frame_ready(false);
    hs_.reset(4);
  }
  RtlFgfcGenerator(const RtlFgfcGenerator&) = delete;
  RtlFgfcGenerator& operator=(const RtlFgfcGenerator&) = delete;
  ~RtlFgfcGenerator() override {
    try {
      flush();  // the last request, if the run ended before the next call
    } catch (const std::exception& e) {
      std::fprintf(stderr, "netasic: %s\n", e.what());
    }
  }

  FgfcRequestStatus request(std::uint64_t now, const FgfcFrame& frame_in) override {
    FgfcFrame frame = frame_in;
    frame.credit = std::min(frame.credit, FgfcGenerator::kCreditMax);
    flush();
    sync(now);
    prune(now);
    const auto it = flows_.find(frame.flow_id);
    const bool tracked = it != flows_.end() && in_use(it->second, now);
    const unsigned used = slots_in_use(now);
    Held h{now, frame, FgfcRequestStatus::accepted, used, tracked, tracked && it->second.pending};
    if (h.pending) h.status = FgfcRequestStatus::coalesced;
    if (!tracked && used >= point_.slots) h.status = FgfcRequestStatus::full;
    switch (h.status) {
      case FgfcRequestStatus::full: ++refused_; break;
      case FgfcRequestStatus::coalesced: ++coalesced_; [[fallthrough]];
      case FgfcRequestStatus::accepted:
        if (tracked) it->second.pending = true;
        else flows_[frame.flow_id] = Flow{true, now + 1};
        break;
    }
    held_ = h;
    // A frame already due for this flow goes out with the new fields (latest wins): hand the request over
    // now. Otherwise it waits for this cycle's frame (the engine asks for it next) and goes with it, the
    // order the model answers in (RTL: a cycle serves its frame first).
    if (h.pending && it->second.eligible_at <= now) flush();
    return h.status;
  }

  std::optional<FgfcFrame> next_frame(std::uint64_t now) override {
    if (held_ && held_->now != now) flush();
    if (next_due(now) != now) return std::nullopt;  // no frame can go in this cycle
    sync(now);
    Pins& d = hs_.pins();
    bool valid = false;
    FgfcFrame f{};
    const auto look = [&] {
      valid = d.frame_valid();
      f = d.frame();
    };
    if (held_) {
      // This cycle's frame and the request held for it, in one cycle. frm_ready_i goes high in the cycle
      // the request is handed over, not while it waits for the port (the previous response).
      hand_over([&] {
        d.frame_ready(true);
        look();
      });
    } else {
      d.frame_ready(true);
      d.request_valid(false);
      d.response_ready(true);
      hs_.step(look);
    }
    d.frame_ready(false);
    const auto it = flows_.find(f.flow_id);
    if (!valid || it == flows_.end() || !it->second.pending || it->second.eligible_at > now) {
      std::ostringstream s;
      s << hs_.name() << ": cycle " << now << ": a frame is due, the RTL "
        << (valid ? "offered one for flow " + std::to_string(f.flow_id) + ", whose frame is not due" : "offered none");
      throw ModelError(s.str());
    }
    it->second.pending = false;
    it->second.eligible_at = now + config_.gap;
    last_frame_ = now;
    ++frames_;
    return f;
  }

  std::optional<std::uint64_t> next_due(std::uint64_t now) const override {
    std::optional<std::uint64_t> due;
    for (const auto& [id, fl] : flows_) {
      if (!fl.pending) continue;
      std::uint64_t t = std::max(now, fl.eligible_at);
      if (last_frame_ == t) ++t;  // this cycle's frame has gone
      if (!due || t < *due) due = t;
    }
    return due;
  }
  unsigned slots_in_use(std::uint64_t now) const override {
    return static_cast<unsigned>(
        std::count_if(flows_.begin(), flows_.end(), [&](const auto& e) { return in_use(e.second, now); }));
  }
  std::uint64_t frames() const override { return frames_; }
  std::uint64_t coalesced() const override { return coalesced_; }
  std::uint64_t refused() const override { return refused_; }
  const FgfcGeneratorConfig& config() const override { return config_; }

 private:
  struct Flow {
    bool pending;
    std::uint64_t eligible_at;  // network cycle its gap ends
  };
  // A request answered from the record and not yet handed to the RTL, with what the record said.
  struct Held {
    std::uint64_t now;
    FgfcFrame frame;
    FgfcRequestStatus status;
    unsigned used;
    bool tracked, pending;
  };
  static bool in_use(const Flow& f, std::uint64_t now) { return f.pending || f.eligible_at > now; }
  // Hand the held request to the RTL in this cycle (look(): the frame port in the same cycle) and check the
  // RTL's status against the record's.
  template <class Look>
  void hand_over(Look&& look) {
    const Held h = *held_;
    held_.reset();
    Pins& d = hs_.pins();
    d.drive(h.frame);
    unsigned code = 3;
    hs_.transact_open("request", config_.request_latency, 2, 4, [&] { return where(h.now, h.frame); },
                      [&] { code = d.status(); }, look);
    if (code > 2 || static_cast<FgfcRequestStatus>(code) != h.status) {
      std::ostringstream s;
      s << hs_.name() << ": " << where(h.now, h.frame) << ": status " << code
        << " (0 ACCEPTED, 1 COALESCED, 2 FULL), expected " << to_string(h.status) << " with " << h.used << " of "
        << point_.slots << " slots in use and the flow "
        << (h.tracked ? (h.pending ? "pending" : "in its gap") : "not tracked");
      throw ModelError(s.str());
    }
  }
  void flush() {
    if (held_) {
      hs_.pins().frame_ready(false);
      hand_over([] {});
    }
  }
  void prune(std::uint64_t now) {
    for (auto it = flows_.begin(); it != flows_.end();)
      it = in_use(it->second, now) ? std::next(it) : flows_.erase(it);
  }

  // Clock the RTL idle up to network cycle `now` (it may be ahead: then nothing).
  void sync(std::uint64_t now) {
    if (!anchored_) {
      origin_ = hs_.cycle() - now;  // after reset nothing is in use: any cycle is the same
      anchored_ = true;
      return;
    }
    const std::uint64_t at = hs_.cycle() - origin_;
    if (now <= at) return;
    hs_.pins().frame_ready(false);
    hs_.idle(std::min<std::uint64_t>(now - at, config_.gap));
    origin_ = hs_.cycle() - now;
  }

  std::string where(std::uint64_t now, const FgfcFrame& f) const {
    std::ostringstream s;
    s << "cycle " << now << ": " << (f.xoff ? "XOFF" : "XON") << " flow " << f.flow_id << " period " << f.period
      << " credit " << f.credit;
    return s.str();
  }

  FgfcGeneratorConfig config_;
  FgfcPoint point_;
  RtlHandshake<Pins> hs_;
  std::unordered_map<std::uint32_t, Flow> flows_;
  std::optional<Held> held_;
  std::optional<std::uint64_t> last_frame_;  // the network cycle of the last frame taken
  bool anchored_ = false;
  std::uint64_t origin_ = 0;  // RTL cycle - network cycle while in step (the RTL may run ahead)
  std::uint64_t frames_ = 0, coalesced_ = 0, refused_ = 0;
};

// A Verilated point and how to build its generator.
using FgfcPointFactory = std::unique_ptr<FgfcGeneratorIf> (*)(const FgfcGeneratorConfig&, const std::string&,
                                                              const FgfcPoint&);
struct FgfcPointEntry {
  FgfcPoint info;
  FgfcPointFactory make;
};

inline std::string describe(const FgfcPoint& p) {
  std::ostringstream s;
  s << p.name << " (" << p.slots << " slots, gap " << p.gap << " cycles)";
  return s.str();
}

// The generator for `config` from `points`, or InputError naming the key and listing the points.
inline std::unique_ptr<FgfcGeneratorIf> make_fgfc_from_points(const std::vector<FgfcPointEntry>& points,
                                                              const char* impl, const FgfcGeneratorConfig& config,
                                                              const std::string& owner) {
  const auto fits = [&](const FgfcPoint& i) {
    return i.slots == config.slots && i.gap == config.gap && config.request_latency == 1;
  };
  const auto unmatched = [&] {
    std::ostringstream s;
    s << "switch.fgfc_generator.impl = " << impl << " (" << owner << "): no Verilated FGFC generator with "
      << config.slots << " slots and a gap of " << config.gap << " cycles (flowcut.fgfc_gap_cycles).";
    return s.str();
  };
  const FgfcPointEntry& p = find_point(points, fits, unmatched);
  return p.make(config, owner, p.info);
}

}  // namespace netasic::cosim
