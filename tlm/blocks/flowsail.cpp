#include "tlm/blocks/flowsail.h"

#include <algorithm>
#include <string>

#include "tlm/blocks/hash.h"
#include "tlm/common/error.h"

namespace netasic {
namespace {

bool is_pow2(std::uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }
std::uint32_t max_of(unsigned bits) { return bits >= 32 ? ~0u : (1u << bits) - 1u; }
unsigned clog2(std::uint32_t x) {
  unsigned r = 0;
  while ((std::uint64_t{1} << r) < x) ++r;
  return r;
}
void require(bool ok, const std::string& what) {
  if (!ok) throw InputError("flowsail: " + what);
}

}  // namespace

Flowsail::Flowsail(const FlowsailConfig& c, Rng& rng) : config_(c), rng_(rng) {
  require(c.queues >= 2 && c.queues <= 128, "queues = " + std::to_string(c.queues) + " is outside 2 .. 128");
  require(is_pow2(c.nft_entries) && c.nft_entries >= 2 && c.nft_entries <= (1u << 20),
          "nft_entries = " + std::to_string(c.nft_entries) + " must be a power of two in 2 .. 1048576");
  require(is_pow2(c.cft_entries) && c.cft_entries >= 2 && c.cft_entries <= (1u << 20),
          "cft_entries = " + std::to_string(c.cft_entries) + " must be a power of two in 2 .. 1048576");
  require(c.size_bits >= 4 && c.size_bits <= 32, "size_bits = " + std::to_string(c.size_bits) + " is outside 4 .. 32");
  require(c.pause_bits >= 2 && c.pause_bits <= 16, "pause_bits = " + std::to_string(c.pause_bits) + " is outside 2 .. 16");
  require(c.flownum_bits >= 2 && c.flownum_bits <= 20,
          "flownum_bits = " + std::to_string(c.flownum_bits) + " is outside 2 .. 20");
  size_max_ = max_of(c.size_bits);
  pause_max_ = max_of(c.pause_bits);
  flownum_max_ = max_of(c.flownum_bits);
  require(c.q_low <= c.q_high && c.q_high <= size_max_,
          "thresholds q_low = " + std::to_string(c.q_low) + ", q_high = " + std::to_string(c.q_high) +
              " must satisfy q_low <= q_high <= 2^size_bits - 1");
  nft_.resize(c.nft_entries);
  cft_.resize(c.cft_entries);
  qt_.resize(c.queues);
}

std::uint32_t Flowsail::nft_index(std::uint32_t fid) const { return crc32_u32(fid) & (config_.nft_entries - 1); }
std::uint32_t Flowsail::cft_index(std::uint32_t fid) const { return crc32_u32(fid) & (config_.cft_entries - 1); }

bool Flowsail::in_cft(std::uint32_t fid) const {
  const Cft& e = cft_[cft_index(fid)];
  return e.valid && e.fid == fid;
}

std::uint32_t Flowsail::s_fair(std::uint32_t length, std::uint32_t flow_num) {
  return length >> clog2(flow_num == 0 ? 1 : flow_num);
}

FlowsailEnqueue Flowsail::enqueue(std::uint32_t fid, std::uint32_t bytes) {
  const unsigned rsv = rsv_queue();
  Cft& ce = cft_[cft_index(fid)];
  Nft& ne = nft_[nft_index(fid)];
  const bool congested_flow = ce.valid && ce.fid == fid;
  unsigned q;
  bool new_normal = false;
  if (congested_flow) {
    q = rsv;
  } else if (ne.size != 0) {
    q = ne.qidx;
  } else {
    new_normal = true;
    q = rsv;
    for (unsigned i = 0; i + 1 < config_.queues; ++i)
      if (qt_[i].length == 0) {
        q = i;
        break;
      }
    if (q == rsv) q = static_cast<unsigned>(rng_.below(config_.queues - 1));
  }
  std::uint32_t& size = congested_flow ? ce.size : ne.size;
  std::uint32_t& pause_num = congested_flow ? ce.pause_num : ne.pause_num;
  Qt& qt = qt_[q];
  if (std::uint64_t{size} + bytes > size_max_ || std::uint64_t{qt.length} + bytes > size_max_)
    return {FlowsailStatus::overflow, q, false, false, false};
  if (!congested_flow && !new_normal && ne.fid != fid) ++nft_collisions_;
  if (new_normal) {
    ne.qidx = q;
    ne.fid = fid;
  }
  if (size == 0 && qt.flow_num < flownum_max_) ++qt.flow_num;
  size += bytes;
  qt.length += bytes;

  // Hierarchical identification: the queue length first, the flow's share of it second.
  const bool over_q_high = qt.length > config_.q_high;
  bool congested = false;
  if (over_q_high)
    congested = true;
  else if (qt.length > config_.q_low)
    congested = size > s_fair(qt.length, qt.flow_num);
  bool pause = false;
  if (congested) {
    if (pause_num == pause_max_) {
      congested = false;
      ++pause_saturations_;
    } else {
      pause = ++pause_num == 1;
      if (pause) ++pauses_;
    }
  }
  return {FlowsailStatus::ok, q, congested, pause, congested && over_q_high};
}

FlowsailDequeue Flowsail::dequeue(std::uint32_t fid, unsigned queue, std::uint32_t bytes, bool congested) {
  if (queue >= config_.queues) throw ModelError("flowsail: dequeue from a queue outside 0 .. queues-1");
  const bool rsv = queue == rsv_queue();
  Cft& ce = cft_[cft_index(fid)];
  Nft& ne = nft_[nft_index(fid)];
  if (rsv && !(ce.valid && ce.fid == fid)) return {FlowsailStatus::not_found, false};
  std::uint32_t& size = rsv ? ce.size : ne.size;
  std::uint32_t& pause_num = rsv ? ce.pause_num : ne.pause_num;
  Qt& qt = qt_[queue];
  if (bytes > size || bytes > qt.length) return {FlowsailStatus::underflow, false};
  size -= bytes;
  qt.length -= bytes;
  if (size == 0 && qt.flow_num > 0) --qt.flow_num;
  bool resume = false;
  if (congested && pause_num > 0) {
    resume = --pause_num == 0;
    if (resume) ++resumes_;
  }
  if (!config_.deferred_release && rsv && ce.size == 0 && ce.pause_num == 0 && ce.resumed) ce.valid = false;
  return {FlowsailStatus::ok, resume};
}

FlowsailControl Flowsail::control(std::uint32_t fid, bool pause) {
  const unsigned rsv = rsv_queue();
  Cft& ce = cft_[cft_index(fid)];
  const bool hit = ce.valid && ce.fid == fid;
  FlowsailStatus status = FlowsailStatus::ok;
  if (pause) {
    if (!hit && ce.valid) {
      ++cft_collisions_;
      status = FlowsailStatus::cft_collision;
    } else {
      if (!hit) {
        const Nft& ne = nft_[nft_index(fid)];
        ce = Cft{};
        ce.valid = true;
        ce.fid = fid;
        if (ne.size != 0) {  // in-order support: hold the packets already in the original queue
          ce.orig_paused = true;
          ce.orig_q = ne.qidx;
          if (qt_[ne.qidx].cf_num < pause_max_) ++qt_[ne.qidx].cf_num;
        }
      }
      ce.resumed = false;
      if (qt_[rsv].cf_num < pause_max_) ++qt_[rsv].cf_num;
    }
  } else {
    if (!hit) {
      status = FlowsailStatus::not_found;
    } else {
      if (qt_[rsv].cf_num > 0) --qt_[rsv].cf_num;
      if (ce.orig_paused && qt_[ce.orig_q].cf_num > 0) --qt_[ce.orig_q].cf_num;
      ce.orig_paused = false;
      ce.resumed = true;
      if (!config_.deferred_release && ce.size == 0 && ce.pause_num == 0) ce.valid = false;
    }
  }
  return {status, paused_queues()};
}

void Flowsail::set_thresholds(std::uint32_t q_low, std::uint32_t q_high) {
  config_.q_low = std::min(q_low, size_max_);
  config_.q_high = std::min(std::max(q_low, q_high), size_max_);
}

bool Flowsail::cft_idle(std::uint32_t fid) const {
  const Cft& e = cft_[cft_index(fid)];
  return e.valid && e.fid == fid && e.resumed && e.size == 0 && e.pause_num == 0;
}

bool Flowsail::cft_release(std::uint32_t fid) {
  if (!cft_idle(fid)) return false;
  cft_[cft_index(fid)].valid = false;
  return true;
}

bool Flowsail::cft_occupant_idle(std::uint32_t fid, std::uint32_t& occupant) const {
  const Cft& e = cft_[cft_index(fid)];
  occupant = e.fid;
  return e.valid && e.resumed && e.size == 0 && e.pause_num == 0;
}

std::uint32_t Flowsail::paused_queues() const {
  std::uint32_t m = 0;
  for (unsigned q = 0; q < config_.queues && q < 32; ++q)
    if (qt_[q].cf_num != 0) m |= 1u << q;
  return m;
}

unsigned Flowsail::queue_bits() const { return clog2(config_.queues); }
unsigned Flowsail::nft_entry_bits() const { return 32 + queue_bits() + config_.size_bits + config_.pause_bits; }
unsigned Flowsail::cft_entry_bits() const {
  return 1 + 32 + config_.size_bits + config_.pause_bits + 1 + 1 + queue_bits();
}
unsigned Flowsail::qt_entry_bits() const { return config_.size_bits + config_.flownum_bits + config_.pause_bits; }

const char* to_string(FlowsailStatus s) {
  switch (s) {
    case FlowsailStatus::ok: return "ok";
    case FlowsailStatus::overflow: return "overflow";
    case FlowsailStatus::underflow: return "underflow";
    case FlowsailStatus::cft_collision: return "cft_collision";
    case FlowsailStatus::not_found: return "not_found";
  }
  return "?";
}

}  // namespace netasic
