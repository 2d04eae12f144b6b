#include "tlm/blocks/selective_repeat.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "tlm/common/error.h"

namespace netasic {

bool SackReceiver::placed(std::uint32_t psn) const {
  if (psn < cum_) return true;
  auto it = ranges_.upper_bound(psn);
  if (it == ranges_.begin()) return false;
  return std::prev(it)->second > psn;
}

bool SackReceiver::place(std::uint32_t psn) {
  if (placed(psn)) return false;
  auto next = ranges_.upper_bound(psn);  // first range starting above psn
  const bool join_next = next != ranges_.end() && next->first == psn + 1;
  if (psn == cum_) {
    cum_ = psn + 1;
    if (join_next) {
      cum_ = next->second;
      ranges_.erase(next);
    }
    return true;
  }
  auto prev = next == ranges_.begin() ? ranges_.end() : std::prev(next);
  const bool join_prev = prev != ranges_.end() && prev->second == psn;
  if (join_prev && join_next) {
    prev->second = next->second;
    ranges_.erase(next);
  } else if (join_prev) {
    prev->second = psn + 1;
  } else if (join_next) {
    const std::uint32_t end = next->second;
    ranges_.erase(next);
    ranges_.emplace(psn, end);
  } else {
    ranges_.emplace(psn, psn + 1);
  }
  max_ranges_ = std::max(max_ranges_, ranges_.size());
  return true;
}

std::size_t SackReceiver::blocks(std::uint32_t recent, SackBlock* out, std::size_t max) const {
  std::size_t n = 0;
  if (max == 0) return 0;
  auto first = ranges_.end();
  if (recent >= cum_) {
    auto it = ranges_.upper_bound(recent);
    if (it != ranges_.begin() && std::prev(it)->second > recent) {
      first = std::prev(it);
      out[n++] = SackBlock{first->first, first->second};
    }
  }
  for (auto it = ranges_.begin(); it != ranges_.end() && n < max; ++it)
    if (it != first) out[n++] = SackBlock{it->first, it->second};
  return n;
}

SrSender::SrSender(std::uint32_t packets, std::uint32_t dupthresh)
    : packets_(packets), dupthresh_(dupthresh), state_(packets, SrState::unsent), bytes_(packets, 0), tx_(packets, 0) {
  if (dupthresh_ == 0) throw InputError("selective repeat: the duplicate threshold must be at least 1");
}

void SrSender::sent(std::uint32_t psn, std::uint32_t bytes) {
  if (psn >= packets_) throw ModelError(fmt::format("selective repeat: PSN {} sent beyond the flow's {} packets", psn, packets_));
  SrState& s = state_[psn];
  if (s == SrState::acked) return;  // an acknowledged packet is never sent again
  if (s != SrState::in_flight) inflight_ += bytes;
  else inflight_ += std::uint64_t{bytes} - bytes_[psn];
  s = SrState::in_flight;
  bytes_[psn] = bytes;
  tx_[psn] = next_tx_;
  order_.emplace_back(next_tx_, psn);
  ++next_tx_;
}

void SrSender::ack(std::uint32_t psn, SrAckResult& out) {
  SrState& s = state_[psn];
  if (s == SrState::acked) return;
  if (s == SrState::in_flight) inflight_ -= bytes_[psn];
  const bool was_sent = s != SrState::unsent;
  s = SrState::acked;
  ++acked_count_;
  out.acked.push_back(psn);
  if (!was_sent) return;
  top_.push(tx_[psn]);
  if (top_.size() > dupthresh_) top_.pop();
}

void SrSender::on_sack(std::uint32_t cum, const SackBlock* blocks, std::size_t n, SrAckResult& out) {
  cum = std::min(cum, packets_);
  for (; cum_ < cum; ++cum_) ack(cum_, out);
  for (std::size_t b = 0; b < n; ++b) {
    const std::uint32_t end = std::min(blocks[b].end, packets_);
    for (std::uint32_t psn = std::max(blocks[b].start, cum_); psn < end; ++psn) ack(psn, out);
  }
  while (cum_ < packets_ && state_[cum_] == SrState::acked) ++cum_;
  detect_losses(out);
}

void SrSender::detect_losses(SrAckResult& out) {
  if (top_.size() < dupthresh_) return;
  // `dupthresh` acknowledged transmissions are numbered at or above this one: everything sent before it
  // and still unacknowledged was overtaken by at least that many packets.
  const std::uint64_t threshold = top_.top();
  while (!order_.empty()) {
    const auto [tx, psn] = order_.front();
    if (state_[psn] != SrState::in_flight || tx_[psn] != tx) {  // acknowledged, or sent again since
      order_.pop_front();
      continue;
    }
    if (tx >= threshold) break;
    state_[psn] = SrState::lost;
    inflight_ -= bytes_[psn];
    out.lost.push_back(psn);
    order_.pop_front();
  }
}

void SrSender::on_timeout(std::vector<std::uint32_t>& lost) {
  for (std::uint32_t psn = cum_; psn < packets_; ++psn) {
    if (state_[psn] != SrState::in_flight) continue;
    state_[psn] = SrState::lost;
    inflight_ -= bytes_[psn];
    lost.push_back(psn);
  }
  order_.clear();  // every entry is now stale
}

}  // namespace netasic
