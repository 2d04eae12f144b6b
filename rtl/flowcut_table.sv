// Flowcut table wrapper: selects one of two interchangeable implementations with identical ports (the
// verilog-cam CAM_STYLE pattern), so the switch, the tests and the synthesis sweep swap them with one
// parameter:
//   Impl = "CAM"     flowcut_table_cam     register CAM + priority encoder, latency 2 cycles
//   Impl = "HASHED"  flowcut_table_hashed  set-associative on RAM (Ways per set), latency 3 cycles
// LATENCY below is the fixed request -> response latency of the selected implementation.
`default_nettype none

module flowcut_table #(
  parameter [63:0]  Impl          = "CAM",  // 8 characters at most
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
  // Documents the contract for instantiating code; nothing inside needs it.
  /* verilator lint_off UNUSEDPARAM */
  localparam integer LATENCY = (Impl == "HASHED") ? 3 : 2;
  /* verilator lint_on UNUSEDPARAM */

  // The parameter checks at the end of the module stop elaboration; this prints the offending values too
  // (Yosys while it elaborates, a simulator at time 0). $display, not $error: Yosys 0.23 has no $error
  // here.
  initial begin
    if (Impl != "CAM" && Impl != "HASHED") $display("flowcut_table: Impl must be \"CAM\" or \"HASHED\"");
  end

  generate
    if (Impl == "HASHED") begin : g_hashed
      flowcut_table_hashed #(
        .Entries(Entries), .Ways(Ways), .KeyWidth(KeyWidth), .PortWidth(PortWidth),
        .InflightWidth(InflightWidth), .FullSwitch(FullSwitch)
      ) u_table (
        .clk_i(clk_i), .rst_ni(rst_ni),
        .req_valid_i(req_valid_i), .req_ready_o(req_ready_o), .req_op_i(req_op_i), .req_key_i(req_key_i),
        .req_index_i(req_index_i), .req_out_port_i(req_out_port_i), .req_in_port_i(req_in_port_i),
        .req_bytes_i(req_bytes_i), .req_rtt_avg_i(req_rtt_avg_i), .req_last_rtt_i(req_last_rtt_i),
        .req_rtt_diff_avg_i(req_rtt_diff_avg_i), .req_drain_i(req_drain_i),
        .rsp_valid_o(rsp_valid_o), .rsp_ready_i(rsp_ready_i), .rsp_status_o(rsp_status_o),
        .rsp_index_o(rsp_index_o), .rsp_deleted_o(rsp_deleted_o), .rsp_inflight_o(rsp_inflight_o),
        .rsp_out_port_o(rsp_out_port_o), .rsp_in_port_o(rsp_in_port_o), .rsp_rtt_avg_o(rsp_rtt_avg_o),
        .rsp_last_rtt_o(rsp_last_rtt_o), .rsp_rtt_diff_avg_o(rsp_rtt_diff_avg_o), .rsp_drain_o(rsp_drain_o)
      );
    end else begin : g_cam
      flowcut_table_cam #(
        .Entries(Entries), .Ways(Ways), .KeyWidth(KeyWidth), .PortWidth(PortWidth),
        .InflightWidth(InflightWidth), .FullSwitch(FullSwitch)
      ) u_table (
        .clk_i(clk_i), .rst_ni(rst_ni),
        .req_valid_i(req_valid_i), .req_ready_o(req_ready_o), .req_op_i(req_op_i), .req_key_i(req_key_i),
        .req_index_i(req_index_i), .req_out_port_i(req_out_port_i), .req_in_port_i(req_in_port_i),
        .req_bytes_i(req_bytes_i), .req_rtt_avg_i(req_rtt_avg_i), .req_last_rtt_i(req_last_rtt_i),
        .req_rtt_diff_avg_i(req_rtt_diff_avg_i), .req_drain_i(req_drain_i),
        .rsp_valid_o(rsp_valid_o), .rsp_ready_i(rsp_ready_i), .rsp_status_o(rsp_status_o),
        .rsp_index_o(rsp_index_o), .rsp_deleted_o(rsp_deleted_o), .rsp_inflight_o(rsp_inflight_o),
        .rsp_out_port_o(rsp_out_port_o), .rsp_in_port_o(rsp_in_port_o), .rsp_rtt_avg_o(rsp_rtt_avg_o),
        .rsp_last_rtt_o(rsp_last_rtt_o), .rsp_rtt_diff_avg_o(rsp_rtt_diff_avg_o), .rsp_drain_o(rsp_drain_o)
      );
    end
  endgenerate

  // Parameter checks at elaboration: an illegal value instantiates a module that does not exist and
  // whose name states the rule, so Verilator and Yosys both stop and name it.
  generate
    if (Impl != "CAM" && Impl != "HASHED") begin : g_bad_Impl
      ERROR_flowcut_table_Impl_must_be_CAM_or_HASHED u_param_error ();
    end
  endgenerate
endmodule

`default_nettype wire
