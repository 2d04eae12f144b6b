// The DCQCN reaction point against sequences computed by hand from the rules in tlm/blocks/dcqcn.h.
#include <gtest/gtest.h>

#include "tlm/blocks/dcqcn.h"

namespace netasic {
namespace {

constexpr Ps kUs = kPsPerUs;

// Round numbers: line rate 100, R_AI 1, R_HAI 10, g 1/4, both timers 10 us, a byte counter of 1000 B.
DcqcnConfig cfg() {
  DcqcnConfig c;
  c.line_rate_gbps = 100;
  c.min_rate_gbps = 1;
  c.g = 0.25;
  c.alpha_timer_ps = 10 * kUs;
  c.rate_timer_ps = 10 * kUs;
  c.byte_counter_bytes = 1000;
  c.fast_recovery_stages = 5;
  c.rai_gbps = 1;
  c.rhai_gbps = 10;
  c.initial_alpha = 1.0;
  return c;
}

TEST(Dcqcn, StartsAtTheLineRateWithAlphaOne) {
  Dcqcn d(cfg());
  EXPECT_DOUBLE_EQ(d.rate_gbps(), 100);
  EXPECT_DOUBLE_EQ(d.target_gbps(), 100);
  EXPECT_DOUBLE_EQ(d.alpha(), 1.0);
}

TEST(Dcqcn, CnpCutsByHalfAlphaThenRaisesAlpha) {
  Dcqcn d(cfg());
  d.on_cnp(1 * kUs);  // alpha 1: Rc 100 -> 50; alpha -> 0.75 * 1 + 0.25 = 1
  EXPECT_DOUBLE_EQ(d.rate_gbps(), 50);
  EXPECT_DOUBLE_EQ(d.target_gbps(), 100);
  EXPECT_DOUBLE_EQ(d.alpha(), 1.0);
  d.on_cnp(2 * kUs);  // Rt <- 50, Rc -> 25
  EXPECT_DOUBLE_EQ(d.rate_gbps(), 25);
  EXPECT_DOUBLE_EQ(d.target_gbps(), 50);
  EXPECT_EQ(d.cuts(), 2u);
}

TEST(Dcqcn, AlphaDecaysOncePerAlphaTimerWithoutCnp) {
  DcqcnConfig c = cfg();
  c.initial_alpha = 0.5;
  Dcqcn d(c);
  d.advance(9 * kUs);
  EXPECT_DOUBLE_EQ(d.alpha(), 0.5);
  d.advance(10 * kUs);  // one expiry: 0.5 * 0.75
  EXPECT_DOUBLE_EQ(d.alpha(), 0.375);
  d.advance(35 * kUs);  // expiries at 20 and 30: 0.375 * 0.75^2
  EXPECT_DOUBLE_EQ(d.alpha(), 0.2109375);
  // A CNP at 36 us: alpha 0.2109375 -> cut by 0.10546875; alpha -> 0.75 * 0.2109375 + 0.25 = 0.408203125,
  // and the alpha timer restarts: no decay at 40 us, the next at 46 us.
  d.on_cnp(36 * kUs);
  EXPECT_DOUBLE_EQ(d.rate_gbps(), 100 * (1 - 0.10546875));
  EXPECT_DOUBLE_EQ(d.alpha(), 0.408203125);
  d.advance(45 * kUs);
  EXPECT_DOUBLE_EQ(d.alpha(), 0.408203125);
  d.advance(46 * kUs);
  EXPECT_DOUBLE_EQ(d.alpha(), 0.408203125 * 0.75);
}

TEST(Dcqcn, FastRecoveryThenAdditiveIncreaseOnTheTimer) {
  Dcqcn d(cfg());
  d.on_cnp(0);  // Rc 50, Rt 100; the rate timer restarts at 0
  // Five fast-recovery events halve the gap to Rt = 100: 75, 87.5, 93.75, 96.875, 98.4375.
  const double fr[] = {75, 87.5, 93.75, 96.875, 98.4375};
  for (int i = 0; i < 5; ++i) {
    d.advance(static_cast<Ps>(10 * (i + 1)) * kUs);
    EXPECT_DOUBLE_EQ(d.rate_gbps(), fr[i]) << "event " << i + 1;
    EXPECT_DOUBLE_EQ(d.target_gbps(), 100);
  }
  // Second cut from 98.4375 with alpha: after the first CNP alpha = 1, then five decays (at 10..50 us)
  // give 0.75^5 = 0.2373046875.
  d.on_cnp(55 * kUs);
  const double alpha = 0.2373046875;
  const double rc = 98.4375 * (1 - alpha / 2);
  EXPECT_DOUBLE_EQ(d.rate_gbps(), rc);
  EXPECT_DOUBLE_EQ(d.target_gbps(), 98.4375);
  // Six timer events: five of fast recovery toward 98.4375, then additive: Rt + 1 = 99.4375.
  double r = rc;
  for (int i = 0; i < 5; ++i) r = (98.4375 + r) / 2;
  d.advance(105 * kUs);  // events at 65..105: five
  EXPECT_DOUBLE_EQ(d.rate_gbps(), r);
  d.advance(115 * kUs);  // the sixth: T = 6 > F, BC = 0: additive
  EXPECT_DOUBLE_EQ(d.target_gbps(), 99.4375);
  EXPECT_DOUBLE_EQ(d.rate_gbps(), (99.4375 + r) / 2);
}

TEST(Dcqcn, HyperIncreaseWhenBothCountersPassF) {
  DcqcnConfig c = cfg();
  c.line_rate_gbps = 1000;  // room to grow
  Dcqcn d(c);
  d.on_cnp(0);  // Rc 500, Rt 1000
  d.on_cnp(1);  // alpha still 1: Rt 500, Rc 250
  ASSERT_DOUBLE_EQ(d.target_gbps(), 500);
  // Six byte-counter events at once (6000 B at t = 1): BC 1..6 with T = 0: five fast recovery, one additive.
  d.on_sent(6000, 1);
  double rc = 250, rt = 500;
  for (int i = 0; i < 5; ++i) rc = (rt + rc) / 2;
  rt += 1;
  rc = (rt + rc) / 2;
  EXPECT_EQ(d.byte_count(), 6u);
  EXPECT_DOUBLE_EQ(d.target_gbps(), rt);
  EXPECT_DOUBLE_EQ(d.rate_gbps(), rc);
  // Timer events at 10..60 us: T = 1..5 are additive (BC = 6 > F, T <= F), T = 6 is hyper: min = 6, i = 1.
  d.advance(50 * kUs + 1);
  for (int i = 0; i < 5; ++i) {
    rt += 1;
    rc = (rt + rc) / 2;
  }
  EXPECT_DOUBLE_EQ(d.target_gbps(), rt);
  d.advance(60 * kUs + 1);
  rt += 10;
  rc = (rt + rc) / 2;
  EXPECT_DOUBLE_EQ(d.target_gbps(), rt);
  EXPECT_DOUBLE_EQ(d.rate_gbps(), rc);
  // One more byte-counter event: BC 7, T 6: min 6 - 5 = 1 step of R_HAI.
  d.on_sent(1000, 60 * kUs + 2);
  rt += 10;
  rc = (rt + rc) / 2;
  EXPECT_DOUBLE_EQ(d.rate_gbps(), rc);
}

TEST(Dcqcn, RateStaysWithinTheMinimumAndTheLineRate) {
  Dcqcn d(cfg());
  for (int i = 0; i < 40; ++i) d.on_cnp(static_cast<Ps>(i) * kUs);
  EXPECT_DOUBLE_EQ(d.rate_gbps(), 1);  // 100 / 2^40 is far below the floor of 1
  d.advance(100000 * kUs);             // a long quiet time: back to the line rate, never above
  EXPECT_DOUBLE_EQ(d.rate_gbps(), 100);
  EXPECT_DOUBLE_EQ(d.target_gbps(), 100);
}

}  // namespace
}  // namespace netasic
