// The NIC host interface (tlm/model/nic_host.h, docs/tlm.md "NIC host interface"): register reads and
// writes, messages whose bytes travel from one host's memory to another's through the fabric, interrupts
// with their mask, and every kind of bad use reported through the error status and counted.
//
// Two hosts on one switch; each has a CPU (the example's LtCpu) and a memory (the example's Memory, 50 ns
// per access). One test per process (SystemC elaborates once): CTest runs each on its own.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>

#include "host_models.h"
#include "tb/scenario.h"
#include "tb/simulation.h"
#include "tlm/common/error.h"
#include "tlm/model/tlm_ports.h"

namespace netasic {
namespace {

using vp::Driver;
using vp::LtCpu;
using vp::Memory;

struct Platform {
  std::unique_ptr<Simulation> sim;
  std::unique_ptr<LtCpu> cpu[2];
  std::unique_ptr<Memory> mem[2];
  std::unique_ptr<Driver<LtCpu>> drv[2];

  explicit Platform(std::vector<std::string> extra = {}, const std::string& error_rate = "0") {
    // One file per process: CTest runs these tests in parallel, and each removes its file once read.
    const auto topo = std::filesystem::temp_directory_path() / ("netasic-test-host-" + std::to_string(::getpid()) + ".txt");
    std::ofstream(topo) << "3 1 2\n2\n0 2 100Gbps 1000ns " << error_rate << "\n1 2 100Gbps 1000ns 0\n";
    Scenario s;
    for (const char* a : {"topology.type=file", "workload.type=none", "nic.host_interface=true"}) s.set_assignment(a);
    for (const std::string& a : extra) s.set_assignment(a);
    s.set_assignment("topology.file=" + topo.string());
    sim = std::make_unique<Simulation>(s);
    std::filesystem::remove(topo);
    for (int h = 0; h < 2; ++h) {
      cpu[h] = std::make_unique<LtCpu>(("cpu" + std::to_string(h)).c_str());
      mem[h] = std::make_unique<Memory>(("mem" + std::to_string(h)).c_str(), 1 << 20);
      cpu[h]->bus.bind(nic(h).regs);
      nic(h).dma.bind(mem[h]->socket);
      drv[h] = std::make_unique<Driver<LtCpu>>(Driver<LtCpu>{*cpu[h], *mem[h]});
    }
  }
  NicHost& nic(int h) { return sim->host_interface(static_cast<std::uint32_t>(h)); }
  void program(int h, std::function<void(Driver<LtCpu>&)> f) {
    Driver<LtCpu>* d = drv[h].get();
    cpu[h]->program = [d, f](LtCpu&) { f(*d); };
  }
  void fill(int h, std::uint64_t at, std::uint32_t n, unsigned seed) {
    std::mt19937 rng(seed);
    for (std::uint32_t i = 0; i < n; ++i) mem[h]->bytes[at + i] = static_cast<std::uint8_t>(rng());
  }
  bool same(std::uint64_t at0, std::uint64_t at1, std::uint32_t n) const {
    return std::equal(mem[0]->bytes.begin() + at0, mem[0]->bytes.begin() + at0 + n, mem[1]->bytes.begin() + at1);
  }
};

tlm::tlm_response_status access(LtCpu& cpu, tlm::tlm_command cmd, std::uint64_t addr, std::uint32_t len,
                                std::uint64_t& v) {
  tlm::tlm_generic_payload t;
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
  t.set_data_length(len);
  t.set_streaming_width(len);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  cpu.bus->b_transport(t, delay);
  return t.get_response_status();
}

TEST(HostInterface, RegistersReadWriteAndRefuseBadAccesses) {
  Platform p;
  bool ran = false;
  p.program(1, [&](Driver<LtCpu>& d) {
    EXPECT_EQ(d.reg(host_reg::kId), host_reg::kIdValue);
    EXPECT_EQ(d.reg(host_reg::kVersion), 1u);
    EXPECT_EQ(d.reg(host_reg::kHost), 1u);
    EXPECT_EQ(d.reg(host_reg::kHosts), 2u);
    EXPECT_EQ(d.reg(host_reg::kMtu), 4096u);
    d.set(host_reg::kTxBaseLo, 0x12345000);
    d.set(host_reg::kTxBaseHi, 0x7);
    d.set(host_reg::kRxSize, 64);
    d.set(host_reg::kIrqMask, 0x5);
    EXPECT_EQ(d.reg(host_reg::kTxBaseLo), 0x12345000u);
    EXPECT_EQ(d.reg(host_reg::kTxBaseHi), 0x7u);
    EXPECT_EQ(d.reg(host_reg::kRxSize), 64u);
    EXPECT_EQ(d.reg(host_reg::kIrqMask), 0x5u);
    // A register access adds nic.host.mmio_ns (100 ns) to its delay.
    std::uint64_t v = 0;
    const sc_core::sc_time before = sc_core::sc_time_stamp();
    d.reg(host_reg::kId);
    EXPECT_EQ(sc_core::sc_time_stamp() - before, sc_core::sc_time(100, sc_core::SC_NS));
    LtCpu& cpu = d.cpu;
    v = 5;
    EXPECT_EQ(access(cpu, tlm::TLM_WRITE_COMMAND, host_reg::kHost, 4, v), tlm::TLM_COMMAND_ERROR_RESPONSE);
    EXPECT_EQ(access(cpu, tlm::TLM_READ_COMMAND, 0x0fc, 4, v), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(access(cpu, tlm::TLM_READ_COMMAND, host_reg::kId, 2, v), tlm::TLM_BURST_ERROR_RESPONSE);
    EXPECT_EQ(access(cpu, tlm::TLM_READ_COMMAND, host_reg::kId + 2, 4, v), tlm::TLM_BURST_ERROR_RESPONSE);
    EXPECT_EQ(access(cpu, tlm::TLM_READ_COMMAND, host_reg::kCounters, 8, v), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(d.reg(host_reg::kHost), 1u);  // the refused write changed nothing
    ran = true;
  });
  p.sim->run();
  EXPECT_TRUE(ran);
}

// Three messages from host 0 to host 1 (1 byte, exactly one MTU, and 3 MTUs and a bit): each lands in its
// receive buffer byte for byte, both descriptors complete, and the counters and flows agree.
TEST(HostInterface, MessageBytesLandInTheReceiversMemory) {
  Platform p({"nic.transport=sr"});
  const std::uint32_t sizes[3] = {1, 4096, 3 * 4096 + 123};
  for (int m = 0; m < 3; ++m) p.fill(0, 0x10000 + 0x10000 * m, sizes[m], 7 + m);
  p.program(1, [&](Driver<LtCpu>& d) {
    d.init(kIrqRxDone);
    for (int m = 0; m < 3; ++m) d.post_buffer(0x40000 + 0x10000 * m, 0x10000);
  });
  p.program(0, [&](Driver<LtCpu>& d) {
    d.init(kIrqTxDone);
    sc_core::wait(1, sc_core::SC_US);
    for (int m = 0; m < 3; ++m) d.send(0x10000 + 0x10000 * m, sizes[m], 1, 0xabc0 + m, m == 2);
  });
  p.sim->run();
  for (int m = 0; m < 3; ++m) {
    SCOPED_TRACE(m);
    EXPECT_TRUE(p.same(0x10000 + 0x10000 * m, 0x40000 + 0x10000 * m, sizes[m]));
    const RxDescriptor& rx = p.drv[1]->rx_desc(m);
    EXPECT_EQ(rx.status, kDescDone);
    EXPECT_EQ(rx.src_host, 0u);
    EXPECT_EQ(rx.tag, 0xabc0u + m);
    EXPECT_EQ(rx.length, sizes[m]);
    EXPECT_EQ(p.drv[0]->tx_desc(m).status, kDescDone);
  }
  EXPECT_EQ(p.mem[1]->bytes[0x40000 + 1], 0);  // nothing written past the 1-byte message
  EXPECT_EQ(p.nic(0).counter(HostCounter::tx_messages), 3u);
  EXPECT_EQ(p.nic(0).counter(HostCounter::tx_bytes), 1u + 4096 + 3 * 4096 + 123);
  EXPECT_EQ(p.nic(1).counter(HostCounter::rx_messages), 3u);
  EXPECT_EQ(p.nic(1).counter(HostCounter::rx_bytes), 1u + 4096 + 3 * 4096 + 123);
  ASSERT_EQ(p.sim->flows().size(), 3u);
  for (const Flow& f : p.sim->flows().flows()) EXPECT_TRUE(f.done());
  EXPECT_EQ(p.sim->fabric().pool().bytes_in_use(), 0u);  // every packet gave its bytes back
  const auto j = p.sim->summary();
  EXPECT_EQ(j["host_interface"]["total"]["rx_messages"], 3u);
  EXPECT_EQ(j["host_interface"]["total"]["err_dma"], 0u);
  EXPECT_EQ(j["host_interface"]["hosts"].size(), 2u);
  EXPECT_EQ(j["flows"]["completed"], 3u);
}

// On a link that corrupts 2% of the packets, the transport (selective repeat, go-back-N, TCP) resends what
// was lost: the bytes of every message still arrive intact, resends carry the bytes again, both
// descriptors of every message complete, and every packet's bytes return to the pool.
void bytes_survive_a_lossy_link(const std::vector<std::string>& transport) {
  std::vector<std::string> keys = transport;
  Platform p(keys, "0.02");
  constexpr int kMessages = 20;
  constexpr std::uint32_t kBytes = 40000;
  constexpr std::uint64_t kTx = 0x10000, kRx = 0x10000;  // message m at base + 0x10000 * m
  for (int h = 0; h < 2; ++h) p.mem[h]->bytes.resize(kTx + 0x10000 * kMessages);
  for (int m = 0; m < kMessages; ++m) p.fill(0, kTx + 0x10000 * m, kBytes, 100 + m);
  p.program(1, [&](Driver<LtCpu>& d) {
    d.init(0);
    for (int m = 0; m < kMessages; ++m) d.post_buffer(kRx + 0x10000 * m, 0x10000);
  });
  p.program(0, [&](Driver<LtCpu>& d) {
    d.init(0);
    sc_core::wait(5, sc_core::SC_US);
    for (int m = 0; m < kMessages; ++m) d.send(kTx + 0x10000 * m, kBytes, 1, m, false);
  });
  p.sim->run();
  std::uint64_t resent = 0;
  for (const Flow& f : p.sim->flows().flows()) resent += f.retransmits;
  EXPECT_GT(resent, 0u);  // the link did lose packets
  // A message takes the next receive buffer when its first packet arrives, so a lost first packet lets a
  // later message take the buffer first: each buffer's descriptor names (by tag) the message it holds.
  std::vector<int> held(kMessages, 0);
  for (int b = 0; b < kMessages; ++b) {
    SCOPED_TRACE(b);
    const RxDescriptor& rx = p.drv[1]->rx_desc(b);
    EXPECT_EQ(rx.status, kDescDone);
    ASSERT_LT(rx.tag, static_cast<std::uint32_t>(kMessages));
    ++held[rx.tag];
    EXPECT_TRUE(p.same(kTx + 0x10000 * rx.tag, kRx + 0x10000 * b, kBytes)) << "message " << rx.tag;
  }
  for (int m = 0; m < kMessages; ++m) {
    EXPECT_EQ(held[m], 1) << "message " << m;
    EXPECT_EQ(p.drv[0]->tx_desc(m).status, kDescDone);
  }
  EXPECT_EQ(p.sim->fabric().pool().bytes_in_use(), 0u);
}

TEST(HostInterface, BytesSurviveALossyLink) { bytes_survive_a_lossy_link({"nic.transport=sr", "nic.rto_us=20"}); }
TEST(HostInterface, BytesSurviveALossyLinkUnderGoBackN) {
  bytes_survive_a_lossy_link({"nic.transport=gbn", "nic.rto_us=20"});
}
TEST(HostInterface, BytesSurviveALossyLinkUnderTcp) {
  bytes_survive_a_lossy_link({"nic.transport=tcp", "nic.tcp.min_rto_us=50"});
}

// The interrupt line follows (status & mask): masked completions set status bits only; unmasking raises
// the line, writing the bits back clears them and lowers it.
TEST(HostInterface, InterruptLineFollowsStatusAndMask) {
  Platform p;
  p.fill(0, 0x10000, 5000, 3);
  std::vector<bool> line;
  p.program(1, [&](Driver<LtCpu>& d) {
    d.init(0);  // everything masked
    d.post_buffer(0x40000, 0x10000);
    sc_core::wait(50, sc_core::SC_US);  // long after the message is in
    line.push_back(p.nic(1).irq.read());
    EXPECT_EQ(d.reg(host_reg::kIrqStatus), kIrqRxDone);
    d.set(host_reg::kIrqMask, kIrqRxDone);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    line.push_back(p.nic(1).irq.read());
    d.set(host_reg::kIrqStatus, kIrqRxDone);  // write 1 to clear
    sc_core::wait(sc_core::SC_ZERO_TIME);
    line.push_back(p.nic(1).irq.read());
    EXPECT_EQ(d.reg(host_reg::kIrqStatus), 0u);
  });
  p.program(0, [&](Driver<LtCpu>& d) {
    d.init(kIrqTxDone);
    sc_core::wait(1, sc_core::SC_US);
    d.send(0x10000, 5000, 1, 1, true);
    sc_core::wait(p.nic(0).irq.posedge_event());  // the send completes: an unmasked interrupt
    EXPECT_EQ(d.take_irq(), kIrqTxDone);
    EXPECT_EQ(d.tx_desc(0).status, kDescDone);
  });
  p.sim->run();
  EXPECT_EQ(line, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(p.nic(1).counter(HostCounter::interrupts), 1u);
  EXPECT_EQ(p.nic(0).counter(HostCounter::interrupts), 1u);
  EXPECT_TRUE(p.same(0x10000, 0x40000, 5000));
}

TEST(HostInterface, DoorbellPastTheRingSizeIsAnError) {
  Platform p;
  p.program(0, [&](Driver<LtCpu>& d) {
    d.set(host_reg::kTxTail, 1);  // no ring yet
    d.init(kIrqError);
    d.set(host_reg::kTxTail, Driver<LtCpu>::kRingSize);  // one past the last slot
    EXPECT_EQ(d.reg(host_reg::kErrStatus), kErrDoorbell);
    EXPECT_EQ(d.reg(host_reg::kTxTail), 0u);  // the doorbell was not taken
    EXPECT_EQ(d.reg(host_reg::kIrqStatus), kIrqError);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_TRUE(p.nic(0).irq.read());
    d.set(host_reg::kErrStatus, kErrDoorbell);
    EXPECT_EQ(d.reg(host_reg::kErrStatus), 0u);
  });
  p.sim->run();
  EXPECT_EQ(p.nic(0).counter(HostCounter::err_doorbell), 2u);
  EXPECT_EQ(p.sim->flows().size(), 0u);
}

// A send descriptor whose buffer lies outside host memory (1 MiB): the memory's address error, reported
// with the address, and the descriptor completed with the error; then a descriptor the NIC cannot carry
// out (a destination that is no host). Nothing is sent.
TEST(HostInterface, BufferOutsideHostMemoryAndBadDescriptorsAreReported) {
  Platform p;
  p.program(0, [&](Driver<LtCpu>& d) {
    d.init(kIrqError);
    d.send(0xff000, 0x2000, 1, 1, false);  // ends 4 KiB past the end of memory
    sc_core::wait(10, sc_core::SC_US);
    EXPECT_EQ(d.tx_desc(0).status, kDescDone | kDescError | (kErrAddress << 8));
    EXPECT_EQ(d.reg(host_reg::kErrStatus), kErrAddress);
    EXPECT_EQ(d.reg(host_reg::kErrAddrLo), 0x100000u);  // the first MTU read past the end
    d.send(0x1000, 100, 7, 1, false);  // host 7 does not exist
    d.send(0x1000, 0, 1, 1, false);    // nothing to send
    sc_core::wait(10, sc_core::SC_US);
    EXPECT_EQ(d.tx_desc(1).status, kDescDone | kDescError | (kErrDescriptor << 8));
    EXPECT_EQ(d.tx_desc(2).status, kDescDone | kDescError | (kErrDescriptor << 8));
    EXPECT_EQ(d.reg(host_reg::kTxHead), 3u);
  });
  p.sim->run();
  EXPECT_EQ(p.nic(0).counter(HostCounter::err_address), 1u);
  EXPECT_EQ(p.nic(0).counter(HostCounter::err_descriptor), 2u);
  EXPECT_EQ(p.nic(0).counter(HostCounter::tx_messages), 0u);
  EXPECT_EQ(p.sim->flows().size(), 0u);
}

TEST(HostInterface, DmaErrorResponseFromHostMemoryIsReported) {
  Platform p;
  p.mem[0]->poison_begin = 0x20000;
  p.mem[0]->poison_end = 0x20001;
  p.program(0, [&](Driver<LtCpu>& d) {
    d.init(kIrqError);
    d.send(0x1f000, 0x2000, 1, 1, false);  // the second MTU touches the bad byte
    sc_core::wait(10, sc_core::SC_US);
    EXPECT_EQ(d.tx_desc(0).status, kDescDone | kDescError | (kErrDma << 8));
    EXPECT_EQ(d.reg(host_reg::kErrStatus), kErrDma);
  });
  p.sim->run();
  EXPECT_EQ(p.nic(0).counter(HostCounter::err_dma), 1u);
  EXPECT_EQ(p.sim->flows().size(), 0u);
}

// A message for a host that posted no receive buffer is counted there and its bytes dropped; the sender
// still completes (the transport delivered it). A message longer than its buffer fills the buffer and
// no more, and completes with the truncation error.
TEST(HostInterface, NoReceiveBufferAndTruncationAreReported) {
  Platform p;
  p.fill(0, 0x10000, 9000, 5);
  p.program(1, [&](Driver<LtCpu>& d) {
    d.init(kIrqError | kIrqRxDone);
    sc_core::wait(30, sc_core::SC_US);  // the first message arrives before any buffer is posted
    EXPECT_EQ(d.reg(host_reg::kErrStatus), kErrRxNoBuffer);
    d.post_buffer(0x40000, 6000);
    std::fill(p.mem[1]->bytes.begin() + 0x40000, p.mem[1]->bytes.begin() + 0x50000, 0xee);
  });
  p.program(0, [&](Driver<LtCpu>& d) {
    d.init(0);
    d.send(0x10000, 9000, 1, 1, false);
    sc_core::wait(40, sc_core::SC_US);
    d.send(0x10000, 9000, 1, 2, false);
  });
  p.sim->run();
  EXPECT_EQ(p.drv[0]->tx_desc(0).status, kDescDone);
  EXPECT_EQ(p.drv[0]->tx_desc(1).status, kDescDone);
  EXPECT_EQ(p.nic(1).counter(HostCounter::err_rx_no_buffer), 1u);
  EXPECT_EQ(p.nic(1).counter(HostCounter::err_rx_truncated), 1u);
  const RxDescriptor& rx = p.drv[1]->rx_desc(0);
  EXPECT_EQ(rx.status, kDescDone | kDescError | (kErrRxTruncated << 8));
  EXPECT_EQ(rx.length, 9000u);
  EXPECT_EQ(rx.tag, 2u);
  EXPECT_TRUE(p.same(0x10000, 0x40000, 6000));
  EXPECT_EQ(p.mem[1]->bytes[0x40000 + 6000], 0xee);  // not one byte past the buffer
}

// On the packet protocol, a data packet with bytes is a write of them (data pointer and length as the base
// protocol means them); the next packet without bytes, through the same reused payload, has none again.
TEST(HostInterface, APacketWithBytesIsAWriteOfThemOnThePacketProtocol) {
  std::uint8_t buf[100] = {};
  Packet with_bytes, plain;
  with_bytes.bytes = buf;
  with_bytes.payload_bytes = 100;
  plain.payload_bytes = 4096;
  PacketPayload payload;
  tlm::tlm_generic_payload& t = payload.with(&with_bytes);
  EXPECT_EQ(t.get_command(), tlm::TLM_WRITE_COMMAND);
  EXPECT_EQ(t.get_data_ptr(), buf);
  EXPECT_EQ(t.get_data_length(), 100u);
  EXPECT_EQ(t.get_streaming_width(), 100u);
  EXPECT_EQ(packet_of(t), &with_bytes);
  tlm::tlm_generic_payload& u = payload.with(&plain);
  EXPECT_EQ(u.get_command(), tlm::TLM_IGNORE_COMMAND);
  EXPECT_EQ(u.get_data_ptr(), nullptr);
  EXPECT_EQ(u.get_data_length(), 0u);
  EXPECT_EQ(packet_of(u), &plain);
}

TEST(HostInterface, AskingForAnInterfaceTheScenarioHasNotIsAnInputError) {
  Scenario s;
  s.set_assignment("topology.fat_tree.k=4");
  s.set_assignment("workload.size_bytes=4096");
  Simulation sim(s);
  EXPECT_THROW(sim.host_interface(0), InputError);
}

}  // namespace
}  // namespace netasic
