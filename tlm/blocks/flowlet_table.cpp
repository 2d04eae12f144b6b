#include "tlm/blocks/flowlet_table.h"

#include <algorithm>
#include <string>

#include "tlm/common/error.h"

namespace netasic {

FlowletTable::FlowletTable(const FlowletTableConfig& config) : config_(config) {
  const auto e = config.entries;
  if (e < 4 || e > (1u << 24) || (e & (e - 1)) != 0)
    throw InputError("flowlet_table: entries = " + std::to_string(e) + " must be a power of two in 4 .. 16777216");
  if (config.key_bits < 8 || config.key_bits > 128 || config.key_bits % 8 != 0)
    throw InputError("flowlet_table: key_bits = " + std::to_string(config.key_bits) +
                     " must be a multiple of 8 in 8 .. 128");
  if (config.port_bits < 1 || config.port_bits > 16)
    throw InputError("flowlet_table: port_bits = " + std::to_string(config.port_bits) + " is outside 1 .. 16");
  entries_.resize(e);
}

FlowletResult FlowletTable::access(const WideKey& key, std::uint32_t port_count, Rng& rng) {
  if (port_count < 1 || port_count > (1u << config_.port_bits))
    throw ModelError("flowlet_table: port_count outside 1 .. 2^port_bits");
  const std::uint32_t i = index_of(key);
  Entry& e = entries_[i];
  if (e.valid) {
    if (e.last_key != key) ++collisions_;  // another flow rides this flowlet's port
    e.age = false;
    return {e.port, false, i};
  }
  e.port = static_cast<std::uint16_t>(rng.below(port_count));
  e.valid = true;
  e.age = false;
  e.last_key = key;
  ++flowlets_;
  ++occupancy_;
  high_water_ = std::max(high_water_, occupancy_);
  return {e.port, true, i};
}

FlowletResult FlowletTable::access_at_sweep(const WideKey& key, std::uint32_t port_count, Rng& rng,
                                            std::uint64_t sweeps) {
  live_.advance(sweeps);
  Entry& e = entries_[index_of(key)];
  for (std::uint64_t k = e.swept; k < sweeps && k < e.swept + 2 && e.valid; ++k) {
    if (e.age) e.valid = false;
    else e.age = true;
  }
  occupancy_ = live_.count();  // this entry included when still valid; access() counts a new flowlet in
  live_.touch(e.valid, e.swept);
  if (sweeps > e.swept) e.swept = sweeps;
  return access(key, port_count, rng);
}

void FlowletTable::check() {
  for (auto& e : entries_) {
    if (!e.valid) continue;
    if (e.age) {
      e.valid = false;
      --occupancy_;
    } else {
      e.age = true;
    }
  }
}

}  // namespace netasic
