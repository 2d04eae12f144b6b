// Deterministic random streams. One seed per run; every component derives its own stream from it and a
// stable component id, so adding a component does not perturb the others' streams. The generator and
// the distributions are written out here (not std::uniform_*_distribution) so results do not depend on
// the standard library's implementation.
#pragma once

#include <cstdint>

namespace netasic {

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The run's share of a hash salt (ECMP's per-switch salt, a multi-homed host's choice of port): different
// seeds pick different hash functions, so ECMP collisions are sampled anew with every seed. Seed 1, the
// default, adds nothing (its salts are those the model always used).
inline std::uint32_t seed_salt(std::uint64_t seed) {
  const std::uint64_t x = splitmix64(seed) ^ splitmix64(1);
  return static_cast<std::uint32_t>(x ^ (x >> 32));
}

// xoshiro256** (Blackman & Vigna): fast, small state, good statistical quality.
class Rng {
 public:
  Rng() : Rng(0, 0) {}
  Rng(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t x = splitmix64(seed) ^ splitmix64(stream + 0x632be59bd9b4e019ULL);
    for (auto& w : s_) {
      x = splitmix64(x);
      w = x;
    }
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; the tiny bias is irrelevant here).
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  // Uniform double in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // The four state words (RTL testbenches load them as a Verilated generator's seed).
  std::uint64_t state(int i) const { return s_[i]; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace netasic
