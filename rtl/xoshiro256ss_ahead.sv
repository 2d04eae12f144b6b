// xoshiro256** (as rtl/xoshiro256ss.sv, bit-identical to netasic::Rng) with its outputs computed ahead,
// for a pipeline that draws in one cycle and must not spend that cycle on the generator: r0_o is the
// 64-bit output of the current state (the next draw), r1_o the output of the state after it (the draw
// after next), both registers. next_i advances one draw. The owner multiplies r0_o and r1_o by its range
// a cycle early and picks one when it draws (see flowlet_table_lr.sv).
// The output rotl(s1 x 5, 7) x 9 is two 64-bit additions; they are split over two registers (t_q holds
// rotl(s1 x 5, 7), r2_q the output after r1), so each cycle holds one addition:
//   st_q = state n+3, t_q = rotl(s1(st_q) x 5, 7), r2_q = out(n+2), r1_q = out(n+1), r0_q = out(n).
// Start: load_i for at least one cycle with the seed (state 0), then next_i for exactly 3 cycles (prime:
// r0_q .. r2_q fill with outputs 0 .. 2) before the first draw; the owner does both while it clears its RAM.
`default_nettype none

module xoshiro256ss_ahead (
  input  wire         clk_i,
  input  wire         load_i,  // load seed_i (takes priority over next_i)
  input  wire [255:0] seed_i,  // {s3, s2, s1, s0}
  input  wire         next_i,  // advance one draw (or one priming step)
  output wire [63:0]  r0_o,    // output of the current state
  output wire [63:0]  r1_o     // output of the next state
);
  reg [255:0] st_q;
  reg [63:0]  t_q, r0_q, r1_q, r2_q;

  function automatic [255:0] step(input [255:0] s);
    reg [63:0] s0, s1, s2, s3, s2_a, s3_a;
    begin
      {s3, s2, s1, s0} = s;
      s2_a = s2 ^ s0;
      s3_a = s3 ^ s1;
      step = {{s3_a[18:0], s3_a[63:19]}, s2_a ^ (s1 << 17), s1 ^ s2_a, s0 ^ s3_a};
    end
  endfunction

  wire [255:0] st_1 = step(st_q);
  // s1 of the state whose first half of the output is computed now: the seed's on load, else st_1's.
  wire [63:0]  s1_in = load_i ? seed_i[127:64] : st_1[127:64];
  wire [63:0]  s1x5 = (s1_in << 2) + s1_in;
  wire [63:0]  t_d = {s1x5[56:0], s1x5[63:57]};  // rotl(s1 x 5, 7)
  wire [63:0]  out_d = (t_q << 3) + t_q;          // x 9
  always @(posedge clk_i) begin
    if (load_i) begin
      st_q <= seed_i;
      t_q <= t_d;
    end else if (next_i) begin
      st_q <= st_1;
      t_q <= t_d;
      r2_q <= out_d;
      r1_q <= r2_q;
      r0_q <= r1_q;
    end
  end
  assign r0_o = r0_q;
  assign r1_o = r1_q;
endmodule

`default_nettype wire
