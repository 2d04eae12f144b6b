#include "tlm/model/nic.h"

#include <fmt/format.h>

#include <algorithm>

#include "tlm/common/error.h"

namespace netasic {

namespace {
enum NicEvent : std::uint32_t { kFlowStart = 1, kTxDone = 2, kReceive = 3, kTimeout = 4 };
constexpr std::uint8_t kControlVc = 0;
constexpr std::uint8_t kDataVc = 1;
}  // namespace

Nic::Nic(const sc_core::sc_module_name& name, Fabric& fabric, const NicConfig& config, FlowTable& flows,
         std::uint32_t host)
    : sc_core::sc_module(name),
      out("out"),
      in("in"),
      fabric_(fabric),
      config_(config),
      flows_(flows),
      host_(host),
      control_(config.control_queue_packets) {
  if (config_.mtu_bytes == 0) throw InputError("nic.mtu_bytes must be > 0");
  in.bind(fw_);
  out.bind(bw_);
}

void Nic::attach(Link* in_link, Link* out_link) {
  in_link_ = in_link;
  out_link_ = out_link;
  out_link_->set_sender(this, 0);
}

void Nic::add_flow(std::uint32_t flow_id) {
  Flow& f = flows_[flow_id];
  f.packets = static_cast<std::uint32_t>((f.size_bytes + config_.mtu_bytes - 1) / config_.mtu_bytes);
  f.acked.assign(f.packets, false);
  f.received.assign(f.packets, false);
  fabric_.schedule(f.start, this, kFlowStart, flow_id);
}

void Nic::on_event(std::uint32_t kind, std::uint64_t data) {
  switch (kind) {
    case kFlowStart:
      active_.push_back(static_cast<std::uint32_t>(data));
      try_send();
      break;
    case kTxDone:
      tx_pending_ = false;
      try_send();
      break;
    case kReceive:
      deliver(reinterpret_cast<Packet*>(data));
      break;
    case kTimeout:
      on_timeout(static_cast<std::uint32_t>(data));
      break;
    default:
      break;
  }
}

void Nic::on_credit(std::uint16_t) { try_send(); }

void Nic::receive(std::uint16_t, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  Packet* p = packet_of(payload);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  // Delivered when the tail is in, plus the NIC's receive processing.
  const Ps tail = fabric_.now() + delay.value() + p->ser_ps;
  fabric_.schedule(tail + config_.latency_ps, this, kReceive, reinterpret_cast<std::uint64_t>(p));
}

void Nic::deliver(Packet* p) {
  // The host drains the receive buffer at once: the credit goes back as the packet is taken.
  in_link_->return_credits(p->vc, p->size_bytes);
  if (p->type == PacketType::data) {
    receive_data(p);
  } else if (p->type == PacketType::ack) {
    receive_ack(p);
  } else {
    fabric_.pool().put(p);
  }
}

void Nic::receive_data(Packet* p) {
  Flow& f = flows_[p->flow];
  ++counters_.data_packets_received;
  const std::uint32_t psn = p->psn;
  if (psn < f.expected_psn || f.received[psn]) {
    ++f.duplicates;
    ++counters_.duplicates;
  } else {
    if (psn != f.expected_psn) {
      const std::uint32_t degree = psn - f.expected_psn;
      ++f.ooo_packets;
      ++counters_.ooo_packets;
      f.max_ooo_degree = std::max(f.max_ooo_degree, degree);
      counters_.max_ooo_degree = std::max(counters_.max_ooo_degree, degree);
    }
    f.received[psn] = true;
    f.delivered_bytes += p->payload_bytes;
    counters_.payload_delivered += p->payload_bytes;
    while (f.expected_psn < f.packets && f.received[f.expected_psn]) ++f.expected_psn;
    if (f.expected_psn == f.packets && !f.done()) {
      f.finish = fabric_.now();
      if (flows_.mark_completed()) fabric_.request_stop();
    }
  }
  // Turn the packet into its ACK (no allocation): same flow, reversed direction, control priority.
  Packet* a = p;
  a->type = PacketType::ack;
  a->ack_psn = psn;
  a->ack_bytes = p->payload_bytes;
  a->echo_ts = p->t_sent;
  a->echo_hops = p->hops;
  std::swap(a->src_host, a->dst_host);
  a->payload_bytes = 0;
  a->size_bytes = config_.ack_bytes;
  a->hops = 0;
  a->global_hops = 0;
  a->via_group = kNoSwitch;
  a->vc = kControlVc;
  if (control_.full()) {
    ++counters_.control_dropped;
    fabric_.pool().put(a);
    return;
  }
  control_.push_back(a);
  try_send();
}

void Nic::receive_ack(Packet* p) {
  Flow& f = flows_[p->flow];
  const std::uint32_t psn = p->ack_psn;
  if (psn < f.packets && !f.acked[psn]) {
    f.acked[psn] = true;
    ++f.acked_count;
    f.inflight_bytes -= std::min<std::uint64_t>(f.inflight_bytes, p->ack_bytes);
    f.last_ack = fabric_.now();
    if (f.acked_count == f.packets) f.sender_done = true;
  }
  fabric_.pool().put(p);
  try_send();
}

Packet* Nic::next_data_packet() {
  // Round-robin over active flows; a flow whose window is full waits for ACKs.
  for (std::size_t tries = 0; tries < active_.size();) {
    if (rr_ >= active_.size()) rr_ = 0;
    Flow& f = flows_[active_[rr_]];
    // Skip packets already acknowledged (after a go-back-N rewind).
    while (f.next_psn < f.packets && f.acked[f.next_psn]) ++f.next_psn;
    if (f.next_psn >= f.packets) {
      // Everything sent once; the flow stays known to the timer, not to the scheduler.
      active_[rr_] = active_.back();
      active_.pop_back();
      continue;
    }
    const std::uint64_t offset = std::uint64_t{f.next_psn} * config_.mtu_bytes;
    const auto payload = static_cast<std::uint32_t>(std::min<std::uint64_t>(config_.mtu_bytes, f.size_bytes - offset));
    if (config_.window_bytes && f.inflight_bytes + payload > config_.window_bytes && f.inflight_bytes > 0) {
      ++rr_;
      ++tries;
      continue;
    }
    Packet* p = fabric_.pool().get();
    p->type = PacketType::data;
    p->flow = f.id;
    p->src_host = f.src;
    p->dst_host = f.dst;
    p->key = f.key;
    p->flow_hash = f.hash;
    p->psn = f.next_psn;
    p->payload_bytes = payload;
    p->size_bytes = payload + config_.header_bytes;
    p->tclass = f.tclass;
    p->vc = kDataVc;
    p->retransmit = f.next_psn < f.sent_high ? 1 : 0;
    if (f.next_psn >= f.sent_high) f.sent_high = f.next_psn + 1;
    f.inflight_bytes += payload;
    ++f.next_psn;
    ++rr_;
    if (config_.rto_ps && !f.rto_armed) arm_timer(f, fabric_.now() + config_.rto_ps);
    return p;
  }
  return nullptr;
}

void Nic::try_send() {
  const Ps now = fabric_.now();
  if (tx_free_at_ > now) {
    if (!tx_pending_) {
      tx_pending_ = true;
      fabric_.schedule(tx_free_at_, this, kTxDone);
    }
    return;
  }
  Packet* p = nullptr;
  if (!control_.empty() && out_link_->has_credit(kControlVc, control_.front()->size_bytes)) {
    p = control_.front();
    control_.pop_front();
    ++counters_.control_packets_sent;
  } else if (!active_.empty() && out_link_->has_credit(kDataVc, config_.mtu_bytes + config_.header_bytes)) {
    p = next_data_packet();
    if (p) {
      ++counters_.data_packets_sent;
      counters_.data_payload_sent += p->payload_bytes;
    }
  }
  if (!p) return;
  transmit(p, std::max(now, out_link_->free_at()));
  if (!control_.empty() || !active_.empty()) {
    tx_pending_ = true;
    fabric_.schedule(tx_free_at_, this, kTxDone);
  }
}

void Nic::transmit(Packet* p, Ps start) {
  out_link_->take_credits(p->vc, p->size_bytes);
  p->t_sent = start;
  tx_free_at_ = start + out_link_->serialization(p->size_bytes);
  attach_packet(payload_, p);
  sc_core::sc_time delay = sc_core::sc_time::from_value(start - fabric_.now());
  out->b_transport(payload_, delay);
}

void Nic::arm_timer(Flow& f, Ps at) {
  f.rto_armed = true;
  fabric_.schedule(at, this, kTimeout, f.id);
}

void Nic::on_timeout(std::uint32_t flow_id) {
  Flow& f = flows_[flow_id];
  f.rto_armed = false;
  if (f.sender_done) return;
  const Ps now = fabric_.now();
  const Ps since = std::max(f.last_ack, f.start);
  if (since + config_.rto_ps > now) {
    arm_timer(f, since + config_.rto_ps);
    return;
  }
  // No progress for a whole timeout: go back to the first unacknowledged packet.
  ++f.timeouts;
  std::uint32_t first = 0;
  while (first < f.packets && f.acked[first]) ++first;
  const std::uint32_t rewind = f.next_psn > first ? f.next_psn - first : 0;
  f.retransmits += rewind;
  counters_.resent_packets += rewind;
  f.next_psn = first;
  f.inflight_bytes = 0;
  f.last_ack = now;
  if (std::find(active_.begin(), active_.end(), flow_id) == active_.end()) active_.push_back(flow_id);
  arm_timer(f, now + config_.rto_ps);
  try_send();
}

}  // namespace netasic
