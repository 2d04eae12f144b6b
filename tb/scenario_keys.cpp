// The registry of scenario keys (tb/scenario.h): every key's type, unit, default, range or choices (each
// choice mapped to its enumerator) and description. `netasic keys` and docs/scenario-keys.md list them in
// this order.
#include "tb/choices.h"
#include "tb/partition.h"
#include "tb/scenario.h"
#include "tb/workload_collective.h"
#include "tb/workload_jobs.h"
#include "tb/workload_telemetry.h"
#include "tlm/blocks/flowcut_table.h"
#include "tlm/blocks/reorder_buffer.h"
#include "tlm/model/egress_fc.h"
#include "tlm/model/flowcut.h"
#include "tlm/model/nic.h"
#include "tlm/model/routing.h"
#include "tlm/model/transport.h"

namespace netasic {

namespace {

// The largest byte count of the keys the model keeps in 32 bits (buffers, queue capacities, thresholds).
constexpr double kMaxBytes32 = 4294967295.0;

KeyDef I(std::string name, std::string unit, std::string def, double min, double max, std::string desc) {
  return KeyDef{std::move(name), KeyType::integer, std::move(unit), std::move(def), min, max, true, {}, std::move(desc)};
}
KeyDef N(std::string name, std::string unit, std::string def, double min, double max, std::string desc) {
  return KeyDef{std::move(name), KeyType::number, std::move(unit), std::move(def), min, max, true, {}, std::move(desc)};
}
KeyDef S(std::string name, std::string def, std::string desc) {
  return KeyDef{std::move(name), KeyType::string, "", std::move(def), 0, 0, false, {}, std::move(desc)};
}
// A choice key and its table of accepted names to enumerators of E: the one place its values are defined.
template <class E>
KeyDef C(std::string name, std::string def, std::vector<std::pair<const char*, E>> choices, std::string desc) {
  std::vector<ChoiceDef> table;
  for (const auto& [choice, value] : choices) table.push_back(ChoiceDef{choice, static_cast<int>(value)});
  return KeyDef{std::move(name), KeyType::choice, "", std::move(def), 0, 0, false, std::move(table), std::move(desc),
                typeid(E)};
}
KeyDef B(std::string name, std::string def, std::string desc) {
  return KeyDef{std::move(name), KeyType::boolean, "", std::move(def), 0, 0, false, {}, std::move(desc)};
}
KeyDef L(std::string name, std::string desc) {
  return KeyDef{std::move(name), KeyType::list, "", "", 0, 0, false, {}, std::move(desc)};
}

// Run control and the partition of a run across processes.
std::vector<KeyDef> run_keys() {
  return {
      I("sim.seed", "", "1", 0, 1e18, "Seed of the run; every component derives its own random stream from it."),
      N("sim.max_time_us", "us", "0", 0, 1e9, "Stop after this much simulated time; 0 runs until every flow completes."),
      N("sim.stall_timeout_us", "us", "100000", 0, 1e9,
        "Progress watchdog: stop the run (exit 3, outputs written) when flows are under way but no byte has "
        "been delivered for this long of simulated time (a link that loses nearly every packet, a flow paused "
        "for ever); 0: never. Under nic.transport = tcp at least 15 x nic.tcp.min_rto_us (four backed-off "
        "retransmission timeouts)."),
      N("sim.sync_quantum_ns", "ns", "1000", 0, 1e6,
        "TLM-2.0 temporal decoupling: how far the fabric's event queue may run ahead of SystemC time in one "
        "activation. Results do not depend on it (events still run in exact time order); 0 keeps the fabric "
        "in lock step with SystemC time, as RTL co-simulation needs. A component outside the model is applied "
        "exactly when it annotates at least one quantum ahead (docs/tlm.md, Time)."),
      B("sim.huge_pages", "true",
        "Back the model's memory with transparent huge pages (Linux): the heap is reserved for the fabric and "
        "marked before it is built, the rest collapsed before the run. Saves most TLB misses and page faults "
        "on large fabrics. Results do not depend on it; false leaves memory as the C library gives it: on "
        "65,536 hosts an event loop about a quarter slower and a command 40 s long instead of 30 s, in 4% "
        "less memory (3.7 GiB instead of 3.8)."),
      C<PrefetchSteps>("sim.prefetch", "auto",
        {{"auto", PrefetchSteps::automatic}, {"on", PrefetchSteps::on}, {"deep", PrefetchSteps::deep},
         {"off", PrefetchSteps::off}},
        "The event loop's prefetch steps: while an event runs, bring in what the next ones will touch. They pay "
        "on fabrics whose state outgrows the caches and cost time on small ones. on: two events ahead; deep: "
        "three (pays only on the largest fabrics); off. auto: off up to 1,500 switch ports, on up to 10,000, "
        "deep above (measured, docs/performance.md). Results do not depend on it."),
      C<EventOrder>("sim.event_order", "sequence", {{"sequence", EventOrder::sequence}, {"causal", EventOrder::causal}},
        "Order of simultaneous events. sequence: the order they were scheduled in (fastest). causal: an order "
        "each event's own ancestry fixes (scheduled earlier first, then the older packet, then a hash of the "
        "scheduling event), run in windows of the smallest propagation delay a partition can cut; what a run "
        "split across processes needs, so that its results do not depend on the partition (docs/parallel.md). "
        "The two orders give different, equally valid results."),
      C<PartitionRule>("parallel.partition", "auto",
        {{"auto", PartitionRule::automatic}, {"pod", PartitionRule::pod}, {"group", PartitionRule::group},
         {"contiguous", PartitionRule::contiguous}},
        "How a run split across processes divides the fabric: pod (fat-tree pods, leaf-spine leaves), group "
        "(dragonfly groups), contiguous (switches in index order), auto (pod, group or contiguous by topology). "
        "Cuts only links between switches (docs/parallel.md, netasic partition)."),
      I("parallel.emulate_ranks", "", "0", 0, 65536,
        "Check, in one process, that results do not depend on the partition: the links a partition into this "
        "many ranks (parallel.partition) cuts hand their frames and credit returns to the other side only when "
        "each window ends, as between processes, in reverse order. flows.csv, ports.csv and tables.json must "
        "equal those of 1 rank. Needs sim.event_order = causal; 0: off."),
  };
}

// Topology, links and failures.
std::vector<KeyDef> topology_link_keys() {
  return {
      C<TopologyType>("topology.type", "fat_tree",
        {{"fat_tree", TopologyType::fat_tree}, {"leaf_spine", TopologyType::leaf_spine},
         {"dragonfly", TopologyType::dragonfly}, {"torus", TopologyType::torus},
         {"irregular", TopologyType::irregular}, {"file", TopologyType::file}},
        "Network topology."),
      I("topology.fat_tree.k", "", "8", 2, 64, "Fat tree arity k (even): k pods, k^3/4 hosts at taper 1."),
      N("topology.fat_tree.taper", "", "1", 1, 16,
        "Oversubscription at the edge: hosts per edge switch = taper * k/2, up-links stay k/2; taper * k/2 "
        "must be whole (a multiple of 1/(k/2): 1.25 or 1.5 for k = 8, not 1.3)."),
      I("topology.leaf_spine.leaves", "", "8", 2, 512, "Leaf switches."),
      I("topology.leaf_spine.spines", "", "4", 1, 255, "Spine switches (each leaf has one link to each spine)."),
      I("topology.leaf_spine.hosts_per_leaf", "", "8", 1, 255, "Hosts under each leaf."),
      L("topology.leaf_spine.remove_links", "Asymmetry: leaf-spine links removed, as LEAF-SPINE, e.g. [0-1, 3-2]."),
      L("topology.leaf_spine.slow_links",
        "Asymmetry: leaf-spine links slowed, as LEAF-SPINE:FACTOR (fraction of the rate), e.g. [2-1:0.5]."),
      I("topology.dragonfly.a", "", "4", 2, 256, "Dragonfly: switches per group (fully connected inside the group)."),
      I("topology.dragonfly.p", "", "2", 1, 255, "Dragonfly: hosts per switch."),
      I("topology.dragonfly.h", "", "2", 1, 255, "Dragonfly: global links per switch."),
      I("topology.dragonfly.groups", "", "0", 0, 4096,
        "Dragonfly: groups, joined by global links in rounds (each round links every pair of groups once while "
        "both have one of their a*h global ports free), so a pair gets floor(a*h/(groups-1)) links or one more; "
        "a*h+1 gives the canonical one link per pair; 0 means floor(a*h/2)+1 (two or more links per pair)."),
      S("topology.file", "", "Topology file in the HPCC ns-3 format (used when topology.type is file)."),
      I("topology.torus.x", "", "4", 2, 64, "2D torus: switches along x (rings wrap around)."),
      I("topology.torus.y", "", "4", 2, 64, "2D torus: switches along y."),
      I("topology.torus.hosts_per_switch", "", "4", 1, 60, "2D torus: hosts per switch."),
      I("topology.irregular.switches", "", "16", 2, 4096, "Random irregular network: switches."),
      I("topology.irregular.ports", "", "8", 2, 64, "Random irregular network: ports per switch (hosts included)."),
      I("topology.irregular.hosts_per_switch", "", "4", 1, 63,
        "Random irregular network: hosts per switch; the other ports join random neighbours (one link per "
        "pair, drawn from sim.seed)."),
      // Links.
      N("link.rate_gbps", "Gb/s", "200", 0.001, 1e5, "Rate of every link built by a topology generator."),
      N("link.prop_delay_ns", "ns", "100", 0, 1e9, "Propagation delay of every generated link."),
      I("link.overhead_bytes", "bytes", "20", 0, 1000, "Per-packet wire overhead (preamble, inter-frame gap)."),
      C<LinkFlowControl>("link.flow_control", "lossless",
        {{"lossless", LinkFlowControl::lossless}, {"lossy", LinkFlowControl::lossy}},
        "lossless: credit-based per virtual channel; lossy: no credits, drop-tail at full egress queues."),
      // Failures.
      N("failures.degraded_fraction", "", "0", 0, 1,
        "Fraction of switch-to-switch links degraded (chosen from the seed)."),
      N("failures.degraded_factor", "", "0.1", 1e-6, 1, "Rate of a degraded link as a fraction of its nominal rate."),
      N("failures.flowcut_ack_loss", "", "0", 0, 1,
        "Fault injection: probability that an egress switch's Flowcut ACK is lost (its entry then never "
        "drains to zero; a paused source resumes at its pause period)."),
  };
}

// The switch, its egress flow control, routing.
std::vector<KeyDef> switch_routing_keys() {
  return {
      // Switch.
      N("switch.latency_ns", "ns", "350", 1, 1e6, "Zero-load port-to-port latency (head in to head out)."),
      N("switch.ingress_latency_ns", "ns", "100", 0, 1e6,
        "Part of switch.latency_ns spent in ingress parse and route lookup before the VOQ."),
      N("switch.clock_ghz", "GHz", "1", 0.01, 100, "Switch core clock; pipeline events fall on its cycles."),
      I("switch.ports_per_tile", "", "2", 1, 64, "Ports per tile (Rosetta: 2)."),
      I("switch.tile_columns", "", "8", 1, 64, "Tile columns (Rosetta: 8; rows follow from the radix)."),
      I("switch.input_buffer_bytes", "bytes", "131072", 1024, kMaxBytes32,
        "Input buffer per port and data virtual channel (the credits advertised upstream)."),
      I("switch.control_buffer_bytes", "bytes", "16384", 64, kMaxBytes32, "Input buffer per port for the control VC."),
      I("switch.egress_queues", "", "8", 2, 128,
        "Egress queues per port: queue 0 carries control traffic (strict priority), the rest data classes."),
      I("switch.egress_queue_bytes", "bytes", "65536", 64, kMaxBytes32, "Capacity of each egress queue."),
      I("switch.egress_queue_packets", "packets", "64", 2, 65536,
        "Descriptors per egress queue: packets it can hold whatever their size (a full queue stops grants)."),
      N("switch.internal_speedup", "", "2", 0.1, 100,
        "Row bus and column channel bandwidth as a multiple of the fastest port."),
      C<Crossbar>("switch.crossbar", "tiled", {{"single", Crossbar::single}, {"tiled", Crossbar::tiled}},
        "How a granted packet crosses: tiled: two hops as in a tiled chip (Rosetta), the row bus into the tile "
        "crossbar's buffer, then the column channel, so a busy column does not hold the input's row bus "
        "(docs/architecture.md); single: one circuit from the input's row bus through the column channel to "
        "the output, both held from the later of their free times, which holds an input behind a busy column "
        "(the default before tiled; the results pages say which they were made with)."),
      C<ArbiterPointer>("switch.arbiter_pointer", "per_vc",
        {{"per_vc", ArbiterPointer::per_vc}, {"shared", ArbiterPointer::shared}},
        "Round-robin pointer of each output's arbiter: per_vc: one per virtual channel; shared: one for all VCs "
        "(the model before per_vc: a grant on the control VC moved the data VC's start too, so an ACK stream "
        "on one input could starve the data inputs at or below it; results pages made before per_vc say so)."),
      // Hop-by-hop flow control at the egress queues (docs/flowsail.md).
      C<FcMode>("switch.flow_control", "none", fc_mode_choices(),
        "none: data waits in VOQs behind small egress queues (credit flow control only); flowsail, bfc, pfc, "
        "ideal: output-queued data in switch.fc.queues queues per port on a shared buffer, with FlowSail "
        "(per-flow PAUSE, isolation in rsvQ), BFC-style per-queue pause, PFC per-class pause, or one queue per "
        "flow (ideal per-flow control). Needs link.flow_control lossless."),
      I("switch.fc.queues", "", "8", 1, 128,
        "Physical data queues per egress port (FlowSail: at least 2 per group, the last of each group is rsvQ; "
        "BFC and PFC may use 1, every flow sharing it). Ignored by ideal."),
      I("switch.fc.groups", "", "1", 1, 8,
        "Queue groups per port (traffic class modulo groups), strict priority between groups, each running "
        "the flow control on its own; must divide switch.fc.queues."),
      C<FcScheduler>("switch.fc.scheduler", "rr", {{"rr", FcScheduler::rr}, {"drr", FcScheduler::drr}},
        "Inside a group: round-robin or deficit round-robin."),
      I("switch.fc.buffer_bytes", "bytes", "12582912", 4096, 1e12, "Shared data buffer per switch (12 MiB)."),
      I("switch.fc.q_low_bytes", "bytes", "0", 0, kMaxBytes32,
        "FlowSail Ql, BFC and ideal pause threshold; 0: one hop-BDP divided by the group's active queues (holding "
        "packets, not paused), ideal: one hop-BDP."),
      I("switch.fc.q_high_bytes", "bytes", "0", 0, kMaxBytes32, "FlowSail Qh; 0: three times Ql."),
      N("switch.fc.cft_release_hrtt", "hop RTTs", "2", 0, 1000,
        "FlowSail: a congested flow leaves the CFT (and rsvQ) once resumed, with nothing in rsvQ, and idle (no "
        "packet enqueued or dequeued) for this many hop RTTs; 2 is the paper's; 0: as soon as resumed and empty."),
      I("switch.fc.nft_entries", "", "4096", 2, 1048576, "FlowSail normal-flow table entries per port and group."),
      I("switch.fc.cft_entries", "", "1024", 2, 1048576, "FlowSail congested-flow table entries per port and group."),
      C<BlockImpl>("switch.flowsail.impl", "model",
        {{"model", BlockImpl::model}, {"rtl", BlockImpl::rtl}, {"rtl_sc", BlockImpl::rtl_sc}},
        "FlowSail identifier/mapper of every port and queue group (switch.flow_control = flowsail): the C++ model, "
        "or the Verilated RTL co-simulated in the network (rtl: Verilator's C++ output; rtl_sc: its SystemC "
        "output)."),
      I("switch.pfc.xoff_bytes", "bytes", "0", 0, kMaxBytes32,
        "PFC: pause the upstream class when an input's bytes in the switch pass this; 0: three hop-BDPs."),
      I("switch.pfc.xon_bytes", "bytes", "0", 0, kMaxBytes32,
        "PFC: resume at or below this; 0: two hop-BDPs (half of XOFF when XOFF is set)."),
      I("switch.ecn_threshold_bytes", "bytes", "0", 0, 1e10,
        "ECN marking: an ECN-capable data packet (nic.cc dctcp) leaving an output whose backlog behind it (VOQs "
        "plus egress queues of that output) exceeds this many bytes is marked CE; 0 = no marking."),
      C<RoutingPolicy>("routing.policy", "ecmp", routing_policy_choices(),
        "Routing policy: ecmp (flow hash), spray (per-packet random), adaptive (per-packet least-loaded), "
        "flowcut (Flowcut switching, flowcut.*), letflow (flowlet switching, letflow.*), telemetry (the source "
        "NIC picks the path by probing, routing.telemetry.*; docs/telemetry.md); dragonfly also minimal, "
        "valiant, ugal."),
      C<UpDownMode>("routing.up_down", "auto",
        {{"auto", UpDownMode::automatic}, {"on", UpDownMode::on}, {"off", UpDownMode::off}},
        "Up*/down* routing (deadlock-free on any topology): auto = on for torus and irregular networks; the "
        "routing policy (ecmp, spray, adaptive, ...) then chooses among the minimal legal next hops."),
      N("routing.ugal_bias_bytes", "bytes", "0", 0, 1e9,
        "UGAL: backlog*hops margin the non-minimal path must win by (bias toward minimal)."),
  };
}

// Telemetry routing (routing.policy telemetry; docs/telemetry.md).
std::vector<KeyDef> telemetry_keys() {
  return {
      N("routing.telemetry.delta1", "", "0.8", 0.01, 1,
        "Telemetry routing: a probed path replaces the current one only if its queuing delay is below delta1 x "
        "the current path's (Mizrahi et al.: 0.8)."),
      N("routing.telemetry.delta2", "MTU times", "75", 0, 1e6,
        "Telemetry routing: ... and below it by more than delta2 serialization times of a full packet on a "
        "host link (75)."),
      I("routing.telemetry.delta3", "packets", "100", 1, 1e9,
        "Telemetry routing: a PTM every max(cwnd, delta3) data packets of a flow, round robin over the "
        "candidates (100)."),
      I("routing.telemetry.initial_probes", "", "4", 0, 64,
        "Telemetry routing: PTMs on random candidate paths when a flow starts (the paper's \"a few\")."),
      I("routing.telemetry.candidates", "", "0", 0, 32768,
        "Telemetry routing: candidate paths per flow (one shortest, the rest non-shortest source ports); 0: "
        "|G| - 1 on a dragonfly of |G| groups, 1 elsewhere."),
      C<AutoOnOff>("routing.telemetry.switch_wait", "auto",
        {{"auto", AutoOnOff::automatic}, {"on", AutoOnOff::on}, {"off", AutoOnOff::off}},
        "Telemetry routing: after a path switch the flow sends nothing for the old path's extra queuing delay "
        "(the paper's lossy rerouting, so nothing sent on the new path overtakes the old path's packets); "
        "auto: on for nic.transport gbn, off otherwise (the paper: selective repeat needs no wait)."),
      N("routing.telemetry.probe_timeout_us", "us", "100", 0.001, 1e9,
        "Telemetry routing: a probe round with no PTR back ends after this (a lost PTM or PTR never stalls "
        "the choice); with one back, it ends at 3R."),
  };
}

// Flowcut and LetFlow.
std::vector<KeyDef> flowcut_letflow_keys() {
  return {
      // Flowcut.
      C<FlowcutVariant>("flowcut.variant", "ingress_only",
        {{"full_switch", FlowcutVariant::full_switch}, {"ingress_only", FlowcutVariant::ingress_only},
         {"nic_only", FlowcutVariant::nic_only}},
        "Where Flowcut state lives: every switch, the host-facing (ingress) switch, or the source NIC."),
      I("flowcut.table.entries", "", "4096", 16, 1048576, "Flowcut table entries (per switch, or per NIC for nic_only)."),
      C<FlowcutOrganization>("flowcut.table.organization", "cam",
        {{"cam", FlowcutOrganization::fully_associative}, {"hashed", FlowcutOrganization::set_associative}},
        "cam: fully associative; hashed: set-associative on RAM (CRC-32 of the key picks the set)."),
      C<BlockImpl>("switch.flowcut_table.impl", "model",
        {{"model", BlockImpl::model}, {"rtl", BlockImpl::rtl}, {"rtl_sc", BlockImpl::rtl_sc}},
        "Flowcut table implementation: the C++ model, or the Verilated RTL co-simulated in the network "
        "(rtl: Verilator's C++ output; rtl_sc: its SystemC output, evaluated by the adapter)."),
      I("flowcut.table.ways", "", "4", 1, 16, "Ways per set of the hashed table (entries/ways a power of two)."),
      C<FlowcutOverflow>("flowcut.overflow", "untracked",
        {{"untracked", FlowcutOverflow::untracked}, {"hold", FlowcutOverflow::hold}},
        "A packet that finds the table full: untracked (forward on the flow's ECMP path, counted in shadow "
        "counters) or hold (wait in the input buffer until an entry frees)."),
      I("flowcut.shadow_counters", "", "1024", 1, 1048576,
        "Counters of untracked in-flight bytes, indexed by flow hash (overflow policy untracked)."),
      N("flowcut.alpha", "", "0.25", 0.001, 1, "Weight of a new sample in the RTT moving averages."),
      N("flowcut.rtt_ratio_threshold", "", "4", 1, 255, "Drain when the average normalized RTT exceeds it."),
      N("flowcut.rtt_diff_threshold", "", "1", 0.01, 255,
        "Drain when the average growth of the normalized RTT between ACKs exceeds it."),
      I("flowcut.ack_bytes", "bytes", "46", 20, 1024, "Flowcut ACK size on the wire: 20 B of fields plus headers."),
      I("flowcut.timestamp_bytes", "bytes", "8", 0, 64,
        "Extra header the ingress switch adds to data packets (removed at the egress switch)."),
      N("flowcut.pause_period_us", "us", "200", 1, 65535,
        "XOFF pause period: a paused source resumes on its own after it (a lost XON cannot hang a flow)."),
      C<FlowcutSourceTimeout>("flowcut.after_source_timeout", "repause",
        {{"old_path", FlowcutSourceTimeout::old_path}, {"repause", FlowcutSourceTimeout::repause}},
        "A draining flow whose source resumed on its own (the pause period ran out before it drained: a lost "
        "ACK or a badly degraded path): repause: XOFF again up to 3 times, then give the drain up and let the "
        "RTT monitor start new drains (better behind degraded links); old_path (the paper's rule, better with "
        "lost ACKs): the drain ends and the flowcut keeps its path, with no new drain, until its entry empties "
        "(docs/flowcut.md)."),
      C<FlowcutNicNewPath>("flowcut.nic_new_path", "after_drain",
        {{"after_drain", FlowcutNicNewPath::after_drain}, {"every_flowcut", FlowcutNicNewPath::every_flowcut}},
        "NIC-only: when a new flowcut takes a new UDP source port (a new ECMP path): after_drain (the paper's "
        "Section II-D): the first flowcut after a drain; every_flowcut: every new flowcut, also one that starts "
        "because the previous one's ACKs all came back (docs/flowcut.md)."),
      I("flowcut.xoff_credit_bytes", "bytes", "0", 0, 16777215,
        "0: plain XOFF; otherwise XOFF with credit: bytes the flow may still send while paused."),
      I("flowcut.min_packets_left", "packets", "0", 0, 1e9,
        "Drain only flows with at least this many packets still to send (the NIC marks packets-left); 0: any."),
      I("flowcut.early_resume_packets", "packets", "0", 0, 1e6,
        "Resume a draining flow with at most this many packets in flight (out-of-order degree bound k); 0: strict."),
      I("flowcut.nic_cache_entries", "", "16", 1, 1024, "NIC cache of paused flows (FGFC)."),
      I("flowcut.fgfc_gap_cycles", "cycles", "64", 1, 65535, "At most one FGFC frame per flow per gap (switch clock)."),
      C<BlockImpl>("switch.fgfc_generator.impl", "model",
        {{"model", BlockImpl::model}, {"rtl", BlockImpl::rtl}, {"rtl_sc", BlockImpl::rtl_sc}},
        "FGFC frame generator of the switches' Flowcut engines (full_switch, ingress_only): the C++ model, or the "
        "Verilated RTL co-simulated in the network (rtl: Verilator's C++ output; rtl_sc: its SystemC output)."),
      // LetFlow.
      I("letflow.entries", "", "65536", 4, 16777216, "Flowlet table entries per switch (a power of two)."),
      N("letflow.timeout_us", "us", "50", 0.001, 1e6,
        "Checker period delta: a flowlet ends after an idle time between delta and 2*delta."),
      C<BlockImpl>("switch.flowlet_table.impl", "model",
        {{"model", BlockImpl::model}, {"rtl", BlockImpl::rtl}, {"rtl_sc", BlockImpl::rtl_sc}},
        "LetFlow flowlet table implementation: the C++ model, or the Verilated RTL co-simulated in the network "
        "(rtl: Verilator's C++ output; rtl_sc: its SystemC output, evaluated by the adapter)."),
  };
}

// The NIC and its transports.
std::vector<KeyDef> nic_keys() {
  return {
      // NIC.
      I("nic.mtu_bytes", "bytes", "4096", 64, 65536, "Payload bytes per packet."),
      I("nic.header_bytes", "bytes", "64", 0, 1024, "Header bytes per data packet (counted in buffers and on the wire)."),
      I("nic.ack_bytes", "bytes", "64", 16, 1024, "Size of an ACK packet."),
      I("nic.window_bytes", "bytes", "0", 0, 1e12, "Per-flow limit of unacknowledged bytes; 0 = no limit."),
      N("nic.latency_ns", "ns", "0", 0, 1e6, "Receive processing before an ACK can leave."),
      N("nic.rto_us", "us", "100", 0.001, 1e9,
        "Retransmission timeout (basic, gbn, sr, reorder), armed only where packets can be lost (lossy links or "
        "error rates); tcp has its own (nic.tcp.min_rto_us)."),
      I("nic.rx_buffer_bytes", "bytes", "262144", 1024, kMaxBytes32,
        "NIC receive buffer (credits advertised to the switch)."),
      C<TransportKind>("nic.transport", "basic", transport_choices(),
        "basic: per-packet ACKs, unbounded reordering at the receiver; reorder: the rearrange-buffer engine "
        "with cumulative ACK / NACK (Martinez et al., IPDPS 2005), nic.reorder.*; gbn: go-back-N (RoCE-like): "
        "the receiver accepts only the expected PSN, drops the rest and NACKs once per gap, the sender "
        "resends from the NACKed PSN; sr: selective repeat with direct data placement, a SACK per packet and "
        "fast retransmit of the holes (nic.sr.*); tcp: loss-driven TCP (Reno / NewReno window, slow start, "
        "fast retransmit and recovery, its own retransmission timer, delayed ACKs, segmentation offload "
        "bursts, no pacing; nic.tcp.*, docs/tcp.md), with nic.cc none or dctcp."),
      I("nic.ack_every", "packets", "1", 1, 65536,
        "ACK coalescing (gbn, sr): one cumulative ACK per this many in-order packets, or for the flow's last "
        "packet, or nic.ack_delay_us after the first one waiting; out-of-order packets, duplicates and filled "
        "holes are answered at once. 1: every packet (tcp has nic.tcp.ack_every; basic and reorder acknowledge "
        "each packet by design)."),
      N("nic.ack_delay_us", "us", "10", 0, 1e9,
        "ACK coalescing: the longest an in-order packet's ACK waits (with nic.ack_every above 1)."),
      I("nic.sr.dupthresh", "packets", "3", 1, 65536,
        "Selective repeat: a packet is presumed lost (and resent at once) when this many packets sent after "
        "it have been acknowledged; reordering by fewer packets never causes a resend."),
      I("nic.sr.sack_blocks", "", "3", 1, 4,
        "Selective repeat: received ranges above the cumulative point per SACK (8 bytes each on top of "
        "nic.ack_bytes): the range of the packet acknowledged first, then the lowest."),
      B("nic.host_interface", "false",
        "Each NIC gets a host interface (docs/tlm.md): a register target, a DMA initiator to host memory and an "
        "interrupt, for host models of a virtual platform; its messages carry their bytes. The run then ends "
        "when SystemC has nothing left to do, not when the workload's flows are done. Not with nic.transport reorder."),
      N("nic.host.mmio_ns", "ns", "100", 0, 1e6, "Host interface: latency a register access adds to its delay."),
      I("nic.host.max_message_bytes", "bytes", "1073741824", 1, 4294967295.0,
        "Host interface: the longest message a send descriptor may give (longer: a descriptor error)."),
      N("nic.tcp.min_rto_us", "us", "200000", 0.001, 1e9,
        "TCP: floor of the retransmission timeout max(min, srtt + 4 rttvar), and the timeout before the first "
        "RTT sample; it doubles per expiry without progress, up to 120 s (200 ms: Linux, whose TCP the LetFlow "
        "paper simulated). nic.rto_us does not apply to tcp."),
      I("nic.tcp.ack_every", "packets", "2", 1, 65536,
        "TCP: the receiver acknowledges every this many in-order packets (or at nic.tcp.delayed_ack_us); out of "
        "order, duplicate and hole-filling packets are acknowledged at once."),
      N("nic.tcp.delayed_ack_us", "us", "40000", 0, 1e9,
        "TCP: the longest an in-order packet waits for its ACK (40 ms: Linux's delayed-ACK minimum)."),
      I("nic.tcp.tso_bytes", "bytes", "65536", 0, 1e9,
        "TCP segmentation offload: a flow that starts a burst sends up to this many payload bytes back to back "
        "(the NIC's other flows wait) while its window allows; at most nic.mtu_bytes: no bursts (round-robin "
        "per packet)."),
      I("nic.tcp.initial_window_bytes", "bytes", "0", 0, 1e12,
        "TCP: each flow's first window; 0: RFC 3390, min(4 MSS, max(2 MSS, 4380 B)) with MSS = nic.mtu_bytes "
        "(Linux 2.6.26, the kernel the LetFlow paper simulated). Never below one nic.mtu_bytes."),
      I("nic.tcp.dupthresh", "packets", "3", 1, 65536,
        "TCP: duplicate ACKs that trigger a fast retransmit and fast recovery."),
      B("nic.tcp.sack", "false",
        "TCP: selective acknowledgements (RFC 2018, on by default in Linux): ACKs carry up to "
        "nic.tcp.sack_blocks blocks of the out-of-order data the receiver holds (2 + 8 bytes per block on top of "
        "nic.ack_bytes), and the sender recovers from losses with a scoreboard (RFC 6675: a packet is lost when "
        "nic.tcp.dupthresh packets above it were SACKed; several holes resent per round trip within cwnd - pipe). "
        "false: NewReno without SACK."),
      I("nic.tcp.sack_blocks", "", "3", 1, 4,
        "TCP with nic.tcp.sack: SACK blocks per ACK, the most recently changed first (3: Linux with the "
        "timestamp option; 4 without)."),
  };
}

// The NIC's congestion control and the reorder engine.
std::vector<KeyDef> nic_cc_reorder_keys() {
  return {
      C<CongestionControlKind>("nic.cc", "none", congestion_control_choices(),
        "Congestion control at the source NIC: none (only nic.window_bytes), or dctcp: data packets carry ECT, "
        "switches mark CE above switch.ecn_threshold_bytes, the receiver echoes the marks, and each flow keeps "
        "a DCTCP window (nic.dctcp.*), capped by nic.window_bytes when that is set; dcqcn: rate-based (DCQCN, "
        "Zhu et al. SIGCOMM 2015): the same marking, the destination sends CNPs, each flow is paced at its "
        "rate (nic.dcqcn.*); only nic.window_bytes bounds its bytes in flight."),
      N("nic.dcqcn.g", "", "0.00390625", 0.0001, 1, "DCQCN: gain of alpha (1/256, the DCQCN paper)."),
      N("nic.dcqcn.alpha_timer_us", "us", "55", 0.001, 1e6,
        "DCQCN: alpha decays by (1 - g) every this long without a CNP (K = 55 us, the DCQCN paper)."),
      N("nic.dcqcn.rate_timer_us", "us", "55", 0.001, 1e6,
        "DCQCN: period of the rate-increase timer (55 us, the DCQCN paper)."),
      I("nic.dcqcn.byte_counter_bytes", "bytes", "10485760", 1, 1e12,
        "DCQCN: a rate-increase event every this many bytes sent (B = 10 MB, the DCQCN paper)."),
      I("nic.dcqcn.fast_recovery_stages", "", "5", 0, 1000,
        "DCQCN: F, rate-increase events of fast recovery after a cut (5, the DCQCN paper)."),
      N("nic.dcqcn.rai_mbps", "Mb/s", "40", 0.001, 1e6, "DCQCN: additive increase step R_AI (40 Mb/s, the DCQCN paper)."),
      N("nic.dcqcn.rhai_mbps", "Mb/s", "400", 0.001, 1e6,
        "DCQCN: hyper increase step R_HAI (10 x R_AI, QCN's ratio; docs/dcqcn.md)."),
      N("nic.dcqcn.min_rate_mbps", "Mb/s", "10", 0.001, 1e6, "DCQCN: the lowest rate a cut can bring."),
      N("nic.dcqcn.cnp_interval_us", "us", "50", 0, 1e6,
        "DCQCN: the destination sends at most one CNP per flow per this interval (N = 50 us, the DCQCN paper)."),
      N("nic.dctcp.g", "", "0.0625", 0.0001, 1,
        "DCTCP: gain of alpha, the moving average of the fraction of bytes marked per window of data."),
      I("nic.dctcp.initial_window_bytes", "bytes", "16384", 64, 1e12,
        "DCTCP: each flow's first window (about Linux's 10 segments of 1460 B); never below one nic.mtu_bytes."),
      C<Switched>("nic.dctcp.slow_start", "on", {{"on", Switched::on}, {"off", Switched::off}},
        "DCTCP: on: slow start (the window grows by the bytes acknowledged) until the first cut or timeout, then "
        "one nic.mtu_bytes per window; off: additive from the initial window (slow start only after a timeout)."),
      C<ReorderConnection>("nic.reorder.connection", "message",
        {{"message", ReorderConnection::message}, {"pair", ReorderConnection::pair}},
        "What one rearrange connection carries: one message (flow), or every message from one source to this "
        "NIC in one sequence space, sent in start order (the paper's connections; the buffer is then per pair)."),
      C<ReorderMemory>("nic.reorder.memory", "static",
        {{"static", ReorderMemory::static_partition}, {"dynamic", ReorderMemory::dynamic_pool}},
        "Rearrange memory: a fixed partition per connection, or one pool per NIC with a per-connection cap."),
      I("nic.reorder.buffer_bytes", "bytes", "65536", 64, 1e9,
        "Rearrange buffer per connection (static), or the per-connection cap (dynamic); must hold one "
        "packet (the paper's 2048 B assumes 256 B packets: nic.mtu_bytes 192 + nic.header_bytes 64)."),
      I("nic.reorder.pool_bytes", "bytes", "262144", 64, 1e12,
        "Shared rearrange pool per NIC (dynamic memory), each connection capped at nic.reorder.buffer_bytes."),
      I("nic.reorder.unit_bytes", "bytes", "256", 1, 65536,
        "Allocation unit (cell) of the rearrange memory; a packet takes ceil(size / unit) cells."),
      C<NicConfig::Injection>("nic.reorder.injection", "adap_li",
        {{"unlimited", NicConfig::Injection::unlimited}, {"adap_li", NicConfig::Injection::adap_li},
         {"adap_lw", NicConfig::Injection::adap_lw}},
        "Source injection control: unlimited (UI); adap_li: one packet per acknowledged packet after a rejection, "
        "until every rejected packet is acknowledged; adap_lw: inject only what fits in the destination buffer "
        "(static memory)."),
      C<BlockImpl>("nic.reorder_buffer.impl", "model",
        {{"model", BlockImpl::model}, {"rtl", BlockImpl::rtl}, {"rtl_sc", BlockImpl::rtl_sc}},
        "Reorder transport's rearrange buffer implementation: the C++ model, or the Verilated RTL co-simulated in "
        "the network (rtl: Verilator's C++ output; rtl_sc: its SystemC output, evaluated by the adapter)."),
  };
}

// Workloads.
std::vector<KeyDef> workload_keys() {
  return {
      // Workload.
      C<WorkloadType>("workload.type", "permutation",
        {{"permutation", WorkloadType::permutation}, {"all_to_all", WorkloadType::all_to_all},
         {"random", WorkloadType::random}, {"uniform", WorkloadType::uniform},
         {"bit_reversal", WorkloadType::bit_reversal}, {"incast", WorkloadType::incast}, {"file", WorkloadType::file},
         {"collective", WorkloadType::collective}, {"jobs", WorkloadType::jobs},
         {"chakra", WorkloadType::chakra}, {"none", WorkloadType::none}},
        "permutation: each host sends workload.size_bytes to one partner and receives from one; all_to_all; "
        "random: Poisson arrivals to random partners, sizes from workload.cdf at workload.load; uniform and "
        "bit_reversal: Poisson arrivals of workload.size_bytes messages at workload.load, to a random host or to "
        "the host whose index is the bit-reversed source index; incast: workload.incast.senders hosts to one; "
        "file: HPCC ns-3 flow file; collective: a collective operation (workload.collective.*) whose steps wait "
        "for the data they depend on; jobs: several collectives on their own hosts, from workload.jobs_file; "
        "chakra: a Chakra execution trace replayed (workload.chakra_dir); none: no flows of its own, the messages "
        "of the NICs' host interfaces are the traffic (needs nic.host_interface on; docs/tlm.md)."),
      I("workload.size_bytes", "bytes", "1048576", 1, 1e12,
        "Flow size for permutation, all_to_all and incast; a collective's message size S (NCCL's definition)."),
      C<CollectiveOp>("workload.collective.op", "all_reduce",
        {{"all_reduce", CollectiveOp::all_reduce}, {"all_gather", CollectiveOp::all_gather},
         {"reduce_scatter", CollectiveOp::reduce_scatter}, {"all_to_all", CollectiveOp::all_to_all},
         {"broadcast", CollectiveOp::broadcast}},
        "Collective: the operation (broadcast from the first participating host)."),
      C<CollectiveAlgorithm>("workload.collective.algorithm", "ring",
        {{"ring", CollectiveAlgorithm::ring}, {"halving_doubling", CollectiveAlgorithm::halving_doubling},
         {"tree", CollectiveAlgorithm::tree}, {"hierarchical", CollectiveAlgorithm::hierarchical}},
        "Collective: ring (all_to_all: a shift per step; broadcast: a pipelined chain), halving_doubling "
        "(recursive halving and doubling; broadcast: a binomial tree; a power-of-two number of hosts), tree "
        "(all_reduce over two binary trees, broadcast down one; pipelined in chunks) or hierarchical (ring "
        "within each rack and across racks; all_reduce, reduce_scatter, all_gather)."),
      I("workload.collective.chunk_bytes", "bytes", "524288", 0, 1e12,
        "Collective: tree pipelines its data in chunks of this size, two in flight per link; 0: one chunk."),
      L("workload.collective.hosts", "Collective: the participating host ids in rank order; empty: all hosts (or "
        "workload.collective.first_hosts)."),
      I("workload.collective.first_hosts", "", "0", 0, 1e7, "Collective: the first N hosts take part; 0: all."),
      I("workload.collective.iterations", "", "1", 1, 1e6, "Collective: how many times it runs, back to back."),
      S("workload.chakra_dir", "",
        "Chakra: a directory of per-rank execution trace files <name>.<rank>.et, rank r on host r; collectives "
        "by workload.collective.algorithm (docs/collectives.md, \"Chakra execution traces\")."),
      S("workload.jobs_file", "", "Jobs: a YAML file listing the jobs (docs/collectives.md, \"Several jobs\")."),
      C<JobPlacement>("workload.placement", "packed",
        {{"packed", JobPlacement::packed}, {"spread", JobPlacement::spread}, {"random", JobPlacement::random}},
        "Jobs: where a job given a host count goes, unless it says: packed (the lowest free hosts), spread (one "
        "free host per rack in turn) or random (drawn from sim.seed)."),
      N("workload.collective.gap_us", "us", "0", 0, 1e9,
        "Collective: compute time between iterations (a rank starts the next one this long after its last "
        "data of the previous one arrived)."),
      S("workload.cdf", "websearch",
        "Flow-size CDF for random traffic: websearch, fbhdp, googlerpc, alistorage, datamining, or a file path."),
      N("workload.load", "", "0.5", 0.001, 1, "Offered load per host as a fraction of its link rate (random)."),
      N("workload.duration_us", "us", "100", 0.001, 1e9, "Window in which random flows arrive."),
      I("workload.incast.senders", "", "16", 1, 1e6, "Incast: number of senders."),
      N("workload.incast_mix.load", "", "0", 0, 1,
        "Random traffic: add incast bursts carrying this fraction of the hosts' total capacity (0: none)."),
      I("workload.incast_mix.degree", "", "100", 1, 1e6, "Incast bursts: senders per burst (all to one random host)."),
      I("workload.incast_mix.min_bytes", "bytes", "50000", 1, 1e12, "Incast bursts: smallest flow (sizes uniform)."),
      I("workload.incast_mix.max_bytes", "bytes", "200000", 1, 1e12, "Incast bursts: largest flow."),
      I("workload.incast.destination", "", "0", 0, 1e9, "Incast: receiving host."),
      S("workload.file", "", "Flow file in the HPCC ns-3 format (workload.type file)."),
      I("workload.traffic_class", "", "0", 0, 6, "Traffic class of generated flows."),
      C<WorkloadPattern>("workload.pattern", "none",
        {{"none", WorkloadPattern::none}, {"unf", WorkloadPattern::unf}, {"adv1", WorkloadPattern::adv1},
         {"adv2", WorkloadPattern::adv2}},
        "Long-lived connections (Mizrahi et al. IV-A), replacing workload.type: unf: source uniform over all "
        "hosts, destination uniform outside its group; adv1: every source in one random group, every "
        "destination in another; adv2: every destination in one random group, sources from the others. "
        "workload.pairs connections of workload.size_bytes, all starting at 0; summary.json gains throughput."),
      I("workload.pairs", "", "64", 1, 1e7, "workload.pattern: connections drawn from the seed (pairs may repeat)."),
      N("workload.throughput_sample_us", "us", "5", 0.001, 1e6,
        "workload.pattern: period of the delivered-bytes samples behind throughput.aggregate_gbps."),
      N("workload.throughput_warmup", "", "0.2", 0, 0.9,
        "workload.pattern: the fraction of the all-connections-active time left out as start-up."),
  };
}

// Packet timelines and captures (tb/packet_trace.h, docs/outputs.md).
std::vector<KeyDef> trace_keys() {
  return {
      B("trace.enabled", "false",
        "Write trace.json (Chrome trace events: Perfetto, chrome://tracing) and packets.pcap (tcpdump, tshark) "
        "of the packets trace.switches and trace.flows select."),
      L("trace.flows", "Flows traced on every link they cross: flow ids, or all (e.g. [0, 5, 7])."),
      L("trace.switches", "Switches whose output ports are traced (every packet they send): switch ids, or all."),
      N("trace.start_us", "us", "0", 0, 1e9, "Trace packets put on the wire from this simulated time on."),
      N("trace.end_us", "us", "0", 0, 1e9, "Trace packets put on the wire before this time; 0: until the end."),
      C<CosimTrace>("cosim.trace", "off", {{"off", CosimTrace::off}, {"fst", CosimTrace::fst}},
        "fst: every co-simulated RTL block (the *.impl keys = rtl or rtl_sc) writes its signals to "
        "cosim_<owner>_<block>.fst in the output directory (GTKWave), for operations in the window below."),
      N("cosim.trace_start_ns", "ns", "0", 0, 1e12, "Waveforms of block operations from this simulated time on."),
      N("cosim.trace_end_ns", "ns", "0", 0, 1e12, "Waveforms of block operations before this time; 0: until the end."),
      I("trace.max_packets", "", "1000000", 1, 1e8,
        "At most this many packet records; later ones are counted in summary.json (trace) and left out."),
      N("stats.sample_us", "us", "0", 0, 1e9,
        "Sample every switch output port's backlog, link utilization and packets sent this often into "
        "timeseries.csv (netasic plot draws it); 0: no sampling."),
      L("stats.switches", "Switches whose ports stats.sample_us samples: switch ids, or all (empty: all)."),
      N("stats.window_start_us", "us", "0", 0, 1e9,
        "Time-weighted statistics (table occupancy over time, the time packets hold Flowcut state) count the "
        "run from this simulated time on: e.g. skip the warm-up of a random workload."),
      N("stats.window_end_us", "us", "0", 0, 1e9,
        "... and before this time; 0: until the run's end. A random workload's arrival window "
        "(workload.duration_us) keeps the drain at the end out."),
  };
}

// The registry, in the order `netasic keys` and docs/scenario-keys.md list it.
std::vector<KeyDef> build_keys() {
  std::vector<KeyDef> k;
  for (auto part : {run_keys, topology_link_keys, switch_routing_keys, telemetry_keys, flowcut_letflow_keys, nic_keys,
                    nic_cc_reorder_keys, workload_keys, trace_keys})
    for (auto& def : part()) k.push_back(std::move(def));
  return k;
}

}  // namespace

const std::vector<KeyDef>& scenario_keys() {
  static const std::vector<KeyDef> keys = build_keys();
  return keys;
}

}  // namespace netasic
