// xoshiro256** random source (Blackman & Vigna), bit-identical to netasic::Rng (tlm/common/rng.h), so
// the random port and queue choices of the flowlet table and FlowSail match the C++ models draw for
// draw. The state is loaded at reset from seed_i (the model's state after seeding, computed by
// software: splitmix64 needs 64x64 multiplies that have no place in the datapath); load_i loads it (the
// owner holds load_i while it initialises after reset). below(n) is
// (next * n) >> 64, Lemire's multiply-shift, as Rng::below.
`default_nettype none

module xoshiro256ss #(
  parameter integer RangeWidth = 8  // width of n in below(n)
) (
  input  wire                  clk_i,
  input  wire                  load_i,   // load seed_i (takes priority over next_i)
  input  wire [255:0]          seed_i,   // {s3, s2, s1, s0}
  input  wire                  next_i,   // advance: the draw below is consumed this cycle
  input  wire [RangeWidth:0]   range_i,  // n, 1 .. 2^RangeWidth
  output wire [RangeWidth-1:0] below_o   // uniform in 0 .. n-1 from the current state
);
  reg  [63:0] s0_q, s1_q, s2_q, s3_q;
  wire [63:0] s1x5 = (s1_q << 2) + s1_q;
  wire [63:0] rot = {s1x5[56:0], s1x5[63:57]};  // rotl(s1 * 5, 7)
  wire [63:0] result = (rot << 3) + rot;          // * 9
  wire [64+RangeWidth:0] product = result * range_i;
  assign below_o = product[64 +: RangeWidth];
  // The fraction bits are the discarded remainder; the top bit is 0 because n <= 2^RangeWidth.
  wire unused_product = ^{product[63:0], product[64+RangeWidth]};

  wire [63:0] t = s1_q << 17;
  wire [63:0] s2_a = s2_q ^ s0_q;
  wire [63:0] s3_a = s3_q ^ s1_q;
  wire [63:0] s1_d = s1_q ^ s2_a;
  wire [63:0] s0_d = s0_q ^ s3_a;
  wire [63:0] s2_d = s2_a ^ t;
  wire [63:0] s3_d = {s3_a[18:0], s3_a[63:19]};  // rotl(s3, 45)

  // A synchronous load rather than a reset: the initial value is an input, not a constant.
  always @(posedge clk_i) begin
    if (load_i) begin
      {s3_q, s2_q, s1_q, s0_q} <= seed_i;
    end else if (next_i) begin
      s0_q <= s0_d;
      s1_q <= s1_d;
      s2_q <= s2_d;
      s3_q <= s3_d;
    end
  end
endmodule

`default_nettype wire
