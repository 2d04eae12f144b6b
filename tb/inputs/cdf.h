// Flow-size distributions given as an empirical CDF, in either of the two formats the published
// workloads use:
//
//   bytes  cdf_percent            (HPCC traffic_gen, percent 0..100)
//   packets  1  cdf_fraction      (VL2 / ns-2 Empirical, fraction 0..1, one packet = 1460 bytes)
//
// The column count of the first data line picks the format. Between points the size is interpolated
// linearly in the cumulative probability, as the HPCC generator does; a repeated size is a step (an
// atom of probability), a repeated cdf value a gap no flow falls into. The five built-ins are the files
// of configs/cdf/, compiled into the binary. See docs/input-files.md and configs/cdf/README.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tlm/common/rng.h"

namespace netasic {

struct CdfPoint {
  double bytes = 0;  // already scaled to bytes for the VL2 format
  double cdf = 0;    // cumulative probability as a fraction, 0..1
};

class FlowSizeCdf {
 public:
  static constexpr double kVl2PacketBytes = 1460;

  // `name` is used in messages ("<name>:<line>: ...") and returned by name().
  static FlowSizeCdf parse(std::string_view text, const std::string& name);
  // InputError if the file cannot be opened.
  static FlowSizeCdf load(const std::string& path);
  // One of builtin_names(); InputError listing them otherwise.
  static FlowSizeCdf builtin(const std::string& name);
  static std::vector<std::string> builtin_names();
  // A built-in name if it is one (a built-in wins over a file of the same name), else a file path.
  static FlowSizeCdf from_spec(const std::string& spec);

  // One draw: the inverse-CDF size rounded to whole bytes, at least 1 byte. Consumes exactly one
  // rng.uniform(), so a stream's later draws do not depend on the distribution's shape.
  std::uint64_t sample(Rng& rng) const;
  // The inverse CDF before rounding: the size at cumulative probability u (clamped to [0, 1]).
  double quantile(double u) const;
  // Exact mean of the piecewise-linear distribution. sample()'s rounding to whole bytes (and lifting of
  // 0 to 1 byte) moves its mean by less than a byte.
  double mean_bytes() const;
  // Smallest and largest size sample() can return.
  std::uint64_t min_bytes() const;
  std::uint64_t max_bytes() const;
  const std::string& name() const { return name_; }
  const std::vector<CdfPoint>& points() const { return points_; }

 private:
  FlowSizeCdf() = default;

  std::string name_;
  std::vector<CdfPoint> points_;  // sizes and cdf non-decreasing, last cdf exactly 1
  double mean_ = 0;
};

}  // namespace netasic
