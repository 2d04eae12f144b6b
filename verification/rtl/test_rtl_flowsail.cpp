// FlowSail RTL against netasic::Flowsail: enqueues from a flow pool larger than the tiny NFT/CFT
// (collisions), dequeues that follow the queues' FIFO order and hand back each packet's congested mark,
// junk dequeues (underflow, not found), PAUSE / RESUME control frames (isolation in rsvQ, CFT
// collisions), RELEASE requests (of the flow, or of the entry's occupant when it is idle, as the network's
// deferred release does), new thresholds with some enqueues (Flowsail::set_thresholds), the random source
// reloaded with some enqueues (a shared stream's state), 2-bit pauseNum and flowNum (saturation), 12-bit
// counters (overflow) and 32-bit ones with deferred release (the network's configuration), random request
// idle cycles and response back-pressure. Every response field the operation defines and its cycle are
// compared; the random queue choice of a new flow must match draw for draw.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <sstream>
#include <string>
#include <vector>

#include "Vfs_q3_n8_c2.h"
#include "Vfs_q4_n4_c2.h"
#include "Vfs_q4_n4_c2_d32.h"
#include "Vfs_q5_n8_c4.h"
#include "Vfs_q8_n64_c16.h"
#include "rtl_harness.h"
#include "tlm/blocks/flowsail.h"

namespace netasic {
namespace {

using rtl_test::Clocked;
using rtl_test::LatencyTrace;
using rtl_test::load_seed;
using rtl_test::Pacer;

struct Point {
  const char* name;
  FlowsailConfig cfg;
  unsigned pool;             // flow ids in use
  std::uint32_t max_bytes;   // packet size 1 .. max_bytes
};

enum Op : unsigned { kEnq = 0, kDeq = 1, kCtl = 2, kRel = 3 };
const char* const kOpName[] = {"enqueue", "dequeue", "control", "release"};

struct Req {
  Op op;
  std::uint32_t fid, bytes = 0;
  unsigned queue = 0;
  bool flag = false;  // dequeue: congested mark; control: pause
  bool thr = false;   // enqueue: load new thresholds first
  std::uint32_t q_low = 0, q_high = 0;
  bool reseed = false;  // enqueue: load the random source first (state of Rng(seed_value, 17))
  std::uint64_t seed_value = 0;
};

struct Exp {
  Req req;
  std::uint64_t accept;
  FlowsailStatus status;
  unsigned queue = 0;
  bool congested = false, over_high = false, pause = false, resume = false;
  std::uint32_t paused_queues = 0;
};

struct Packet {
  std::uint32_t fid, bytes;
  bool congested;
};

std::string show(const Req& r) {
  std::ostringstream s;
  s << kOpName[r.op] << "(fid " << std::hex << r.fid << std::dec;
  if (r.op == kEnq || r.op == kDeq) s << ", bytes " << r.bytes;
  if (r.thr) s << ", Ql " << std::dec << r.q_low << " Qh " << r.q_high;
  if (r.reseed) s << ", reseed";
  if (r.op == kDeq) s << ", queue " << r.queue << ", congested " << r.flag;
  if (r.op == kCtl) s << (r.flag ? ", PAUSE" : ", RESUME");
  return s.str() + ")";
}

template <class V>
void run_point(const Point& p, std::uint64_t seed, int requests, double go, double ready) {
  Rng model_rng(seed, 17);
  Flowsail model(p.cfg, model_rng);
  const unsigned queues = p.cfg.queues;
  Clocked<V> sim(p.name);
  V& d = sim.dut();
  load_seed(d, seed, 17);
  LatencyTrace trace("flowsail", p.name);
  Pacer pace(seed, go, ready);
  Rng rng(seed, 3);
  std::vector<std::uint32_t> pool;
  for (unsigned i = 0; i < p.pool; ++i) pool.push_back(static_cast<std::uint32_t>(rng.next()));
  std::vector<std::deque<Packet>> fifo(queues);

  sim.reset(4);
  d.req_valid_i = 0;
  std::deque<Exp> expected;
  bool holding = false, seen = false;
  Req cur{};
  int issued = 0, answered = 0;
  std::uint64_t by_status[5] = {0, 0, 0, 0, 0}, marks = 0, junk = 0, released = 0, thr_loads = 0, reseeds = 0;
  std::uint64_t over_high = 0;
  std::uint32_t size_max = p.cfg.size_bits >= 32 ? ~0u : (1u << p.cfg.size_bits) - 1u;
  while (answered < requests) {
    if (!holding && issued < requests && pace.start()) {
      const auto r = rng.below(100);
      cur = Req{};
      cur.fid = pool[rng.below(pool.size())];
      if (r < 45) {
        cur.op = kEnq;
        cur.bytes = 1 + static_cast<std::uint32_t>(rng.below(p.max_bytes));
        if (rng.below(10) == 0) {  // new Ql / Qh, up to a few packets (also above the counters' range)
          cur.thr = true;
          cur.q_low = static_cast<std::uint32_t>(rng.below(std::uint64_t{p.max_bytes} * 8));
          cur.q_high = static_cast<std::uint32_t>(rng.below(std::uint64_t{p.max_bytes} * 16));
          if (rng.below(20) == 0) cur.q_high = ~0u;
        }
        if (rng.below(20) == 0) {
          cur.reseed = true;
          cur.seed_value = rng.next();
        }
      } else if (r < 82) {
        cur.op = kDeq;
        std::vector<unsigned> busy;
        for (unsigned q = 0; q < queues; ++q)
          if (!fifo[q].empty()) busy.push_back(q);
        if (busy.empty() || r >= 78) {  // junk: any queue, any flow, any size
          cur.queue = static_cast<unsigned>(rng.below(queues));
          cur.bytes = 1 + static_cast<std::uint32_t>(rng.below(p.max_bytes));
          cur.flag = rng.below(2);
          ++junk;
        } else {
          cur.queue = busy[rng.below(busy.size())];
          const Packet& pk = fifo[cur.queue].front();
          cur.fid = pk.fid;
          cur.bytes = pk.bytes;
          cur.flag = pk.congested;
        }
      } else if (r < 94) {
        cur.op = kCtl;
        cur.flag = rng.below(2);
      } else {
        cur.op = kRel;
        // The network releases the occupant of the entry a flow indexes once it is idle.
        std::uint32_t occupant = 0;
        if (rng.below(2) == 0 && model.cft_occupant_idle(cur.fid, occupant)) cur.fid = occupant;
      }
      holding = true;
    }
    d.req_valid_i = holding;
    d.req_op_i = cur.op;
    d.req_fid_i = cur.fid;
    d.req_bytes_i = cur.bytes;
    d.req_queue_i = cur.queue;
    d.req_congested_i = cur.flag;
    d.req_pause_i = cur.flag;
    // The thresholds as Flowsail::set_thresholds() keeps them (clamped to the counters, Ql <= Qh).
    const std::uint32_t ql = std::min(cur.q_low, size_max);
    d.req_thr_load_i = cur.thr;
    d.req_q_low_i = ql;
    d.req_q_high_i = std::min(std::max(ql, cur.q_high), size_max);
    d.req_seed_load_i = cur.reseed;
    if (cur.reseed) load_seed(d, cur.seed_value, 17);
    d.rsp_ready_i = pace.accept();
    sim.settle();
    const std::uint64_t now = sim.cycle();
    if (d.rsp_valid_o) {
      ASSERT_FALSE(expected.empty()) << "response without a request" << sim.vcd_hint();
      const Exp& e = expected.front();
      if (!seen) {
        seen = true;
        ASSERT_TRUE(trace.record(kOpName[e.req.op], e.accept, now, model.config().latency))
            << show(e.req) << " accepted at " << e.accept << ": latency " << now - e.accept << " != model "
            << model.config().latency << sim.vcd_hint();
      }
      std::ostringstream m, g;
      m << to_string(e.status);
      g << "status " << unsigned(d.rsp_status_o);
      bool same = unsigned(d.rsp_status_o) == static_cast<unsigned>(e.status);
      if (e.req.op == kEnq) {
        m << " queue " << e.queue << " congested " << e.congested << " over_high " << e.over_high << " pause "
          << e.pause;
        g << " queue " << unsigned(d.rsp_queue_o) << " congested " << unsigned(d.rsp_congested_o) << " over_high "
          << unsigned(d.rsp_over_high_o) << " pause " << unsigned(d.rsp_pause_o);
        same = same && d.rsp_queue_o == e.queue && bool(d.rsp_congested_o) == e.congested &&
               bool(d.rsp_over_high_o) == e.over_high && bool(d.rsp_pause_o) == e.pause;
      } else if (e.req.op == kRel) {
        // the status alone
      } else if (e.req.op == kDeq) {
        m << " resume " << e.resume;
        g << " resume " << unsigned(d.rsp_resume_o);
        same = same && bool(d.rsp_resume_o) == e.resume;
      } else {
        m << " paused_queues 0x" << std::hex << e.paused_queues;
        g << " paused_queues 0x" << std::hex << unsigned(d.rsp_paused_queues_o);
        same = same && d.rsp_paused_queues_o == e.paused_queues;
      }
      ASSERT_TRUE(same) << show(e.req) << " accepted at " << e.accept << ", response at cycle " << now
                        << ": model " << m.str() << " | rtl " << g.str() << sim.vcd_hint();
      if (d.rsp_ready_i) {
        expected.pop_front();
        seen = false;
        ++answered;
      }
    }
    if (holding && d.req_ready_o) {
      Exp e{cur, now, FlowsailStatus::ok};
      if (cur.op == kEnq) {
        if (cur.thr) {
          model.set_thresholds(cur.q_low, cur.q_high);
          ++thr_loads;
        }
        if (cur.reseed) {
          model_rng = Rng(cur.seed_value, 17);
          ++reseeds;
        }
        const auto r = model.enqueue(cur.fid, cur.bytes);
        e.status = r.status;
        e.queue = r.queue;
        e.congested = r.congested;
        e.over_high = r.over_q_high;
        over_high += r.over_q_high;
        e.pause = r.pause;
        if (r.status == FlowsailStatus::ok) fifo[r.queue].push_back({cur.fid, cur.bytes, r.congested});
        marks += r.congested;
      } else if (cur.op == kDeq) {
        const auto r = model.dequeue(cur.fid, cur.queue, cur.bytes, cur.flag);
        e.status = r.status;
        e.resume = r.resume;
        auto& f = fifo[cur.queue];
        if (r.status == FlowsailStatus::ok && !f.empty() && f.front().fid == cur.fid && f.front().bytes == cur.bytes)
          f.pop_front();
      } else if (cur.op == kRel) {
        const bool ok = model.cft_release(cur.fid);
        e.status = ok ? FlowsailStatus::ok : FlowsailStatus::not_found;
        released += ok;
      } else {
        const auto r = model.control(cur.fid, cur.flag);
        e.status = r.status;
        e.paused_queues = r.paused_queues;
      }
      ++by_status[static_cast<unsigned>(e.status)];
      expected.push_back(e);
      holding = false;
      ++issued;
    }
    sim.edge();
    ASSERT_LT(sim.cycle(), static_cast<std::uint64_t>(requests) * 40 + 2000) << "no progress";
  }
  EXPECT_GT(by_status[static_cast<unsigned>(FlowsailStatus::ok)], 0u);
  EXPECT_GT(by_status[static_cast<unsigned>(FlowsailStatus::underflow)], 0u);
  EXPECT_GT(by_status[static_cast<unsigned>(FlowsailStatus::not_found)], 0u);
  EXPECT_GT(by_status[static_cast<unsigned>(FlowsailStatus::cft_collision)], 0u);
  if (p.cfg.size_bits <= 16) {
    EXPECT_GT(by_status[static_cast<unsigned>(FlowsailStatus::overflow)], 0u);
  }
  if (p.cfg.pause_bits <= 3) {
    EXPECT_GT(model.pause_saturations(), 0u);
  }
  EXPECT_GT(marks, 0u);
  EXPECT_GT(model.pauses(), 0u);
  EXPECT_GT(model.resumes(), 0u);
  EXPECT_GT(model.nft_collisions(), 0u);
  EXPECT_GT(junk, 0u);
  EXPECT_GT(thr_loads, 0u);
  EXPECT_GT(reseeds, 0u);
  EXPECT_GT(over_high, 0u);
  if (p.cfg.deferred_release) {
    EXPECT_GT(released, 0u);
  }
}

FlowsailConfig config(unsigned queues, std::uint32_t nft, std::uint32_t cft, std::uint32_t ql, std::uint32_t qh,
                      unsigned size_bits, unsigned pause_bits, unsigned flownum_bits, bool deferred = false) {
  FlowsailConfig c;
  c.queues = queues;
  c.nft_entries = nft;
  c.cft_entries = cft;
  c.q_low = ql;
  c.q_high = qh;
  c.size_bits = size_bits;
  c.pause_bits = pause_bits;
  c.flownum_bits = flownum_bits;
  c.deferred_release = deferred;
  return c;
}

TEST(RtlFlowsail, Queues4Nft4Cft2Narrow) {
  run_point<Vfs_q4_n4_c2>({"q4_n4_c2", config(4, 4, 2, 1000, 3000, 12, 2, 2), 12, 700}, 1, 40000, 0.7, 0.6);
}
TEST(RtlFlowsail, Queues4FullRate) {
  run_point<Vfs_q4_n4_c2>({"q4_n4_c2_full_rate", config(4, 4, 2, 1000, 3000, 12, 2, 2), 12, 700}, 2, 40000, 1.0, 1.0);
}
TEST(RtlFlowsail, Queues5Nft8Cft4) {
  run_point<Vfs_q5_n8_c4>({"q5_n8_c4", config(5, 8, 4, 2000, 6000, 16, 3, 3), 20, 1500}, 3, 40000, 0.8, 0.7);
}
// Two normal queues for up to eight NFT flows: a queue's 2-bit flowNum reaches its maximum and saturates.
TEST(RtlFlowsail, Queues3Nft8FlownumSaturates) {
  run_point<Vfs_q3_n8_c2>({"q3_n8_c2", config(3, 8, 2, 1000, 3000, 12, 2, 2), 16, 700}, 5, 40000, 0.7, 0.6);
}
// The network's configuration: 32-bit counters, CFT entries kept until RELEASE.
TEST(RtlFlowsail, Queues4Size32DeferredRelease) {
  run_point<Vfs_q4_n4_c2_d32>({"q4_n4_c2_d32", config(4, 4, 2, 1000, 3000, 32, 2, 2, true), 12, 700}, 6, 40000, 0.7,
                              0.6);
}
TEST(RtlFlowsail, Queues4Size32DeferredReleaseFullRate) {
  run_point<Vfs_q4_n4_c2_d32>({"q4_n4_c2_d32_full_rate", config(4, 4, 2, 1000, 3000, 32, 2, 2, true), 12, 700}, 7,
                              40000, 1.0, 1.0);
}
TEST(RtlFlowsail, Queues8Nft64Cft16) {
  run_point<Vfs_q8_n64_c16>({"q8_n64_c16", config(8, 64, 16, 20000, 60000, 24, 8, 16), 100, 1500}, 4, 40000, 0.8,
                            0.7);
}

}  // namespace
}  // namespace netasic
