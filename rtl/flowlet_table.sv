// LetFlow flowlet table (Vanini et al., NSDI 2017, Section 3): CRC-32 hash unit, a RAM of
// {port, valid, age} entries, the periodic aging sweep and the random port choice of a new flowlet.
// Matches netasic::FlowletTable (tlm/blocks/flowlet_table.h) draw for draw: the random source is
// xoshiro256** seeded like netasic::Rng, advanced only when a new flowlet picks a port.
//
// Requests (valid/ready), one at a time:
//   op 0 ACCESS  key, port_count (1 .. 2^PortWidth) -> port, new_flowlet, index.  Latency 3 cycles:
//                the key's hash registered as the request is taken (cycle c), RAM read in c+1, decide
//                and write back in c+2, response from c+3.
//   op 1 CHECK   the checker sweep: every valid entry with age 0 gets age 1, every valid entry with
//                age 1 is invalidated. Latency Entries + 2 cycles: one entry per cycle through a
//                pipelined read-modify-write of the 1R1W RAM.
// After reset the RAM is cleared, one entry per cycle (req_ready_o low for Entries cycles).
// Storage: RAM Entries x (PortWidth + 2) bits.
`default_nettype none

module flowlet_table #(
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
  localparam integer EW = PortWidth + 2;  // {port, age, valid}
  localparam [2:0] ST_INIT = 3'd0, ST_IDLE = 3'd1, ST_READ = 3'd2, ST_EXEC = 3'd3, ST_SWEEP = 3'd4,
                   ST_RSP = 3'd5;

  // The parameter checks at the end of the module stop elaboration; this prints the offending values too
  // (Yosys while it elaborates, a simulator at time 0). $display, not $error: Yosys 0.23 has no $error
  // here.
  initial begin
    if (Entries < 4 || Entries > (1 << 24) || (Entries & (Entries - 1)) != 0)
      $display("flowlet_table: Entries (%0d) must be a power of two in 4 .. 16777216", Entries);
    if (PortWidth < 1 || PortWidth > 16) $display("flowlet_table: PortWidth (%0d) outside 1 .. 16", PortWidth);
  end

  reg                 op_q;
  reg [PortWidth:0]   count_q;
  reg [2:0]           state_q, state_d;
  reg [IDX_W:0]       ptr_q, ptr_d;  // init and sweep position (one spare bit: runs to Entries)
  wire                req_fire = req_valid_i && req_ready_o;
  assign req_ready_o = state_q == ST_IDLE;

  // The hash of an ACCESS key (its low IDX_W bits: the entry) is computed from the request port and
  // registered as the request is taken, in idx_q; only the entry index is kept, not the key.
  `include "crc32_key.svh"

  // RAM with one synchronous read port and one write port.
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

  reg  [IDX_W-1:0] idx_q;
  wire [PortWidth-1:0] rnd_port;
  wire             draw = state_q == ST_EXEC && !rd_q[0];
  xoshiro256ss #(.RangeWidth(PortWidth)) u_rng (
    .clk_i  (clk_i),
    .load_i (state_q == ST_INIT),
    .seed_i (seed_i),
    .next_i (draw),
    .range_i(count_q),
    .below_o(rnd_port)
  );

  // The sweep reads entry ptr while it writes back entry ptr - 1.
  wire [IDX_W-1:0] prev = ptr_q[IDX_W-1:0] - 1'b1;
  wire [EW-1:0]    aged = rd_q[0] ? (rd_q[1] ? {rd_q[EW-1:1], 1'b0} : {rd_q[EW-1:2], 2'b11}) : rd_q;

  always @* begin
    state_d = state_q;
    ptr_d = ptr_q;
    rd_en = 1'b0;
    rd_addr = idx_q;
    wr_en = 1'b0;
    wr_addr = idx_q;
    wr_data = {rnd_port, 2'b01};
    case (state_q)
      ST_INIT: begin
        wr_en = 1'b1;
        wr_addr = ptr_q[IDX_W-1:0];
        wr_data = {EW{1'b0}};
        ptr_d = ptr_q + 1'b1;
        if (ptr_q == Entries[IDX_W:0] - 1'b1) state_d = ST_IDLE;
      end
      ST_IDLE: if (req_fire) begin
        state_d = req_op_i ? ST_SWEEP : ST_READ;
        ptr_d = {(IDX_W + 1){1'b0}};
      end
      ST_READ: begin
        rd_en = 1'b1;
        state_d = ST_EXEC;
      end
      ST_EXEC: begin
        // Valid: refresh (age 0), same port. Invalid: a new flowlet takes the random port.
        wr_en = 1'b1;
        wr_data = rd_q[0] ? {rd_q[EW-1:2], 2'b01} : {rnd_port, 2'b01};
        state_d = ST_RSP;
      end
      ST_SWEEP: begin
        rd_en = ptr_q != Entries[IDX_W:0];
        rd_addr = ptr_q[IDX_W-1:0];
        wr_en = ptr_q != {(IDX_W + 1){1'b0}};
        wr_addr = prev;
        wr_data = aged;
        ptr_d = ptr_q + 1'b1;
        if (ptr_q == Entries[IDX_W:0]) state_d = ST_RSP;
      end
      ST_RSP: if (rsp_ready_i) state_d = ST_IDLE;
      default: state_d = ST_IDLE;
    endcase
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= ST_INIT;
      ptr_q <= {(IDX_W + 1){1'b0}};
    end else begin
      state_q <= state_d;
      ptr_q <= ptr_d;
    end
  end

  reg [PortWidth-1:0] rsp_port_q;
  reg                 rsp_new_q;
  always @(posedge clk_i) begin
    if (req_fire) begin
      op_q <= req_op_i;
      count_q <= req_port_count_i;
      if (!req_op_i) idx_q <= IDX_W'(crc32_key_f(req_key_i));  // the low IDX_W bits
    end
    if (state_q == ST_EXEC) begin
      rsp_port_q <= rd_q[0] ? rd_q[EW-1:2] : rnd_port;
      rsp_new_q <= !rd_q[0];
    end
  end

  assign rsp_valid_o = state_q == ST_RSP;
  assign rsp_port_o = rsp_port_q;
  assign rsp_new_flowlet_o = rsp_new_q;
  assign rsp_index_o = idx_q;

  wire unused_flowlet = op_q;
`ifdef FORMAL
  // Entry invariants, proven with Yosys sat -tempinduct (verification/formal/, docs/formal.md;
  // read_verilog -formal defines FORMAL). An entry is {port, age, valid}. For one arbitrary
  // entry f_idx (anyconst), with f_old its value when the request was taken:
  //   ACCESS of it: new flowlet exactly when it was invalid; a valid entry keeps its port; afterwards it
  //     is valid with age 0 and the response's port; other entries are unchanged.
  //   CHECK: valid age 0 -> valid age 1, same port; valid age 1 -> invalid; invalid -> unchanged. So
  //     no valid entry has age 0 after a CHECK, and an entry not accessed for two CHECKs is invalid.
  //   A new flowlet's port is below req_port_count_i (when that is in 1 .. 2^PortWidth). While the table
  //   initialises after reset, every entry below the pointer is cleared (invalid).
  (* anyconst *) reg [IDX_W-1:0] f_idx;
  reg [EW-1:0] f_old;
  reg          f_live;  // a request was taken since reset
  wire [EW-1:0] f_ent = ram[f_idx];
  wire          f_access = f_live && !op_q;
  wire          f_check = f_live && op_q;
  wire          f_aged_ok = f_old[0] ? (f_old[1] ? !f_ent[0] : f_ent == {f_old[EW-1:2], 2'b11})
                                     : f_ent == f_old;
  wire [PortWidth:0] f_port_max = {1'b1, {PortWidth{1'b0}}};
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) f_live <= 1'b0;
    else if (req_fire) f_live <= 1'b1;
  end
  always @(posedge clk_i) if (req_fire) f_old <= f_ent;
  always @* begin
    assert(state_q <= ST_RSP);
    assert(state_q == ST_INIT || state_q == ST_IDLE || f_live);
    if (state_q == ST_INIT) begin
      assert(ptr_q < Entries[IDX_W:0]);
      if ({1'b0, f_idx} < ptr_q) assert(f_ent == {EW{1'b0}});
    end
    if (state_q == ST_READ || state_q == ST_EXEC) begin
      assert(f_access);
      assert(f_ent == f_old);
    end
    if (state_q == ST_EXEC && idx_q == f_idx) assert(rd_q == f_old);
    if (state_q == ST_RSP && f_access) begin
      if (idx_q == f_idx) begin
        assert(rsp_new_q == !f_old[0]);
        if (!rsp_new_q) assert(rsp_port_q == f_old[EW-1:2]);
        assert(f_ent == {rsp_port_q, 2'b01});
      end else begin
        assert(f_ent == f_old);
      end
      if (rsp_new_q && count_q != {(PortWidth + 1){1'b0}} && count_q <= f_port_max)
        assert({1'b0, rsp_port_q} < count_q);
    end
    if (state_q == ST_SWEEP) begin
      assert(f_check);
      assert(ptr_q <= Entries[IDX_W:0]);
      if ({1'b0, f_idx} >= ptr_q) assert(f_ent == f_old);
      if (ptr_q != {(IDX_W + 1){1'b0}} && f_idx == prev) assert(rd_q == f_old && f_ent == f_old);
      if ({1'b0, f_idx} + 1'b1 < ptr_q) assert(f_aged_ok);
    end
    if (state_q == ST_RSP && f_check) assert(f_aged_ok);
  end
`endif

  // Parameter checks at elaboration: an illegal value instantiates a module that does not exist and
  // whose name states the rule, so Verilator and Yosys both stop and name it.
  generate
    if (Entries < 4 || Entries > (1 << 24) || (Entries & (Entries - 1)) != 0) begin : g_bad_Entries
      ERROR_flowlet_table_Entries_must_be_a_power_of_two_in_4_to_16777216 u_param_error ();
    end
    if (PortWidth < 1 || PortWidth > 16) begin : g_bad_PortWidth
      ERROR_flowlet_table_PortWidth_must_be_in_1_to_16 u_param_error ();
    end
  endgenerate

`ifndef SYNTHESIS
`ifndef FORMAL  // Yosys' formal read (verification/formal) parses no concurrent assertions
  // ---- Assertions and cover points: simulation only (Verilator --assert / --coverage-user in
  // verification/rtl); Yosys defines SYNTHESIS, or FORMAL in the proofs, and never sees them. ----
  // Reference state: a request accepted and not yet answered, the cycles it has waited, and a shadow of
  // every entry's valid bit and owner key (written where the RAM is written, reset where the RAM clear
  // should leave the entry invalid).
  localparam integer SVA_WW = IDX_W + 2;
  reg              sva_on_q;  // out of reset (the checks sample this flop, not the asynchronous reset)
  reg              sva_busy_q, sva_op_q, sva_rd_q, sva_rd_valid_q, sva_rd_owned_q;
  reg [SVA_WW-1:0] sva_wait_q;
  reg [Entries-1:0] sva_valid_q;
  reg [KeyWidth-1:0] sva_key_q [0:Entries-1];
  reg [KeyWidth-1:0] sva_req_key_q;  // the key of the request being served
  wire             sva_rsp_fire = rsp_valid_o && rsp_ready_i;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sva_on_q <= 1'b0;
      sva_busy_q <= 1'b0;
      sva_wait_q <= {SVA_WW{1'b0}};
      /* verilator lint_off WIDTHCONCAT */  // one shadow bit per entry: 65536 at the default point
      sva_valid_q <= '0;
      /* verilator lint_on WIDTHCONCAT */
      sva_rd_q <= 1'b0;
    end else begin
      sva_on_q <= 1'b1;
      if (req_fire) sva_busy_q <= 1'b1;
      else if (sva_rsp_fire) sva_busy_q <= 1'b0;
      if (req_fire) sva_wait_q <= {{(SVA_WW - 1){1'b0}}, 1'b1};
      else if (sva_busy_q && !rsp_valid_o) sva_wait_q <= sva_wait_q + 1'b1;
      if (wr_en) sva_valid_q[wr_addr] <= wr_data[0];
      sva_rd_q <= rd_en;
    end
  end
  always @(posedge clk_i) begin
    if (req_fire) sva_op_q <= req_op_i;
    if (req_fire) sva_req_key_q <= req_key_i;
    if (state_q == ST_EXEC) sva_key_q[idx_q] <= sva_req_key_q;
    if (rd_en) begin
      sva_rd_valid_q <= sva_valid_q[rd_addr];  // the value the RAM read returns (read before write)
      sva_rd_owned_q <= sva_key_q[rd_addr] == sva_req_key_q;
    end
  end
  wire [SVA_WW-1:0] sva_latency = sva_op_q ? SVA_WW'(Entries + 2) : SVA_WW'(3);

  // Handshake: the response and its fields hold until taken; one request in flight; every accepted
  // request is answered, exactly once, within its latency (ACCESS 3, CHECK Entries + 2 cycles).
  a_rsp_hold: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      rsp_valid_o && !rsp_ready_i |=> rsp_valid_o && $stable({rsp_port_o, rsp_new_flowlet_o, rsp_index_o}))
    else $error("flowlet_table: response withdrawn or changed before it was taken");
  a_rsp_has_req: assert property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o |-> sva_busy_q && !req_ready_o)
    else $error("flowlet_table: response without an accepted request, or request port ready while answering");
  a_answered: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      sva_busy_q && !rsp_valid_o |-> sva_wait_q < sva_latency)
    else $error("flowlet_table: accepted request not answered within its latency");
  // Invariants: the clear and sweep pointer never passes Entries; a drawn port is below the request's count; an
  // entry read is valid exactly when the shadow says so (an entry the reset clear missed is not).
  a_ptr_range: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      state_q == ST_INIT || state_q == ST_SWEEP |-> ptr_q <= Entries[IDX_W:0])
    else $error("flowlet_table: sweep pointer beyond Entries");
  a_draw_range: assert property (@(posedge clk_i) disable iff (!sva_on_q) draw |-> {1'b0, rnd_port} < count_q)
    else $error("flowlet_table: random port not below the candidate count");
  a_rd_valid: assert property (@(posedge clk_i) disable iff (!sva_on_q) sva_rd_q |-> rd_q[0] == sva_rd_valid_q)
    else $error("flowlet_table: entry read with a valid bit nothing wrote (RAM clear incomplete?)");

  // Functional coverage.
  c_new_flowlet: cover property (@(posedge clk_i) disable iff (!sva_on_q) state_q == ST_EXEC && !rd_q[0]);
  c_refresh: cover property (@(posedge clk_i) disable iff (!sva_on_q) state_q == ST_EXEC && rd_q[0]);
  c_collision: cover property (@(posedge clk_i) disable iff (!sva_on_q) state_q == ST_EXEC && rd_q[0] && !sva_rd_owned_q);
  c_table_full: cover property (@(posedge clk_i) disable iff (!sva_on_q) req_fire && &sva_valid_q);
  c_sweep_age: cover property (@(posedge clk_i) disable iff (!sva_on_q) state_q == ST_SWEEP && wr_en && rd_q[0] && !rd_q[1]);
  c_sweep_expire: cover property (@(posedge clk_i) disable iff (!sva_on_q) state_q == ST_SWEEP && wr_en && rd_q[0] && rd_q[1]);
  c_sweep_wrap: cover property (@(posedge clk_i) disable iff (!sva_on_q) state_q == ST_SWEEP && ptr_q == Entries[IDX_W:0]);
  c_draw_full_range: cover property (@(posedge clk_i) disable iff (!sva_on_q)
      draw && count_q == {1'b1, {PortWidth{1'b0}}});
  c_rsp_stall: cover property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o && !rsp_ready_i);
`endif
`endif
endmodule

`default_nettype wire
