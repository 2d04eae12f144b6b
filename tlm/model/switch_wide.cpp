// The arbiter of switches above 64 ports (docs/architecture.md, "Switch geometry"): one request bit per
// group of 64 inputs in the output's word, the groups' own words beside it. Up to 64 ports the arbiter is
// Switch::grant_ports<false> in switch.cpp, whose loop does the same work on one word.

#include "tlm/model/switch.h"

namespace netasic {

Switch::Try Switch::grant_input(OutPort& op, std::uint16_t o, std::uint8_t vc, std::uint16_t i, bool shared,
                                       std::size_t base) {
  Link* link = op.link;
  Voq& v = voq(i, o, vc);
  const VoqEntry& h = *v.head;
  const std::size_t eq = base + h.queue();
  if (!egress_room(vc, eq, h.size, shared)) return Try::skip;
  if (!shared && !link->has_credit(vc, h.size)) return Try::blocked;
  take_head(op, o, i, vc, v, shared, eq - base);
  return Try::granted;
}

Switch::Try Switch::grant_wide(OutPort& op, std::uint16_t o, std::uint8_t vc, bool shared, std::size_t base) {
  // Inputs from `start` to the end, then from 0 to `start`: the start group's upper bits first, the other
  // groups in order, the start group's lower bits last.
  const unsigned pointer = op.rr_input[rr_slot_[vc]];
  const unsigned start = pointer >= radix_ ? 0 : pointer;
  const unsigned groups = (radix_ + 63u) / 64u, g0 = start >> 6;
  const std::uint64_t upper = ~std::uint64_t{0} << (start & 63);
  for (unsigned k = 0; k <= groups; ++k) {
    const unsigned g = g0 + k < groups ? g0 + k : g0 + k - groups;
    if (!(op.request[vc] >> g & 1)) continue;
    std::uint64_t m = wide_request(o, vc, g);
    if (k == 0) m &= upper;
    else if (k == groups) m &= ~upper;
    while (m) {
      const auto i = static_cast<std::uint16_t>(g * 64 + static_cast<unsigned>(__builtin_ctzll(m)));
      m &= m - 1;
      const Try t = grant_input(op, o, vc, i, shared, base);
      if (t != Try::skip) return t;
    }
  }
  return Try::skip;
}

}  // namespace netasic
