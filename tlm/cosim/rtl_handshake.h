// Internal to tlm/cosim: the core every co-simulation adapter shares (docs/cosim.md). A block's adapter
// implements the block's interface (FlowcutTableIf, FlowletTableIf, ...) and drives its Verilated model
// through RtlHandshake<Pins>: the clock, the reset, the valid/ready request handshake, the wait for the
// response, the latency check against the model's declared latency and the latency trace are here once.
// `Pins` reaches one Verilated model's ports (Verilator's C++ output or its SystemC output); besides the
// block's own request and response fields it provides:
//
//   void clock(bool level);                // set clk_i and evaluate the model
//   void reset(bool asserted);             // rst_ni = !asserted (no evaluation)
//   void request_valid(bool); void response_ready(bool);
//   bool request_ready() const; bool response_valid() const;
//   void final();
//   void trace_open(const std::string& path); void trace_dump(std::uint64_t time_ps);  // FST waveform
//
// Clocking: the adapter evaluates the model cycle by cycle inside the block interface's call (clock low +
// evaluate, clock high + evaluate), so the call stays synchronous; the block's RTL clock advances only
// while an operation is in flight. How a block with time-dependent behaviour maps simulated time onto
// its operations is the block adapter's business (docs/cosim.md, "Time").
//
// Waveforms (cosim.trace = fst, waves.h): after every evaluation whose operation falls in the window of
// network time, the model's signals are dumped at time max(network time in ps, previous dump + 1 ps): an
// operation's cycles follow each other 1 ps apart from the network time it was asked at.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tlm/blocks/hash.h"
#include "tlm/common/error.h"
#include "tlm/common/rng.h"
#include "tlm/cosim/waves.h"

namespace netasic::cosim {

// The key as 32-bit words, least significant first (word i of a VlWide or an sc_bv).
inline std::uint32_t key_word(const WideKey& k, unsigned i) {
  const unsigned at = i * 32;
  return at < 64 ? static_cast<std::uint32_t>(k.lo >> at) : static_cast<std::uint32_t>(k.hi >> (at - 64));
}

// A random generator's 256-bit state as 32-bit words, least significant first (a seed_i port: the RTL's
// xoshiro256** starts from the same state as the model's stream).
inline std::uint32_t seed_word(const Rng& rng, unsigned i) {
  return static_cast<std::uint32_t>(rng.state(static_cast<int>(i / 2)) >> (32 * (i % 2)));
}

// The latency trace shared by every co-simulated block of the process: one CSV line per operation.
class LatencyTrace {
 public:
  static LatencyTrace& instance() {
    static LatencyTrace t;
    return t;
  }
  const std::string& path() const { return path_; }
  void record(const std::string& owner, const char* point, const char* op, std::uint64_t accept,
              std::uint64_t response, unsigned model) {
    if (!out_.is_open()) return;
    out_ << owner << ',' << point << ',' << op << ',' << accept << ',' << response << ',' << (response - accept)
         << ',' << model << '\n';
  }
  void flush() {
    if (out_.is_open()) out_.flush();
  }

 private:
  LatencyTrace() {
    const char* env = std::getenv("NETASIC_COSIM_TRACE");
    path_ = env && *env ? env : "flowcut_table_rtl_latency.csv";
    if (path_ == "off") return;
    out_.open(path_);
    if (!out_) throw InputError("NETASIC_COSIM_TRACE: cannot write the co-simulation latency trace " + path_);
    out_ << "owner,point,op,accept_cycle,response_cycle,measured,model\n";
  }
  std::string path_;
  std::ofstream out_;
};

// One Verilated block behind `Pins`, clocked by the adapter. `block` and `impl` name it in messages
// ("flowcut_table (rtl cam64, sw3)"); `point` is the Verilated parameter point (the trace's point column).
template <class Pins>
class RtlHandshake {
 public:
  RtlHandshake(std::unique_ptr<Pins> pins, std::string owner, const char* block, const char* point, const char* impl)
      : pins_(std::move(pins)), owner_(std::move(owner)), block_(block), point_(point), impl_(impl),
        waves_(wave_options().fst) {
    LatencyTrace::instance();  // open the trace (and report a bad path) before the run starts
  }
  RtlHandshake(const RtlHandshake&) = delete;
  RtlHandshake& operator=(const RtlHandshake&) = delete;
  ~RtlHandshake() {
    LatencyTrace::instance().flush();
    pins_->final();
  }

  Pins& pins() const { return *pins_; }
  std::uint64_t cycle() const { return cycle_; }
  const std::string& owner() const { return owner_; }
  // "flowcut_table (rtl cam64, sw3)": the prefix of every message about this block.
  std::string name() const { return std::string(block_) + " (" + impl_ + ' ' + point_ + ", " + owner_ + ")"; }

  // Reset asserted for `cycles` clock cycles with request valid and response ready low; released at the end.
  void reset(unsigned cycles) const {
    Pins& d = *pins_;
    d.request_valid(false);
    d.response_ready(false);
    d.reset(true);
    for (unsigned i = 0; i < cycles; ++i) {
      settle();
      edge();
    }
    d.reset(false);
  }

  // One request whose fields the caller has driven: wait for req_ready_o (at most `ready_wait` cycles,
  // e.g. a RAM clear after reset), hand the request over at that edge, clock until rsp_valid_o (at most
  // `max_latency` cycles), call take() in that cycle (rsp_ready_i is held high, so the response is taken
  // at the next edge), record the latency in the trace and compare it with `model_latency`. `where()`
  // describes the request, for messages only. Throws ModelError on a protocol or latency mismatch.
  // A response that is a stream of beats (the reorder buffer's events): take() returns true on the last
  // beat; until then the core clocks on to the next valid beat (at most `max_latency` cycles apart) and
  // calls it again. The latency is that of the first beat.
  template <class Where, class Take>
  void transact(const char* op, unsigned model_latency, std::uint64_t ready_wait, std::uint64_t max_latency,
                Where&& where, Take&& take) const {
    run(true, op, model_latency, ready_wait, max_latency, where, take, [] {});
  }
  // The same, but the response (or its last beat) stays on the port after take(): the next edge the adapter
  // clocks takes it (rsp_ready_i stays high); and at_accept() is called in the cycle the request is handed
  // over, before that edge (the block's other ports in that cycle). For a block whose RTL cycles stand for
  // network cycles (the FGFC generator's gap counters), so that a request costs one clock edge, not two.
  template <class Where, class Take, class Accept>
  void transact_open(const char* op, unsigned model_latency, std::uint64_t ready_wait, std::uint64_t max_latency,
                     Where&& where, Take&& take, Accept&& at_accept) const {
    run(false, op, model_latency, ready_wait, max_latency, where, take, at_accept);
  }

  // `cycles` clock cycles with no request (request valid low, response ready high).
  void idle(std::uint64_t cycles) const {
    pins_->request_valid(false);
    pins_->response_ready(true);
    for (std::uint64_t i = 0; i < cycles; ++i) {
      settle();
      edge();
    }
  }
  // One clock cycle on inputs the caller drove: evaluate them, call look() (the outputs of this cycle),
  // then the clock edge.
  template <class Look>
  void step(Look&& look) const {
    settle();
    look();
    edge();
  }

 private:
  template <class Where, class Take, class Accept>
  void run(bool take_edge, const char* op, unsigned model_latency, std::uint64_t ready_wait, std::uint64_t max_latency,
           Where&& where, Take&& take, Accept&& at_accept) const {
    Pins& d = *pins_;
    d.request_valid(true);
    d.response_ready(true);
    const std::uint64_t limit = cycle_ + ready_wait;
    for (settle(); !d.request_ready(); settle()) {
      edge();
      if (cycle_ > limit) throw ModelError(name() + ": " + where() + ": req_ready_o stayed low");
    }
    if (d.response_valid()) throw ModelError(name() + ": " + where() + ": rsp_valid_o high with no request in flight");
    const std::uint64_t accept = cycle_;
    at_accept();
    edge();
    d.request_valid(false);
    for (settle(); !d.response_valid(); settle()) {
      edge();
      if (cycle_ > accept + max_latency)
        throw ModelError(name() + ": " + where() + ": no response within " + std::to_string(max_latency) + " cycles");
    }
    const std::uint64_t response = cycle_;
    if constexpr (std::is_same_v<decltype(take()), bool>) {
      while (!take()) {  // more beats follow
        edge();
        const std::uint64_t from = cycle_;
        for (settle(); !d.response_valid(); settle()) {
          edge();
          if (cycle_ > from + max_latency)
            throw ModelError(name() + ": " + where() + ": the response stream stopped before its last beat");
        }
      }
    } else {
      take();
    }
    if (take_edge) edge();  // the response (its last beat) is taken at this edge
    LatencyTrace& trace = LatencyTrace::instance();
    trace.record(owner_, point_, op, accept, response, model_latency);
    if (response - accept != model_latency) {
      trace.flush();
      std::ostringstream s;
      s << name() << ": " << where() << ": latency " << (response - accept) << " cycles (request accepted at RTL cycle "
        << accept << ", response valid at " << response << ") differs from the " << model_latency
        << " cycles the model declares; trace: " << trace.path();
      throw ModelError(s.str());
    }
  }

  void settle() const {
    pins_->clock(false);
    if (waves_) dump();
  }
  void edge() const {
    pins_->clock(true);
    ++cycle_;
    if (waves_) dump();
  }

  void dump() const {
    const WaveOptions& w = wave_options();
    const Ps now = w.now ? w.now() : 0;
    if (now < w.start || now >= w.end) return;
    if (!wave_open_) {
      std::string file = owner_ + '_' + block_;
      for (char& c : file)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
      pins_->trace_open(w.dir + "/cosim_" + file + ".fst");
      wave_open_ = true;
      wave_time_ = now;
    } else {
      const std::uint64_t next = wave_time_ + 1;
      wave_time_ = now > next ? now : next;
    }
    pins_->trace_dump(wave_time_);
  }

  std::unique_ptr<Pins> pins_;  // const block operations (a table read) still clock the RTL
  std::string owner_;
  const char* block_;
  const char* point_;
  const char* impl_;
  mutable std::uint64_t cycle_ = 0;
  bool waves_;
  mutable bool wave_open_ = false;
  mutable std::uint64_t wave_time_ = 0;
};

// Finding a block's Verilated point. Each block lists its points as entries {info, make} (a description
// of the Verilated parameters, `describe(info)`, and the factory of that point's adapter); the run's
// configuration selects the first entry that `fits`. None fits: InputError with `unmatched()` (the block's
// impl key and the configuration keys that would have to change) and every available point.
template <class Entry, class Fits, class Unmatched>
const Entry& find_point(const std::vector<Entry>& points, Fits&& fits, Unmatched&& unmatched,
                        const char* note = "") {
  for (const auto& p : points)
    if (fits(p.info)) return p;
  std::ostringstream s;
  s << unmatched() << " Available points (" << note << "add one to tlm/cosim/CMakeLists.txt):";
  for (const auto& p : points) s << "\n  " << describe(p.info);
  throw InputError(s.str());
}

}  // namespace netasic::cosim
