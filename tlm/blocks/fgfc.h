// Fine-grained flow control (FGFC) of the Cassini NIC / Rosetta switch pair (public Cassini headers, as
// summarised in the architecture note) and the drain step of Flowcut (De Sensi et al., Section II-B: the
// ingress switch pauses one flow at its source and resumes it once drained).
//
// FgfcGenerator (switch side) turns XOFF / XOFF-with-credit / XON requests for a 32-bit flow id into
// frames {flow_id:32, xoff:1, period:16 (0 = XON), credit:24}, at most one frame per `gap` cycles per
// flow. It tracks flows in `slots` slots (the RTL: a small CAM of flow ids with one down-counter each):
//   request(now, ...)  flow tracked -> the new frame replaces any pending one (coalesced: latest wins)
//                      and goes out when the flow's gap ends; flow not tracked -> lowest free slot, the
//                      frame is eligible from now + 1; no free slot -> status full (request refused,
//                      the caller retries; nothing is lost silently).
//   next_frame(now)    the frame the block emits at cycle `now` when the link can take one: the pending
//                      frame of the lowest slot whose gap has ended; its next frame waits `gap` cycles.
//                      At most one frame per cycle (the RTL's frame port): with several due, the others
//                      go in the following cycles, lowest slot first.
// A slot frees itself when its gap has ended and no frame is pending. Within one cycle the block first
// emits (next_frame) and then accepts a request (request), which is the order the RTL evaluates in.
// Latency: request -> status 1 cycle; a frame is eligible at the earliest 1 cycle after its request.
// Storage per slot: flow id 32 + pending 1 + xoff 1 + period 16 + credit 24 + gap counter ceil(log2 gap).
//
// FgfcCache (NIC side) is the paused-flow cache (16 entries in the shipping part): a frame pauses a flow
// until XON or until its period expires; a flow paused with credit may still send `credit` bytes. A frame
// that finds the cache full returns fall_back_to_class_pause: the NIC must pause the whole traffic class
// (as PFC would) rather than drop the request.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace netasic {

struct FgfcFrame {
  std::uint32_t flow_id = 0;
  bool xoff = false;
  std::uint16_t period = 0;  // cycles (of the NIC's FGFC timer); 0 means XON
  std::uint32_t credit = 0;  // bytes the flow may still send while paused (24 bits)
  friend bool operator==(const FgfcFrame& a, const FgfcFrame& b) {
    return a.flow_id == b.flow_id && a.xoff == b.xoff && a.period == b.period && a.credit == b.credit;
  }
};

struct FgfcGeneratorConfig {
  unsigned slots = 16;         // 1 .. 64
  std::uint32_t gap = 64;      // cycles between two frames of one flow: 1 .. 65535
  unsigned request_latency = 1;
};

enum class FgfcRequestStatus { accepted, coalesced, full };

// The generator as the Flowcut engine uses it: the C++ model (FgfcGenerator) or a co-simulation adapter
// (tlm/cosim, switch.fgfc_generator.impl = rtl | rtl_sc). `now` is the switch clock cycle; calls come with
// non-decreasing `now`.
class FgfcGeneratorIf {
 public:
  virtual ~FgfcGeneratorIf() = default;
  // credit saturates at 2^24 - 1.
  virtual FgfcRequestStatus request(std::uint64_t now, const FgfcFrame& frame) = 0;
  virtual std::optional<FgfcFrame> next_frame(std::uint64_t now) = 0;
  // Earliest cycle >= now at which next_frame() has a frame; nullopt when nothing is pending.
  virtual std::optional<std::uint64_t> next_due(std::uint64_t now) const = 0;
  virtual unsigned slots_in_use(std::uint64_t now) const = 0;
  virtual std::uint64_t frames() const = 0;
  virtual std::uint64_t coalesced() const = 0;
  virtual std::uint64_t refused() const = 0;
  virtual const FgfcGeneratorConfig& config() const = 0;
};

class FgfcGenerator final : public FgfcGeneratorIf {
 public:
  static constexpr std::uint32_t kCreditMax = (1u << 24) - 1;

  explicit FgfcGenerator(const FgfcGeneratorConfig& config);

  // period == 0 is rejected (use xon()); credit saturates at 2^24 - 1.
  FgfcRequestStatus xoff(std::uint64_t now, std::uint32_t flow_id, std::uint16_t period, std::uint32_t credit = 0);
  FgfcRequestStatus xon(std::uint64_t now, std::uint32_t flow_id);
  FgfcRequestStatus request(std::uint64_t now, const FgfcFrame& frame) override;

  std::optional<FgfcFrame> next_frame(std::uint64_t now) override;
  std::optional<std::uint64_t> next_due(std::uint64_t now) const override;

  unsigned slots_in_use(std::uint64_t now) const override;
  std::uint64_t frames() const override { return frames_; }
  std::uint64_t coalesced() const override { return coalesced_; }
  std::uint64_t refused() const override { return refused_; }
  const FgfcGeneratorConfig& config() const override { return config_; }

 private:
  struct Slot {
    std::uint32_t flow_id = 0;
    bool pending = false;
    FgfcFrame frame{};
    std::uint64_t eligible_at = 0;  // the gap ends at this cycle
  };
  bool in_use(const Slot& s, std::uint64_t now) const { return s.pending || s.eligible_at > now; }
  FgfcGeneratorConfig config_;
  std::vector<Slot> slots_;
  std::uint64_t frames_ = 0, coalesced_ = 0, refused_ = 0;
  std::optional<std::uint64_t> last_frame_;  // the cycle of the last frame emitted
};

// Builds the generator a switch's Flowcut engine uses: the C++ model unless a co-simulation adapter is
// plugged in. `owner` is the switch's name (messages, latency trace).
using FgfcGeneratorFactory =
    std::function<std::unique_ptr<FgfcGeneratorIf>(const FgfcGeneratorConfig& config, const std::string& owner)>;

struct FgfcCacheConfig {
  unsigned entries = 16;  // 1 .. 1024
};

enum class FgfcApplyStatus { paused, updated, resumed, xon_unknown_flow, fall_back_to_class_pause };

struct FgfcLookup {
  bool paused;
  std::uint32_t credit_left;  // bytes the flow may still send (0 when paused without credit)
};

class FgfcCache {
 public:
  explicit FgfcCache(const FgfcCacheConfig& config);

  FgfcApplyStatus apply(std::uint64_t now, const FgfcFrame& frame);
  FgfcLookup lookup(std::uint64_t now, std::uint32_t flow_id);
  // The NIC sends `bytes` of a paused flow on its credit; returns false (and sends nothing) when the
  // credit does not cover them.
  bool consume_credit(std::uint64_t now, std::uint32_t flow_id, std::uint32_t bytes);

  unsigned occupancy(std::uint64_t now);
  unsigned high_water() const { return high_water_; }
  std::uint64_t fallbacks() const { return fallbacks_; }

 private:
  struct Entry {
    bool valid = false;
    std::uint32_t flow_id = 0;
    std::uint64_t expires_at = 0;
    std::uint32_t credit = 0;
  };
  void expire(std::uint64_t now);
  Entry* find(std::uint32_t flow_id);
  FgfcCacheConfig config_;
  std::vector<Entry> entries_;
  unsigned high_water_ = 0;
  std::uint64_t fallbacks_ = 0;
};

const char* to_string(FgfcRequestStatus s);
const char* to_string(FgfcApplyStatus s);

}  // namespace netasic
