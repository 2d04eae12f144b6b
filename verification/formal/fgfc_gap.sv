// Formal wrapper: the FGFC generator's gap rule on its ports (docs/formal.md, tlm/blocks/fgfc.h).
// For an arbitrary flow id F (anyconst): once a frame of F is taken on the frame port in cycle t, no frame
// of F is offered (frm_valid_o with frm_flow_id_o == F) in cycles t+1 .. t+Gap-1; it may be offered
// again from t+Gap. A reset clears the generator's slots and so restarts the rule. The environment is
// free: any request (flow id, xoff, period, credit) in any cycle, any frame and response back-pressure.
// Proven with Yosys `sat -tempinduct` (verification/formal/run_proof.py), together with the generator's
// internal invariants (its `ifdef FORMAL` block: in-use slots hold distinct flow ids, gap counters stay
// below Gap).
`default_nettype none

module fgfc_gap #(
  parameter integer Slots = 2,
  parameter integer Gap   = 3
) (
  input wire        clk_i,
  input wire        rst_ni,
  input wire        req_valid_i,
  input wire [31:0] req_flow_id_i,
  input wire        req_xoff_i,
  input wire [15:0] req_period_i,
  input wire [23:0] req_credit_i,
  input wire        rsp_ready_i,
  input wire        frm_ready_i
);
  localparam integer LW = 17;  // Gap - 1 .. 0
  wire        req_ready, rsp_valid, frm_valid, frm_xoff;
  wire [1:0]  rsp_status;
  wire [31:0] frm_flow_id;
  wire [15:0] frm_period;
  wire [23:0] frm_credit;

  fgfc_generator #(.Slots(Slots), .Gap(Gap)) dut (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .req_valid_i(req_valid_i), .req_ready_o(req_ready), .req_flow_id_i(req_flow_id_i),
    .req_xoff_i(req_xoff_i), .req_period_i(req_period_i), .req_credit_i(req_credit_i),
    .rsp_valid_o(rsp_valid), .rsp_ready_i(rsp_ready_i), .rsp_status_o(rsp_status),
    .frm_valid_o(frm_valid), .frm_ready_i(frm_ready_i), .frm_flow_id_o(frm_flow_id),
    .frm_xoff_o(frm_xoff), .frm_period_o(frm_period), .frm_credit_o(frm_credit));

  (* anyconst *) reg [31:0] f_flow;
  // Cycles left in F's gap window: loaded with Gap - 1 when a frame of F is taken, down to 0.
  reg [LW-1:0] f_left;
  wire f_offered = frm_valid && frm_flow_id == f_flow;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) f_left <= {LW{1'b0}};
    else if (f_offered && frm_ready_i) f_left <= LW'(Gap - 1);
    else if (f_left != {LW{1'b0}}) f_left <= f_left - 1'b1;
  end

  always @* begin
    if (rst_ni) begin
      assert(!(f_offered && f_left != {LW{1'b0}}));
      assert(f_left <= LW'(Gap - 1));
    end
  end

  wire unused = ^{req_ready, rsp_valid, rsp_status, frm_xoff, frm_period, frm_credit};
endmodule

`default_nettype wire
