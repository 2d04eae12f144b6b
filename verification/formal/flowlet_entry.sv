// Formal wrapper: the flowlet table at a small point with a free environment (any request, key, port
// count and seed in any cycle, any response back-pressure, resets at any time). Its entry invariants are
// stated on internal signals in rtl/flowlet_table.sv's `ifdef FORMAL` block; here, on the ports: the
// request port is never ready while a response is offered, and an offered response holds its fields until
// it is taken (both proven by induction). With FLOWLET_SHADOW defined, also the entry rules seen from the
// ports, against a shadow entry: checked to a bounded depth only (docs/formal.md), because the shadow
// cannot be tied to the RAM from here.
`default_nettype none

module flowlet_entry #(
  parameter integer Entries   = 4,
  parameter integer KeyWidth  = 8,
  parameter integer PortWidth = 2
) (
  input wire                 clk_i,
  input wire                 rst_ni,
  input wire [255:0]         seed_i,
  input wire                 req_valid_i,
  input wire                 req_op_i,
  input wire [KeyWidth-1:0]  req_key_i,
  input wire [PortWidth:0]   req_port_count_i,
  input wire                 rsp_ready_i
);
  localparam integer IW = $clog2(Entries);
  wire                 req_ready, rsp_valid, rsp_new;
  wire [PortWidth-1:0] rsp_port;
  wire [IW-1:0]        rsp_index;

  flowlet_table #(.Entries(Entries), .KeyWidth(KeyWidth), .PortWidth(PortWidth)) dut (
    .clk_i(clk_i), .rst_ni(rst_ni), .seed_i(seed_i),
    .req_valid_i(req_valid_i), .req_ready_o(req_ready), .req_op_i(req_op_i), .req_key_i(req_key_i),
    .req_port_count_i(req_port_count_i),
    .rsp_valid_o(rsp_valid), .rsp_ready_i(rsp_ready_i), .rsp_port_o(rsp_port),
    .rsp_new_flowlet_o(rsp_new), .rsp_index_o(rsp_index));

  // The previous cycle's response, to check that an offered response is held until taken.
  reg                 p_held;  // a response was offered and not taken in the previous cycle
  reg [PortWidth-1:0] p_port;
  reg                 p_new;
  reg [IW-1:0]        p_index;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) p_held <= 1'b0;
    else p_held <= rsp_valid && !rsp_ready_i;
  end
  always @(posedge clk_i) begin
    p_port <= rsp_port;
    p_new <= rsp_new;
    p_index <= rsp_index;
  end
  // One entry seen from the ports (bounded check only, see docs/formal.md): a shadow of entry f_idx
  // {valid, age, port}, invalid after reset, updated from the responses: an ACCESS response for f_idx
  // makes it valid, age 0, with the response's port; a CHECK response ages it as LetFlow does.
  (* anyconst *) reg [IW-1:0] f_idx;
  reg                 s_valid, s_age, s_op;
  reg [PortWidth-1:0] s_port;
  wire                s_rsp = rsp_valid && rsp_ready_i;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s_valid <= 1'b0;
      s_age <= 1'b0;
    end else if (s_rsp && !s_op && rsp_index == f_idx) begin
      s_valid <= 1'b1;
      s_age <= 1'b0;
    end else if (s_rsp && s_op && s_valid) begin
      s_valid <= !s_age;
      s_age <= 1'b1;
    end
  end
  always @(posedge clk_i) begin
    if (req_valid_i && req_ready) s_op <= req_op_i;
    if (s_rsp && !s_op && rsp_index == f_idx) s_port <= rsp_port;
  end

  always @* begin
    assert(!(req_ready && rsp_valid));
`ifdef FLOWLET_SHADOW
    // An ACCESS response for f_idx reports a new flowlet exactly when the shadow entry is invalid, and an
    // existing flowlet keeps the shadow's port.
    if (rsp_valid && !s_op && rsp_index == f_idx) begin
      assert(rsp_new == !s_valid);
      if (!rsp_new) assert(rsp_port == s_port);
    end
`endif
    if (p_held) assert(rsp_valid && rsp_port == p_port && rsp_new == p_new && rsp_index == p_index);
  end
endmodule

`default_nettype wire
