#include "tb/packet_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "tb/scenario.h"
#include "tb/simulation.h"
#include "tlm/common/error.h"

namespace netasic {

namespace {

// The ids a selection key lists, as flags over [0, count); "all" selects every id.
std::vector<char> selection(const Scenario& s, const std::string& key, std::uint32_t count, const char* what,
                            bool& all) {
  std::vector<char> chosen(count, 0);
  all = false;
  for (const std::string& item : s.list(key)) {
    if (item == "all") {
      all = true;
      std::fill(chosen.begin(), chosen.end(), 1);
      continue;
    }
    if (!is_plain_decimal(item, false) || item[0] == '-' || item[0] == '+' || item.size() > 10 ||
        std::stoull(item) >= count)
      throw InputError(fmt::format("{}: {} is not a {} id (0..{}) or all (set by {})", key, item, what,
                                   count == 0 ? 0 : count - 1, s.origin(key)));
    chosen[std::stoull(item)] = 1;
  }
  return chosen;
}

std::string node_name(const Topology& t, std::uint32_t n) {
  return t.is_switch(n) ? fmt::format("sw{}", t.switch_index[n])
                        : fmt::format("host{}", t.owner(static_cast<std::uint32_t>(t.host_index[n])));
}

// Microseconds with picosecond resolution, as the trace-event format's `ts` and `dur` are in us.
std::string us(Ps ps) { return fmt::format("{}.{:06}", ps / 1000000, ps % 1000000); }

// Packets made by NICs for one flow (its data, its ACKs and NACKs, DCQCN's CNPs, telemetry's PTMs and PTRs)
// carry the flow's index; frames a switch makes (FGFC, PAUSE/RESUME, Flowcut ACKs) do not.
bool carries_flow(PacketType t) {
  return t == PacketType::data || t == PacketType::ack || t == PacketType::nack || t == PacketType::cnp ||
         t == PacketType::ptm || t == PacketType::ptr;
}

}  // namespace

PacketTrace::PacketTrace(const Scenario& s, Simulation& sim) : sim_(sim) {
  const Topology& t = sim.topology();
  flow_count_ = static_cast<std::uint32_t>(sim.flows().size());
  flows_ = selection(s, "trace.flows", flow_count_, "flow", all_flows_);
  bool all_switches = false;
  const std::vector<char> switches = selection(s, "trace.switches", t.switches(), "switch", all_switches);
  start_ = static_cast<Ps>(s.number("trace.start_us") * 1e6 + 0.5);
  end_ = static_cast<Ps>(s.number("trace.end_us") * 1e6 + 0.5);
  if (end_ != 0 && end_ <= start_)
    throw InputError(fmt::format("trace.end_us ({}) must be after trace.start_us ({}), or 0 for no end",
                                 s.number("trace.end_us"), s.number("trace.start_us")));
  max_packets_ = static_cast<std::uint64_t>(s.integer("trace.max_packets"));
  const bool any_flow = all_flows_ || std::find(flows_.begin(), flows_.end(), 1) != flows_.end();
  if (!any_flow && std::find(switches.begin(), switches.end(), 1) == switches.end())
    throw InputError("trace.enabled is true but trace.flows and trace.switches select nothing; list flow ids, "
                     "switch ids, or all");

  // Link 2i carries topology link i from a to b, 2i+1 from b to a; a node's ports follow topology link order.
  std::vector<std::uint16_t> next_port(t.nodes, 0);
  links_.resize(sim.links().size());
  for (std::uint32_t i = 0; i < t.links.size(); ++i) {
    const TopoLink& l = t.links[i];
    const std::uint16_t port_a = next_port[l.a]++, port_b = next_port[l.b]++;
    for (int dir = 0; dir < 2; ++dir) {
      LinkInfo& info = links_[2 * i + dir];
      info.from_node = dir == 0 ? l.a : l.b;
      info.to_node = dir == 0 ? l.b : l.a;
      info.from_host = !t.is_switch(info.from_node);
      info.to_host = !t.is_switch(info.to_node);
      info.port = dir == 0 ? port_a : port_b;
      if (!info.from_host) {
        const auto sw = static_cast<std::uint32_t>(t.switch_index[info.from_node]);
        info.sender = sim.switches()[sw].get();
        info.selected = switches[sw] != 0;
      }
      info.prop = sim.links()[2 * i + dir]->prop_ps();
      info.name = info.from_host ? fmt::format("{} -> {}", node_name(t, info.from_node), node_name(t, info.to_node))
                                 : fmt::format("{} p{} -> {}", node_name(t, info.from_node), info.port,
                                               node_name(t, info.to_node));
      if (info.selected || any_flow) sim.links()[2 * i + dir]->set_observer(this);
    }
  }
  if (any_flow) {  // holds and flowcuts no wire shows
    open_.assign(flow_count_, {0, 0});
    for (const auto& nic : sim.nics()) nic->set_flow_observer(this);
    for (const auto& sw : sim.switches()) sw->set_flow_observer(this);
  }
}

bool PacketTrace::take_one() {
  if (records_.size() + marks_.size() < max_packets_) return true;
  ++over_cap_;
  return false;
}

void PacketTrace::on_hold(std::uint32_t flow, FlowHold why, Ps at) {
  if (!flow_selected(flow) || !in_window(at) || !take_one()) return;
  const bool hop = why == FlowHold::hop_pause;
  marks_.push_back(Mark{at, kNever, flow, 0, why, false, hop});
  open_[flow][hop] = static_cast<std::uint32_t>(marks_.size());
}

void PacketTrace::on_release(std::uint32_t flow, bool hop, Ps at) {
  if (!flow_selected(flow)) return;
  if (std::uint32_t& m = open_[flow][hop]; m != 0) {
    marks_[m - 1].end = at;
    m = 0;
  }
}

void PacketTrace::on_flowcut(std::uint32_t flow, std::uint32_t flowcut, Ps at) {
  if (!flow_selected(flow) || !in_window(at) || !take_one()) return;
  marks_.push_back(Mark{at, at, flow, flowcut, FlowHold::fgfc_pause, true, false});
}

void PacketTrace::on_wire(const Link& link, const Packet& p, Ps start, Ps ser, bool corrupted) {
  if (!in_window(start)) return;
  const LinkInfo& info = links_[link.index()];
  const bool flow_sel = carries_flow(p.type) && flow_selected(p.flow);
  if (!info.selected && !flow_sel) return;
  if (!take_one()) return;
  Record r{};
  r.start = start;
  r.ser = ser;
  r.queue_bytes = info.sender ? info.sender->backlog(info.port) : 0;
  r.link = link.index();
  r.flow = p.flow;
  r.psn = p.psn;
  r.ack_psn = p.ack_psn;
  r.size = p.size_bytes;
  r.key = p.key;
  r.type = p.type;
  r.vc = p.vc;
  r.tclass = p.tclass;
  r.ect = p.ect;
  r.ce = p.ce;
  r.retransmit = p.retransmit;
  r.hops = p.hops;
  r.corrupted = corrupted;
  r.flow_selected = flow_sel;
  r.port_selected = info.selected;
  records_.push_back(r);
}

void PacketTrace::write_port_events(std::ostream& out, bool& first) const {
  auto sep = [&] {
    if (!first) out << ",\n";
    first = false;
  };
  std::vector<char> named(links_.size(), 0);
  for (const Record& r : records_) {
    if (!r.port_selected) continue;
    const LinkInfo& info = links_[r.link];
    if (!named[r.link]) {
      named[r.link] = 1;
      sep();
      out << fmt::format(R"({{"name":"thread_name","ph":"M","pid":1,"tid":{},"args":{{"name":"{}"}}}})", r.link,
                         info.name);
    }
    sep();
    const bool flow = carries_flow(r.type);
    out << fmt::format(
        R"({{"name":"{}{}{}","cat":"packet","ph":"X","ts":{},"dur":{},"pid":1,"tid":{},"args":{{"type":"{}",)"
        R"("flow":{},"psn":{},"bytes":{},"vc":{},"ce":{},"queue_bytes":{}}}}})",
        packet_type_name(r.type), flow ? fmt::format(" f{} #{}", r.flow, r.type == PacketType::data ? r.psn : r.ack_psn) : "",
        r.corrupted ? " (corrupted)" : "", us(r.start), us(r.ser), r.link, packet_type_name(r.type),
        flow ? static_cast<std::int64_t>(r.flow) : -1, r.psn, r.size, r.vc, r.ce, r.queue_bytes);
    sep();
    out << fmt::format(R"({{"name":"queue {}","ph":"C","ts":{},"pid":1,"args":{{"bytes":{}}}}})", info.name,
                       us(r.start), r.queue_bytes);
  }
}

// Per flow: send (leaving the source host), deliver (arriving at the destination host), and the ACKs and
// NACKs sent back and received, each an instant on the flow's track; the source's holds (FGFC pause, class
// pause, drain, hop pause) as slices and its flowcuts as instants on the same track.
void PacketTrace::write_flow_events(std::ostream& out, bool& first) const {
  const Topology& t = sim_.topology();
  std::vector<char> named(flow_count_, 0);
  auto begin_event = [&](std::uint32_t flow) {
    if (!first) out << ",\n";
    first = false;
    if (named[flow]) return;
    named[flow] = 1;
    const Flow& f = sim_.flows().flows()[flow];
    out << fmt::format(R"({{"name":"thread_name","ph":"M","pid":2,"tid":{},"args":{{"name":"flow {}: host{} -> host{}, {} B"}}}},)"
                       "\n",
                       flow, flow, f.src, f.dst, f.size_bytes);
  };
  for (const Record& r : records_) {
    if (!r.flow_selected) continue;
    const LinkInfo& info = links_[r.link];
    const Flow& f = sim_.flows().flows()[r.flow];
    const std::uint32_t src = t.host_node[f.src], dst = t.host_node[f.dst];
    std::string what;
    Ps at = r.start;
    if (r.type == PacketType::data && info.from_node == src) what = fmt::format("{} #{}", r.retransmit ? "resend" : "send", r.psn);
    else if (r.type == PacketType::data && info.to_node == dst && !r.corrupted) {
      what = fmt::format("deliver #{}", r.psn);
      at = r.start + r.ser + info.prop;
    } else if (r.type != PacketType::data && info.from_node == dst) what = fmt::format("{} #{} sent", packet_type_name(r.type), r.ack_psn);
    else if (r.type != PacketType::data && info.to_node == src && !r.corrupted) {
      what = fmt::format("{} #{} received", packet_type_name(r.type), r.ack_psn);
      at = r.start + r.ser + info.prop;
    } else {
      continue;
    }
    begin_event(r.flow);
    out << fmt::format(R"({{"name":"{}","cat":"flow","ph":"i","s":"t","ts":{},"pid":2,"tid":{},"args":{{"flow":{}}}}})",
                       what, us(at), r.flow, r.flow);
  }
  const Ps run_end = sim_.fabric().now();
  for (const Mark& m : marks_) {
    begin_event(m.flow);
    if (m.flowcut) {
      out << fmt::format(R"({{"name":"flowcut {}","cat":"flowcut","ph":"i","s":"t","ts":{},"pid":2,"tid":{},"args":{{"flow":{}}}}})",
                         m.n, us(m.at), m.flow, m.flow);
      continue;
    }
    // A hold still on when the run stopped ends at the run's end, marked as such.
    const bool open = m.end == kNever;
    out << fmt::format(R"({{"name":"{}","cat":"hold","ph":"X","ts":{},"dur":{},"pid":2,"tid":{},"args":{{"flow":{},"held_at_end":{}}}}})",
                       flow_hold_name(m.why), us(m.at), us((open ? run_end : m.end) - m.at), m.flow, m.flow,
                       open ? "true" : "false");
  }
}

void PacketTrace::write_json(std::ostream& out) const {
  out << "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"netasic\"},\"traceEvents\":[\n";
  out << R"({"name":"process_name","ph":"M","pid":1,"args":{"name":"ports"}},)" << "\n";
  out << R"({"name":"process_name","ph":"M","pid":2,"args":{"name":"flows"}})";
  bool first = false;
  write_port_events(out, first);
  write_flow_events(out, first);
  out << "\n]}\n";
}

namespace {
void put16(std::string& b, std::uint16_t v) {
  b += static_cast<char>(v >> 8);
  b += static_cast<char>(v & 0xff);
}
void put32(std::string& b, std::uint32_t v) {
  put16(b, static_cast<std::uint16_t>(v >> 16));
  put16(b, static_cast<std::uint16_t>(v & 0xffff));
}
template <class T>
void put_le(std::ostream& out, T v) {
  std::array<char, sizeof(T)> b{};
  for (std::size_t i = 0; i < sizeof(T); ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  out.write(b.data(), b.size());
}
std::uint16_t ip_checksum(const std::string& h, std::size_t at) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < 20; i += 2)
    sum += (static_cast<std::uint8_t>(h[at + i]) << 8) | static_cast<std::uint8_t>(h[at + i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum & 0xffff);
}
constexpr std::uint32_t kSnapLen = 14 + 20 + 8 + 16;  // headers and the netasic shim; the payload is zeros
}  // namespace

// Frames: Ethernet (02:00:00 + node id), IPv4, UDP, then a 16-byte netasic shim; docs/outputs.md.
void PacketTrace::write_pcap(std::ostream& out) const {
  put_le<std::uint32_t>(out, 0xa1b23c4d);  // nanosecond timestamps
  put_le<std::uint16_t>(out, 2);
  put_le<std::uint16_t>(out, 4);
  put_le<std::uint32_t>(out, 0);
  put_le<std::uint32_t>(out, 0);
  put_le<std::uint32_t>(out, kSnapLen);
  put_le<std::uint32_t>(out, 1);  // LINKTYPE_ETHERNET
  for (const Record& r : records_) {
    const LinkInfo& info = links_[r.link];
    const bool flow = carries_flow(r.type);
    std::string f;
    for (const std::uint32_t node : {info.to_node, info.from_node}) {
      f += std::string("\x02\x00\x00", 3);
      f += static_cast<char>((node >> 16) & 0xff);
      f += static_cast<char>((node >> 8) & 0xff);
      f += static_cast<char>(node & 0xff);
    }
    put16(f, 0x0800);
    const std::uint32_t frame = std::max<std::uint32_t>(r.size, kSnapLen);
    f += static_cast<char>(0x45);
    f += static_cast<char>((r.tclass << 5) | (r.ce ? 3 : r.ect ? 2 : 0));
    put16(f, static_cast<std::uint16_t>(std::min<std::uint32_t>(frame - 14, 65535)));
    put16(f, static_cast<std::uint16_t>(r.psn & 0xffff));
    put16(f, 0);
    f += static_cast<char>(64 - std::min<std::uint8_t>(r.hops, 63));
    f += static_cast<char>(17);
    put16(f, 0);
    // ACKs and NACKs travel back: the flow's addresses and ports swapped.
    const bool back = r.type == PacketType::ack || r.type == PacketType::nack || r.type == PacketType::cnp ||
                      r.type == PacketType::ptr;
    put32(f, !flow ? 0x0AFE0000u + info.from_node : back ? r.key.dst_addr : r.key.src_addr);
    put32(f, !flow ? 0x0AFE0000u + info.to_node : back ? r.key.src_addr : r.key.dst_addr);
    const std::uint16_t sum = ip_checksum(f, 14);
    f[24] = static_cast<char>(sum >> 8);
    f[25] = static_cast<char>(sum & 0xff);
    put16(f, !flow ? 4790 : back ? r.key.dst_port : r.key.src_port);
    put16(f, !flow ? 4790 : back ? r.key.src_port : r.key.dst_port);
    put16(f, static_cast<std::uint16_t>(std::min<std::uint32_t>(frame - 34, 65535)));
    put16(f, 0);
    f += "NASC";
    f += static_cast<char>(r.type);
    f += static_cast<char>((r.ect ? 1 : 0) | (r.ce ? 2 : 0) | (r.retransmit ? 4 : 0) | (r.corrupted ? 8 : 0));
    f += static_cast<char>(r.vc);
    f += static_cast<char>(r.tclass);
    put32(f, r.psn);
    put32(f, r.ack_psn);
    put_le<std::uint32_t>(out, static_cast<std::uint32_t>(r.start / 1000000000000ULL));
    put_le<std::uint32_t>(out, static_cast<std::uint32_t>((r.start % 1000000000000ULL) / 1000));
    put_le<std::uint32_t>(out, static_cast<std::uint32_t>(f.size()));
    put_le<std::uint32_t>(out, frame);
    out.write(f.data(), static_cast<std::streamsize>(f.size()));
  }
}

}  // namespace netasic
