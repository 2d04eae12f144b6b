// Flowcut table, hashed set-associative on RAM (netasic::FlowcutTable, set_associative): CRC-32 of the
// key modulo Sets picks one row of a single-port-read / single-port-write RAM holding the Ways entries
// of a set side by side; the ways are compared in parallel, the lowest free way takes an insert. A set
// can be full while the table is not (status SET_FULL). Entry index = set * Ways + way.
//
// Interface identical to flowcut_table_cam. Latency 3 cycles for every operation: a request accepted in
// cycle c has its hash computed and the set row read in c+1, compares and writes back in c+2, and its
// response valid from c+3 until taken. After reset the block clears the RAM, one row per cycle, and
// keeps req_ready_o low for Sets cycles.
// Storage: RAM of Sets rows x Ways x (valid 1 + key + out port + in port (FullSwitch) + in-flight +
// 3 x 16 + drain 1) bits; flip-flops only for the request, response and an occupancy counter.
`default_nettype none

module flowcut_table_hashed #(
  parameter integer Entries       = 16,
  parameter integer Ways          = 4,
  parameter integer KeyWidth      = 104,
  parameter integer PortWidth     = 8,
  parameter integer InflightWidth = 24,
  parameter integer FullSwitch    = 1
) (
  input  wire                       clk_i,
  input  wire                       rst_ni,
  input  wire                       req_valid_i,
  output wire                       req_ready_o,
  input  wire [2:0]                 req_op_i,
  input  wire [KeyWidth-1:0]        req_key_i,
  input  wire [$clog2(Entries)-1:0] req_index_i,
  input  wire [PortWidth-1:0]       req_out_port_i,
  input  wire [PortWidth-1:0]       req_in_port_i,
  input  wire [31:0]                req_bytes_i,
  input  wire [15:0]                req_rtt_avg_i,
  input  wire [15:0]                req_last_rtt_i,
  input  wire [15:0]                req_rtt_diff_avg_i,
  input  wire                       req_drain_i,
  output wire                       rsp_valid_o,
  input  wire                       rsp_ready_i,
  output wire [2:0]                 rsp_status_o,
  output wire [$clog2(Entries)-1:0] rsp_index_o,
  output wire                       rsp_deleted_o,
  output wire [InflightWidth-1:0]   rsp_inflight_o,
  output wire [PortWidth-1:0]       rsp_out_port_o,
  output wire [PortWidth-1:0]       rsp_in_port_o,
  output wire [15:0]                rsp_rtt_avg_o,
  output wire [15:0]                rsp_last_rtt_o,
  output wire [15:0]                rsp_rtt_diff_avg_o,
  output wire                       rsp_drain_o
);
  // The shared code table: not every module uses every code.
  /* verilator lint_off UNUSEDPARAM */
  `include "flowcut_defs.svh"
  /* verilator lint_on UNUSEDPARAM */

  localparam integer IDX_W = $clog2(Entries);
  localparam integer SETS = Entries / Ways;
  localparam integer WAY_W = $clog2(Ways);
  localparam integer SET_W = $clog2(SETS);
  // Word as the op unit sees it (in_port always present) and as the RAM stores it (in_port only for
  // the full-switch variant: the RAM bits are what the synthesis estimate counts).
  localparam integer EW = 1 + KeyWidth + PortWidth + InflightWidth + 48 + 1 + PortWidth;
  localparam integer SW = (FullSwitch != 0) ? EW : EW - PortWidth;
  localparam integer OFF_OUT = 1 + KeyWidth;
  localparam integer OFF_IF = OFF_OUT + PortWidth;
  localparam integer OFF_RA = OFF_IF + InflightWidth;
  localparam integer OFF_IN = OFF_RA + 48 + 1;
  localparam [2:0] ST_INIT = 3'd0, ST_IDLE = 3'd1, ST_READ = 3'd2, ST_EXEC = 3'd3, ST_RSP = 3'd4;

  // The parameter checks at the end of the module stop elaboration; this prints the offending values too
  // (Yosys while it elaborates, a simulator at time 0). $display, not $error: Yosys 0.23 has no $error
  // here.
  initial begin
    if (Entries < 4 || Entries > (1 << 20) || (Entries & (Entries - 1)) != 0)
      $display("flowcut_table_hashed: Entries (%0d) must be a power of two in 4 .. 1048576", Entries);
    if (Ways < 2 || Ways > 16 || (Ways & (Ways - 1)) != 0 || Ways > Entries / 2)
      $display("flowcut_table_hashed: Ways (%0d) must be a power of two in 2 .. min(16, Entries/2)", Ways);
    if (InflightWidth < 4 || InflightWidth > 31)
      $display("flowcut_table_hashed: InflightWidth (%0d) outside 4 .. 31", InflightWidth);
    if (PortWidth < 1 || PortWidth > 16) $display("flowcut_table_hashed: PortWidth (%0d) outside 1 .. 16", PortWidth);
    if (KeyWidth < 8 || KeyWidth > 128) $display("flowcut_table_hashed: KeyWidth (%0d) outside 8 .. 128", KeyWidth);
  end

  // Request register.
  reg  [2:0]           op_q;
  reg  [KeyWidth-1:0]  key_q;
  reg  [IDX_W-1:0]     index_q;
  reg  [PortWidth-1:0] out_port_q, in_port_q;
  reg  [31:0]          bytes_q;
  reg  [48:0]          rtt_drain_q;

  reg  [2:0]     state_q, state_d;
  reg  [SET_W:0] init_q, init_d;  // next row to clear
  wire           req_fire = req_valid_i && req_ready_o;
  assign req_ready_o = state_q == ST_IDLE;

  always @* begin
    state_d = state_q;
    init_d = init_q;
    case (state_q)
      ST_INIT: begin
        init_d = init_q + 1'b1;
        if (init_q == SETS[SET_W:0] - 1'b1) state_d = ST_IDLE;
      end
      ST_IDLE: if (req_fire) state_d = ST_READ;
      ST_READ: state_d = ST_EXEC;
      ST_EXEC: state_d = ST_RSP;
      ST_RSP:  if (rsp_ready_i) state_d = ST_IDLE;
      default: state_d = ST_IDLE;
    endcase
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= ST_INIT;
      init_q <= {(SET_W + 1){1'b0}};
    end else begin
      state_q <= state_d;
      init_q <= init_d;
    end
  end

  always @(posedge clk_i) begin
    if (req_fire) begin
      op_q <= req_op_i;
      key_q <= req_key_i;
      index_q <= req_index_i;
      out_port_q <= req_out_port_i;
      in_port_q <= req_in_port_i;
      bytes_q <= req_bytes_i;
      rtt_drain_q <= {req_drain_i, req_rtt_diff_avg_i, req_last_rtt_i, req_rtt_avg_i};
    end
  end

  wire is_index_op = op_q == FC_OP_ADD || op_q == FC_OP_READ || op_q == FC_OP_WRITE;
  wire [31:0] crc;
  crc32_key #(.KeyWidth(KeyWidth)) u_hash (.key_i(key_q), .crc_o(crc));

  // Set of the request: the key's hash, or the upper bits of the index.
  wire [SET_W-1:0] req_set = is_index_op ? index_q[IDX_W-1:WAY_W] : crc[SET_W-1:0];

  // The RAM: one row per set, the ways side by side.
  reg  [Ways*SW-1:0] ram [0:SETS-1];
  reg  [Ways*SW-1:0] rd_row_q;
  reg  [SET_W-1:0]   set_q;
  reg                wr_en;
  reg  [SET_W-1:0]   wr_set;
  reg  [Ways*SW-1:0] wr_row;

  always @(posedge clk_i) begin
    if (state_q == ST_READ) begin
      rd_row_q <= ram[req_set];
      set_q <= req_set;
    end
    if (wr_en) ram[wr_set] <= wr_row;
  end

  // Ways of the row, widened to the op unit's word.
  wire [EW-1:0] way_word [0:Ways-1];
  genvar w;
  generate
    for (w = 0; w < Ways; w = w + 1) begin : g_way
      if (FullSwitch != 0) begin : g_fs
        assign way_word[w] = rd_row_q[w*SW +: SW];
      end else begin : g_nfs
        assign way_word[w] = {{PortWidth{1'b0}}, rd_row_q[w*SW +: SW]};
      end
    end
  endgenerate

  reg              hit, has_free;
  reg [WAY_W-1:0]  hit_way, free_way;
  integer i;
  always @* begin
    hit = 1'b0;
    has_free = 1'b0;
    hit_way = {WAY_W{1'b0}};
    free_way = {WAY_W{1'b0}};
    for (i = Ways - 1; i >= 0; i = i - 1) begin
      if (way_word[i][0] && way_word[i][KeyWidth:1] == key_q) begin
        hit = 1'b1;
        hit_way = i[WAY_W-1:0];
      end
      if (!way_word[i][0]) begin
        has_free = 1'b1;
        free_way = i[WAY_W-1:0];
      end
    end
  end

  wire [WAY_W-1:0] addr_way = is_index_op ? index_q[WAY_W-1:0] : hit_way;
  wire [EW-1:0]    entry = way_word[addr_way];

  reg [IDX_W:0] count_q;  // valid entries, for FULL versus SET_FULL

  wire                     unit_write, unit_use_free, unit_deleted, unit_inc, unit_dec;
  wire [EW-1:0]            unit_entry;
  wire [2:0]               unit_status;
  wire [InflightWidth-1:0] unit_inflight;

  flowcut_op_unit #(
    .KeyWidth     (KeyWidth),
    .PortWidth    (PortWidth),
    .InflightWidth(InflightWidth),
    .FullSwitch   (FullSwitch),
    .EntryWidth   (EW)
  ) u_op (
    .op_i           (op_q),
    .key_i          (key_q),
    .out_port_i     (out_port_q),
    .in_port_i      (in_port_q),
    .bytes_i        (bytes_q),
    .rtt_avg_i      (rtt_drain_q[15:0]),
    .last_rtt_i     (rtt_drain_q[31:16]),
    .rtt_diff_avg_i (rtt_drain_q[47:32]),
    .drain_i        (rtt_drain_q[48]),
    .hit_i          (hit),
    .free_i         (has_free),
    .table_full_i   (count_q == Entries[IDX_W:0]),
    .entry_i        (entry),
    .write_o        (unit_write),
    .use_free_o     (unit_use_free),
    .entry_o        (unit_entry),
    .status_o       (unit_status),
    .deleted_o      (unit_deleted),
    .inflight_o     (unit_inflight),
    .occupancy_inc_o(unit_inc),
    .occupancy_dec_o(unit_dec)
  );

  wire           exec = state_q == ST_EXEC;
  wire [WAY_W-1:0] wr_way = unit_use_free ? free_way : addr_way;

  integer k;
  always @* begin
    wr_en = 1'b0;
    wr_set = set_q;
    wr_row = rd_row_q;
    if (state_q == ST_INIT) begin
      wr_en = 1'b1;
      wr_set = init_q[SET_W-1:0];
      wr_row = {(Ways * SW){1'b0}};
    end else if (exec && unit_write) begin
      wr_en = 1'b1;
      for (k = 0; k < Ways; k = k + 1)
        if (wr_way == k[WAY_W-1:0]) wr_row[k*SW +: SW] = unit_entry[SW-1:0];
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) count_q <= {(IDX_W + 1){1'b0}};
    else if (exec && unit_inc) count_q <= count_q + 1'b1;
    else if (exec && unit_dec) count_q <= count_q - 1'b1;
  end

  // Response register.
  reg [2:0]               rsp_status_q;
  reg [IDX_W-1:0]         rsp_index_q;
  reg                     rsp_deleted_q;
  reg [InflightWidth-1:0] rsp_inflight_q;
  reg [EW-1:0]            rsp_entry_q;

  always @(posedge clk_i) begin
    if (exec) begin
      rsp_status_q <= unit_status;
      rsp_index_q <= {set_q, wr_way};
      rsp_deleted_q <= unit_deleted;
      rsp_inflight_q <= unit_inflight;
      rsp_entry_q <= entry;
    end
  end

  assign rsp_valid_o = state_q == ST_RSP;
  assign rsp_status_o = rsp_status_q;
  assign rsp_index_o = rsp_index_q;
  assign rsp_deleted_o = rsp_deleted_q;
  assign rsp_inflight_o = rsp_inflight_q;
  assign rsp_out_port_o = rsp_entry_q[OFF_OUT +: PortWidth];
  assign rsp_in_port_o = rsp_entry_q[OFF_IN +: PortWidth];
  assign rsp_rtt_avg_o = rsp_entry_q[OFF_RA +: 16];
  assign rsp_last_rtt_o = rsp_entry_q[OFF_RA + 16 +: 16];
  assign rsp_rtt_diff_avg_o = rsp_entry_q[OFF_RA + 32 +: 16];
  assign rsp_drain_o = rsp_entry_q[OFF_RA + 48];

  // The in_port bits of a non-full-switch word are always 0 and not stored.
  wire unused_hashed = ^{crc[31:SET_W], unit_dec & unit_inc, unit_entry[EW-1:SW-1]};

  // Parameter checks at elaboration: an illegal value instantiates a module that does not exist and
  // whose name states the rule, so Verilator and Yosys both stop and name it.
  generate
    if (Entries < 4 || Entries > (1 << 20) || (Entries & (Entries - 1)) != 0) begin : g_bad_Entries
      ERROR_flowcut_table_hashed_Entries_must_be_a_power_of_two_in_4_to_1048576 u_param_error ();
    end
    if (Ways < 2 || Ways > 16 || (Ways & (Ways - 1)) != 0 || Ways > Entries / 2) begin : g_bad_Ways
      ERROR_flowcut_table_hashed_Ways_must_be_a_power_of_two_in_2_to_min_16_and_Entries_over_2 u_param_error ();
    end
    if (InflightWidth < 4 || InflightWidth > 31) begin : g_bad_InflightWidth
      ERROR_flowcut_table_hashed_InflightWidth_must_be_in_4_to_31 u_param_error ();
    end
    if (PortWidth < 1 || PortWidth > 16) begin : g_bad_PortWidth
      ERROR_flowcut_table_hashed_PortWidth_must_be_in_1_to_16 u_param_error ();
    end
    if (KeyWidth < 8 || KeyWidth > 128) begin : g_bad_KeyWidth
      ERROR_flowcut_table_hashed_KeyWidth_must_be_in_8_to_128 u_param_error ();
    end
  endgenerate

`ifndef SYNTHESIS
`ifndef FORMAL  // Yosys' formal read (verification/formal) parses no concurrent assertions
  // ---- Assertions and cover points: simulation only (Verilator --assert / --coverage-user in
  // verification/rtl); Yosys defines SYNTHESIS, or FORMAL in the proofs, and never sees them. ----
  // Reference state: request in flight, cycles waited, and a shadow of every entry's valid bit (written
  // where the RAM is written, reset where the RAM clear should leave the entry free).
  reg               sva_on_q;  // out of reset (the checks sample this flop, not the asynchronous reset)
  reg               sva_busy_q;
  reg [1:0]         sva_wait_q;
  reg [Entries-1:0] sva_valid_q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sva_on_q <= 1'b0;
      sva_busy_q <= 1'b0;
      sva_wait_q <= 2'd0;
      /* verilator lint_off WIDTHCONCAT */  // one shadow bit per entry
      sva_valid_q <= '0;
      /* verilator lint_on WIDTHCONCAT */
    end else begin
      sva_on_q <= 1'b1;
      if (req_fire) sva_busy_q <= 1'b1;
      else if (rsp_valid_o && rsp_ready_i) sva_busy_q <= 1'b0;
      if (req_fire) sva_wait_q <= 2'd1;
      else if (sva_busy_q && !rsp_valid_o && sva_wait_q != 2'd3) sva_wait_q <= sva_wait_q + 2'd1;
      if (exec && unit_write) sva_valid_q[{set_q, wr_way}] <= unit_entry[0];
    end
  end
  reg [Ways-1:0] sva_way_valid;
  reg            sva_rd_ok;  // every way read is valid exactly when the shadow says so
  integer        sva_w;
  always @* begin
    sva_rd_ok = 1'b1;
    for (sva_w = 0; sva_w < Ways; sva_w = sva_w + 1) begin
      sva_way_valid[sva_w] = way_word[sva_w][0];
      if (way_word[sva_w][0] != sva_valid_q[{set_q, sva_w[WAY_W-1:0]}]) sva_rd_ok = 1'b0;
    end
  end
  wire [InflightWidth-1:0] sva_old_inflight = entry[OFF_IF +: InflightWidth];

  // Handshake: the response and all its fields hold until taken; one request in flight, answered
  // exactly once, 3 cycles after it was accepted.
  a_rsp_hold: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      rsp_valid_o && !rsp_ready_i |=> rsp_valid_o && $stable({rsp_status_o, rsp_index_o, rsp_deleted_o,
      rsp_inflight_o, rsp_out_port_o, rsp_in_port_o, rsp_rtt_avg_o, rsp_last_rtt_o, rsp_rtt_diff_avg_o, rsp_drain_o}))
    else $error("flowcut_table_hashed: response withdrawn or changed before it was taken");
  a_rsp_once: assert property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o |-> sva_busy_q && !req_ready_o)
    else $error("flowcut_table_hashed: response without an accepted request");
  a_answered: assert property (@(posedge clk_i) disable iff (!sva_on_q) sva_busy_q && !rsp_valid_o |-> sva_wait_q < 2'd3)
    else $error("flowcut_table_hashed: accepted request not answered after 3 cycles");
  // Invariants: the in-flight byte counter saturates and never wraps; the occupancy counter neither
  // wraps nor drifts from the number of valid entries; an insert goes to a free way; every way read has
  // the valid bit last written to it (a row the reset clear missed does not).
  a_add_no_wrap: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      exec && op_q == FC_OP_ADD && entry[0] |-> unit_inflight >= sva_old_inflight
      && (unit_status == FC_ST_SATURATED) == (unit_inflight == {InflightWidth{1'b1}}
                                             && {1'b0, bytes_q} + 33'(sva_old_inflight) > 33'(unit_inflight)))
    else $error("flowcut_table_hashed: in-flight counter wrapped on ADD");
  a_ack_no_wrap: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      exec && op_q == FC_OP_ACK && hit |-> unit_inflight <= sva_old_inflight)
    else $error("flowcut_table_hashed: in-flight counter wrapped on ACK");
  a_count_no_wrap: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      exec |-> !(unit_inc && count_q == Entries[IDX_W:0]) && !(unit_dec && count_q == {(IDX_W + 1){1'b0}}))
    else $error("flowcut_table_hashed: occupancy counter wrapped");
  a_count_matches: assert property (@(posedge clk_i) disable iff (!sva_on_q) 32'(count_q) == $countones(sva_valid_q))
    else $error("flowcut_table_hashed: occupancy counter differs from the valid entries");
  a_insert_free: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      exec && unit_use_free |-> !sva_way_valid[wr_way])
    else $error("flowcut_table_hashed: insert over a valid way");
  a_rd_valid: assert property (@(posedge clk_i) disable iff (!sva_on_q) exec |-> sva_rd_ok)
    else $error("flowcut_table_hashed: way read with a valid bit nothing wrote (RAM clear incomplete?)");

  // Functional coverage: table full, set full (the key's set holds Ways other flows), an insert into a
  // set another flow already uses (hash-set collision), every entry valid, in-flight saturation and
  // underflow, delete on zero, a response held by back-pressure.
  c_table_full: cover property (@(posedge clk_i) disable iff (!sva_on_q) exec && unit_status == FC_ST_FULL);
  c_set_full: cover property (@(posedge clk_i) disable iff (!sva_on_q) exec && unit_status == FC_ST_SET_FULL);
  c_set_collision: cover property (@(posedge clk_i) disable iff (!sva_on_q)
      exec && op_q == FC_OP_INSERT && unit_use_free && |sva_way_valid);
  c_all_valid: cover property (@(posedge clk_i) disable iff (!sva_on_q) count_q == Entries[IDX_W:0]);
  c_saturated: cover property (@(posedge clk_i) disable iff (!sva_on_q) exec && unit_status == FC_ST_SATURATED);
  c_underflow: cover property (@(posedge clk_i) disable iff (!sva_on_q) exec && unit_status == FC_ST_UNDERFLOW);
  c_ack_delete: cover property (@(posedge clk_i) disable iff (!sva_on_q) exec && unit_deleted);
  c_rsp_stall: cover property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o && !rsp_ready_i);
`endif
`endif
endmodule

`default_nettype wire
