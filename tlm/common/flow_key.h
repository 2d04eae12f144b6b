// The 13-byte 5-tuple that identifies a flow, as switch tables key it.
#pragma once

#include <array>
#include <cstdint>

namespace netasic {

struct FlowKey {
  std::uint32_t src_addr = 0;
  std::uint32_t dst_addr = 0;
  std::uint16_t src_port = 0;  // UDP source port: the ECMP entropy field a NIC may rewrite
  std::uint16_t dst_port = 0;
  std::uint8_t protocol = 17;  // UDP (RoCEv2-style transport)

  static constexpr std::size_t kBytes = 13;

  // Big-endian wire order: src addr, dst addr, src port, dst port, protocol.
  std::array<std::uint8_t, kBytes> bytes() const {
    std::array<std::uint8_t, kBytes> b{};
    auto put = [&b](std::size_t at, std::uint64_t v, int n) {
      for (int i = 0; i < n; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * (n - 1 - i)));
    };
    put(0, src_addr, 4);
    put(4, dst_addr, 4);
    put(8, src_port, 2);
    put(10, dst_port, 2);
    put(12, protocol, 1);
    return b;
  }

  friend bool operator==(const FlowKey& a, const FlowKey& b) {
    return a.src_addr == b.src_addr && a.dst_addr == b.dst_addr && a.src_port == b.src_port &&
           a.dst_port == b.dst_port && a.protocol == b.protocol;
  }
  friend bool operator!=(const FlowKey& a, const FlowKey& b) { return !(a == b); }
};

}  // namespace netasic
