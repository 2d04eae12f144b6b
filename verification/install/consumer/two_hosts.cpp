// Two hosts on one switch, one 1 MB flow from host 0 to host 1, built from a scenario by the testbench
// library. Exits 0 when the flow completed with every byte delivered once.
#include <systemc>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "tb/scenario.h"
#include "tb/simulation.h"

int sc_main(int, char**) {
  // HPCC topology file: 3 nodes, 1 switch (node 2), 2 links of 100 Gb/s and 1 us.
  const auto topo = std::filesystem::temp_directory_path() / "netasic-consumer-two-hosts.txt";
  std::ofstream(topo) << "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n";
  netasic::Scenario s;
  for (const char* a : {"topology.type=file", "workload.type=incast", "workload.incast.senders=1",
                        "workload.incast.destination=1", "workload.size_bytes=1000000"})
    s.set_assignment(a);
  s.set_assignment("topology.file=" + topo.string());
  netasic::Simulation sim(s);
  sim.run();
  std::filesystem::remove(topo);
  const auto j = sim.summary();
  const auto& flows = sim.flows().flows();
  const bool ok = flows.size() == 1 && flows[0].done() && j["bytes"]["delivered"] == j["bytes"]["injected"] &&
                  j["bytes"]["delivered"].get<std::uint64_t>() == 1000000u;
  std::cout << "two hosts: " << j["bytes"]["delivered"] << " bytes delivered"
            << (flows.size() == 1 && flows[0].done() ? ", flow complete" : ", flow NOT complete") << "\n";
  return ok ? 0 : 1;
}
