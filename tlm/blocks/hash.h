// Hash units shared by the switch and NIC block models (ECMP, flowlet and Flowcut table indexing).
// CRC-32 (reflected, polynomial 0xEDB88320) over the key bytes: what switch ASICs use for ECMP and what
// the RTL hash unit computes, so a model and its RTL index the same entry.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tlm/common/flow_key.h"

namespace netasic {

inline std::uint32_t crc32_update(std::uint32_t crc, const std::uint8_t* data, std::size_t len) {
  crc = ~crc;
  for (std::size_t i = 0; i < len; ++i) {
    crc ^= data[i];
    for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

inline std::uint32_t crc32(const std::uint8_t* data, std::size_t len) { return crc32_update(0, data, len); }

// A table key of up to 128 bits, as the RTL sees it: a `key_bits`-wide vector whose most significant
// byte goes first on the wire. Covers the 13-byte 5-tuple (104 bits) and a 32-bit NIC flow id.
struct WideKey {
  std::uint64_t hi = 0;  // bits 127..64
  std::uint64_t lo = 0;  // bits 63..0

  static constexpr unsigned kMaxBits = 128;

  static WideKey from_flow(const FlowKey& k) {
    const auto b = k.bytes();
    WideKey w;
    for (std::size_t i = 0; i < FlowKey::kBytes; ++i) w = w.shifted_in(b[i]);
    return w;
  }
  static WideKey from_id(std::uint32_t id) { return WideKey{0, id}; }

  // Byte `i` counted from the least significant end.
  std::uint8_t byte_lsb(unsigned i) const {
    return static_cast<std::uint8_t>(i < 8 ? lo >> (8 * i) : hi >> (8 * (i - 8)));
  }
  // True when no bit at or above `bits` is set (the key fits a `bits`-wide table key).
  bool fits(unsigned bits) const {
    if (bits >= 128) return true;
    if (bits >= 64) return bits == 64 ? hi == 0 : (hi >> (bits - 64)) == 0;
    return hi == 0 && (lo >> bits) == 0;
  }

  friend bool operator==(const WideKey& a, const WideKey& b) { return a.hi == b.hi && a.lo == b.lo; }
  friend bool operator!=(const WideKey& a, const WideKey& b) { return !(a == b); }
  friend bool operator<(const WideKey& a, const WideKey& b) { return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo; }

 private:
  WideKey shifted_in(std::uint8_t b) const { return WideKey{(hi << 8) | (lo >> 56), (lo << 8) | b}; }
};

// CRC-32 over the `key_bits / 8` bytes of a key, most significant byte first (the RTL crc32_key unit).
inline std::uint32_t crc32_key(const WideKey& key, unsigned key_bits) {
  std::uint8_t bytes[WideKey::kMaxBits / 8];
  const unsigned n = key_bits / 8;
  for (unsigned i = 0; i < n; ++i) bytes[i] = key.byte_lsb(n - 1 - i);
  return crc32(bytes, n);
}

// CRC-32 over a 32-bit flow id, most significant byte first.
inline std::uint32_t crc32_u32(std::uint32_t id) { return crc32_key(WideKey::from_id(id), 32); }

}  // namespace netasic
