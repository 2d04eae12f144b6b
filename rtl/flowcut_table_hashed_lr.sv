// Flowcut table, hashed set-associative on RAM, line rate: the organisation of flowcut_table_hashed
// (netasic::FlowcutTable, set_associative: CRC-32 of the key modulo Sets picks one row of a 1R1W RAM
// holding the Ways entries of a set side by side, the ways compared in parallel, the lowest free way takes
// an insert, entry index = set * Ways + way) pipelined to accept one request every cycle.
//
// Parameters and ports identical to flowcut_table_hashed (and flowcut_table_cam). Latency 3 cycles for
// every operation, the compact block's, in a 3-stage pipeline:
//   stage 1 (cycle c+1)  request register; CRC-32 of the key (or the index) gives the set, whose row is
//                        read from the RAM into the row register at the end of the cycle;
//   stage 2 (cycle c+2)  the ways compared, the operation unit; the modified entry written back to the
//                        RAM at the end of the cycle, the response register loaded;
//   stage 3 (cycle c+3)  response valid until taken.
// Throughput: req_ready_o is high every cycle after the post-reset RAM clear (Sets cycles) unless the
// response register is held (rsp_valid_o && !rsp_ready_i): back-pressure stalls the whole pipeline, so
// req_ready_o = !rsp_valid_o || rsp_ready_i, combinationally. Responses come in request order.
// Read-after-write hazard: a request in stage 1 reads its row in the same cycle as the request ahead of it,
// in stage 2, writes its row; the RAM returns the row before that write (read-first), and every older write
// is already in the RAM. The stage-2 write changes one way only, so that way's new word, its way number
// and "same set" are registered beside the row (the bypass register) and replace that way of the row read
// in the next cycle: back-to-back operations on one set, or an index READ/WRITE/ADD of the entry the
// previous operation modified, see exactly the state the model's sequential order gives, with no stall.
// Storage: RAM of Sets rows x Ways x (valid 1 + key + out port + in port (FullSwitch) + in-flight +
// 3 x 16 + drain 1) bits, as in the compact block; flip-flops for two request stages, the bypass
// register (one entry word), the response and an occupancy counter.
`default_nettype none

module flowcut_table_hashed_lr #(
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

  // The parameter checks at the end of the module stop elaboration; this prints the offending values too
  // (Yosys while it elaborates, a simulator at time 0). $display, not $error: Yosys 0.23 has no $error
  // here.
  initial begin
    if (Entries < 4 || Entries > (1 << 20) || (Entries & (Entries - 1)) != 0)
      $display("flowcut_table_hashed_lr: Entries (%0d) must be a power of two in 4 .. 1048576", Entries);
    if (Ways < 2 || Ways > 16 || (Ways & (Ways - 1)) != 0 || Ways > Entries / 2)
      $display("flowcut_table_hashed_lr: Ways (%0d) must be a power of two in 2 .. min(16, Entries/2)", Ways);
    if (InflightWidth < 4 || InflightWidth > 31)
      $display("flowcut_table_hashed_lr: InflightWidth (%0d) outside 4 .. 31", InflightWidth);
    if (PortWidth < 1 || PortWidth > 16)
      $display("flowcut_table_hashed_lr: PortWidth (%0d) outside 1 .. 16", PortWidth);
    if (KeyWidth < 8 || KeyWidth > 128)
      $display("flowcut_table_hashed_lr: KeyWidth (%0d) outside 8 .. 128", KeyWidth);
  end

  // ---- Control: post-reset RAM clear, then one request per cycle; back-pressure stalls every stage ----
  reg            init_q;        // clearing the RAM
  reg  [SET_W:0] init_row_q;    // next row to clear
  reg            v1_q, v2_q, v3_q;  // stage 1, stage 2, response register hold a request
  wire           adv = !v3_q || rsp_ready_i;  // the pipeline moves this cycle
  assign req_ready_o = !init_q && adv;
  wire           req_fire = req_valid_i && req_ready_o;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      init_q <= 1'b1;
      init_row_q <= {(SET_W + 1){1'b0}};
      v1_q <= 1'b0;
      v2_q <= 1'b0;
      v3_q <= 1'b0;
    end else begin
      if (init_q) begin
        init_row_q <= init_row_q + 1'b1;
        if (init_row_q == SETS[SET_W:0] - 1'b1) init_q <= 1'b0;
      end
      if (adv) begin
        v1_q <= req_fire;
        v2_q <= v1_q;
        v3_q <= v2_q;
      end
    end
  end

  // ---- Stage 1: request register, hash, RAM read ----
  reg  [2:0]           op1_q;
  reg  [KeyWidth-1:0]  key1_q;
  reg  [IDX_W-1:0]     index1_q;
  reg  [PortWidth-1:0] out1_q, in1_q;
  reg  [31:0]          bytes1_q;
  reg  [48:0]          rtt1_q;  // {drain, rtt_diff_avg, last_rtt, rtt_avg}

  always @(posedge clk_i) begin
    if (req_fire) begin
      op1_q <= req_op_i;
      key1_q <= req_key_i;
      index1_q <= req_index_i;
      out1_q <= req_out_port_i;
      in1_q <= req_in_port_i;
      bytes1_q <= req_bytes_i;
      rtt1_q <= {req_drain_i, req_rtt_diff_avg_i, req_last_rtt_i, req_rtt_avg_i};
    end
  end

  wire [31:0] crc;
  crc32_key #(.KeyWidth(KeyWidth)) u_hash (.key_i(key1_q), .crc_o(crc));
  wire             is_index1 = op1_q == FC_OP_ADD || op1_q == FC_OP_READ || op1_q == FC_OP_WRITE;
  // Set of the request: the key's hash, or the upper bits of the index.
  wire [SET_W-1:0] set1 = is_index1 ? index1_q[IDX_W-1:WAY_W] : crc[SET_W-1:0];

  // ---- Stage 2 registers ----
  reg  [2:0]           op2_q;
  reg  [KeyWidth-1:0]  key2_q;
  reg  [WAY_W-1:0]     iway2_q;  // way of an index operation
  reg  [SET_W-1:0]     set2_q;
  reg  [PortWidth-1:0] out2_q, in2_q;
  reg  [31:0]          bytes2_q;
  reg  [48:0]          rtt2_q;

  always @(posedge clk_i) begin
    if (adv) begin
      op2_q <= op1_q;
      key2_q <= key1_q;
      iway2_q <= index1_q[WAY_W-1:0];
      set2_q <= set1;
      out2_q <= out1_q;
      in2_q <= in1_q;
      bytes2_q <= bytes1_q;
      rtt2_q <= rtt1_q;
    end
  end

  // The RAM: one row per set, the ways side by side; read in stage 1, written in stage 2 (or by the
  // clear). The row register is the RAM's synchronous read port (read-first).
  reg  [Ways*SW-1:0] ram [0:SETS-1];
  reg  [Ways*SW-1:0] rd_row_q;
  reg                wr_en;
  reg  [SET_W-1:0]   wr_set;
  reg  [Ways*SW-1:0] wr_row;

  always @(posedge clk_i) begin
    if (adv) rd_row_q <= ram[set1];
    if (wr_en) ram[wr_set] <= wr_row;
  end

  // Bypass register: the way the stage-2 operation writes in the cycle stage 1 reads the same set.
  wire               st2_write;  // stage 2 writes its way back this cycle
  wire [WAY_W-1:0]   wr_way;
  wire [EW-1:0]      unit_entry;
  reg                byp_q;
  reg  [WAY_W-1:0]   byp_way_q;
  reg  [SW-1:0]      byp_word_q;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) byp_q <= 1'b0;
    else if (adv) byp_q <= st2_write && set2_q == set1;
  end
  always @(posedge clk_i) begin
    if (adv) begin
      byp_way_q <= wr_way;
      byp_word_q <= unit_entry[SW-1:0];
    end
  end

  // ---- Stage 2: the row as the previous operation left it, compare, operation unit ----
  wire [EW-1:0] way_word [0:Ways-1];
  genvar w;
  generate
    for (w = 0; w < Ways; w = w + 1) begin : g_way
      wire [SW-1:0] stored = (byp_q && byp_way_q == w) ? byp_word_q : rd_row_q[w*SW +: SW];
      if (FullSwitch != 0) begin : g_fs
        assign way_word[w] = stored;
      end else begin : g_nfs
        assign way_word[w] = {{PortWidth{1'b0}}, stored};
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
      if (way_word[i][0] && way_word[i][KeyWidth:1] == key2_q) begin
        hit = 1'b1;
        hit_way = i[WAY_W-1:0];
      end
      if (!way_word[i][0]) begin
        has_free = 1'b1;
        free_way = i[WAY_W-1:0];
      end
    end
  end

  wire             is_index2 = op2_q == FC_OP_ADD || op2_q == FC_OP_READ || op2_q == FC_OP_WRITE;
  wire [WAY_W-1:0] addr_way = is_index2 ? iway2_q : hit_way;
  wire [EW-1:0]    entry = way_word[addr_way];

  reg [IDX_W:0] count_q;  // valid entries, for FULL versus SET_FULL

  wire                     unit_write, unit_use_free, unit_deleted, unit_inc, unit_dec;
  wire [2:0]               unit_status;
  wire [InflightWidth-1:0] unit_inflight;

  flowcut_op_unit #(
    .KeyWidth     (KeyWidth),
    .PortWidth    (PortWidth),
    .InflightWidth(InflightWidth),
    .FullSwitch   (FullSwitch),
    .EntryWidth   (EW)
  ) u_op (
    .op_i           (op2_q),
    .key_i          (key2_q),
    .out_port_i     (out2_q),
    .in_port_i      (in2_q),
    .bytes_i        (bytes2_q),
    .rtt_avg_i      (rtt2_q[15:0]),
    .last_rtt_i     (rtt2_q[31:16]),
    .rtt_diff_avg_i (rtt2_q[47:32]),
    .drain_i        (rtt2_q[48]),
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

  wire exec = v2_q && adv;  // stage 2 completes this cycle
  assign st2_write = exec && unit_write;
  assign wr_way = unit_use_free ? free_way : addr_way;

  // The write row: the row as stage 2 saw it (bypass applied) with the written way replaced.
  integer k;
  always @* begin
    wr_en = 1'b0;
    wr_set = set2_q;
    for (k = 0; k < Ways; k = k + 1) wr_row[k*SW +: SW] = way_word[k][SW-1:0];
    if (init_q) begin
      wr_en = 1'b1;
      wr_set = init_row_q[SET_W-1:0];
      wr_row = {(Ways * SW){1'b0}};
    end else if (st2_write) begin
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

  // ---- Stage 3: response register ----
  reg [2:0]               rsp_status_q;
  reg [IDX_W-1:0]         rsp_index_q;
  reg                     rsp_deleted_q;
  reg [InflightWidth-1:0] rsp_inflight_q;
  reg [EW-1:0]            rsp_entry_q;

  always @(posedge clk_i) begin
    if (adv) begin
      rsp_status_q <= unit_status;
      rsp_index_q <= {set2_q, wr_way};
      rsp_deleted_q <= unit_deleted;
      rsp_inflight_q <= unit_inflight;
      rsp_entry_q <= entry;
    end
  end

  assign rsp_valid_o = v3_q;
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
  wire unused_hashed_lr = ^{crc[31:SET_W], unit_dec & unit_inc, unit_entry[EW-1:SW-1]};

`ifdef FORMAL
  // Hazard freedom, proven with Yosys sat -tempinduct (verification/formal/; read_verilog -formal defines
  // FORMAL), every input free. For one arbitrary entry f_idx (anyconst) and f_word, the last word stage 2
  // wrote to it (0 from reset: the clear): the RAM holds f_word once the clear has passed its row, and the
  // word stage 2 works on for that entry (the row read one cycle earlier, with the bypass register applied)
  // is f_word, whatever the operations in flight, stalls included. So every operation sees the entry as
  // all earlier operations left it, which is the model's sequential order.
  (* anyconst *) reg [IDX_W-1:0] f_idx;
  reg  [SW-1:0]    f_word;
  wire [SET_W-1:0] f_set = f_idx[IDX_W-1:WAY_W];
  wire [WAY_W-1:0] f_way = f_idx[WAY_W-1:0];
  wire [Ways*SW-1:0] f_row = ram[f_set];
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) f_word <= {SW{1'b0}};
    else if (st2_write && {set2_q, wr_way} == f_idx) f_word <= unit_entry[SW-1:0];
  end
  always @* begin
    if (init_q) begin
      assert(init_row_q < SETS[SET_W:0]);
      assert(!v1_q && !v2_q && !v3_q);
      assert(f_word == {SW{1'b0}});
    end else begin
      assert(init_row_q == SETS[SET_W:0]);
    end
    if (!init_q || {1'b0, f_set} < init_row_q) assert(f_row[f_way*SW +: SW] == f_word);
    if (v2_q && set2_q == f_set) assert(way_word[f_way][SW-1:0] == f_word);
  end
`endif

  // Parameter checks at elaboration: an illegal value instantiates a module that does not exist and
  // whose name states the rule, so Verilator and Yosys both stop and name it.
  generate
    if (Entries < 4 || Entries > (1 << 20) || (Entries & (Entries - 1)) != 0) begin : g_bad_Entries
      ERROR_flowcut_table_hashed_lr_Entries_must_be_a_power_of_two_in_4_to_1048576 u_param_error ();
    end
    if (Ways < 2 || Ways > 16 || (Ways & (Ways - 1)) != 0 || Ways > Entries / 2) begin : g_bad_Ways
      ERROR_flowcut_table_hashed_lr_Ways_must_be_a_power_of_two_in_2_to_min_16_and_Entries_over_2 u_param_error ();
    end
    if (InflightWidth < 4 || InflightWidth > 31) begin : g_bad_InflightWidth
      ERROR_flowcut_table_hashed_lr_InflightWidth_must_be_in_4_to_31 u_param_error ();
    end
    if (PortWidth < 1 || PortWidth > 16) begin : g_bad_PortWidth
      ERROR_flowcut_table_hashed_lr_PortWidth_must_be_in_1_to_16 u_param_error ();
    end
    if (KeyWidth < 8 || KeyWidth > 128) begin : g_bad_KeyWidth
      ERROR_flowcut_table_hashed_lr_KeyWidth_must_be_in_8_to_128 u_param_error ();
    end
  endgenerate

`ifndef SYNTHESIS
`ifndef FORMAL  // Yosys' formal read (verification/formal) parses no concurrent assertions
  // ---- Assertions and cover points: simulation only (Verilator --assert / --coverage-user in
  // verification/rtl); Yosys defines SYNTHESIS, or FORMAL in the proofs, and never sees them. ----
  // Reference state: requests accepted and not yet answered, and a shadow of every entry's valid bit
  // (written where stage 2 writes, reset where the RAM clear should leave the entry free).
  reg               sva_on_q;  // out of reset (the checks sample this flop, not the asynchronous reset)
  reg [1:0]         sva_out_q;  // requests in flight: 0 .. 3 (stage 1, stage 2, response)
  reg [Entries-1:0] sva_valid_q;
  wire              sva_taken = rsp_valid_o && rsp_ready_i;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sva_on_q <= 1'b0;
      sva_out_q <= 2'd0;
      /* verilator lint_off WIDTHCONCAT */  // one shadow bit per entry
      sva_valid_q <= '0;
      /* verilator lint_on WIDTHCONCAT */
    end else begin
      sva_on_q <= 1'b1;
      sva_out_q <= sva_out_q + {1'b0, req_fire} - {1'b0, sva_taken};
      if (st2_write) sva_valid_q[{set2_q, wr_way}] <= unit_entry[0];
    end
  end
  reg [Ways-1:0] sva_way_valid;
  reg            sva_rd_ok;  // every way stage 2 sees (bypass applied) is valid exactly when the shadow says so
  integer        sva_w;
  always @* begin
    sva_rd_ok = 1'b1;
    for (sva_w = 0; sva_w < Ways; sva_w = sva_w + 1) begin
      sva_way_valid[sva_w] = way_word[sva_w][0];
      if (way_word[sva_w][0] != sva_valid_q[{set2_q, sva_w[WAY_W-1:0]}]) sva_rd_ok = 1'b0;
    end
  end
  wire [InflightWidth-1:0] sva_old_inflight = entry[OFF_IF +: InflightWidth];

  // Handshake and throughput: the response and all its fields hold until taken; responses only for
  // accepted requests, at most 3 in flight; a request is refused only during the clear or when a response
  // is held; without back-pressure the response comes exactly 3 cycles after the request.
  a_rsp_hold: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      rsp_valid_o && !rsp_ready_i |=> rsp_valid_o && $stable({rsp_status_o, rsp_index_o, rsp_deleted_o,
      rsp_inflight_o, rsp_out_port_o, rsp_in_port_o, rsp_rtt_avg_o, rsp_last_rtt_o, rsp_rtt_diff_avg_o, rsp_drain_o}))
    else $error("flowcut_table_hashed_lr: response withdrawn or changed before it was taken");
  a_rsp_accepted: assert property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o |-> sva_out_q != 2'd0)
    else $error("flowcut_table_hashed_lr: response without an accepted request");
  a_in_flight: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      sva_out_q == 2'({1'b0, v1_q} + {1'b0, v2_q} + {1'b0, v3_q}))
    else $error("flowcut_table_hashed_lr: requests in flight differ from the pipeline's valid stages");
  a_line_rate: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      !init_q && !(rsp_valid_o && !rsp_ready_i) |-> req_ready_o)
    else $error("flowcut_table_hashed_lr: request refused without back-pressure");
  a_latency: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      $past(req_fire, 3) && $past(adv, 2) && $past(adv, 1) |-> rsp_valid_o)
    else $error("flowcut_table_hashed_lr: response not 3 cycles after its request");
  // Invariants: the in-flight byte counter saturates and never wraps; the occupancy counter neither
  // wraps nor drifts from the number of valid entries; an insert goes to a free way; every way stage 2
  // sees has the valid bit last written to it (a missing bypass or a row the reset clear missed does not).
  a_add_no_wrap: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      v2_q && op2_q == FC_OP_ADD && entry[0] |-> unit_inflight >= sva_old_inflight
      && (unit_status == FC_ST_SATURATED) == (unit_inflight == {InflightWidth{1'b1}}
                                             && {1'b0, bytes2_q} + 33'(sva_old_inflight) > 33'(unit_inflight)))
    else $error("flowcut_table_hashed_lr: in-flight counter wrapped on ADD");
  a_ack_no_wrap: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      v2_q && op2_q == FC_OP_ACK && hit |-> unit_inflight <= sva_old_inflight)
    else $error("flowcut_table_hashed_lr: in-flight counter wrapped on ACK");
  a_count_no_wrap: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      v2_q |-> !(unit_inc && count_q == Entries[IDX_W:0]) && !(unit_dec && count_q == {(IDX_W + 1){1'b0}}))
    else $error("flowcut_table_hashed_lr: occupancy counter wrapped");
  a_count_matches: assert property (@(posedge clk_i) disable iff (!sva_on_q) 32'(count_q) == $countones(sva_valid_q))
    else $error("flowcut_table_hashed_lr: occupancy counter differs from the valid entries");
  a_insert_free: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      v2_q && unit_use_free |-> !sva_way_valid[wr_way])
    else $error("flowcut_table_hashed_lr: insert over a valid way");
  a_rd_valid: assert property (@(posedge clk_i) disable iff (!sva_on_q) v2_q |-> sva_rd_ok)
    else $error("flowcut_table_hashed_lr: valid bit not the last written (bypass missed? RAM clear incomplete?)");

  // Functional coverage: the compact block's points, plus the pipeline's: three requests in flight, the
  // bypass used (back-to-back operations on one set), the bypassed way being the one addressed (the entry
  // the previous operation modified), a stall under back-pressure with the pipeline full.
  c_table_full: cover property (@(posedge clk_i) disable iff (!sva_on_q) exec && unit_status == FC_ST_FULL);
  c_set_full: cover property (@(posedge clk_i) disable iff (!sva_on_q) exec && unit_status == FC_ST_SET_FULL);
  c_set_collision: cover property (@(posedge clk_i) disable iff (!sva_on_q)
      exec && op2_q == FC_OP_INSERT && unit_use_free && |sva_way_valid);
  c_all_valid: cover property (@(posedge clk_i) disable iff (!sva_on_q) count_q == Entries[IDX_W:0]);
  c_saturated: cover property (@(posedge clk_i) disable iff (!sva_on_q) exec && unit_status == FC_ST_SATURATED);
  c_underflow: cover property (@(posedge clk_i) disable iff (!sva_on_q) exec && unit_status == FC_ST_UNDERFLOW);
  c_ack_delete: cover property (@(posedge clk_i) disable iff (!sva_on_q) exec && unit_deleted);
  c_rsp_stall: cover property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o && !rsp_ready_i);
  c_pipeline_full: cover property (@(posedge clk_i) disable iff (!sva_on_q) v1_q && v2_q && v3_q);
  c_bypass: cover property (@(posedge clk_i) disable iff (!sva_on_q) exec && byp_q);
  c_bypass_same_entry: cover property (@(posedge clk_i) disable iff (!sva_on_q)
      exec && byp_q && byp_way_q == addr_way && (is_index2 || hit));
  c_bypass_insert: cover property (@(posedge clk_i) disable iff (!sva_on_q)
      exec && byp_q && op2_q == FC_OP_INSERT && unit_use_free);
`endif
`endif
endmodule

`default_nettype wire
