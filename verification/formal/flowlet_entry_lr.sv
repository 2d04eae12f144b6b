// Formal wrapper: the line-rate flowlet table (rtl/flowlet_table_lr.sv) at a small point with a free
// environment (any request, key, port count and seed in any cycle, any back-pressure, resets at any time),
// checked on its ports as flowlet_entry.sv checks the compact table: an offered response holds its fields
// until taken, and one entry f_idx seen from the responses follows LetFlow's rules against a shadow entry
// {valid, age, port}. Responses come in request order, so the shadow applies each response's operation
// (kept in a 4-deep queue of the operations in flight) when the response is taken: the order of the
// model's calls. Bounded (docs/formal.md): the shadow cannot be tied to the RAM from the ports. Several
// requests are in flight at once here, so the depth covers back-to-back accesses to f_idx (the forwarding
// path), CHECKs between them, and enough CHECKs for a stamp to wrap if the scrub rule let it.
`default_nettype none

module flowlet_entry_lr #(
  parameter integer Entries   = 4,
  parameter integer KeyWidth  = 8,
  parameter integer PortWidth = 1
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

  flowlet_table_lr #(.Entries(Entries), .KeyWidth(KeyWidth), .PortWidth(PortWidth)) dut (
    .clk_i(clk_i), .rst_ni(rst_ni), .seed_i(seed_i),
    .req_valid_i(req_valid_i), .req_ready_o(req_ready), .req_op_i(req_op_i), .req_key_i(req_key_i),
    .req_port_count_i(req_port_count_i),
    .rsp_valid_o(rsp_valid), .rsp_ready_i(rsp_ready_i), .rsp_port_o(rsp_port),
    .rsp_new_flowlet_o(rsp_new), .rsp_index_o(rsp_index));

  wire req_fire = req_valid_i && req_ready;
  wire rsp_fire = rsp_valid && rsp_ready_i;

  // The operations in flight, oldest first (ops_q[0] is the one the offered response answers).
  reg [3:0] ops_q;
  reg [2:0] n_q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      n_q <= 3'd0;
      ops_q <= 4'd0;
    end else begin
      n_q <= n_q + {2'b00, req_fire} - {2'b00, rsp_fire};
      case ({req_fire, rsp_fire})
        2'b10: ops_q[n_q[1:0]] <= req_op_i;
        2'b01: ops_q <= {1'b0, ops_q[3:1]};
        2'b11: begin
          ops_q <= {1'b0, ops_q[3:1]};
          ops_q[n_q[1:0] - 2'd1] <= req_op_i;
        end
        default: ;
      endcase
    end
  end
  wire head_op = ops_q[0];

  reg                 p_held;
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

  (* anyconst *) reg [IW-1:0] f_idx;
  reg                 s_valid, s_age;
  reg [PortWidth-1:0] s_port;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s_valid <= 1'b0;
      s_age <= 1'b0;
    end else if (rsp_fire && !head_op && rsp_index == f_idx) begin
      s_valid <= 1'b1;
      s_age <= 1'b0;
    end else if (rsp_fire && head_op && s_valid) begin
      s_valid <= !s_age;
      s_age <= 1'b1;
    end
  end
  always @(posedge clk_i) if (rsp_fire && !head_op && rsp_index == f_idx) s_port <= rsp_port;

  always @* begin
    assert(n_q <= 3'd4);
    assert(!(rsp_valid && n_q == 3'd0));
    if (rsp_valid && !head_op && rsp_index == f_idx) begin
      assert(rsp_new == !s_valid);
      if (!rsp_new) assert(rsp_port == s_port);
    end
    if (p_held) assert(rsp_valid && rsp_port == p_port && rsp_new == p_new && rsp_index == p_index);
  end
endmodule

`default_nettype wire
