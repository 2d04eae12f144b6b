#include "tlm/model/egress_fc_pfc.h"

#include <fmt/format.h>

#include "tlm/common/error.h"

namespace netasic {

PfcFc::PfcFc(const EgressFcConfig& c, std::uint16_t radix, PacketPool& pool, Rng& rng)
    : EgressFc(c, radix, pool, rng, queues_per_group(c)),
      ingress_bytes_(std::size_t{radix} * kClasses, 0),
      ingress_paused_(std::size_t{radix} * kClasses, 0) {
  counts_arrivals_ = true;
}

void PfcFc::arrived(const Packet* p, std::vector<FcFrame>& out) {
  if (p->in_port >= ports_.size())
    throw ModelError(fmt::format("PFC: a packet from input {} at a switch with {} ports", p->in_port, ports_.size()));
  const std::size_t k = std::size_t{p->in_port} * kClasses + p->tclass % kClasses;
  ingress_bytes_[k] += p->in_size;
  const std::uint64_t xoff = config_.pfc_xoff_bytes ? config_.pfc_xoff_bytes : 3 * ports_[p->in_port].bdp;
  if (!ingress_paused_[k] && ingress_bytes_[k] > xoff) {
    ingress_paused_[k] = 1;
    ++counters_.pause_frames;
    out.push_back(FcFrame{true, true, 0, 0, static_cast<std::uint8_t>(p->tclass % kClasses), p->in_port});
  }
}

std::uint32_t PfcFc::admit(std::uint16_t o, Packet* p, Ps, std::vector<FcFrame>&) {
  const std::uint32_t fid = p->flow_hash;
  const auto& gq = ports_[o].group_queues[p->tclass % config_.groups];
  return gq[(fid ^ (fid >> 16)) % gq.size()];
}

void PfcFc::departed(std::uint16_t, Queue&, const Packet* p, Ps, std::vector<FcFrame>& out) {
  const std::size_t k = std::size_t{p->in_port} * kClasses + p->tclass % kClasses;
  if (p->in_port >= ports_.size() || ingress_bytes_[k] < p->in_size)
    throw ModelError(fmt::format("PFC: input {} sends a packet it never counted in", p->in_port));
  ingress_bytes_[k] -= p->in_size;
  const std::uint64_t xon = config_.pfc_xon_bytes    ? config_.pfc_xon_bytes
                            : config_.pfc_xoff_bytes ? config_.pfc_xoff_bytes / 2
                                                     : 2 * ports_[p->in_port].bdp;
  if (ingress_paused_[k] && ingress_bytes_[k] <= xon) {
    ingress_paused_[k] = 0;
    ++counters_.resume_frames;
    out.push_back(FcFrame{false, true, 0, 0, static_cast<std::uint8_t>(p->tclass % kClasses), p->in_port});
  }
}

void PfcFc::pfc_frame(std::uint16_t o, std::uint32_t group, bool pause) {
  Port& port = ports_[o];
  for (std::uint32_t id : port.group_queues[group]) port.q[id].stop = pause ? 1 : 0;
}

}  // namespace netasic
