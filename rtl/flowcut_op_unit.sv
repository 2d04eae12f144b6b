// Flowcut table operation unit: the per-entry datapath shared by both table implementations
// (flowcut_table_cam, flowcut_table_hashed), so they differ only in how they find the entry.
// Semantics are those of netasic::FlowcutTable (tlm/blocks/flowcut_table.h; De Sensi et al., Flowcut
// Switching, Section II-A): given the operation, the request and the addressed entry (found by key or by
// index), it produces the status, the response fields and the entry to write back.
// Purely combinational.
`default_nettype none

module flowcut_op_unit #(
  parameter integer KeyWidth      = 104,
  parameter integer PortWidth     = 8,
  parameter integer InflightWidth = 24,
  parameter integer FullSwitch    = 1,
  // Entry word layout, LSB first: valid, key, out_port, inflight, rtt_avg, last_rtt, rtt_diff_avg, drain,
  // in_port. The in_port field is always present here; a NIC-only/ingress-only table stores it as 0.
  parameter integer EntryWidth    = 1 + KeyWidth + PortWidth + InflightWidth + 48 + 1 + PortWidth
) (
  input  wire [2:0]               op_i,
  input  wire [KeyWidth-1:0]      key_i,
  input  wire [PortWidth-1:0]     out_port_i,
  input  wire [PortWidth-1:0]     in_port_i,
  input  wire [31:0]              bytes_i,
  input  wire [15:0]              rtt_avg_i,
  input  wire [15:0]              last_rtt_i,
  input  wire [15:0]              rtt_diff_avg_i,
  input  wire                     drain_i,
  input  wire                     hit_i,        // key ops: an entry holds key_i
  input  wire                     free_i,       // insert: a free entry exists where key_i may go
  input  wire                     table_full_i, // every entry of the table is valid
  input  wire [EntryWidth-1:0]    entry_i,      // the hit entry (key ops) or the indexed entry
  output reg                      write_o,      // write entry_o back (to the hit, free or indexed entry)
  output reg                      use_free_o,   // the write goes to the free entry (insert)
  output reg  [EntryWidth-1:0]    entry_o,
  output reg  [2:0]               status_o,
  output reg                      deleted_o,
  output reg  [InflightWidth-1:0] inflight_o,
  output reg                      occupancy_inc_o,
  output reg                      occupancy_dec_o
);
  // The shared code table: not every module uses every code.
  /* verilator lint_off UNUSEDPARAM */
  `include "flowcut_defs.svh"
  /* verilator lint_on UNUSEDPARAM */

  localparam integer OFF_KEY = 1;
  localparam integer OFF_OUT = OFF_KEY + KeyWidth;
  localparam integer OFF_IF  = OFF_OUT + PortWidth;
  localparam integer OFF_RA  = OFF_IF + InflightWidth;
  localparam integer OFF_LR  = OFF_RA + 16;
  localparam integer OFF_RD  = OFF_LR + 16;
  localparam integer OFF_DR  = OFF_RD + 16;
  localparam integer OFF_IN  = OFF_DR + 1;
  localparam [InflightWidth:0] INFLIGHT_MAX = {1'b0, {InflightWidth{1'b1}}};

  // The parameter checks at the end of the module stop elaboration; this prints the offending values too
  // (Yosys while it elaborates, a simulator at time 0). $display, not $error: Yosys 0.23 has no $error
  // here.
  initial begin
    if (EntryWidth != OFF_IN + PortWidth) $display("flowcut_op_unit: EntryWidth inconsistent");
  end

  wire                     valid    = entry_i[0];
  wire [InflightWidth-1:0] inflight = entry_i[OFF_IF +: InflightWidth];
  wire [32:0]              sum      = {1'b0, bytes_i} + {{(33 - InflightWidth){1'b0}}, inflight};
  wire                     saturate = sum > {{(32 - InflightWidth){1'b0}}, INFLIGHT_MAX};
  wire                     underflow = bytes_i > {{(32 - InflightWidth){1'b0}}, inflight};
  wire [InflightWidth-1:0] remaining = underflow ? {InflightWidth{1'b0}}
                                                 : inflight - bytes_i[InflightWidth-1:0];

  always @* begin
    write_o         = 1'b0;
    use_free_o      = 1'b0;
    entry_o         = entry_i;
    status_o        = FC_ST_OK;
    deleted_o       = 1'b0;
    inflight_o      = inflight;
    occupancy_inc_o = 1'b0;
    occupancy_dec_o = 1'b0;
    case (op_i)
      FC_OP_LOOKUP: if (!hit_i) status_o = FC_ST_MISS;
      FC_OP_INSERT: begin
        if (hit_i) begin
          status_o = FC_ST_EXISTS;
        end else if (free_i) begin
          write_o = 1'b1;
          use_free_o = 1'b1;
          occupancy_inc_o = 1'b1;
          entry_o = {EntryWidth{1'b0}};
          entry_o[0] = 1'b1;
          entry_o[OFF_KEY +: KeyWidth] = key_i;
          entry_o[OFF_OUT +: PortWidth] = out_port_i;
          entry_o[OFF_IN +: PortWidth] = (FullSwitch != 0) ? in_port_i : {PortWidth{1'b0}};
          inflight_o = {InflightWidth{1'b0}};
        end else begin
          status_o = table_full_i ? FC_ST_FULL : FC_ST_SET_FULL;
        end
      end
      FC_OP_ADD: begin
        if (!valid) begin
          status_o = FC_ST_INVALID;
        end else begin
          write_o = 1'b1;
          inflight_o = saturate ? INFLIGHT_MAX[InflightWidth-1:0] : sum[InflightWidth-1:0];
          if (saturate) status_o = FC_ST_SATURATED;
          entry_o[OFF_IF +: InflightWidth] = inflight_o;
        end
      end
      FC_OP_ACK: begin
        if (!hit_i) begin
          status_o = FC_ST_MISS;
          inflight_o = {InflightWidth{1'b0}};
        end else begin
          write_o = 1'b1;
          inflight_o = remaining;
          deleted_o = remaining == {InflightWidth{1'b0}};
          if (underflow) status_o = FC_ST_UNDERFLOW;
          entry_o[OFF_IF +: InflightWidth] = remaining;
          entry_o[0] = !deleted_o;
          occupancy_dec_o = deleted_o;
        end
      end
      FC_OP_DELETE: begin
        if (!hit_i) begin
          status_o = FC_ST_MISS;
        end else begin
          write_o = 1'b1;
          entry_o[0] = 1'b0;
          occupancy_dec_o = 1'b1;
        end
      end
      FC_OP_READ: if (!valid) status_o = FC_ST_INVALID;
      FC_OP_WRITE: begin
        if (!valid) begin
          status_o = FC_ST_INVALID;
        end else begin
          write_o = 1'b1;
          entry_o[OFF_RA +: 16] = rtt_avg_i;
          entry_o[OFF_LR +: 16] = last_rtt_i;
          entry_o[OFF_RD +: 16] = rtt_diff_avg_i;
          entry_o[OFF_DR] = drain_i;
        end
      end
      default: status_o = FC_ST_INVALID;
    endcase
  end

  // Parameter checks at elaboration: an illegal value instantiates a module that does not exist and
  // whose name states the rule, so Verilator and Yosys both stop and name it.
  generate
    if (EntryWidth != OFF_IN + PortWidth) begin : g_bad_EntryWidth
      ERROR_flowcut_op_unit_EntryWidth_must_match_the_entry_layout u_param_error ();
    end
  endgenerate
endmodule

`default_nettype wire
