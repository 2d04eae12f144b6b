#include "tlm/model/egress_fc.h"

#include <fmt/format.h>

#include <algorithm>

#include "tlm/common/error.h"
#include "tlm/model/egress_fc_flow.h"
#include "tlm/model/egress_fc_flowsail.h"
#include "tlm/model/egress_fc_pfc.h"

namespace netasic {

void EgressFc::check_groups(const EgressFcConfig& c) {
  if (c.groups < 1 || c.groups > kClasses)
    throw InputError(fmt::format("switch.fc.groups = {}: accepted 1..{}", c.groups, kClasses));
}

void EgressFc::check_thresholds(const EgressFcConfig& c) {
  if (c.q_low_bytes && c.q_high_bytes && c.q_low_bytes > c.q_high_bytes)
    throw InputError(fmt::format("switch.fc.q_low_bytes = {} is above switch.fc.q_high_bytes = {}", c.q_low_bytes,
                                 c.q_high_bytes));
  if (c.pfc_xoff_bytes && c.pfc_xon_bytes > c.pfc_xoff_bytes)
    throw InputError(fmt::format("switch.pfc.xon_bytes = {} is above switch.pfc.xoff_bytes = {}", c.pfc_xon_bytes,
                                 c.pfc_xoff_bytes));
}

std::uint32_t EgressFc::queues_per_group(const EgressFcConfig& c) {
  check_groups(c);
  if (c.queues < 1 || c.queues > 128)
    throw InputError(fmt::format("switch.fc.queues = {}: accepted 1..128 (FlowSail 2..128)", c.queues));
  if (c.queues % c.groups != 0)
    throw InputError(fmt::format("switch.fc.queues = {} does not divide into switch.fc.groups = {} equal groups",
                                 c.queues, c.groups));
  return c.queues / c.groups;
}

EgressFc::EgressFc(const EgressFcConfig& c, std::uint16_t radix, PacketPool& pool, Rng& rng,
                   std::uint32_t per_group)
    : config_(c), rng_(rng), pool_(pool) {
  check_groups(c);
  check_thresholds(c);
  ports_.resize(radix);
  for (std::uint16_t o = 0; o < radix; ++o) {
    ports_[o].group_queues.resize(c.groups);
    ports_[o].rr.assign(c.groups, 0);
    for (std::uint32_t g = 0; g < c.groups; ++g)
      for (std::uint32_t k = 0; k < per_group; ++k) add_queue(o, g);
  }
}

EgressFc::~EgressFc() {
  for (Port& port : ports_)
    for (Queue& q : port.q)
      while (q.head) pool_.put(pop_head(q));
}

std::uint32_t EgressFc::stopped_queues(std::uint16_t o) const {
  std::uint32_t n = 0;
  for (const Queue& q : ports_[o].q) n += q.stop != 0;
  return n;
}

void EgressFc::report(Report& r) const {
  ReportSection& s = r.open("flow_control");
  s.set("mode", to_string(config_.mode));
  s.set("queues", config_.mode == FcMode::ideal ? 0u : config_.queues);
  s.set("groups", config_.groups);
  s.set("buffer_bytes", config_.buffer_bytes);
  const FcCounters& c = counters_;
  s.sum("pause_frames", c.pause_frames);
  s.sum("resume_frames", c.resume_frames);
  s.sum("marked_packets", c.marked_packets);
  s.sum("isolations", c.isolations);
  s.sum("order_mark_pairs", c.order_marks);
  s.sum("order_mark_waits", c.order_mark_waits);
  s.sum("nft_collisions", nft_collisions());
  s.sum("cft_collisions", c.cft_collisions);
  s.max("max_shared_buffer_bytes", c.max_buffer_bytes);
  s.max("max_data_queue_bytes", c.max_queue_bytes);
  if (r.once("flow_control/flows")) {  // per flow, in flow-id order
    double paused_ps = 0;
    for (const Flow& f : r.flows().flows()) paused_ps += static_cast<double>(f.hop_paused_ps);
    s.set("source_paused_us", paused_ps / kPsPerUs);
  }
}

std::uint32_t EgressFc::add_queue(std::uint16_t o, std::uint32_t group) {
  Port& port = ports_[o];
  Queue q;
  q.group = group;
  q.local = static_cast<std::uint32_t>(port.group_queues[group].size());
  const auto id = static_cast<std::uint32_t>(port.q.size());
  port.group_queues[group].push_back(id);
  port.q.push_back(q);
  return id;
}

void EgressFc::push_order_mark(std::uint16_t o, std::uint32_t id, std::uint32_t mark, std::uint32_t fid) {
  Packet* om = pool_.get();
  om->type = PacketType::order_mark;
  om->psn = mark;
  om->size_bytes = 0;
  om->flow_hash = fid;
  push(ports_[o].q[id], om);
}

void EgressFc::push(Queue& q, Packet* p) {
  p->next = nullptr;
  if (q.tail) q.tail->next = p;
  else q.head = p;
  q.tail = p;
}

Packet* EgressFc::pop_head(Queue& q) {
  Packet* p = q.head;
  q.head = p->next;
  if (!q.head) q.tail = nullptr;
  p->next = nullptr;
  return p;
}

std::uint32_t EgressFc::active_queues(const Port& port, std::uint32_t group) const {
  std::uint32_t n = 0;
  for (std::uint32_t id : port.group_queues[group]) n += port.q[id].head && !port.q[id].stop;
  return std::max<std::uint32_t>(1, n);
}

void EgressFc::enqueue(std::uint16_t o, Packet* p, Ps now, std::vector<FcFrame>& out) {
  p->fc_mark = 0;
  const std::uint32_t id = admit(o, p, now, out);  // may add a queue: take the port's queues after it
  Port& port = ports_[o];
  Queue& q = port.q[id];
  push(q, p);
  q.bytes += p->size_bytes;
  note_queue(q);
  ++port.packets;
  used_ += p->size_bytes;
  if (used_ > counters_.max_buffer_bytes) counters_.max_buffer_bytes = used_;
}

Packet* EgressFc::peek(std::uint16_t o, Ps now) {
  Port& port = ports_[o];
  port.chosen = kNone;
  if (port.packets == 0) return nullptr;
  std::uint32_t earliest = kNone;
  // A normal queue's mark leaving late in the scan can free rsvQ, which the scan has passed: look again.
  bool released = true;
  for (int pass = 0; pass < 2 && released; ++pass) {
    released = false;
    earliest = kNone;
    Ps earliest_ready = kNever;
    for (std::uint32_t g = 0; g < config_.groups; ++g) {
      const auto& gq = port.group_queues[g];
      const std::size_t n = gq.size();
      if (n == 0) continue;
      const std::uint32_t start = port.rr[g] % n;
      // Deficit round-robin may pass a queue once to top up its credit, so it looks at each queue twice.
      const std::size_t steps = config_.drr ? 2 * n : n;
      for (std::size_t k = 0; k < steps; ++k) {
        const std::uint32_t slot = static_cast<std::uint32_t>((start + k) % n);
        Queue& q = port.q[gq[slot]];
        if (!q.head || q.stop) continue;
        // Order Marks cost no wire time. A normal queue's mark leaves as it reaches the head; rsvQ's waits
        // there until its partner has left the original queue (Order Mark matching).
        bool blocked = false;
        while (q.head && q.head->type == PacketType::order_mark) {
          const std::uint32_t m = q.head->psn;
          if (q.mark_waits) {
            if (!port.marks_out.erase(m)) {
              ++counters_.order_mark_waits;
              blocked = true;
              break;
            }
          } else {
            port.marks_out.insert(m);
            released = true;
          }
          pool_.put(pop_head(q));
        }
        if (blocked || !q.head) continue;
        const Ps ready = q.head->t_ready;
        if (ready <= now) {
          if (config_.drr) {
            if (q.deficit < static_cast<std::int64_t>(q.head->size_bytes)) {
              q.deficit += config_.quantum_bytes;  // the round moves on; this queue has more credit next time
              continue;
            }
            q.deficit -= q.head->size_bytes;
            port.rr[g] = slot;
          } else {
            port.rr[g] = static_cast<std::uint32_t>((slot + 1) % n);
          }
          port.chosen = gq[slot];
          return q.head;
        }
        if (ready < earliest_ready) {
          earliest_ready = ready;
          earliest = gq[slot];
        }
      }
    }
  }
  if (earliest == kNone) return nullptr;
  port.chosen = earliest;
  return port.q[earliest].head;
}

Packet* EgressFc::pop(std::uint16_t o, Ps now, std::vector<FcFrame>& out) {
  Port& port = ports_[o];
  if (port.chosen == kNone) throw ModelError("EgressFc::pop without a successful peek");
  Queue& q = port.q[port.chosen];
  port.chosen = kNone;
  Packet* p = pop_head(q);
  if (!q.head) q.deficit = 0;
  q.bytes -= p->size_bytes;
  --port.packets;
  used_ -= p->size_bytes;
  departed(o, q, p, now, out);
  p->fc_mark = 0;
  return p;
}

void EgressFc::control(std::uint16_t o, const Packet* frame, Ps now) {
  const bool pause = frame->type == PacketType::pause;
  const std::uint32_t g = frame->tclass % config_.groups;
  if (frame->fc_pfc) pfc_frame(o, g, pause);
  else flow_frame(o, g, frame->fc_fid, pause, now);
}

// The registry of schemes: a new one is a class and a line here.
namespace {

template <class T>
std::unique_ptr<EgressFc> make(const EgressFcConfig& c, std::uint16_t radix, PacketPool& pool, Rng& rng) {
  return std::make_unique<T>(c, radix, pool, rng);
}

struct Registered {
  FcMode mode;
  const char* name;  // the scenario's switch.flow_control
  std::unique_ptr<EgressFc> (*make)(const EgressFcConfig&, std::uint16_t, PacketPool&, Rng&);  // none: null
};

const Registered kRegistry[] = {
    {FcMode::none, "none", nullptr},
    {FcMode::flowsail, "flowsail", &make<FlowsailFc>},
    {FcMode::bfc, "bfc", &make<BfcFc>},
    {FcMode::pfc, "pfc", &make<PfcFc>},
    {FcMode::ideal, "ideal", &make<IdealFc>},
};

const Registered* find(FcMode m) {
  for (const Registered& r : kRegistry)
    if (r.mode == m) return &r;
  return nullptr;
}

}  // namespace

std::unique_ptr<EgressFc> make_egress_fc(const EgressFcConfig& c, std::uint16_t radix, PacketPool& pool, Rng& rng) {
  const Registered* r = find(c.mode);
  if (!r || !r->make)
    throw ModelError(fmt::format("switch.flow_control {} has no egress flow-control scheme", to_string(c.mode)));
  return r->make(c, radix, pool, rng);
}

const char* to_string(FcMode m) {
  const Registered* r = find(m);
  return r ? r->name : "?";
}

FcMode parse_fc_mode(const std::string& name) {
  for (const Registered& r : kRegistry)
    if (name == r.name) return r.mode;
  throw InputError(
      fmt::format("switch.flow_control = '{}': accepted {}", name, fmt::join(fc_mode_names(), ", ")));
}

std::vector<std::pair<const char*, FcMode>> fc_mode_choices() {
  std::vector<std::pair<const char*, FcMode>> choices;
  for (const Registered& r : kRegistry) choices.emplace_back(r.name, r.mode);
  return choices;
}

std::vector<std::string> fc_mode_names() {
  std::vector<std::string> names;
  for (const Registered& r : kRegistry) names.emplace_back(r.name);
  return names;
}

}  // namespace netasic
