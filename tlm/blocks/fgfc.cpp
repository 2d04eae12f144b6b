#include "tlm/blocks/fgfc.h"

#include <algorithm>
#include <string>

#include "tlm/common/error.h"

namespace netasic {

FgfcGenerator::FgfcGenerator(const FgfcGeneratorConfig& config) : config_(config) {
  if (config.slots < 1 || config.slots > 64)
    throw InputError("fgfc_generator: slots = " + std::to_string(config.slots) + " is outside 1 .. 64");
  if (config.gap < 1 || config.gap > 65535)
    throw InputError("fgfc_generator: gap = " + std::to_string(config.gap) + " is outside 1 .. 65535 cycles");
  slots_.resize(config.slots);
}

FgfcRequestStatus FgfcGenerator::xoff(std::uint64_t now, std::uint32_t flow_id, std::uint16_t period,
                                      std::uint32_t credit) {
  if (period == 0) throw ModelError("fgfc_generator: XOFF with period 0 (that is XON)");
  return request(now, FgfcFrame{flow_id, true, period, std::min(credit, kCreditMax)});
}

FgfcRequestStatus FgfcGenerator::xon(std::uint64_t now, std::uint32_t flow_id) {
  return request(now, FgfcFrame{flow_id, false, 0, 0});
}

FgfcRequestStatus FgfcGenerator::request(std::uint64_t now, const FgfcFrame& frame_in) {
  FgfcFrame frame = frame_in;
  frame.credit = std::min(frame.credit, kCreditMax);
  Slot* free_slot = nullptr;
  for (auto& s : slots_) {
    if (in_use(s, now)) {
      if (s.flow_id != frame.flow_id) continue;
      const bool was_pending = s.pending;
      s.pending = true;
      s.frame = frame;
      if (was_pending) ++coalesced_;
      return was_pending ? FgfcRequestStatus::coalesced : FgfcRequestStatus::accepted;
    }
    if (!free_slot) free_slot = &s;
  }
  if (!free_slot) {
    ++refused_;
    return FgfcRequestStatus::full;
  }
  free_slot->flow_id = frame.flow_id;
  free_slot->pending = true;
  free_slot->frame = frame;
  free_slot->eligible_at = now + 1;
  return FgfcRequestStatus::accepted;
}

std::optional<FgfcFrame> FgfcGenerator::next_frame(std::uint64_t now) {
  if (last_frame_ == now) return std::nullopt;  // one frame per cycle
  for (auto& s : slots_) {
    if (!s.pending || s.eligible_at > now) continue;
    s.pending = false;
    s.eligible_at = now + config_.gap;
    ++frames_;
    last_frame_ = now;
    return s.frame;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> FgfcGenerator::next_due(std::uint64_t now) const {
  std::optional<std::uint64_t> due;
  for (const auto& s : slots_) {
    if (!s.pending) continue;
    std::uint64_t t = std::max(now, s.eligible_at);
    if (last_frame_ == t) ++t;  // this cycle's frame has gone
    if (!due || t < *due) due = t;
  }
  return due;
}

unsigned FgfcGenerator::slots_in_use(std::uint64_t now) const {
  return static_cast<unsigned>(std::count_if(slots_.begin(), slots_.end(), [&](const Slot& s) { return in_use(s, now); }));
}

FgfcCache::FgfcCache(const FgfcCacheConfig& config) : config_(config) {
  if (config.entries < 1 || config.entries > 1024)
    throw InputError("fgfc_cache: entries = " + std::to_string(config.entries) + " is outside 1 .. 1024");
  entries_.resize(config.entries);
}

void FgfcCache::expire(std::uint64_t now) {
  for (auto& e : entries_)
    if (e.valid && now >= e.expires_at) e.valid = false;
}

FgfcCache::Entry* FgfcCache::find(std::uint32_t flow_id) {
  for (auto& e : entries_)
    if (e.valid && e.flow_id == flow_id) return &e;
  return nullptr;
}

FgfcApplyStatus FgfcCache::apply(std::uint64_t now, const FgfcFrame& frame) {
  expire(now);
  Entry* e = find(frame.flow_id);
  if (!frame.xoff || frame.period == 0) {
    if (!e) return FgfcApplyStatus::xon_unknown_flow;
    e->valid = false;
    return FgfcApplyStatus::resumed;
  }
  const bool existed = e != nullptr;
  if (!e) {
    for (auto& c : entries_)
      if (!c.valid) {
        e = &c;
        break;
      }
    if (!e) {
      ++fallbacks_;
      return FgfcApplyStatus::fall_back_to_class_pause;
    }
  }
  e->valid = true;
  e->flow_id = frame.flow_id;
  e->expires_at = now + frame.period;
  e->credit = frame.credit;
  high_water_ = std::max(high_water_, occupancy(now));
  return existed ? FgfcApplyStatus::updated : FgfcApplyStatus::paused;
}

FgfcLookup FgfcCache::lookup(std::uint64_t now, std::uint32_t flow_id) {
  expire(now);
  const Entry* e = find(flow_id);
  if (!e) return {false, 0};
  return {true, e->credit};
}

bool FgfcCache::consume_credit(std::uint64_t now, std::uint32_t flow_id, std::uint32_t bytes) {
  expire(now);
  Entry* e = find(flow_id);
  if (!e) return true;  // not paused: nothing to account
  if (bytes > e->credit) return false;
  e->credit -= bytes;
  return true;
}

unsigned FgfcCache::occupancy(std::uint64_t now) {
  expire(now);
  return static_cast<unsigned>(std::count_if(entries_.begin(), entries_.end(), [](const Entry& e) { return e.valid; }));
}

const char* to_string(FgfcRequestStatus s) {
  switch (s) {
    case FgfcRequestStatus::accepted: return "accepted";
    case FgfcRequestStatus::coalesced: return "coalesced";
    case FgfcRequestStatus::full: return "full";
  }
  return "?";
}

const char* to_string(FgfcApplyStatus s) {
  switch (s) {
    case FgfcApplyStatus::paused: return "paused";
    case FgfcApplyStatus::updated: return "updated";
    case FgfcApplyStatus::resumed: return "resumed";
    case FgfcApplyStatus::xon_unknown_flow: return "xon_unknown_flow";
    case FgfcApplyStatus::fall_back_to_class_pause: return "fall_back_to_class_pause";
  }
  return "?";
}

}  // namespace netasic
