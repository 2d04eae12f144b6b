// The virtual platform of both examples: four hosts, each a CPU and a memory, on a fabric of two
// switches built by netasic from a scenario. Host i posts a message of random bytes to host i+1 (mod 4)
// through its NIC's register map and waits on the interrupt for its send and its receive to complete;
// afterwards every receiver's memory is compared with its sender's.
#pragma once

#include <systemc>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "host_models.h"
#include "tb/scenario.h"
#include "tb/simulation.h"

namespace vp {

constexpr std::uint32_t kHosts = 4;
constexpr std::uint64_t kPayload = 0x10000, kRxBuffer = 0x80000;
constexpr std::uint32_t kRxCapacity = 256 * 1024;
inline std::uint32_t message_bytes(std::uint32_t host) { return 50000 + 7777 * host; }

// One host's program: set up the rings, post a receive buffer, send, and wait for both to complete.
template <class Cpu>
void host_program(Cpu& cpu, MemoryArray& mem, netasic::NicHost& nic, std::uint32_t host) {
  Driver<Cpu> d{cpu, mem};
  d.init(netasic::kIrqTxDone | netasic::kIrqRxDone | netasic::kIrqError);
  const std::uint32_t rx = d.post_buffer(kRxBuffer, kRxCapacity);
  std::mt19937 rng(1000 + host);
  for (std::uint32_t i = 0; i < message_bytes(host); ++i) mem.bytes[kPayload + i] = static_cast<std::uint8_t>(rng());
  sc_core::wait(1, sc_core::SC_US);  // every host has its receive buffer posted by then
  const sc_core::sc_time t0 = sc_core::sc_time_stamp();
  const std::uint32_t tx = d.send(kPayload, message_bytes(host), (host + 1) % kHosts, 0x100 + host, true);
  while (!(d.tx_desc(tx).status & netasic::kDescDone) || !(d.rx_desc(rx).status & netasic::kDescDone)) {
    if (!nic.irq.read()) sc_core::wait(nic.irq.posedge_event());
    if (d.take_irq() & netasic::kIrqError)
      std::printf("host %u: NIC error status %#x\n", host, d.reg(netasic::host_reg::kErrStatus));
  }
  std::printf("host %u: sent %u bytes to host %u, both ends done %.3f us after the doorbell\n", host,
              message_bytes(host), (host + 1) % kHosts, (sc_core::sc_time_stamp() - t0).to_seconds() * 1e6);
}

// Builds the platform, runs it, checks every byte; returns the exit code.
template <class Cpu, class Mem>
int run_platform(const char* style) {
  // Two switches (nodes 4 and 5), two hosts on each, 100 Gb/s links of 1 us (HPCC topology format).
  const auto topo = std::filesystem::temp_directory_path() / ("netasic-vp-" + std::string(style) + ".txt");
  std::ofstream(topo) << "6 2 5\n4 5\n0 4 100Gbps 1000ns 0\n1 4 100Gbps 1000ns 0\n2 5 100Gbps 1000ns 0\n"
                         "3 5 100Gbps 1000ns 0\n4 5 100Gbps 1000ns 0\n";
  netasic::Scenario s;
  for (const char* a : {"topology.type=file", "workload.type=none", "nic.host_interface=true", "nic.transport=sr"})
    s.set_assignment(a);
  s.set_assignment("topology.file=" + topo.string());
  netasic::Simulation sim(s);
  std::filesystem::remove(topo);
  std::vector<std::unique_ptr<Cpu>> cpus;
  std::vector<std::unique_ptr<Mem>> mems;
  for (std::uint32_t h = 0; h < kHosts; ++h) {
    cpus.push_back(std::make_unique<Cpu>(("cpu" + std::to_string(h)).c_str()));
    mems.push_back(std::make_unique<Mem>(("mem" + std::to_string(h)).c_str(), 1 << 20));
    netasic::NicHost& nic = sim.host_interface(h);
    cpus[h]->bus.bind(nic.regs);      // the CPU's stores and loads reach the NIC's registers
    nic.dma.bind(mems[h]->socket);    // the NIC's DMA reaches the host's memory
    Cpu& cpu = *cpus[h];
    MemoryArray& mem = *mems[h];
    cpus[h]->program = [&cpu, &mem, &nic, h](Cpu&) { host_program(cpu, mem, nic, h); };
  }
  sim.run();
  std::uint64_t verified = 0;
  int bad = 0;
  for (std::uint32_t src = 0; src < kHosts; ++src) {
    const std::uint32_t dst = (src + 1) % kHosts, n = message_bytes(src);
    const auto& a = mems[src]->bytes;
    const auto& b = mems[dst]->bytes;
    const auto& rx = *reinterpret_cast<const netasic::RxDescriptor*>(&b[Driver<Cpu>::kRxRing]);
    const bool same = std::equal(a.begin() + kPayload, a.begin() + kPayload + n, b.begin() + kRxBuffer);
    if (!same || rx.src_host != src || rx.tag != 0x100 + src || rx.length != n || rx.status != netasic::kDescDone) {
      std::printf("host %u -> host %u: bytes %s, descriptor src %u tag %#x length %u status %#x\n", src, dst,
                  same ? "equal" : "DIFFER", rx.src_host, rx.tag, rx.length, rx.status);
      ++bad;
    } else {
      verified += n;
    }
  }
  if (bad) return 1;
  std::printf("%s: verified %llu bytes\n", style, static_cast<unsigned long long>(verified));
  return 0;
}

}  // namespace vp
