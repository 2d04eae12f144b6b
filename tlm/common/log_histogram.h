// A weighted histogram of non-negative integers with bounded relative error, for distributions a designer
// sizes by a high percentile (table occupancy over time, the time a packet holds table state):
//   - values 0 .. 63 have a bucket each (exact: a table of a few entries is read entry by entry);
//   - above, every power of two is cut into 32 equal buckets, so a bucket is at most 1/32 (3.1%) of its
//     lower bound wide.
// Buckets are added as values arrive (a table that stays small keeps a small histogram). Quantiles return
// a bucket's upper bound (the conservative side for sizing: at least that fraction of the weight lies at or
// below it); values below 64 are exact.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace netasic {

class LogHistogram {
 public:
  static constexpr unsigned kExact = 64;
  static constexpr unsigned kSubBits = 5;  // 32 buckets per power of two

  static std::uint32_t bucket(std::uint64_t v) {
    if (v < kExact) return static_cast<std::uint32_t>(v);
    const unsigned octave = 63u - static_cast<unsigned>(__builtin_clzll(v));  // >= 6
    const auto sub = static_cast<std::uint32_t>((v >> (octave - kSubBits)) & ((1u << kSubBits) - 1));
    return kExact + ((octave - 6) << kSubBits) + sub;
  }
  // The largest value of bucket b.
  static std::uint64_t upper(std::uint32_t b) {
    if (b < kExact) return b;
    const unsigned octave = 6 + ((b - kExact) >> kSubBits);
    const std::uint64_t sub = (b - kExact) & ((1u << kSubBits) - 1);
    const std::uint64_t width = std::uint64_t{1} << (octave - kSubBits);
    return (std::uint64_t{1} << octave) + (sub + 1) * width - 1;
  }

  void add(std::uint64_t value, std::uint64_t weight = 1) {
    if (weight == 0) return;
    const std::uint32_t b = bucket(value);
    if (b >= counts_.size()) counts_.resize(b + 1, 0);
    counts_[b] += weight;
    total_ += weight;
    sum_ += static_cast<double>(value) * static_cast<double>(weight);
    max_ = std::max(max_, value);
  }
  void merge(const LogHistogram& o) {
    if (o.counts_.size() > counts_.size()) counts_.resize(o.counts_.size(), 0);
    for (std::size_t i = 0; i < o.counts_.size(); ++i) counts_[i] += o.counts_[i];
    total_ += o.total_;
    sum_ += o.sum_;
    max_ = std::max(max_, o.max_);
  }

  std::uint64_t total() const { return total_; }
  std::uint64_t max() const { return max_; }
  double mean() const { return total_ ? sum_ / static_cast<double>(total_) : 0.0; }
  const std::vector<std::uint64_t>& counts() const { return counts_; }

  // The smallest bucket upper bound at or below which at least q (0..1) of the weight lies (never above
  // the largest value seen); 0 when empty.
  std::uint64_t quantile(double q) const {
    if (total_ == 0) return 0;
    const double target = q * static_cast<double>(total_);
    std::uint64_t seen = 0;
    for (std::uint32_t b = 0; b < counts_.size(); ++b) {
      seen += counts_[b];
      if (counts_[b] && static_cast<double>(seen) >= target) return std::min(upper(b), max_);
    }
    return max_;
  }

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t total_ = 0;
  double sum_ = 0;
  std::uint64_t max_ = 0;
};

// The part of a run that time-weighted statistics count: [from, to).
struct TimeWindow {
  std::uint64_t from = 0;
  std::uint64_t to = ~std::uint64_t{0};
  bool contains(std::uint64_t t) const { return t >= from && t < to; }
  // How much of [a, b) lies inside.
  std::uint64_t overlap(std::uint64_t a, std::uint64_t b) const {
    const std::uint64_t lo = std::max(a, from), hi = std::min(b, to);
    return hi > lo ? hi - lo : 0;
  }
};

// How long a value (a table's occupancy) stayed at each level inside a window: at(now, v) whenever it may
// have changed; the time since the previous change is credited to the previous value. Weights are in the
// caller's time unit.
class TimeWeighted {
 public:
  void at(std::uint64_t now, std::uint64_t value, const TimeWindow& w) {
    if (value == value_) return;
    hist_.add(value_, w.overlap(since_, now));
    since_ = now;
    value_ = value;
  }
  // The histogram with the current value held until `end` (the run's end), without changing this one.
  LogHistogram until(std::uint64_t end, const TimeWindow& w) const {
    LogHistogram h = hist_;
    h.add(value_, w.overlap(since_, end));
    return h;
  }

 private:
  LogHistogram hist_;
  std::uint64_t since_ = 0;
  std::uint64_t value_ = 0;
};

}  // namespace netasic
