// Enums for the choice keys whose values only the testbench interprets (the model's own enums, such as
// RoutingPolicy or TransportKind, are used directly). Each key's definition in tb/scenario.cpp maps its
// accepted names to these enumerators; read them with Scenario::choice<E>(key).
#pragma once

namespace netasic {

enum class TopologyType { fat_tree, leaf_spine, dragonfly, torus, irregular, file };
enum class WorkloadType { permutation, all_to_all, random, uniform, bit_reversal, incast, file, collective, jobs, chakra, none };
enum class LinkFlowControl { lossless, lossy };
enum class UpDownMode { automatic, on, off };
enum class BlockImpl { model, rtl, rtl_sc };  // a co-simulated block: the C++ model or the Verilated RTL
enum class FcScheduler { rr, drr };
enum class Switched { on, off };  // an on/off choice key
enum class Crossbar { single, tiled };  // switch.crossbar
enum class ArbiterPointer { per_vc, shared };  // switch.arbiter_pointer
enum class AutoOnOff { automatic, on, off };  // an auto/on/off choice key
enum class ReorderConnection { message, pair };
enum class CosimTrace { off, fst };  // cosim.trace
enum class EventOrder { sequence, causal };  // sim.event_order
enum class PrefetchSteps { automatic, off, on, deep };  // sim.prefetch

}  // namespace netasic
