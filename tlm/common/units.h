// Simulated time is an unsigned count of picoseconds everywhere in the model (SystemC's default time
// resolution is 1 ps, so sc_time::from_value() converts without rounding).
#pragma once

#include <cstdint>
#include <cmath>

namespace netasic {

using Ps = std::uint64_t;  // picoseconds

constexpr Ps kPsPerNs = 1000;
constexpr Ps kPsPerUs = 1000 * 1000;
constexpr Ps kNever = ~Ps{0};

inline Ps ns_to_ps(double ns) { return static_cast<Ps>(std::llround(ns * 1000.0)); }
inline double ps_to_ns(Ps ps) { return static_cast<double>(ps) / 1000.0; }

// Serialization time of `bytes` at `gbps` (Gb/s), rounded to the nearest picosecond.
inline Ps serialization_ps(std::uint64_t bytes, double gbps) {
  return static_cast<Ps>(static_cast<double>(bytes) * 8000.0 / gbps + 0.5);
}

// Cycles of a clock at `ghz` to picoseconds.
inline Ps cycles_to_ps(std::uint64_t cycles, double ghz) {
  return static_cast<Ps>(std::llround(static_cast<double>(cycles) * 1000.0 / ghz));
}

}  // namespace netasic
