// LetFlow flowlet table, line-rate variant: the same parameters, ports and results as flowlet_table
// (rtl/flowlet_table.sv; netasic::FlowletTable draw for draw), but one request accepted per cycle and an
// aging CHECK that takes one cycle instead of a sweep of the whole RAM.
//
// Aging by epochs instead of age bits. A global epoch counter epoch_q (EpochBits bits) counts the CHECKs;
// every entry holds {port, stamp, written}: the epoch of its last ACCESS. An entry is valid for a request
// iff written and (request epoch - stamp) mod 2^EpochBits is 0 (the model's age 0) or 1 (age 1), which is
// exactly the model's state after the CHECKs since: the first CHECK after an access ages the entry, the
// second invalidates it. A CHECK only increments epoch_q.
// So that a stale stamp never wraps around into the valid window, a background scrubber walks the RAM,
// one entry per cycle in which no ACCESS reads it (read port free), and clears the written bit of every
// entry two or more epochs old (the write port is then free too: see below). CHECK rule: a CHECK taking the
// epoch from e to e + 1 is accepted only once the scrubber has decided on Entries entries (so on every
// entry) since the CHECK that began epoch e - 1, the CHECK before the previous one; otherwise it waits
// (req_ready_o low for op 1 only; ACCESSes are still taken). Then every entry written in epoch e - 3 or
// before has been cleared, and no stamp is 4 = 2^EpochBits epochs old after the CHECK. The rule cannot bite
// while there are at least Entries cycles without an ACCESS in S1 between any CHECK and the one two CHECKs
// later; when it bites, the waiting CHECK holds the request port, so the scrubber gets every cycle once
// the ACCESSes in flight have left S1 and the wait is at most Entries + 2 cycles (the compact table's
// CHECK always costs Entries + 2).
//
// Pipeline (no stall: a 4-entry response queue and credits; responses in request order):
//   c    request taken: key, count and the current epoch registered (a CHECK increments the epoch).
//   c+1  S1: CRC-32 of the key -> RAM read address (ACCESS); otherwise the scrubber reads its entry. Also
//        the two candidate random ports (xoshiro256ss_ahead: the generator's next two outputs, each times
//        the count), so that S2 only selects one.
//   c+2  S2: the entry read, corrected by the write of the previous cycle (the RAM reads before it writes,
//        so the entry an ACCESS or the scrubber wrote in c+1 is forwarded: back-to-back accesses to one
//        entry see each other); decide, draw the random port of a new flowlet, write back {port, epoch, 1}.
//   c+3  the response at the head of the queue (latency 3 for ACCESS and CHECK when the queue is empty;
//        later only while rsp_ready_i holds earlier responses back).
// The scrubber reads in a cycle whose S1 holds no ACCESS, so the next cycle's S2 holds none either and
// the write port is free for the scrubber's clear.
// After reset the RAM is cleared, one entry per cycle (req_ready_o low for Entries cycles), as flowlet_table;
// the generator loads seed_i in all but the last 3 of those cycles (the last load counts) and primes in them.
// Storage: RAM Entries x (PortWidth + EpochBits + 1) bits, EpochBits = 2 (a localparam, so the parameters
// stay those of flowlet_table; a wider stamp would give the scrubber 2^EpochBits - 2 CHECK intervals per
// pass, for one more bit per entry and one more decision counter each, not implemented).
`default_nettype none

module flowlet_table_lr #(
  parameter integer Entries   = 65536,
  parameter integer KeyWidth  = 104,
  parameter integer PortWidth = 8
) (
  input  wire                       clk_i,
  input  wire                       rst_ni,
  input  wire [255:0]               seed_i,
  input  wire                       req_valid_i,
  output wire                       req_ready_o,
  input  wire                       req_op_i,
  input  wire [KeyWidth-1:0]        req_key_i,
  input  wire [PortWidth:0]         req_port_count_i,
  output wire                       rsp_valid_o,
  input  wire                       rsp_ready_i,
  output wire [PortWidth-1:0]       rsp_port_o,
  output wire                       rsp_new_flowlet_o,
  output wire [$clog2(Entries)-1:0] rsp_index_o
);
  localparam integer IDX_W = $clog2(Entries);
  localparam integer EpochBits = 2;
  localparam integer KW = EpochBits;
  localparam integer EW = PortWidth + KW + 1;  // {port, stamp, written}
  localparam integer QD = 4;                   // response queue: S1 + S2 + the head in flight at full rate
  localparam integer RW = PortWidth + 1 + IDX_W;

  // The parameter checks at the end of the module stop elaboration; this prints the offending values too.
  initial begin
    if (Entries < 4 || Entries > (1 << 24) || (Entries & (Entries - 1)) != 0)
      $display("flowlet_table_lr: Entries (%0d) must be a power of two in 4 .. 16777216", Entries);
    if (PortWidth < 1 || PortWidth > 16) $display("flowlet_table_lr: PortWidth (%0d) outside 1 .. 16", PortWidth);
  end

  // ---- Post-reset clear ----
  reg             init_q;
  reg [IDX_W-1:0] init_ptr_q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      init_q <= 1'b1;
      init_ptr_q <= {IDX_W{1'b0}};
    end else if (init_q) begin
      init_ptr_q <= init_ptr_q + 1'b1;
      if (init_ptr_q == IDX_W'(Entries - 1)) init_q <= 1'b0;
    end
  end

  // ---- Epoch and CHECK rule ----
  // Scrub decisions (one entry each, in cyclic order) made in the current epoch (sc_cur_q) and in the
  // current and the previous epoch (sc_prev_q), saturating at Entries. Entries decisions cover every entry.
  reg  [KW-1:0]   epoch_q;
  reg  [IDX_W:0]  sc_cur_q, sc_prev_q;
  wire            check_ok = sc_prev_q == Entries[IDX_W:0];

  // ---- Request port and credits ----
  reg [2:0] q_count_q;
  reg       s1_v_q, s2_v_q;
  wire      credit = ({1'b0, q_count_q} + {3'b000, s1_v_q} + {3'b000, s2_v_q}) < 4'(QD);
  assign req_ready_o = !init_q && credit && (!req_op_i || check_ok);
  wire      req_fire = req_valid_i && req_ready_o;

  // S1 registers (the request taken in the previous cycle).
  reg                s1_op_q;
  reg [KeyWidth-1:0] s1_key_q;
  reg [PortWidth:0]  s1_count_q;
  reg [KW-1:0]       s1_epoch_q;
  // S2 registers.
  reg                s2_op_q;
  reg [IDX_W-1:0]    s2_idx_q;
  reg [PortWidth:0]  s2_count_q;
  reg [KW-1:0]       s2_epoch_q;

  wire [31:0] crc;
  crc32_key #(.KeyWidth(KeyWidth)) u_hash (.key_i(s1_key_q), .crc_o(crc));
  wire [IDX_W-1:0] hash_idx = crc[IDX_W-1:0];

  // ---- RAM: one synchronous read port (read before write) and one write port ----
  reg [EW-1:0]    ram [0:Entries-1];
  reg [EW-1:0]    rd_q;
  reg             rd_en;
  reg [IDX_W-1:0] rd_addr;
  reg             wr_en;
  reg [IDX_W-1:0] wr_addr;
  reg [EW-1:0]    wr_data;
  always @(posedge clk_i) begin
    if (rd_en) rd_q <= ram[rd_addr];
    if (wr_en) ram[wr_addr] <= wr_data;
  end
  // The write of the previous cycle, forwarded to the entry read in that cycle's edge.
  reg             fw_v_q;
  reg [IDX_W-1:0] fw_addr_q;
  reg [EW-1:0]    fw_data_q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) fw_v_q <= 1'b0;
    else fw_v_q <= wr_en;
  end
  always @(posedge clk_i) begin
    fw_addr_q <= wr_addr;
    fw_data_q <= wr_data;
  end

  // ---- Scrubber ----
  wire            s1_access = s1_v_q && !s1_op_q;
  wire            s2_access = s2_v_q && !s2_op_q;
  reg [IDX_W-1:0] sc_ptr_q;   // next entry to read
  reg             sc_rd_q;    // the entry read in the previous cycle is the scrubber's
  reg [IDX_W-1:0] sc_idx_q;
  wire            sc_read = !init_q && !s1_access;

  wire [IDX_W:0]  sc_cur_sat = sc_cur_q + {{IDX_W{1'b0}}, sc_rd_q && sc_cur_q != Entries[IDX_W:0]};
  wire [IDX_W:0]  sc_prev_sat = sc_prev_q + {{IDX_W{1'b0}}, sc_rd_q && sc_prev_q != Entries[IDX_W:0]};

  // ---- S2: the entry as the RAM holds it after the previous cycle's write ----
  wire [IDX_W-1:0] ent_idx = sc_rd_q ? sc_idx_q : s2_idx_q;
  wire             fw_hit = fw_v_q && fw_addr_q == ent_idx;
  wire [EW-1:0]    ent = fw_hit ? fw_data_q : rd_q;
  wire [KW-1:0]    ent_stamp = ent[KW:1];
  wire [KW-1:0]    ent_age_req = s2_epoch_q - ent_stamp;  // age against the request's epoch
  wire [KW-1:0]    ent_age_now = epoch_q - ent_stamp;     // age against the scrubber's (current) epoch
  wire             ent_valid = ent[0] && ent_age_req <= KW'(1);
  wire             sc_stale = ent[0] && ent_age_now > KW'(1);
  wire             draw = s2_access && !ent_valid;
  wire [PortWidth-1:0] rnd_port;
  wire [PortWidth-1:0] s2_port = ent_valid ? ent[EW-1:KW+1] : rnd_port;

  // The random port, a cycle ahead: S1 multiplies both the generator's next output (r0, if the request in
  // S2 draws nothing) and the one after it (r1, if it draws) by the request's count, and S2 picks the one
  // that is current when it gets there (drew_q: the previous S2 drew). below(n) = (output * n) >> 64.
  wire [63:0]          rng_r0, rng_r1;
  // The clear's last 3 cycles prime the generator (its seed is loaded in the cycles before; Entries >= 4).
  wire                 rng_prime = init_q && init_ptr_q >= IDX_W'(Entries - 3);
  xoshiro256ss_ahead u_rng (
    .clk_i (clk_i),
    .load_i(init_q && !rng_prime),
    .seed_i(seed_i),
    .next_i(draw || rng_prime),
    .r0_o  (rng_r0),
    .r1_o  (rng_r1)
  );
  wire [64+PortWidth:0] prod0 = rng_r0 * s1_count_q;
  wire [64+PortWidth:0] prod1 = rng_r1 * s1_count_q;
  reg  [PortWidth-1:0]  s2_rnd0_q, s2_rnd1_q;
  reg                   drew_q;
  assign rnd_port = drew_q ? s2_rnd1_q : s2_rnd0_q;

  always @* begin
    rd_en = 1'b0;
    rd_addr = hash_idx;
    if (s1_access) rd_en = 1'b1;
    else if (sc_read) begin
      rd_en = 1'b1;
      rd_addr = sc_ptr_q;
    end
    wr_en = 1'b0;
    wr_addr = ent_idx;
    wr_data = {s2_port, s2_epoch_q, 1'b1};
    if (init_q) begin
      wr_en = 1'b1;
      wr_addr = init_ptr_q;
      wr_data = {EW{1'b0}};
    end else if (s2_access) begin
      wr_en = 1'b1;
    end else if (sc_rd_q && sc_stale) begin
      wr_en = 1'b1;
      wr_data = {ent[EW-1:1], 1'b0};
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      epoch_q <= {KW{1'b0}};
      sc_cur_q <= Entries[IDX_W:0];  // the clear leaves nothing to scrub
      sc_prev_q <= Entries[IDX_W:0];
      sc_ptr_q <= {IDX_W{1'b0}};
      sc_rd_q <= 1'b0;
      s1_v_q <= 1'b0;
      s2_v_q <= 1'b0;
    end else begin
      sc_rd_q <= sc_read;
      if (sc_read) sc_ptr_q <= sc_ptr_q + 1'b1;
      // A decision in this cycle uses this cycle's epoch: it counts before a CHECK taken in the same cycle.
      if (req_fire && req_op_i) begin
        epoch_q <= epoch_q + 1'b1;
        sc_prev_q <= sc_cur_sat;
        sc_cur_q <= {(IDX_W + 1){1'b0}};
      end else begin
        sc_prev_q <= sc_prev_sat;
        sc_cur_q <= sc_cur_sat;
      end
      s1_v_q <= req_fire;
      s2_v_q <= s1_v_q;
    end
  end

  always @(posedge clk_i) begin
    if (req_fire) begin
      s1_op_q <= req_op_i;
      s1_key_q <= req_key_i;
      s1_count_q <= req_port_count_i;
      s1_epoch_q <= epoch_q;
    end
    s2_op_q <= s1_op_q;
    s2_idx_q <= hash_idx;
    s2_count_q <= s1_count_q;
    s2_epoch_q <= s1_epoch_q;
    s2_rnd0_q <= prod0[64 +: PortWidth];
    s2_rnd1_q <= prod1[64 +: PortWidth];
    drew_q <= draw;
    sc_idx_q <= sc_ptr_q;
  end

  // ---- Response queue ----
  (* mem2reg *) reg [RW-1:0] q_data_q [0:QD-1];  // flip-flops (4 words), not a RAM
  reg [1:0]          q_head_q, q_tail_q;
  wire               q_push = s2_v_q;
  wire               q_pop = rsp_valid_o && rsp_ready_i;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      q_count_q <= 3'd0;
      q_head_q <= 2'd0;
      q_tail_q <= 2'd0;
    end else begin
      q_count_q <= q_count_q + {2'b00, q_push} - {2'b00, q_pop};
      if (q_push) q_tail_q <= q_tail_q + 1'b1;
      if (q_pop) q_head_q <= q_head_q + 1'b1;
    end
  end
  // A CHECK's response carries no result (the fields are don't-care, as in flowlet_table).
  always @(posedge clk_i) if (q_push) q_data_q[q_tail_q] <= {s2_port, draw, s2_idx_q};
  wire [RW-1:0] q_head = q_data_q[q_head_q];
  assign rsp_valid_o = q_count_q != 3'd0;
  assign rsp_port_o = q_head[RW-1 -: PortWidth];
  assign rsp_new_flowlet_o = q_head[IDX_W];
  assign rsp_index_o = q_head[IDX_W-1:0];

  // The fraction bits of the products are the discarded remainder; their top bit is 0 (count <= 2^PortWidth).
  wire unused_lr = ^{crc[31:IDX_W], prod0[63:0], prod0[64+PortWidth], prod1[63:0], prod1[64+PortWidth]};

  // Parameter checks at elaboration: an illegal value instantiates a module that does not exist and
  // whose name states the rule, so Verilator and Yosys both stop and name it.
  generate
    if (Entries < 4 || Entries > (1 << 24) || (Entries & (Entries - 1)) != 0) begin : g_bad_Entries
      ERROR_flowlet_table_lr_Entries_must_be_a_power_of_two_in_4_to_16777216 u_param_error ();
    end
    if (PortWidth < 1 || PortWidth > 16) begin : g_bad_PortWidth
      ERROR_flowlet_table_lr_PortWidth_must_be_in_1_to_16 u_param_error ();
    end
  endgenerate

`ifndef SYNTHESIS
`ifndef FORMAL
  // ---- Assertions and cover points: simulation only (Verilator --assert / --coverage-user). ----
  // Reference state: the true (unbounded) epoch and, per entry, whether it was written since the clear and
  // the true epoch of that write; the requests in flight and the cycles the oldest has waited.
  localparam integer SVA_EW = 32;
  reg               sva_on_q;
  reg [SVA_EW-1:0]  sva_epoch_q;
  reg [Entries-1:0] sva_written_q;
  reg [SVA_EW-1:0]  sva_stamp_q [0:Entries-1];
  reg [SVA_EW-1:0]  sva_s1_epoch_q, sva_s2_epoch_q;
  reg [2:0]         sva_inflight_q;
  wire              sva_rsp_fire = rsp_valid_o && rsp_ready_i;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sva_on_q <= 1'b0;
      sva_epoch_q <= {SVA_EW{1'b0}};
      /* verilator lint_off WIDTHCONCAT */  // one shadow bit per entry
      sva_written_q <= '0;
      /* verilator lint_on WIDTHCONCAT */
      sva_inflight_q <= 3'd0;
    end else begin
      sva_on_q <= 1'b1;
      if (req_fire && req_op_i) sva_epoch_q <= sva_epoch_q + 1'b1;
      if (s2_access) sva_written_q[s2_idx_q] <= 1'b1;
      sva_inflight_q <= sva_inflight_q + {2'b00, req_fire} - {2'b00, sva_rsp_fire};
    end
  end
  always @(posedge clk_i) begin
    if (req_fire) sva_s1_epoch_q <= sva_epoch_q;
    sva_s2_epoch_q <= sva_s1_epoch_q;
    if (s2_access) sva_stamp_q[s2_idx_q] <= sva_s2_epoch_q;
  end
  // The model's verdict for the entry S2 decides on: written since the clear and at most one CHECK old.
  wire sva_valid = sva_written_q[s2_idx_q] && sva_s2_epoch_q - sva_stamp_q[s2_idx_q] <= SVA_EW'(1);
  // Oldest written entry age (true epochs) the scrubber must keep below 2^EpochBits: the scrubber's read.
  wire sva_sc_old = sva_written_q[sc_idx_q] && ent[0] && sva_epoch_q - sva_stamp_q[sc_idx_q] >= SVA_EW'(1 << KW);

  // Handshake: a response holds until taken; never more requests in flight than the queue holds; a
  // response only for an accepted request.
  a_rsp_hold: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      rsp_valid_o && !rsp_ready_i |=> rsp_valid_o && $stable({rsp_port_o, rsp_new_flowlet_o, rsp_index_o}))
    else $error("flowlet_table_lr: response withdrawn or changed before it was taken");
  a_rsp_has_req: assert property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o |-> sva_inflight_q != 3'd0)
    else $error("flowlet_table_lr: response without an accepted request");
  a_queue_bound: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      q_count_q <= 3'(QD) && {1'b0, q_count_q} + {3'b000, s1_v_q} + {3'b000, s2_v_q} <= 4'(QD))
    else $error("flowlet_table_lr: response queue overflow");
  a_inflight: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      sva_inflight_q == q_count_q + {2'b00, s1_v_q} + {2'b00, s2_v_q})
    else $error("flowlet_table_lr: a request lost or answered twice");
  // Line rate: after the clear an ACCESS is refused only for lack of queue space (back-pressure).
  a_line_rate: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      !init_q && !req_op_i && credit |-> req_ready_o)
    else $error("flowlet_table_lr: ACCESS refused with queue space");
  // Ports never collide: the scrubber's clear never shares a cycle with an ACCESS write or read.
  a_sc_ports: assert property (@(posedge clk_i) disable iff (!sva_on_q) !(sc_rd_q && s2_access))
    else $error("flowlet_table_lr: scrubber and ACCESS decide in one cycle");
  // The decision equals the model's (true epochs), and no written entry's age reaches 2^EpochBits
  // unscrubbed (a stamp that wrapped would read as valid).
  a_decision: assert property (@(posedge clk_i) disable iff (!sva_on_q) s2_access |-> ent_valid == sva_valid)
    else $error("flowlet_table_lr: valid/expired decision differs from the true epochs (forwarding or wrap)");
  a_no_wrap: assert property (@(posedge clk_i) disable iff (!sva_on_q) sc_rd_q |-> !sva_sc_old)
    else $error("flowlet_table_lr: an entry aged past 2^EpochBits epochs before the scrubber cleared it");
  a_check_rule: assert property (@(posedge clk_i) disable iff (!sva_on_q) req_fire && req_op_i |-> check_ok)
    else $error("flowlet_table_lr: CHECK taken against the scrub rule");
  a_draw_range: assert property (@(posedge clk_i) disable iff (!sva_on_q) draw |-> {1'b0, rnd_port} < s2_count_q)
    else $error("flowlet_table_lr: random port not below the candidate count");

  // Functional coverage.
  c_new_flowlet: cover property (@(posedge clk_i) disable iff (!sva_on_q) draw);
  c_refresh: cover property (@(posedge clk_i) disable iff (!sva_on_q) s2_access && ent_valid);
  c_refresh_aged: cover property (@(posedge clk_i) disable iff (!sva_on_q) s2_access && ent_valid && ent_age_req == KW'(1));
  c_expired: cover property (@(posedge clk_i) disable iff (!sva_on_q) s2_access && ent[0] && !ent_valid);
  c_forward: cover property (@(posedge clk_i) disable iff (!sva_on_q) s2_access && fw_hit);
  c_forward_scrub: cover property (@(posedge clk_i) disable iff (!sva_on_q) sc_rd_q && fw_hit);
  c_scrub_clear: cover property (@(posedge clk_i) disable iff (!sva_on_q) sc_rd_q && sc_stale);
  c_scrub_pass: cover property (@(posedge clk_i) disable iff (!sva_on_q) sc_rd_q && sc_idx_q == IDX_W'(Entries - 1));
  c_check_same_cycle_scrub: cover property (@(posedge clk_i) disable iff (!sva_on_q) req_fire && req_op_i && sc_rd_q);
  c_check_wait: cover property (@(posedge clk_i) disable iff (!sva_on_q) req_valid_i && req_op_i && credit && !check_ok);
  c_check_in_flight: cover property (@(posedge clk_i) disable iff (!sva_on_q) req_fire && req_op_i && s1_access && s2_access);
  c_full_rate: cover property (@(posedge clk_i) disable iff (!sva_on_q) req_fire && s1_access && s2_access && sva_rsp_fire);
  c_draw_full_range: cover property (@(posedge clk_i) disable iff (!sva_on_q)
      draw && s2_count_q == {1'b1, {PortWidth{1'b0}}});
  c_rsp_stall: cover property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o && !rsp_ready_i);
  c_queue_full: cover property (@(posedge clk_i) disable iff (!sva_on_q) req_valid_i && !init_q && !credit);
`endif
`endif
endmodule

`default_nettype wire
