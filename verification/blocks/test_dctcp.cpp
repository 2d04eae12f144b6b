#include <gtest/gtest.h>

#include "tlm/blocks/dctcp.h"
#include "tlm/common/error.h"

namespace netasic {
namespace {

DctcpConfig cfg(double alpha0 = 1.0) {
  DctcpConfig c;
  c.mss = 1000;
  c.initial_window = 10000;
  c.initial_alpha = alpha0;
  c.slow_start = false;
  return c;
}

TEST(Dctcp, AdditiveIncreaseOfOneMssPerWindow) {
  Dctcp d(cfg());
  EXPECT_EQ(d.window(), 10000u);
  // One window of ACKs, unmarked: about one mss more.
  for (std::uint32_t k = 1; k <= 10; ++k) d.on_ack(1000, 1000, 0, k, 10 + k);
  EXPECT_GE(d.window(), 10900u);
  EXPECT_LE(d.window(), 11000u);
  EXPECT_EQ(d.cuts(), 0u);
}

TEST(Dctcp, AlphaIsTheMovingAverageOfTheMarkedFractionPerWindow) {
  Dctcp d(cfg(0.0));
  // First ACK opens the first window (it ends when una reaches 10).
  d.on_ack(1000, 1000, 0, 1, 10);
  for (std::uint32_t k = 2; k <= 10; ++k) d.on_ack(1000, 1000, k % 2 ? 1000 : 0, k, 10);
  // The window held 10 ACKed packets, 4 marked at the 10th ACK: (3, 5, 7, 9) -> F = 0.4.
  EXPECT_EQ(d.windows(), 1u);
  EXPECT_NEAR(d.alpha(), 0.4 / 16, 1e-12);
}

TEST(Dctcp, CutsByHalfAlphaAtMostOncePerWindow) {
  Dctcp d(cfg(1.0));
  d.on_ack(1000, 1000, 1000, 1, 10);  // a mark: alpha 1 halves the window
  EXPECT_EQ(d.cuts(), 1u);
  EXPECT_EQ(d.window(), 5000u);
  d.on_ack(1000, 1000, 1000, 5, 10);  // same window of data: no second cut, and no growth
  EXPECT_EQ(d.cuts(), 1u);
  EXPECT_EQ(d.window(), 5000u);
  d.on_ack(1000, 1000, 0, 6, 10);  // an unmarked ACK grows it
  EXPECT_EQ(d.window(), 5200u);
  d.on_ack(1000, 1000, 1000, 10, 14);  // una passed the window of the cut: cut again
  EXPECT_EQ(d.cuts(), 2u);
  // The window that ended at una = 10 was 3 of 4 packets marked: alpha = 15/16 + 0.75/16.
  EXPECT_NEAR(d.alpha(), (15 + 0.75) / 16, 1e-12);
  EXPECT_NEAR(static_cast<double>(d.window()), 5200 * (1 - d.alpha() / 2), 1.0);
  // Never below one mss.
  for (std::uint32_t k = 0; k < 50; ++k) d.on_ack(1000, 1000, 1000, 100 + 10 * k, 110 + 10 * k);
  EXPECT_EQ(d.window(), 1000u);
  EXPECT_EQ(d.min_window(), 1000u);
}

TEST(Dctcp, AlphaDecaysWithoutMarks) {
  Dctcp d(cfg(1.0));
  for (std::uint32_t k = 0; k < 40; ++k) d.on_ack(1000, 1000, 0, k * 10, k * 10 + 10);
  EXPECT_LT(d.alpha(), 0.1);
  EXPECT_EQ(d.max_alpha(), 1.0);
}

TEST(Dctcp, TimeoutRestartsFromOneMssWithSlowStart) {
  Dctcp d(cfg());
  d.on_timeout();
  EXPECT_EQ(d.window(), 1000u);
  d.on_ack(1000, 1000, 0, 1, 2);
  EXPECT_EQ(d.window(), 2000u);  // slow start: +acked
  d.on_ack(4000, 4000, 0, 5, 6);
  EXPECT_EQ(d.window(), 5000u);  // up to ssthresh (half the window at the timeout)
  d.on_ack(5000, 5000, 0, 10, 11);
  EXPECT_EQ(d.window(), 6000u);  // then additive
}

TEST(Dctcp, SlowStartGrowsByWhatIsAcknowledgedUntilTheFirstCut) {
  DctcpConfig c = cfg(1.0);
  c.slow_start = true;
  Dctcp d(c);
  for (std::uint32_t k = 1; k <= 10; ++k) d.on_ack(1000, 1000, 0, k, 10 + k);
  EXPECT_EQ(d.window(), 20000u);  // doubled in one window
  d.on_ack(1000, 1000, 1000, 10, 21);
  EXPECT_EQ(d.window(), 10000u);  // the first mark halves it (alpha still 1) and ends slow start
  d.on_ack(1000, 1000, 0, 21, 31);
  EXPECT_EQ(d.window(), 10100u);  // additive from here
}

TEST(Dctcp, PathChangeRestartsFromTheInitialWindowInSlowStart) {
  // Mizrahi et al. III: the sender "starts using the new path with slow-start".
  DctcpConfig c = cfg(1.0);
  c.slow_start = true;
  Dctcp d(c);
  for (std::uint32_t k = 1; k <= 10; ++k) d.on_ack(1000, 1000, 0, k, 10 + k);
  d.on_ack(1000, 1000, 1000, 10, 21);
  for (std::uint32_t k = 0; k < 40; ++k) d.on_ack(1000, 1000, 0, 21 + k, 31 + k);
  ASSERT_GT(d.window(), 10000u);  // additive above the initial window
  const double alpha = d.alpha();
  d.restart();
  EXPECT_EQ(d.window(), 10000u);
  EXPECT_EQ(d.alpha(), alpha);
  d.on_ack(3000, 3000, 0, 64, 80);
  EXPECT_EQ(d.window(), 13000u);  // slow start again: +acked
}

TEST(Dctcp, MaxWindowCaps) {
  DctcpConfig c = cfg();
  c.max_window = 12000;
  Dctcp d(c);
  for (std::uint32_t k = 1; k <= 100; ++k) d.on_ack(1000, 1000, 0, k, k + 10);
  EXPECT_EQ(d.window(), 12000u);
}

TEST(Dctcp, RejectsBadParameters) {
  DctcpConfig c = cfg();
  c.g = 0;
  EXPECT_THROW(Dctcp{c}, InputError);
}

}  // namespace
}  // namespace netasic
