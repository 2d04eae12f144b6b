#include "tlm/model/nic_host.h"

#include <algorithm>
#include <cstring>

namespace netasic {

const char* host_counter_name(HostCounter c) {
  switch (c) {
    case HostCounter::tx_messages: return "tx_messages";
    case HostCounter::tx_bytes: return "tx_bytes";
    case HostCounter::rx_messages: return "rx_messages";
    case HostCounter::rx_bytes: return "rx_bytes";
    case HostCounter::interrupts: return "interrupts";
    case HostCounter::err_doorbell: return "err_doorbell";
    case HostCounter::err_address: return "err_address";
    case HostCounter::err_dma: return "err_dma";
    case HostCounter::err_descriptor: return "err_descriptor";
    case HostCounter::err_rx_no_buffer: return "err_rx_no_buffer";
    case HostCounter::err_rx_truncated: return "err_rx_truncated";
    case HostCounter::count: break;
  }
  return "unknown";
}

NicHost::NicHost(const sc_core::sc_module_name& name, Fabric& fabric, FlowTable& flows, MessageFabric& messages,
                 std::uint32_t host, const NicHostConfig& config)
    : sc_core::sc_module(name),
      regs("regs"),
      dma("dma"),
      irq("irq"),
      fabric_(fabric),
      flows_(flows),
      messages_(messages),
      host_(host),
      config_(config) {
  regs.register_b_transport(this, &NicHost::access);
  fabric_.pool().enable_bytes(config_.mtu_bytes);
  SC_THREAD(tx_engine);
  SC_THREAD(tx_completions);
  SC_THREAD(rx_engine);
  SC_METHOD(update_irq);
  sensitive << irq_ev_;
  dont_initialize();
}

// ---- registers ----------------------------------------------------------------------------------------

void NicHost::access(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  delay += sc_core::sc_time::from_value(config_.mmio_ps);
  const std::uint64_t a = t.get_address();
  const std::uint32_t len = t.get_data_length();
  // 32-bit registers take 4-byte accesses; the counters may also be read 8 bytes at a time.
  const bool counter = a >= host_reg::kCounters;
  const bool size_ok = len == 4 || (counter && len == 8 && a % 8 == 0);
  if (t.get_byte_enable_ptr()) {
    t.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  } else if (!size_ok || a % 4 != 0 || t.get_streaming_width() < len) {
    t.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
  } else if (t.is_read()) {
    t.set_response_status(read_register(a, len, t.get_data_ptr()) ? tlm::TLM_OK_RESPONSE
                                                                   : tlm::TLM_ADDRESS_ERROR_RESPONSE);
  } else if (t.is_write() && len == 4) {
    std::uint32_t v;
    std::memcpy(&v, t.get_data_ptr(), 4);
    t.set_response_status(write_register(a, v));
  } else {
    t.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
  }
}

bool NicHost::read_register(std::uint64_t a, std::uint32_t len, std::uint8_t* out) const {
  std::uint64_t v = 0;
  if (a >= host_reg::kCounters) {
    const std::uint64_t i = (a - host_reg::kCounters) / 8;
    if (i >= counters_.size()) return false;
    v = counters_[i] >> ((a % 8) * 8);
  } else {
    switch (a) {
      case host_reg::kId: v = host_reg::kIdValue; break;
      case host_reg::kVersion: v = 1; break;
      case host_reg::kHost: v = host_; break;
      case host_reg::kHosts: v = messages_.hosts(); break;
      case host_reg::kMtu: v = config_.mtu_bytes; break;
      case host_reg::kMaxMessage: v = config_.max_message_bytes; break;
      case host_reg::kTxBaseLo: v = tx_.base & 0xffffffffu; break;
      case host_reg::kTxBaseHi: v = tx_.base >> 32; break;
      case host_reg::kTxSize: v = tx_.size; break;
      case host_reg::kTxHead: v = tx_.head; break;
      case host_reg::kTxTail: v = tx_.tail; break;
      case host_reg::kRxBaseLo: v = rx_.base & 0xffffffffu; break;
      case host_reg::kRxBaseHi: v = rx_.base >> 32; break;
      case host_reg::kRxSize: v = rx_.size; break;
      case host_reg::kRxHead: v = rx_.head; break;
      case host_reg::kRxTail: v = rx_.tail; break;
      case host_reg::kIrqStatus: v = irq_status_; break;
      case host_reg::kIrqMask: v = irq_mask_; break;
      case host_reg::kErrStatus: v = err_status_; break;
      case host_reg::kErrAddrLo: v = err_addr_ & 0xffffffffu; break;
      case host_reg::kErrAddrHi: v = err_addr_ >> 32; break;
      default: return false;
    }
  }
  std::memcpy(out, &v, len);  // little-endian host
  return true;
}

tlm::tlm_response_status NicHost::write_register(std::uint64_t a, std::uint32_t v) {
  switch (a) {
    case host_reg::kTxBaseLo: case host_reg::kTxBaseHi: case host_reg::kTxSize: case host_reg::kTxTail:
      ring_register(tx_, a - host_reg::kTxBaseLo, v, &tx_doorbell_);
      return tlm::TLM_OK_RESPONSE;
    case host_reg::kRxBaseLo: case host_reg::kRxBaseHi: case host_reg::kRxSize: case host_reg::kRxTail:
      ring_register(rx_, a - host_reg::kRxBaseLo, v, nullptr);
      return tlm::TLM_OK_RESPONSE;
    case host_reg::kIrqStatus:
      irq_status_ &= ~v;
      irq_ev_.notify(sc_core::SC_ZERO_TIME);
      return tlm::TLM_OK_RESPONSE;
    case host_reg::kIrqMask:
      irq_mask_ = v;
      irq_ev_.notify(sc_core::SC_ZERO_TIME);
      return tlm::TLM_OK_RESPONSE;
    case host_reg::kErrStatus:
      err_status_ &= ~v;
      return tlm::TLM_OK_RESPONSE;
    default:  // read-only or no register there
      return read_register(a, 4, reinterpret_cast<std::uint8_t*>(&v)) ? tlm::TLM_COMMAND_ERROR_RESPONSE
                                                                       : tlm::TLM_ADDRESS_ERROR_RESPONSE;
  }
}

// Base low / high, size, tail of a ring, at field offsets 0x0, 0x4, 0x8, 0x10 from its base register.
void NicHost::ring_register(Ring& r, std::uint64_t field, std::uint32_t v, sc_core::sc_event* doorbell) {
  if (field == 0x0) {
    r.base = (r.base & ~std::uint64_t{0xffffffffu}) | v;
  } else if (field == 0x4) {
    r.base = (r.base & 0xffffffffu) | (std::uint64_t{v} << 32);
  } else if (field == 0x8) {
    if (v == 0 || v > 65536) {
      fail(kErrDoorbell, r.base);
      return;
    }
    r.size = v;
    r.head = r.tail = 0;
  } else if (r.size == 0 || v >= r.size) {  // the tail: a doorbell
    fail(kErrDoorbell, r.size ? r.slot(v % r.size) : r.base);
  } else {
    r.tail = v;
    if (doorbell) doorbell->notify(sc_core::SC_ZERO_TIME);
  }
}

// ---- interrupts and errors ----------------------------------------------------------------------------

void NicHost::fail(std::uint32_t err, std::uint64_t addr) {
  err_status_ |= err;
  err_addr_ = addr;
  switch (err) {
    case kErrDoorbell: count(HostCounter::err_doorbell); break;
    case kErrAddress: count(HostCounter::err_address); break;
    case kErrDma: count(HostCounter::err_dma); break;
    case kErrDescriptor: count(HostCounter::err_descriptor); break;
    case kErrRxNoBuffer: count(HostCounter::err_rx_no_buffer); break;
    default: count(HostCounter::err_rx_truncated); break;
  }
  raise(kIrqError);
}

void NicHost::raise(std::uint32_t bits) {
  irq_status_ |= bits;
  irq_ev_.notify(sc_core::SC_ZERO_TIME);
}

void NicHost::update_irq() {
  const bool level = (irq_status_ & irq_mask_) != 0;
  if (level && !irq.read()) count(HostCounter::interrupts);
  irq.write(level);
}

// ---- DMA -----------------------------------------------------------------------------------------------

std::uint32_t NicHost::dma_access(tlm::tlm_command cmd, std::uint64_t addr, std::uint8_t* data, std::uint32_t len) {
  if (dma.size() == 0) return kErrDma;  // no host memory bound to this NIC
  tlm::tlm_generic_payload t;  // one per call: the send and completion engines may both be in a transaction
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(data);
  t.set_data_length(len);
  t.set_streaming_width(len);
  t.set_byte_enable_ptr(nullptr);
  t.set_dmi_allowed(false);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  dma->b_transport(t, delay);
  wait(delay);
  if (t.get_response_status() == tlm::TLM_OK_RESPONSE) return 0;
  return t.get_response_status() == tlm::TLM_ADDRESS_ERROR_RESPONSE ? kErrAddress : kErrDma;
}

void NicHost::write_status(std::uint64_t desc, std::uint32_t status) {
  if (const std::uint32_t err = dma_access(tlm::TLM_WRITE_COMMAND, desc + kDescStatusOffset,
                                           reinterpret_cast<std::uint8_t*>(&status), 4))
    fail(err, desc + kDescStatusOffset);
}

// ---- sending ----------------------------------------------------------------------------------------------

void NicHost::tx_engine() {
  for (;;) {
    while (tx_.size == 0 || tx_.head == tx_.tail) wait(tx_doorbell_);
    const std::uint64_t desc = tx_.slot(tx_.head);
    send_one(desc);
    tx_.head = (tx_.head + 1) % tx_.size;
  }
}

// Reads one send descriptor and its payload, and starts the message (or completes the descriptor with
// an error).
void NicHost::send_one(std::uint64_t desc_addr) {
  TxDescriptor d{};
  if (const std::uint32_t err = dma_access(tlm::TLM_READ_COMMAND, desc_addr, reinterpret_cast<std::uint8_t*>(&d), 32)) {
    fail(err, desc_addr);
    return;
  }
  std::uint32_t err = 0;
  std::uint64_t err_addr = desc_addr;
  if (d.length == 0 || d.length > config_.max_message_bytes || d.dst_host >= messages_.hosts() || d.dst_host == host_)
    err = kErrDescriptor;
  TxMessage m;
  m.desc = desc_addr;
  m.flags = d.flags;
  if (!err) {
    m.bytes.resize(d.length);
    // The payload is read in MTU-sized transactions, as the packets will carry it.
    for (std::uint32_t off = 0; off < d.length && !err; off += config_.mtu_bytes) {
      const std::uint32_t n = std::min(config_.mtu_bytes, d.length - off);
      err = dma_access(tlm::TLM_READ_COMMAND, d.addr + off, m.bytes.data() + off, n);
      err_addr = d.addr + off;
    }
  }
  if (err) {
    fail(err, err_addr);
    write_status(desc_addr, kDescDone | kDescError | (err << 8));
    return;
  }
  fabric_.enter(sc_core::SC_ZERO_TIME);
  const std::uint32_t id = messages_.start_message(host_, d.dst_host, d.length, d.tag);
  sending_.emplace(id, std::move(m));
  fabric_.leave();
  count(HostCounter::tx_messages);
  count(HostCounter::tx_bytes, d.length);
}

void NicHost::attach_bytes(const Flow& f, Packet* p) {
  const auto it = sending_.find(f.id);
  if (it == sending_.end() || it->second.bytes.empty()) return;
  p->bytes = fabric_.pool().get_bytes();
  std::memcpy(p->bytes, it->second.bytes.data() + std::uint64_t{p->psn} * config_.mtu_bytes, p->payload_bytes);
}

void NicHost::sender_done(const Flow& f) {
  const auto it = sending_.find(f.id);
  if (it == sending_.end()) return;
  it->second.bytes = {};  // every byte is acknowledged: nothing will be sent again
  tx_done_.emplace_back(f.id, fabric_time());
  tx_done_ev_.notify(fabric_.annotate(0));
}

void NicHost::tx_completions() {
  for (;;) {
    while (tx_done_.empty()) wait(tx_done_ev_);
    const auto [flow, at] = tx_done_.front();
    if (at > sc_core::sc_time_stamp()) {
      wait(at - sc_core::sc_time_stamp());
      continue;
    }
    tx_done_.pop_front();
    const auto it = sending_.find(flow);
    const TxMessage m = std::move(it->second);
    sending_.erase(it);
    write_status(m.desc, kDescDone);
    if (m.flags & kTxInterrupt) raise(kIrqTxDone);
  }
}

// ---- receiving ----------------------------------------------------------------------------------------

void NicHost::take_bytes(const Flow& f, Packet* p) {
  if (!p->bytes) return;
  if (f.done()) {  // a resend of a message already complete carries nothing new
    fabric_.pool().release_bytes(p);
    return;
  }
  auto [it, first] = receiving_.try_emplace(f.id);
  if (first) {
    rx_items_.push_back(RxItem{RxItem::open, f.id, fabric_time(), 0, {}});
    rx_ev_.notify(fabric_.annotate(0));
  }
  RxItem item{RxItem::data, f.id, fabric_time(), std::uint64_t{p->psn} * config_.mtu_bytes, {}};
  item.bytes.assign(p->bytes, p->bytes + p->payload_bytes);
  rx_items_.push_back(std::move(item));
  rx_ev_.notify(fabric_.annotate(0));
  fabric_.pool().release_bytes(p);
}

void NicHost::delivered(const Flow& f) {
  const auto it = receiving_.find(f.id);
  if (it == receiving_.end()) return;
  rx_items_.push_back(RxItem{RxItem::complete, f.id, fabric_time(), 0, {}});
  rx_ev_.notify(fabric_.annotate(0));
}

void NicHost::rx_engine() {
  for (;;) {
    while (rx_items_.empty()) wait(rx_ev_);
    if (rx_items_.front().at > sc_core::sc_time_stamp()) {
      wait(rx_items_.front().at - sc_core::sc_time_stamp());
      continue;
    }
    RxItem it = std::move(rx_items_.front());
    rx_items_.pop_front();
    RxMessage& m = receiving_[it.flow];
    if (it.kind == RxItem::open) rx_open(m);
    else if (it.kind == RxItem::data) rx_data(m, it);
    if (it.kind != RxItem::complete) continue;
    rx_complete(m, it.flow);
    receiving_.erase(it.flow);  // nothing of the message comes after (take_bytes drops resends)
  }
}

// A message's first packet: it takes the next receive descriptor.
void NicHost::rx_open(RxMessage& m) {
  if (rx_.size == 0 || rx_.head == rx_.tail) {
    fail(kErrRxNoBuffer, rx_.size ? rx_.slot(rx_.head) : rx_.base);
    return;
  }
  const std::uint64_t desc = rx_.slot(rx_.head);
  rx_.head = (rx_.head + 1) % rx_.size;
  RxDescriptor d{};
  if (const std::uint32_t err = dma_access(tlm::TLM_READ_COMMAND, desc, reinterpret_cast<std::uint8_t*>(&d), 32)) {
    fail(err, desc);
    return;
  }
  m.bound = true;
  m.desc = desc;
  m.addr = d.addr;
  m.capacity = d.capacity;
}

void NicHost::rx_data(RxMessage& m, RxItem& it) {
  if (!m.bound || m.error || it.offset >= m.capacity) return;
  const auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(it.bytes.size(), m.capacity - it.offset));
  if (const std::uint32_t err = dma_access(tlm::TLM_WRITE_COMMAND, m.addr + it.offset, it.bytes.data(), n)) {
    m.error = err;
    fail(err, m.addr + it.offset);
  }
}

// The whole message is delivered in order: the descriptor is written back and the host told.
void NicHost::rx_complete(RxMessage& m, std::uint32_t flow) {
  const Flow& f = flows_[flow];
  if (!m.bound) return;  // no descriptor: counted when it arrived
  if (!m.error && f.size_bytes > m.capacity) {
    m.error = kErrRxTruncated;
    fail(kErrRxTruncated, m.desc);
  }
  RxDescriptor d{};
  d.addr = m.addr;
  d.capacity = m.capacity;
  d.src_host = f.src;
  d.tag = messages_.tag_of(flow);
  d.length = static_cast<std::uint32_t>(f.size_bytes);
  d.status = kDescDone | (m.error ? kDescError | (m.error << 8) : 0);
  if (const std::uint32_t err =
          dma_access(tlm::TLM_WRITE_COMMAND, m.desc + 12, reinterpret_cast<std::uint8_t*>(&d) + 12, 16)) {
    fail(err, m.desc + 12);
    return;
  }
  count(HostCounter::rx_messages);
  count(HostCounter::rx_bytes, std::min<std::uint64_t>(f.size_bytes, m.capacity));
  raise(kIrqRxDone);
}

}  // namespace netasic
