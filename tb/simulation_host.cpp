// nic.host_interface: a host interface per NIC (tlm/model/nic_host.h), whose messages become flows of the
// run's table while the model runs, with the same identity, key and hash as the workload's flows.
#include <fmt/format.h>

#include "tb/config/builders.h"
#include "tb/simulation.h"
#include "tlm/common/error.h"

namespace netasic {

void Simulation::make_host_interfaces() {
  const NicHostConfig config = build_nic_host_config(scenario_, nic_config_);
  host_messages_ = std::make_unique<HostMessages>(
      this, static_cast<std::uint8_t>(scenario_.integer("workload.traffic_class")));
  flows_.keep_open();
  flows_.set_listener(host_messages_.get());
  for (std::uint32_t h = 0; h < nics_.size(); ++h) {
    host_ifs_.push_back(std::make_unique<NicHost>(fmt::format("nic{}_host", h).c_str(), *fabric_, flows_,
                                                  *host_messages_, h, config));
    nics_[h]->set_host(host_ifs_.back().get());
  }
}

NicHost& Simulation::host_interface(std::uint32_t host) {
  if (host_ifs_.empty())
    throw InputError(fmt::format("host {}'s interface was asked for, but nic.host_interface is false ({})", host,
                                 scenario_.origin("nic.host_interface")));
  if (host >= host_ifs_.size())
    throw InputError(fmt::format("host {}'s interface was asked for; the topology has hosts 0 to {}", host,
                                 host_ifs_.size() - 1));
  return *host_ifs_[host];
}

// summary.json `host_interface`: every counter summed over the NICs, and per host those with any non-zero.
nlohmann::json Simulation::host_interface_summary() const {
  nlohmann::json total = nlohmann::json::object(), per_host = nlohmann::json::array();
  for (const auto& h : host_ifs_) {
    nlohmann::json mine = nlohmann::json::object();
    for (std::uint32_t c = 0; c < static_cast<std::uint32_t>(HostCounter::count); ++c) {
      const char* name = host_counter_name(static_cast<HostCounter>(c));
      const std::uint64_t v = h->counter(static_cast<HostCounter>(c));
      total[name] = total.value(name, std::uint64_t{0}) + v;
      if (v) mine[name] = v;
    }
    if (!mine.empty()) {
      mine["host"] = h->host();
      per_host.push_back(mine);
    }
  }
  return {{"total", total}, {"hosts", per_host}};
}

std::uint32_t Simulation::HostMessages::hosts() const { return static_cast<std::uint32_t>(sim->nics_.size()); }

std::uint32_t Simulation::HostMessages::start_message(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes,
                                                       std::uint32_t tag) {
  const auto id = static_cast<std::uint32_t>(sim->flows_.size());
  FlowSpec spec;
  spec.src = src;
  spec.dst = dst;
  spec.size_bytes = bytes;
  spec.start = sim->fabric_->now();
  spec.tclass = tclass;
  sim->flows_.flows().emplace_back();
  sim->define_flow(id, spec);
  tags.resize(id + 1, 0);
  tags[id] = tag;
  sim->nics_[src]->add_flow(id);
  sim->nics_[dst]->add_incoming_flow(id);
  return id;
}

void Simulation::HostMessages::sender_done(const Flow& f) { sim->host_ifs_[f.src]->sender_done(f); }
void Simulation::HostMessages::delivered(const Flow& f) { sim->host_ifs_[f.dst]->delivered(f); }

}  // namespace netasic
