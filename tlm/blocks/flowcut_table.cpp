#include "tlm/blocks/flowcut_table.h"

#include <algorithm>

#include "tlm/common/error.h"

namespace netasic {
namespace {

bool is_pow2(std::uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

void require(bool ok, const std::string& what) {
  if (!ok) throw InputError("flowcut_table: " + what);
}

}  // namespace

FlowcutTable::FlowcutTable(const FlowcutTableConfig& config) : config_(config) {
  require(config.entries >= 4 && config.entries <= (1u << 20),
          "entries = " + std::to_string(config.entries) + " is outside 4 .. 1048576");
  require(config.key_bits >= 8 && config.key_bits <= 128 && config.key_bits % 8 == 0,
          "key_bits = " + std::to_string(config.key_bits) + " must be a multiple of 8 in 8 .. 128");
  require(config.port_bits >= 1 && config.port_bits <= 16,
          "port_bits = " + std::to_string(config.port_bits) + " is outside 1 .. 16");
  require(config.inflight_bits >= 4 && config.inflight_bits <= 32,
          "inflight_bits = " + std::to_string(config.inflight_bits) + " is outside 4 .. 32");
  require(config.histogram_buckets >= 1 && config.histogram_buckets <= 4096,
          "histogram_buckets = " + std::to_string(config.histogram_buckets) + " is outside 1 .. 4096");
  if (config.organization == FlowcutOrganization::set_associative) {
    require(config.ways >= 1 && config.ways <= 16,
            "ways = " + std::to_string(config.ways) + " is outside 1 .. 16");
    require(config.entries % config.ways == 0 && is_pow2(config.entries / config.ways),
            "entries / ways = " + std::to_string(config.entries) + " / " + std::to_string(config.ways) +
                " must be a power of two (the number of sets)");
    sets_ = config.entries / config.ways;
  }
  inflight_max_ = config.inflight_bits == 32 ? ~0u : (1u << config.inflight_bits) - 1u;
  entries_.resize(config.entries);
  // More buckets than occupancy values would leave some forever empty: cap at entries + 1.
  const std::uint32_t buckets = std::min<std::uint32_t>(config.histogram_buckets, config.entries + 1);
  bucket_width_ = (config.entries + 1 + buckets - 1) / buckets;
  histogram_.assign((config.entries + bucket_width_) / bucket_width_, 0);
  if (config.organization == FlowcutOrganization::fully_associative) {
    free_words_.assign((config.entries + 63) / 64, 0);
    free_summary_.assign((free_words_.size() + 63) / 64, 0);
    for (std::uint32_t i = 0; i < config.entries; ++i) mark_free(i, true);
    index_.reserve(config.entries);
  }
}

void FlowcutTable::mark_free(std::uint32_t i, bool free) {
  const std::uint32_t w = i / 64;
  if (free) {
    free_words_[w] |= std::uint64_t{1} << (i % 64);
    free_summary_[w / 64] |= std::uint64_t{1} << (w % 64);
  } else {
    free_words_[w] &= ~(std::uint64_t{1} << (i % 64));
    if (!free_words_[w]) free_summary_[w / 64] &= ~(std::uint64_t{1} << (w % 64));
  }
}

std::uint32_t FlowcutTable::lowest_free() const {
  for (std::size_t s = 0; s < free_summary_.size(); ++s)
    if (free_summary_[s]) {
      const std::size_t w = s * 64 + static_cast<std::size_t>(__builtin_ctzll(free_summary_[s]));
      return static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(__builtin_ctzll(free_words_[w])));
    }
  return static_cast<std::uint32_t>(entries_.size());
}

void FlowcutTable::release(std::uint32_t i) {
  entries_[i].valid = false;
  --occupancy_;
  if (config_.organization == FlowcutOrganization::fully_associative) {
    index_.erase(entries_[i].key);
    mark_free(i, true);
  }
}

std::uint32_t FlowcutTable::set_of(const WideKey& key) const {
  if (config_.organization == FlowcutOrganization::fully_associative) return 0;
  return crc32_key(key, config_.key_bits) & (sets_ - 1);
}

std::optional<std::uint32_t> FlowcutTable::find(const WideKey& key) const {
  if (!key.fits(config_.key_bits)) throw ModelError("flowcut_table: key wider than key_bits");
  if (config_.organization == FlowcutOrganization::fully_associative) {
    const auto it = index_.find(key);
    if (it == index_.end()) return std::nullopt;
    return it->second;
  }
  const std::uint32_t base = set_of(key) * config_.ways;
  for (std::uint32_t w = 0; w < config_.ways; ++w)
    if (entries_[base + w].valid && entries_[base + w].key == key) return base + w;
  return std::nullopt;
}

void FlowcutTable::sample() { ++histogram_[occupancy_ / bucket_width_]; }

std::optional<std::uint32_t> FlowcutTable::lookup(const WideKey& key) {
  auto r = find(key);
  sample();
  return r;
}

InsertResult FlowcutTable::insert(const WideKey& key, std::uint16_t out_port, std::uint16_t in_port) {
  if (auto hit = find(key)) {
    sample();
    return {InsertStatus::exists, *hit};
  }
  std::uint32_t first = 0, count = config_.entries;
  if (config_.organization == FlowcutOrganization::set_associative) {
    first = set_of(key) * config_.ways;
    count = config_.ways;
  } else {
    // The CAM's priority encoder: the lowest free entry.
    first = lowest_free();
    count = first < config_.entries ? 1 : 0;
  }
  for (std::uint32_t i = first; i < first + count; ++i) {
    if (entries_[i].valid) continue;
    FlowcutEntry& e = entries_[i];
    e = FlowcutEntry{};
    e.valid = true;
    e.key = key;
    e.out_port = static_cast<std::uint16_t>(clamp_port(out_port));
    e.in_port = config_.variant == FlowcutVariant::full_switch ? static_cast<std::uint16_t>(clamp_port(in_port)) : 0;
    if (config_.organization == FlowcutOrganization::fully_associative) {
      index_.emplace(key, i);
      mark_free(i, false);
    }
    ++occupancy_;
    high_water_ = std::max(high_water_, occupancy_);
    sample();
    return {InsertStatus::ok, i};
  }
  ++insert_failures_;
  sample();
  return {occupancy_ == config_.entries ? InsertStatus::full : InsertStatus::set_full, 0};
}

AddResult FlowcutTable::add_bytes(std::uint32_t index, std::uint32_t bytes) {
  sample();
  if (index >= entries_.size() || !entries_[index].valid) return {AddStatus::invalid_index, 0};
  FlowcutEntry& e = entries_[index];
  const std::uint64_t sum = std::uint64_t{e.inflight} + bytes;
  if (sum > inflight_max_) {
    e.inflight = inflight_max_;
    ++saturations_;
    return {AddStatus::saturated, e.inflight};
  }
  e.inflight = static_cast<std::uint32_t>(sum);
  return {AddStatus::ok, e.inflight};
}

AckResult FlowcutTable::ack_subtract(const WideKey& key, std::uint32_t bytes) {
  auto hit = find(key);
  if (!hit) {
    sample();
    return {false, 0, false, false};
  }
  FlowcutEntry& e = entries_[*hit];
  const bool underflow = bytes > e.inflight;
  e.inflight = underflow ? 0 : e.inflight - bytes;
  const bool deleted = e.inflight == 0;
  if (deleted) release(*hit);
  sample();
  return {true, e.inflight, deleted, underflow};
}

bool FlowcutTable::erase(const WideKey& key) {
  auto hit = find(key);
  if (hit) release(*hit);
  sample();
  return hit.has_value();
}

FlowcutEntry FlowcutTable::read(std::uint32_t index) const {
  if (index >= entries_.size() || !entries_[index].valid) return FlowcutEntry{};
  return entries_[index];
}

bool FlowcutTable::set_rtt(std::uint32_t index, std::uint16_t rtt_avg, std::uint16_t last_rtt,
                           std::uint16_t rtt_diff_avg) {
  if (index >= entries_.size() || !entries_[index].valid) return false;
  FlowcutEntry& e = entries_[index];
  e.rtt_avg = rtt_avg;
  e.last_rtt = last_rtt;
  e.rtt_diff_avg = rtt_diff_avg;
  return true;
}

bool FlowcutTable::set_drain(std::uint32_t index, bool draining) {
  if (index >= entries_.size() || !entries_[index].valid) return false;
  entries_[index].draining = draining;
  return true;
}

FlowcutStorage FlowcutTable::storage() const {
  FlowcutStorage s;
  s.fields.push_back({"key", config_.key_bits, false});
  s.fields.push_back({"valid", 1, false});
  s.fields.push_back({"out_port", config_.port_bits, true});
  if (config_.variant == FlowcutVariant::full_switch) s.fields.push_back({"in_port", config_.port_bits, true});
  s.fields.push_back({"inflight_bytes", config_.inflight_bits, true});
  s.fields.push_back({"rtt_avg", 16, true});
  s.fields.push_back({"last_rtt", 16, true});
  s.fields.push_back({"rtt_diff_avg", 16, true});
  s.fields.push_back({"drain", 1, false});
  s.state_bits = 0;
  s.entry_bits = 0;
  for (const auto& f : s.fields) {
    s.entry_bits += f.bits;
    if (f.counted_by_paper) s.state_bits += f.bits;
  }
  s.total_bits = std::uint64_t{s.entry_bits} * config_.entries;
  return s;
}

const char* to_string(InsertStatus s) {
  switch (s) {
    case InsertStatus::ok: return "ok";
    case InsertStatus::exists: return "exists";
    case InsertStatus::full: return "full";
    case InsertStatus::set_full: return "set_full";
  }
  return "?";
}

const char* to_string(AddStatus s) {
  switch (s) {
    case AddStatus::ok: return "ok";
    case AddStatus::saturated: return "saturated";
    case AddStatus::invalid_index: return "invalid_index";
  }
  return "?";
}

}  // namespace netasic
