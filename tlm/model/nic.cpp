#include "tlm/model/nic.h"

#include <fmt/format.h>

#include <algorithm>

#include "tlm/common/error.h"
#include "tlm/model/nic_host.h"

namespace netasic {

Nic::Nic(const sc_core::sc_module_name& name, Fabric& fabric, const NicConfig& config, FlowTable& flows,
         std::uint32_t host, std::uint64_t seed)
    : NicHotState(fabric, flows, config.latency_ps, config.control_queue_packets,
                  config.mtu_bytes + config.header_bytes),
      sc_core::sc_module(name),
      out("out"),
      in("in"),
      config_(config),
      host_(host),
      rng_(seed, 0x4E49430000000000ULL + host),
      ctx_{fabric_, flows_, config_, counters_, control_, active_, this->name(), this, 0} {
  transport_ = make_transport(ctx_);
  if (config_.mtu_bytes == 0) throw InputError("nic.mtu_bytes must be > 0");
  if (config_.latency_ps > 0xffffffffu)
    throw InputError(fmt::format("nic.latency_ns = {} ns: at most {} ns", ps_to_ns(config_.latency_ps), ps_to_ns(0xffffffffu)));
  if (const FlowcutParams* fc = config_.flowcut) {
    if (fc->variant == FlowcutVariant::nic_only) {
      FlowcutOwner& owner = *this;
      flowcut_ = std::make_unique<FlowcutEngine>(*fc, FlowcutSite::nic, this->name(), owner, fabric_, nullptr, 0);
    } else {
      FgfcCacheConfig c;
      c.entries = fc->nic_cache_entries;
      fgfc_cache_ = std::make_unique<FgfcCache>(c);
      class_paused_until_.assign(8, 0);
      class_fallbacks_.assign(8, {});
    }
  }
  if (config_.telemetry) {
    telemetry_ =
        std::make_unique<TelemetryNic>(ctx_, config_.telemetry_config, seed, config_.telemetry_switch_wait);
    telemetry_->set_transport(transport_.get());
  }
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
  f.tx_slot = tx_slots_++;
  transport_->add_flow(f);
  if (telemetry_) telemetry_->add_flow(f);
  if (!flows_.waits(flow_id)) fabric_.schedule(f.start, this, kFlowStart, flow_id);
}

void Nic::release_flow(std::uint32_t flow_id, Ps at) {
  flows_[flow_id].start = at;
  fabric_.schedule(at, this, kFlowStart, flow_id);
}

void Nic::add_incoming_flow(std::uint32_t flow_id) {
  Flow& f = flows_[flow_id];
  f.rx_slot = rx_slots_++;
  transport_->add_incoming_flow(f);
}

void Nic::on_event(std::uint32_t kind, std::uint64_t data) {
  switch (kind) {
    case kFlowStart:
      active_.push_back(static_cast<std::uint32_t>(data));
      if (telemetry_) telemetry_->start(flows_[static_cast<std::uint32_t>(data)]);
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
    case kFgfcExpire:
      fgfc_expire(flows_[static_cast<std::uint32_t>(data)]);
      break;
    case kTelemetry:
      telemetry_->on_time(flows_[static_cast<std::uint32_t>(data)]);
      break;
    case kPace:
      if (ctx_.pace_wake == data) ctx_.pace_wake = 0;
      try_send();
      break;
    default:
      break;
  }
}

// Each step prefetches what the step after it reads, by level: 0 the lines the event reads first, 1 the lines
// behind those, 2 (three steps only, Fabric::set_prefetch_steps) the lines behind those.
// - A delivery: level 0 the hot state's other lines, the flow record, the transport object and the input
//   link's state; level 1 the ring slot the credit return writes and the transport's state of the flow;
//   level 2 the output link's state (an ACK, or the one a data packet turns into, is sent next).
// - A transmit-done: level 0 the hot state's other lines and the output link's state; level 1 what the
//   receiver behind that link reads when the frame reaches it, and with three steps the transport object
//   and the record of the active flow whose turn it is; level 2 the transport's state of that flow (the
//   chain a data packet's send reads: active list, flow record, transport slot).
void Nic::prefetch(std::uint32_t kind, std::uint64_t data, unsigned step) const {
  const unsigned level = (deep_prefetch_ ? 2u : 1u) - step;
  if (kind == kReceive) {
    if (!in_link_) return;
    const Packet* p = reinterpret_cast<const Packet*>(data);
    const bool ack = p->type == PacketType::ack || p->type == PacketType::nack;
    const bool of_flow = ack || p->type == PacketType::data;
    if (deep_prefetch_) return prefetch_delivery_deep(p, of_flow, ack, level);
    if (level == 0) {
      prefetch_hot_lines();
      if (of_flow) prefetch_flow_record(flows_.flows()[p->flow]);
      in_link_->prefetch_state();
    } else if (level == 1) {
      in_link_->prefetch_return_slot();
      if (of_flow) transport_->prefetch_flow(flows_.flows()[p->flow], ack);
    } else if (out_link_) {
      out_link_->prefetch_state();
    }
  } else if (kind == kTxDone) {
    if (!out_link_) return;
    if (level == 0) {
      prefetch_hot_lines();
      out_link_->prefetch_state();
      return;
    }
    if (level == 1) out_link_->prefetch_receiver();
    if (!deep_prefetch_ || active_.empty()) return;
    const Flow& f = flows_.flows()[active_[rr_ < active_.size() ? rr_ : 0]];
    if (level == 1) {
      prefetch_flow_record(f);
    } else {
      transport_->prefetch_flow(f, true);
    }
  }
}

// A delivery with three steps: the flow's index is in the packet's second line, which the event loop does not
// bring in (it prefetches the first), so level 0 prefetches that line and level 1 reads it: level 0 the hot state's
// other lines, the packet's second line and the input link's state; level 1 the ring slot the credit return
// writes, the flow record and the transport object; level 2 the transport's state of the flow and the output
// link's state. Reading the flow's index at level 0 waited on memory at 8,192 hosts.
void Nic::prefetch_delivery_deep(const Packet* p, bool of_flow, bool ack, unsigned level) const {
  if (level == 0) {
    prefetch_hot_lines();
    if (of_flow) __builtin_prefetch(reinterpret_cast<const char*>(p) + 64);
    in_link_->prefetch_state();
  } else if (level == 1) {
    in_link_->prefetch_return_slot();
    if (of_flow) prefetch_flow_record(flows_.flows()[p->flow]);
  } else {
    if (of_flow) transport_->prefetch_flow(flows_.flows()[p->flow], ack);
    if (out_link_) out_link_->prefetch_state();
  }
}

void Nic::on_credit(std::uint16_t) { try_send(); }

void Nic::receive(std::uint16_t, Packet* p, Ps delay) {
  // Delivered when the tail is in, plus the NIC's receive processing.
  const Ps tail = fabric_.now() + delay + p->ser_ps;
  fabric_.schedule(tail + latency_ps_, this, kReceive, reinterpret_cast<std::uint64_t>(p));
}

void Nic::deliver(Packet* p) {
  // The host drains the receive buffer at once: the credit goes back as the packet is taken.
  in_link_->return_credits(p->vc, p->size_bytes);
  if (p->type == PacketType::data) {
    receive_data(p);
  } else if (p->type == PacketType::ack || p->type == PacketType::nack) {
    receive_ack(p);
  } else if (p->type == PacketType::ptm || p->type == PacketType::ptr) {
    Flow& f = flows_[p->flow];
    if (p->type == PacketType::ptm) telemetry_->on_ptm(f, p);
    else telemetry_->on_ptr(f, p);
    fabric_.pool().put(p);
    try_send();
  } else if (p->type == PacketType::cnp) {
    transport_->receive_cnp(flows_[p->flow]);
    fabric_.pool().put(p);
  } else if (p->type == PacketType::fgfc) {
    receive_fgfc(p);
  } else if (p->type == PacketType::pause || p->type == PacketType::resume) {
    receive_pause(p);
  } else {
    fabric_.pool().put(p);
  }
}

void Nic::receive_data(Packet* p) {
  // The transport takes the packet (and turns it into its ACK, or frees it).
  if (telemetry_) telemetry_->on_arrival(flows_[p->flow], p);
  if (host_if_) host_if_->take_bytes(flows_[p->flow], p);
  if (transport_->receive_data(flows_[p->flow], p)) try_send();
}

void Nic::receive_ack(Packet* p) {
  Flow& f = flows_[p->flow];
  // NIC-only Flowcut reads each packet's own ACK before the transport takes it.
  if (flowcut_ && transport_->per_packet_acks()) nic_flowcut_ack(f, p);
  if (telemetry_) telemetry_->on_ack(f, p);
  transport_->receive_ack(f, p);
  fabric_.pool().put(p);
  try_send();
}

Packet* Nic::next_data_packet() {
  // Round-robin over active flows; the transport says what each may send (a flow whose window is full, or
  // whose injection is limited, waits for ACKs).
  for (std::size_t tries = 0; tries < active_.size();) {
    if (rr_ >= active_.size()) rr_ = 0;
    Flow& f = flows_[active_[rr_]];
    const SendChoice c = transport_->next(f);
    if (c.kind == SendChoice::done) {
      // Everything sent once; the flow stays known to the timer (or a NACK), not to the scheduler.
      active_[rr_] = active_.back();
      active_.pop_back();
      continue;
    }
    if (c.kind == SendChoice::blocked || !may_send(f, c.payload) || !c.injection_ok ||
        (telemetry_ && telemetry_->holds(f))) {
      ++rr_;
      ++tries;
      continue;
    }
    Packet* p = build_data_packet(f, c);
    ++rr_;
    if (config_.rto_ps && !f.rto_armed) arm_timer(f, fabric_.now() + config_.rto_ps);
    return p;
  }
  return nullptr;
}

Packet* Nic::build_data_packet(Flow& f, const SendChoice& c) {
  Packet* p = fabric_.pool().get();
  p->type = PacketType::data;
  p->flow = f.id;
  p->src_host = f.src;
  p->dst_host = f.dst;
  p->key = f.key;
  p->flow_hash = f.hash;
  p->psn = c.psn;
  p->payload_bytes = c.payload;
  p->size_bytes = c.payload + config_.header_bytes;
  p->tclass = f.tclass;
  p->vc = kNicDataVc;
  p->ect = transport_->ecn_capable() ? 1 : 0;
  p->packets_left = f.packets - c.psn - 1;
  if (host_if_) host_if_->attach_bytes(f, p);
  if (flowcut_) nic_flowcut_send(f, p);
  p->retransmit = c.resend || c.psn < f.sent_high ? 1 : 0;
  if (p->retransmit) {
    ++f.retransmits;
    ++counters_.resent_packets;
    counters_.resent_bytes += p->size_bytes;
  }
  transport_->on_sent(f, c);
  transport_->paced_send(f, p->size_bytes);
  if (telemetry_) telemetry_->on_data(f, p);
  return p;
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
  if (!control_.empty() && out_link_->has_credit(kNicControlVc, control_.front()->size_bytes)) {
    p = control_.front();
    control_.pop_front();
    ++counters_.control_packets_sent;
    if (telemetry_ && (p->type == PacketType::ack || p->type == PacketType::nack)) {
      // The ACK reflects the delay of the flow's latest data packet and the port it came by.
      const Flow& f = flows_[p->flow];
      p->tm_delay_ns = f.tm_rx_delay_ns;
      p->key.src_port = f.tm_rx_port;
    }
  } else if (!active_.empty() && out_link_->has_credit(kNicDataVc, data_credit_bytes_)) {
    p = next_data_packet();
    if (p) {
      ++counters_.data_packets_sent;
      counters_.data_payload_sent += p->payload_bytes;
    }
  }
  if (!p) return;
  transmit(p, std::max(now, out_link_->free_at()));
  if ((!control_.empty() || !active_.empty()) && !tx_pending_) {
    tx_pending_ = true;
    fabric_.schedule(tx_free_at_, this, kTxDone);
  }
}

inline void Nic::transmit(Packet* p, Ps start) {
  out_link_->take_credits(p->vc, p->size_bytes);
  p->t_sent = start;
  const Ps ser = out_link_->serialization(p->size_bytes);
  tx_free_at_ = start + ser;
  const Ps delay = start - fabric_.now();
  if (out_fw_ == out_link_->target_if()) out_link_->transmit(p, delay, ser);  // bound to its link
  else foreign_.send(p, delay);
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
  // No progress for a whole timeout: the transport rewinds (or presumes packets lost), the flow is back on
  // the scheduler's list and the timer runs again.
  ++f.timeouts;
  transport_->timeout(f);
  f.last_ack = now;
  ctx_.activate(f);
  arm_timer(f, now + config_.rto_ps);
  try_send();
}

void Nic::receive_pause(Packet* p) {
  // Hop-by-hop flow control from the first switch: PFC stops a traffic class, the per-flow schemes
  // (FlowSail, BFC-style, ideal) one flow. A flow stays stopped until its RESUME.
  const bool pause = p->type == PacketType::pause;
  if (pause) ++counters_.pause_frames;
  else ++counters_.resume_frames;
  if (p->fc_pfc) {
    pfc_paused_[p->tclass % pfc_paused_.size()] = pause;
  } else if (p->flow < flows_.size() && flows_[p->flow].src == host_) {
    // Counted: the first switch may pause a flow from two of its counters at once.
    Flow& f = flows_[p->flow];
    if (pause && f.hop_pauses++ == 0) {
      f.hop_paused_since = fabric_.now();
      if (flow_observer_) flow_observer_->on_hold(f.id, FlowHold::hop_pause, f.hop_paused_since);
    }
    if (!pause && f.hop_pauses > 0 && --f.hop_pauses == 0) {
      f.hop_paused_ps += fabric_.now() - f.hop_paused_since;
      if (flow_observer_) flow_observer_->on_release(f.id, true, fabric_.now());
    }
  }
  fabric_.pool().put(p);
  if (!pause) try_send();
}

}  // namespace netasic
