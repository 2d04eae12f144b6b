// Host models of a small virtual platform around netasic (docs/tlm.md, "NIC host interface"): a host
// memory, a CPU that drives its NIC through the register map, each in the loosely-timed (blocking) and the
// approximately-timed (non-blocking, four-phase) style of TLM-2.0. Plain Accellera TLM-2.0 utilities, base
// protocol and generic payloads throughout: nothing here knows the fabric behind the NIC.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_get.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tlm/model/nic_host.h"

namespace vp {

// The bytes of a host memory: addresses [0, size) exist, anything else is an address error; a range may
// be marked bad (poisoned) to answer a generic error.
struct MemoryArray {
  std::vector<std::uint8_t> bytes;
  std::uint64_t poison_begin = 0, poison_end = 0;
  explicit MemoryArray(std::size_t size) : bytes(size, 0) {}
  tlm::tlm_response_status access(tlm::tlm_generic_payload& t) {
    const std::uint64_t a = t.get_address(), n = t.get_data_length();
    if (a >= bytes.size() || n > bytes.size() - a) return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    if (a < poison_end && a + n > poison_begin) return tlm::TLM_GENERIC_ERROR_RESPONSE;
    if (t.get_byte_enable_ptr() || t.get_streaming_width() < n) return tlm::TLM_BURST_ERROR_RESPONSE;
    if (t.is_read()) std::memcpy(t.get_data_ptr(), &bytes[a], n);
    else if (t.is_write()) std::memcpy(&bytes[a], t.get_data_ptr(), n);
    return tlm::TLM_OK_RESPONSE;
  }
};

// Host memory, loosely timed: b_transport with a fixed latency.
struct Memory : sc_core::sc_module, MemoryArray {
  tlm_utils::simple_target_socket<Memory> socket;
  sc_core::sc_time latency;
  Memory(const sc_core::sc_module_name& n, std::size_t size, sc_core::sc_time lat = sc_core::sc_time(50, sc_core::SC_NS))
      : sc_core::sc_module(n), MemoryArray(size), socket("socket"), latency(lat) {
    socket.register_b_transport(this, &Memory::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    delay += latency;
    t.set_response_status(access(t));
  }
};

// Host memory, approximately timed: only nb_transport_fw, the request accepted at once and the response
// sent `latency` later through a payload event queue (the NIC's blocking DMA reaches it through the
// simple target socket's blocking-to-non-blocking conversion).
struct AtMemory : sc_core::sc_module, MemoryArray {
  tlm_utils::simple_target_socket<AtMemory> socket;
  sc_core::sc_time latency;
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> peq;
  SC_HAS_PROCESS(AtMemory);
  AtMemory(const sc_core::sc_module_name& n, std::size_t size, sc_core::sc_time lat = sc_core::sc_time(50, sc_core::SC_NS))
      : sc_core::sc_module(n), MemoryArray(size), socket("socket"), latency(lat), peq("peq") {
    socket.register_nb_transport_fw(this, &AtMemory::nb_transport_fw);
    SC_METHOD(respond);
    sensitive << peq.get_event();
    dont_initialize();
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    if (phase == tlm::BEGIN_REQ) {
      peq.notify(t, delay + latency);
      phase = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    return tlm::TLM_COMPLETED;  // END_RESP
  }
  void respond() {
    while (tlm::tlm_generic_payload* t = peq.get_next_transaction()) {
      t->set_response_status(access(*t));
      tlm::tlm_phase phase = tlm::BEGIN_RESP;
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      socket->nb_transport_bw(*t, phase, delay);  // the initiator completes the response
    }
  }
};

inline void setup(tlm::tlm_generic_payload& t, tlm::tlm_command cmd, std::uint64_t addr, std::uint32_t& v) {
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
  t.set_data_length(4);
  t.set_streaming_width(4);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

// A CPU whose register accesses are blocking (LT): each waits for its annotated delay. `program` runs in
// its thread.
struct LtCpu : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<LtCpu> bus;
  std::function<void(LtCpu&)> program;
  SC_HAS_PROCESS(LtCpu);
  explicit LtCpu(const sc_core::sc_module_name& n) : sc_core::sc_module(n), bus("bus") { SC_THREAD(run); }
  void run() {
    if (program) program(*this);
  }
  tlm::tlm_response_status access(tlm::tlm_command cmd, std::uint64_t addr, std::uint32_t& v) {
    tlm::tlm_generic_payload t;
    setup(t, cmd, addr, v);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    bus->b_transport(t, delay);
    wait(delay);
    return t.get_response_status();
  }
};

// The same CPU with non-blocking (AT) accesses: BEGIN_REQ forward, BEGIN_RESP on the backward path,
// completed there.
struct AtCpu : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<AtCpu> bus;
  std::function<void(AtCpu&)> program;
  sc_core::sc_event response;
  SC_HAS_PROCESS(AtCpu);
  explicit AtCpu(const sc_core::sc_module_name& n) : sc_core::sc_module(n), bus("bus") {
    bus.register_nb_transport_bw(this, &AtCpu::nb_transport_bw);
    SC_THREAD(run);
  }
  void run() {
    if (program) program(*this);
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    if (phase == tlm::BEGIN_RESP) {
      response.notify(delay);
      phase = tlm::END_RESP;
      return tlm::TLM_COMPLETED;
    }
    return tlm::TLM_ACCEPTED;  // END_REQ
  }
  tlm::tlm_response_status access(tlm::tlm_command cmd, std::uint64_t addr, std::uint32_t& v) {
    tlm::tlm_generic_payload t;
    setup(t, cmd, addr, v);
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    const tlm::tlm_sync_enum s = bus->nb_transport_fw(t, phase, delay);
    if (s == tlm::TLM_COMPLETED || (s == tlm::TLM_UPDATED && phase == tlm::BEGIN_RESP)) wait(delay);
    else wait(response);  // the response comes on the backward path
    return t.get_response_status();
  }
};

// A driver for one NIC: rings in its host memory, a send and a receive descriptor per message.
// `Cpu` is LtCpu or AtCpu. The memory is the host's own (the CPU writes descriptors and payload there
// directly, as a CPU's stores would).
template <class Cpu>
struct Driver {
  Cpu& cpu;
  MemoryArray& mem;
  static constexpr std::uint64_t kTxRing = 0x0000, kRxRing = 0x1000;  // 128 descriptors each
  static constexpr std::uint32_t kRingSize = 128;
  std::uint32_t tx_tail = 0, rx_tail = 0;

  std::uint32_t reg(std::uint64_t addr) {
    std::uint32_t v = 0;
    if (cpu.access(tlm::TLM_READ_COMMAND, addr, v) != tlm::TLM_OK_RESPONSE)
      throw std::runtime_error("register read failed at " + std::to_string(addr));
    return v;
  }
  void set(std::uint64_t addr, std::uint32_t v) {
    if (cpu.access(tlm::TLM_WRITE_COMMAND, addr, v) != tlm::TLM_OK_RESPONSE)
      throw std::runtime_error("register write failed at " + std::to_string(addr));
  }
  void init(std::uint32_t irq_mask) {
    if (reg(netasic::host_reg::kId) != netasic::host_reg::kIdValue) throw std::runtime_error("no netasic NIC here");
    set(netasic::host_reg::kTxBaseLo, kTxRing);
    set(netasic::host_reg::kTxBaseHi, 0);
    set(netasic::host_reg::kTxSize, kRingSize);
    set(netasic::host_reg::kRxBaseLo, kRxRing);
    set(netasic::host_reg::kRxBaseHi, 0);
    set(netasic::host_reg::kRxSize, kRingSize);
    set(netasic::host_reg::kIrqMask, irq_mask);
  }
  netasic::TxDescriptor& tx_desc(std::uint32_t i) {
    return *reinterpret_cast<netasic::TxDescriptor*>(&mem.bytes[kTxRing + 32 * i]);
  }
  netasic::RxDescriptor& rx_desc(std::uint32_t i) {
    return *reinterpret_cast<netasic::RxDescriptor*>(&mem.bytes[kRxRing + 32 * i]);
  }
  // Posts a message of `length` bytes at `addr` to host `dst`; returns its descriptor index.
  std::uint32_t send(std::uint64_t addr, std::uint32_t length, std::uint32_t dst, std::uint32_t tag, bool irq) {
    const std::uint32_t i = tx_tail;
    tx_desc(i) = netasic::TxDescriptor{addr, length, dst, tag, irq ? netasic::kTxInterrupt : 0u, 0, 0};
    tx_tail = (tx_tail + 1) % kRingSize;
    set(netasic::host_reg::kTxTail, tx_tail);  // the doorbell
    return i;
  }
  // Posts a receive buffer; returns its descriptor index.
  std::uint32_t post_buffer(std::uint64_t addr, std::uint32_t capacity) {
    const std::uint32_t i = rx_tail;
    rx_desc(i) = netasic::RxDescriptor{addr, capacity, 0, 0, 0, 0, 0};
    rx_tail = (rx_tail + 1) % kRingSize;
    set(netasic::host_reg::kRxTail, rx_tail);
    return i;
  }
  std::uint32_t take_irq() {  // reads and clears the interrupt status
    const std::uint32_t s = reg(netasic::host_reg::kIrqStatus);
    set(netasic::host_reg::kIrqStatus, s);
    return s;
  }
};

}  // namespace vp
