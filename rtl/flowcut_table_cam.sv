// Flowcut table, fully associative: a register CAM with a priority encoder (the organisation the
// Flowcut paper suggests, Section II-A "implemented, for example, as a content-addressable memory").
// Every entry compares its key in parallel; the lowest matching entry answers, the lowest free entry
// takes an insert (netasic::FlowcutTable, FlowcutOrganization::fully_associative).
//
// Interface: one request at a time on a valid/ready request port, one response per request on a
// valid/ready response port. Latency 2 cycles for every operation: a request accepted in cycle c is
// executed in c+1 (compare, priority encode, update) and its response is valid from c+2 until taken;
// the request port is ready again the cycle after the response is taken.
// Storage: Entries x (valid 1 + key + out port + in port (FullSwitch) + in-flight + 3 x 16 + drain 1)
// flip-flops.
`default_nettype none

module flowcut_table_cam #(
  parameter integer Entries       = 16,
  parameter integer Ways          = 4,  // unused here: identical ports with flowcut_table_hashed
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
  localparam integer EW = 1 + KeyWidth + PortWidth + InflightWidth + 48 + 1 + PortWidth;
  localparam integer OFF_OUT = 1 + KeyWidth;
  localparam integer OFF_IF = OFF_OUT + PortWidth;
  localparam integer OFF_RA = OFF_IF + InflightWidth;
  localparam integer OFF_IN = OFF_RA + 48 + 1;
  localparam [1:0] ST_IDLE = 2'd0, ST_EXEC = 2'd1, ST_RSP = 2'd2;

  // The parameter checks at the end of the module stop elaboration; this prints the offending values too
  // (Yosys while it elaborates, a simulator at time 0). $display, not $error: Yosys 0.23 has no $error
  // here.
  initial begin
    if (Entries < 4 || Entries > 65536) $display("flowcut_table_cam: Entries (%0d) outside 4 .. 65536", Entries);
    if (InflightWidth < 4 || InflightWidth > 31)
      $display("flowcut_table_cam: InflightWidth (%0d) outside 4 .. 31", InflightWidth);
    if (PortWidth < 1 || PortWidth > 16) $display("flowcut_table_cam: PortWidth (%0d) outside 1 .. 16", PortWidth);
    if (KeyWidth < 8 || KeyWidth > 128) $display("flowcut_table_cam: KeyWidth (%0d) outside 8 .. 128", KeyWidth);
  end

  // Request register.
  reg  [2:0]           op_q;
  reg  [KeyWidth-1:0]  key_q;
  reg  [IDX_W-1:0]     index_q;
  reg  [PortWidth-1:0] out_port_q, in_port_q;
  reg  [31:0]          bytes_q;
  reg  [48:0]          rtt_drain_q;  // {drain, rtt_diff_avg, last_rtt, rtt_avg}

  reg  [1:0] state_q, state_d;
  wire       req_fire = req_valid_i && req_ready_o;
  assign req_ready_o = state_q == ST_IDLE;

  always @* begin
    state_d = state_q;
    case (state_q)
      ST_IDLE: if (req_fire) state_d = ST_EXEC;
      ST_EXEC: state_d = ST_RSP;
      ST_RSP:  if (rsp_ready_i) state_d = ST_IDLE;
      default: state_d = ST_IDLE;
    endcase
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) state_q <= ST_IDLE;
    else state_q <= state_d;
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

  localparam integer DW = EW - 1;
  localparam integer RW = DW - KeyWidth;  // an entry's fields after the key
  wire                  exec = state_q == ST_EXEC;
  wire                  write_en;
  wire [IDX_W-1:0]      wr_idx;
  wire [EW-1:0]         wr_entry;
  wire [IDX_W-1:0]      addr;
  // Entry storage: flip-flops, never RAM (every key is compared at once); mem2reg makes Yosys build the
  // arrays as registers (write decoder, read mux). Held as arrays of key and of the other fields, so a
  // simulator writes one entry and reads the addressed one directly, instead of evaluating a write enable
  // and a read mask per entry; only the key compares touch every entry. No signal concatenates all
  // entries (a simulator would rebuild that wide vector, Entries x entry bits, on every evaluation).
  // Valid bits have a reset, the rest does not (written before it is read).
  reg  [Entries-1:0]    valid_q;
  (* mem2reg *) reg [KeyWidth-1:0] key_q_mem [Entries];
  (* mem2reg *) reg [RW-1:0]       rest_q_mem [Entries];
  wire                  wr_in_range = 32'(wr_idx) < Entries;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) valid_q <= {Entries{1'b0}};
    else if (write_en && wr_in_range) valid_q[wr_idx] <= wr_entry[0];
  end
  always @(posedge clk_i) begin
    if (write_en && wr_in_range) begin
      key_q_mem[wr_idx] <= wr_entry[KeyWidth:1];
      rest_q_mem[wr_idx] <= wr_entry[EW-1:KeyWidth+1];
    end
  end
  reg  [Entries-1:0]    match;
  integer m;
  always @* begin
    for (m = 0; m < Entries; m = m + 1) match[m] = valid_q[m] && key_q_mem[m] == key_q;
  end

  // Priority encoders (lowest index wins): isolate the lowest set bit (x & -x; the lowest free entry is
  // the lowest zero of the valid bits, ~v & (v + 1)), then encode the one-hot vector, each index bit an OR
  // over the entries whose number has that bit. Without a match (a free entry) the index is 0.
  localparam integer MaskWidth = Entries;
  `include "bit_index_mask.svh"
  wire              hit = |match;
  wire              has_free = !(&valid_q);
  wire [Entries-1:0] hit_1h = match & (~match + Entries'(1));
  wire [Entries-1:0] free_1h = ~valid_q & (valid_q + Entries'(1));
  wire [IDX_W-1:0]  hit_idx, free_idx;
  genvar b;
  for (b = 0; b < IDX_W; b = b + 1) begin : g_encode
    localparam [Entries-1:0] Mask = bit_index_mask(b);
    assign hit_idx[b] = |(hit_1h & Mask);
    assign free_idx[b] = |(free_1h & Mask);
  end

  wire is_index_op = op_q == FC_OP_ADD || op_q == FC_OP_READ || op_q == FC_OP_WRITE;
  assign addr = is_index_op ? index_q : hit_idx;
  // An index beyond the table (Entries not a power of two) reads as an empty entry.
  wire          rd_in_range = 32'(addr) < Entries;
  wire [DW-1:0] entry_data = rd_in_range ? {rest_q_mem[addr], key_q_mem[addr]} : {DW{1'b0}};
  wire [EW-1:0] entry = {entry_data, rd_in_range && valid_q[addr]};

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
    .table_full_i   (!has_free),
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

  assign write_en = exec && unit_write;
  assign wr_idx = unit_use_free ? free_idx : addr;
  assign wr_entry = unit_entry;

  // Response register.
  reg [2:0]               rsp_status_q;
  reg [IDX_W-1:0]         rsp_index_q;
  reg                     rsp_deleted_q;
  reg [InflightWidth-1:0] rsp_inflight_q;
  reg [EW-1:0]            rsp_entry_q;
  always @(posedge clk_i) begin
    if (exec) begin
      rsp_status_q <= unit_status;
      rsp_index_q <= wr_idx;
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

  // Unused in this implementation (same ports as the hashed one; the occupancy is the valid vector).
  wire unused = ^{unit_inc, unit_dec, Ways[0]};

  // Parameter checks at elaboration: an illegal value instantiates a module that does not exist and
  // whose name states the rule, so Verilator and Yosys both stop and name it.
  generate
    if (Entries < 4 || Entries > 65536) begin : g_bad_Entries
      ERROR_flowcut_table_cam_Entries_must_be_in_4_to_65536 u_param_error ();
    end
    if (InflightWidth < 4 || InflightWidth > 31) begin : g_bad_InflightWidth
      ERROR_flowcut_table_cam_InflightWidth_must_be_in_4_to_31 u_param_error ();
    end
    if (PortWidth < 1 || PortWidth > 16) begin : g_bad_PortWidth
      ERROR_flowcut_table_cam_PortWidth_must_be_in_1_to_16 u_param_error ();
    end
    if (KeyWidth < 8 || KeyWidth > 128) begin : g_bad_KeyWidth
      ERROR_flowcut_table_cam_KeyWidth_must_be_in_8_to_128 u_param_error ();
    end
  endgenerate

`ifndef SYNTHESIS
`ifndef FORMAL  // Yosys' formal read (verification/formal) parses no concurrent assertions
  // ---- Assertions and cover points: simulation only (Verilator --assert / --coverage-user in
  // verification/rtl); Yosys defines SYNTHESIS, or FORMAL in the proofs, and never sees them. ----
  reg sva_on_q;    // out of reset (the checks sample this flop, not the asynchronous reset)
  reg sva_busy_q;  // a request accepted, its response not yet taken
  reg sva_wait_q;  // ... and accepted in the previous cycle (the response is due in the next)
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sva_on_q <= 1'b0;
      sva_busy_q <= 1'b0;
      sva_wait_q <= 1'b0;
    end else begin
      sva_on_q <= 1'b1;
      if (req_fire) sva_busy_q <= 1'b1;
      else if (rsp_valid_o && rsp_ready_i) sva_busy_q <= 1'b0;
      sva_wait_q <= req_fire;
    end
  end
  wire [InflightWidth-1:0] sva_old_inflight = entry[OFF_IF +: InflightWidth];

  // Handshake: the response and all its fields hold until taken; one request in flight, answered
  // exactly once, 2 cycles after it was accepted.
  a_rsp_hold: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      rsp_valid_o && !rsp_ready_i |=> rsp_valid_o && $stable({rsp_status_o, rsp_index_o, rsp_deleted_o,
      rsp_inflight_o, rsp_out_port_o, rsp_in_port_o, rsp_rtt_avg_o, rsp_last_rtt_o, rsp_rtt_diff_avg_o, rsp_drain_o}))
    else $error("flowcut_table_cam: response withdrawn or changed before it was taken");
  a_rsp_once: assert property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o |-> sva_busy_q && !req_ready_o)
    else $error("flowcut_table_cam: response without an accepted request");
  a_answered: assert property (@(posedge clk_i) disable iff (!sva_on_q) sva_busy_q && !rsp_valid_o |-> sva_wait_q)
    else $error("flowcut_table_cam: accepted request not answered after 2 cycles");
  // Invariants: the in-flight byte counter saturates and never wraps (ADD never lowers it, ACK never
  // raises it, SATURATED exactly when it clamps); an insert goes to a free entry; no key held twice.
  a_add_no_wrap: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      exec && op_q == FC_OP_ADD && entry[0] |-> unit_inflight >= sva_old_inflight
      && (unit_status == FC_ST_SATURATED) == (unit_inflight == {InflightWidth{1'b1}}
                                             && {1'b0, bytes_q} + 33'(sva_old_inflight) > 33'(unit_inflight)))
    else $error("flowcut_table_cam: in-flight counter wrapped on ADD");
  a_ack_no_wrap: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      exec && op_q == FC_OP_ACK && hit |-> unit_inflight <= sva_old_inflight)
    else $error("flowcut_table_cam: in-flight counter wrapped on ACK");
  a_insert_free: assert property (@(posedge clk_i) disable iff (!sva_on_q) write_en && unit_use_free |-> !valid_q[wr_idx])
    else $error("flowcut_table_cam: insert over a valid entry");
  wire [KeyWidth-1:0] sva_key [Entries];
  for (genvar k = 0; k < Entries; k = k + 1) begin : g_sva_key
    assign sva_key[k] = key_q_mem[k];
  end
  integer sva_a, sva_b;
  always @(posedge clk_i) begin
    if (sva_on_q) begin
      for (sva_a = 0; sva_a < Entries; sva_a = sva_a + 1)
        for (sva_b = sva_a + 1; sva_b < Entries; sva_b = sva_b + 1)
          a_key_unique: assert (!(valid_q[sva_a] && valid_q[sva_b] && sva_key[sva_a] == sva_key[sva_b]))
            else $error("flowcut_table_cam: entries %0d and %0d hold the same key", sva_a, sva_b);
    end
  end

  // Functional coverage: table full (insert refused, every entry valid), in-flight counter saturation
  // and underflow (the counter's two ends), delete on zero, a response held by back-pressure.
  c_table_full: cover property (@(posedge clk_i) disable iff (!sva_on_q) exec && unit_status == FC_ST_FULL);
  c_all_valid: cover property (@(posedge clk_i) disable iff (!sva_on_q) &valid_q);
  c_saturated: cover property (@(posedge clk_i) disable iff (!sva_on_q) exec && unit_status == FC_ST_SATURATED);
  c_underflow: cover property (@(posedge clk_i) disable iff (!sva_on_q) exec && unit_status == FC_ST_UNDERFLOW);
  c_ack_delete: cover property (@(posedge clk_i) disable iff (!sva_on_q) exec && unit_deleted);
  c_rsp_stall: cover property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o && !rsp_ready_i);
`endif
`endif
endmodule

`default_nettype wire
