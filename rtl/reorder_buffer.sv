// NIC rearrange (reorder) buffer with ACK/NACK end-to-end flow control (Martinez et al., "In-Order Packet
// Delivery in Interconnection Networks using Adaptive Routing", IPDPS 2005, Sections 3.1-3.2), static
// memory: one partition of BufferUnits units per connection. Matches netasic::ReorderBuffer
// (tlm/blocks/reorder_buffer.h, memory = static_partition) event for event and cycle for cycle.
//
// One RAM word per connection: the expected sequence number and the partition's BufferUnits slots
// {valid, sn, units} (a packet takes at least one unit, so BufferUnits slots always suffice).
//
// Request (valid/ready): connection, sn, units (1 .. MaxPacketUnits). Events (valid/ready stream, one per
// accepted cycle, rsp_last_o on the final one): kind (0 DELIVER, 1 ACK, 2 NACK, 3 STORED) and sn.
//   old packet (serial offset from expected >= 2^(SeqBits-1)) -> ACK expected-1
//   packet already stored                                     -> STORED sn
//   expected packet   -> DELIVER sn, DELIVER each stored follower in sequence, ACK (last delivered)
//   early packet      -> STORED sn if its units fit; else NACK stored packets of greater sn, greatest
//                        first, until it fits, then STORED sn; if even rejecting all of them would not
//                        make room, only NACK sn.
// Latency 3 cycles from the request handshake to the first event: RAM read in c+1, classify in c+2,
// first event from c+3. The partition is written back with the last event; the request port is ready
// again the cycle after. After reset the RAM is cleared, one connection per cycle (Connections cycles).
// Storage: RAM Connections x (SeqBits + BufferUnits x (1 + SeqBits + ceil(log2(MaxPacketUnits+1)))).
`default_nettype none

module reorder_buffer #(
  parameter integer Connections    = 64,  // 1 .. 65536
  parameter integer SeqBits        = 16,  // 3 .. 32
  parameter integer BufferUnits    = 8,   // units (and slots) per connection: 1 .. 32
  parameter integer MaxPacketUnits = 1    // 1 .. BufferUnits
) (
  input  wire                                   clk_i,
  input  wire                                   rst_ni,
  input  wire                                   req_valid_i,
  output wire                                   req_ready_o,
  input  wire [(Connections > 1 ? $clog2(Connections) : 1)-1:0] req_conn_i,
  input  wire [SeqBits-1:0]                     req_sn_i,
  input  wire [$clog2(MaxPacketUnits + 1)-1:0]  req_units_i,
  output wire                                   rsp_valid_o,
  input  wire                                   rsp_ready_i,
  output reg  [1:0]                             rsp_kind_o,
  output reg  [SeqBits-1:0]                     rsp_sn_o,
  output reg                                    rsp_last_o
);
  localparam integer CIW = Connections > 1 ? $clog2(Connections) : 1;
  localparam integer UW = $clog2(MaxPacketUnits + 1);
  localparam integer NW = $clog2(2 * BufferUnits + 1);  // used units + one packet
  localparam integer SLOTS = BufferUnits;
  localparam integer SSW = SLOTS > 1 ? $clog2(SLOTS) : 1;  // slot index
  localparam integer SLW = 1 + SeqBits + UW;             // {units, sn, valid}
  localparam integer WW = SeqBits + SLOTS * SLW;         // {slots, expected}
  localparam [2:0] ST_INIT = 3'd0, ST_IDLE = 3'd1, ST_READ = 3'd2, ST_LOAD = 3'd3, ST_EVENT = 3'd4;
  localparam [1:0] MODE_OLD = 2'd0, MODE_DUP = 2'd1, MODE_DELIVER = 2'd2, MODE_EARLY = 2'd3;
  localparam [1:0] EV_DELIVER = 2'd0, EV_ACK = 2'd1, EV_NACK = 2'd2, EV_STORED = 2'd3;
  localparam [NW-1:0] CAPACITY = NW'(BufferUnits);

  // The parameter checks at the end of the module stop elaboration; this prints the offending values too
  // (Yosys while it elaborates, a simulator at time 0). $display, not $error: Yosys 0.23 has no $error
  // here.
  initial begin
    if (Connections < 1 || Connections > 65536)
      $display("reorder_buffer: Connections (%0d) outside 1 .. 65536", Connections);
    if (SeqBits < 3 || SeqBits > 32) $display("reorder_buffer: SeqBits (%0d) outside 3 .. 32", SeqBits);
    if (BufferUnits < 1 || BufferUnits > 32)
      $display("reorder_buffer: BufferUnits (%0d) outside 1 .. 32", BufferUnits);
    if (MaxPacketUnits < 1 || MaxPacketUnits > BufferUnits)
      $display("reorder_buffer: MaxPacketUnits (%0d) outside 1 .. BufferUnits", MaxPacketUnits);
  end

  reg [2:0]         state_q, state_d;
  reg [CIW:0]       ptr_q, ptr_d;  // RAM clear position (one spare bit)
  reg [CIW-1:0]     conn_q;
  reg [SeqBits-1:0] sn_q;
  reg [UW-1:0]      pu_q;          // the arrival's units
  reg [1:0]         mode_q;
  reg               head_q, head_d;  // DELIVER mode: the arrival itself is still to be delivered

  // Working copy of the connection's partition, and its next value.
  reg [SeqBits-1:0] exp_q, exp_d;
  reg               v_q   [0:SLOTS-1];
  reg [SeqBits-1:0] sq_q  [0:SLOTS-1];
  reg [UW-1:0]      u_q   [0:SLOTS-1];
  reg               v_d   [0:SLOTS-1];
  reg [SeqBits-1:0] sq_d  [0:SLOTS-1];
  reg [UW-1:0]      u_d   [0:SLOTS-1];

  wire req_fire = req_valid_i && req_ready_o;
  wire rsp_fire = rsp_valid_o && rsp_ready_i;
  assign req_ready_o = state_q == ST_IDLE;
  assign rsp_valid_o = state_q == ST_EVENT;

  // RAM: one synchronous read port, one write port.
  reg [WW-1:0]  ram [0:Connections-1];
  reg [WW-1:0]  rd_q;
  reg           rd_en;
  reg           wr_en;
  reg [CIW-1:0] wr_addr;
  reg [WW-1:0]  wr_data;
  always @(posedge clk_i) begin
    if (rd_en) rd_q <= ram[conn_q];
    if (wr_en) ram[wr_addr] <= wr_data;
  end

  // Classification of the arrival against the partition just read (ST_LOAD).
  wire [SeqBits-1:0] rd_exp = rd_q[SeqBits-1:0];
  wire [SeqBits-1:0] rd_off = sn_q - rd_exp;
  reg                rd_stored;
  integer i;
  always @* begin
    rd_stored = 1'b0;
    for (i = 0; i < SLOTS; i = i + 1)
      if (rd_q[SeqBits + i * SLW] && rd_q[SeqBits + i * SLW + 1 +: SeqBits] == sn_q) rd_stored = 1'b1;
  end
  wire [1:0] mode = rd_off[SeqBits-1] ? MODE_OLD : rd_stored ? MODE_DUP
                  : rd_off == {SeqBits{1'b0}} ? MODE_DELIVER : MODE_EARLY;

  // Event datapath over the working copy (ST_EVENT).
  wire [SeqBits-1:0] arr_off = sn_q - exp_q;
  reg [NW-1:0]       used, greater;  // units held; units held by packets after the arrival
  reg                exp_hit, any_greater;
  reg [SSW-1:0]      exp_sel, free_sel, max_sel;
  reg [SeqBits-1:0]  max_off, off_i;
  always @* begin
    used = {NW{1'b0}};
    greater = {NW{1'b0}};
    exp_hit = 1'b0;
    any_greater = 1'b0;
    exp_sel = {SSW{1'b0}};
    free_sel = {SSW{1'b0}};
    max_sel = {SSW{1'b0}};
    max_off = {SeqBits{1'b0}};
    for (i = SLOTS - 1; i >= 0; i = i - 1) begin
      off_i = sq_q[i] - exp_q;
      if (v_q[i]) begin
        used = used + NW'(u_q[i]);
        if (off_i > arr_off) greater = greater + NW'(u_q[i]);
        if (sq_q[i] == exp_q) begin
          exp_hit = 1'b1;
          exp_sel = SSW'(i);
        end
      end else begin
        free_sel = SSW'(i);  // lowest free slot (one exists whenever the arrival fits)
      end
    end
    // Greatest offset first (offsets of stored packets are distinct).
    for (i = 0; i < SLOTS; i = i + 1) begin
      off_i = sq_q[i] - exp_q;
      if (v_q[i] && (!any_greater || off_i > max_off)) begin
        any_greater = 1'b1;
        max_off = off_i;
        max_sel = SSW'(i);
      end
    end
  end
  wire room = used + NW'(pu_q) <= CAPACITY;
  wire hopeless = used - greater + NW'(pu_q) > CAPACITY;  // rejecting every later packet is not enough

  reg [WW-1:0] packed_d;
  always @* begin
    rsp_kind_o = EV_ACK;
    rsp_sn_o = exp_q - 1'b1;
    rsp_last_o = 1'b1;
    head_d = head_q;
    exp_d = exp_q;
    for (i = 0; i < SLOTS; i = i + 1) begin
      v_d[i] = v_q[i];
      sq_d[i] = sq_q[i];
      u_d[i] = u_q[i];
    end
    case (mode_q)
      MODE_OLD: ;  // ACK expected - 1
      MODE_DUP: begin
        rsp_kind_o = EV_STORED;
        rsp_sn_o = sn_q;
      end
      MODE_DELIVER: begin
        if (head_q || exp_hit) begin
          rsp_kind_o = EV_DELIVER;
          rsp_sn_o = exp_q;
          rsp_last_o = 1'b0;
          if (rsp_fire) begin
            head_d = 1'b0;
            exp_d = exp_q + 1'b1;
            if (!head_q) v_d[exp_sel] = 1'b0;
          end
        end
      end
      default: begin  // MODE_EARLY
        if (room) begin
          rsp_kind_o = EV_STORED;
          rsp_sn_o = sn_q;
          if (rsp_fire) begin
            v_d[free_sel] = 1'b1;
            sq_d[free_sel] = sn_q;
            u_d[free_sel] = pu_q;
          end
        end else if (hopeless) begin
          rsp_kind_o = EV_NACK;
          rsp_sn_o = sn_q;
        end else begin
          rsp_kind_o = EV_NACK;
          rsp_sn_o = sq_q[max_sel];
          rsp_last_o = 1'b0;
          if (rsp_fire) v_d[max_sel] = 1'b0;
        end
      end
    endcase
    packed_d[SeqBits-1:0] = exp_d;
    for (i = 0; i < SLOTS; i = i + 1) packed_d[SeqBits + i * SLW +: SLW] = {u_d[i], sq_d[i], v_d[i]};
  end

  always @* begin
    state_d = state_q;
    ptr_d = ptr_q;
    rd_en = 1'b0;
    wr_en = 1'b0;
    wr_addr = conn_q;
    wr_data = packed_d;
    case (state_q)
      ST_INIT: begin
        wr_en = 1'b1;
        wr_addr = ptr_q[CIW-1:0];
        wr_data = {WW{1'b0}};
        ptr_d = ptr_q + 1'b1;
        if (ptr_q == (CIW + 1)'(Connections - 1)) state_d = ST_IDLE;
      end
      ST_IDLE: if (req_fire) state_d = ST_READ;
      ST_READ: begin
        rd_en = 1'b1;
        state_d = ST_LOAD;
      end
      ST_LOAD: state_d = ST_EVENT;
      ST_EVENT: if (rsp_fire && rsp_last_o) begin
        wr_en = 1'b1;
        state_d = ST_IDLE;
      end
      default: state_d = ST_IDLE;
    endcase
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= ST_INIT;
      ptr_q <= {(CIW + 1){1'b0}};
    end else begin
      state_q <= state_d;
      ptr_q <= ptr_d;
    end
  end

  always @(posedge clk_i) begin
    if (req_fire) begin
      conn_q <= req_conn_i;
      sn_q <= req_sn_i;
      pu_q <= req_units_i;
    end
    if (state_q == ST_LOAD) begin
      mode_q <= mode;
      head_q <= 1'b1;
      exp_q <= rd_exp;
      for (i = 0; i < SLOTS; i = i + 1) {u_q[i], sq_q[i], v_q[i]} <= rd_q[SeqBits + i * SLW +: SLW];
    end else if (state_q == ST_EVENT) begin
      head_q <= head_d;
      exp_q <= exp_d;
      for (i = 0; i < SLOTS; i = i + 1) begin
        v_q[i] <= v_d[i];
        sq_q[i] <= sq_d[i];
        u_q[i] <= u_d[i];
      end
    end
  end

  // Parameter checks at elaboration: an illegal value instantiates a module that does not exist and
  // whose name states the rule, so Verilator and Yosys both stop and name it.
  generate
    if (Connections < 1 || Connections > 65536) begin : g_bad_Connections
      ERROR_reorder_buffer_Connections_must_be_in_1_to_65536 u_param_error ();
    end
    if (SeqBits < 3 || SeqBits > 32) begin : g_bad_SeqBits
      ERROR_reorder_buffer_SeqBits_must_be_in_3_to_32 u_param_error ();
    end
    if (BufferUnits < 1 || BufferUnits > 32) begin : g_bad_BufferUnits
      ERROR_reorder_buffer_BufferUnits_must_be_in_1_to_32 u_param_error ();
    end
    if (MaxPacketUnits < 1 || MaxPacketUnits > BufferUnits) begin : g_bad_MaxPacketUnits
      ERROR_reorder_buffer_MaxPacketUnits_must_be_in_1_to_BufferUnits u_param_error ();
    end
  endgenerate

`ifndef SYNTHESIS
`ifndef FORMAL  // Yosys' formal read (verification/formal) parses no concurrent assertions
  // ---- Assertions and cover points: simulation only (Verilator --assert / --coverage-user in
  // verification/rtl); Yosys defines SYNTHESIS, or FORMAL in the proofs, and never sees them. ----
  // Reference state: a request in flight, cycles to its first event, events of its stream so far, and
  // which connections were written since reset (a connection never written must read as cleared).
  localparam integer SVA_EW = $clog2(SLOTS + 3) + 1;
  reg                   sva_on_q;  // out of reset (the checks sample this flop, not the asynchronous reset)
  reg                   sva_busy_q, sva_clean_q;
  reg [1:0]             sva_wait_q;
  reg [SVA_EW-1:0]      sva_events_q;
  reg [Connections-1:0] sva_w_q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sva_on_q <= 1'b0;
      sva_busy_q <= 1'b0;
      sva_wait_q <= 2'd0;
      sva_events_q <= {SVA_EW{1'b0}};
      /* verilator lint_off WIDTHCONCAT */  // one bit per connection
      sva_w_q <= '0;
      /* verilator lint_on WIDTHCONCAT */
    end else begin
      sva_on_q <= 1'b1;
      if (req_fire) sva_busy_q <= 1'b1;
      else if (rsp_fire && rsp_last_o) sva_busy_q <= 1'b0;
      if (req_fire) sva_wait_q <= 2'd1;
      else if (sva_busy_q && !rsp_valid_o && sva_wait_q != 2'd3) sva_wait_q <= sva_wait_q + 2'd1;
      if (req_fire) sva_events_q <= {SVA_EW{1'b0}};
      else if (rsp_fire) sva_events_q <= sva_events_q + 1'b1;
      if (wr_en && state_q != ST_INIT) sva_w_q[wr_addr] <= 1'b1;
    end
  end
  always @(posedge clk_i) if (rd_en) sva_clean_q <= !sva_w_q[conn_q];
  // The working copy: stored sequence numbers distinct and none behind the expected one (a stored
  // packet equal to it is the next to deliver).
  reg          sva_slots_ok;
  reg [SeqBits-1:0] sva_off;
  integer      sva_a, sva_b;
  always @* begin
    sva_slots_ok = 1'b1;
    for (sva_a = 0; sva_a < SLOTS; sva_a = sva_a + 1) begin
      sva_off = sq_q[sva_a] - exp_q;
      if (v_q[sva_a] && sva_off[SeqBits-1]) sva_slots_ok = 1'b0;
      for (sva_b = sva_a + 1; sva_b < SLOTS; sva_b = sva_b + 1)
        if (v_q[sva_a] && v_q[sva_b] && sq_q[sva_a] == sq_q[sva_b]) sva_slots_ok = 1'b0;
    end
  end

  // Handshake: an event and its fields hold until taken; a stream, once started, continues until its
  // last event is taken; one request in flight; every accepted request gets exactly one stream, its
  // first event 3 cycles after the request and at most BufferUnits + 2 events long.
  a_rsp_hold: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      rsp_valid_o && !rsp_ready_i |=> rsp_valid_o && $stable({rsp_kind_o, rsp_sn_o, rsp_last_o}))
    else $error("reorder_buffer: event withdrawn or changed before it was taken");
  a_stream_continues: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      rsp_fire && !rsp_last_o |=> rsp_valid_o)
    else $error("reorder_buffer: event stream stopped before its last event");
  a_rsp_once: assert property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o |-> sva_busy_q && !req_ready_o)
    else $error("reorder_buffer: event without an accepted request");
  a_answered: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      sva_busy_q && !rsp_valid_o |-> sva_wait_q < 2'd3 && sva_events_q == {SVA_EW{1'b0}})
    else $error("reorder_buffer: accepted request without its first event after 3 cycles");
  a_stream_bounded: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      rsp_valid_o |-> sva_events_q < SVA_EW'(SLOTS + 2))
    else $error("reorder_buffer: event stream longer than BufferUnits + 2");
  // Invariants: the partition never holds more than BufferUnits units; stored packets are distinct and
  // not behind the expected sequence number; a connection never written reads as cleared.
  a_capacity: assert property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o |-> used <= CAPACITY)
    else $error("reorder_buffer: partition holds more than BufferUnits units");
  a_slots: assert property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o |-> sva_slots_ok)
    else $error("reorder_buffer: stored packets not distinct, or one behind the expected sequence number");
  a_cleared: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      state_q == ST_LOAD && sva_clean_q |-> rd_q == {WW{1'b0}})
    else $error("reorder_buffer: connection read that neither the clear nor a request wrote");

  // Functional coverage: an out-of-order packet stored, delivered in order and out of order (a stored
  // follower), NACK of a stored packet to make room and of the arrival, ACK of an old packet, a
  // duplicate, the expected sequence number wrapping, a full partition, an event held by back-pressure.
  c_store_out_of_order: cover property (@(posedge clk_i) disable iff (!sva_on_q)
      rsp_fire && mode_q == MODE_EARLY && rsp_kind_o == EV_STORED);
  c_deliver_arrival: cover property (@(posedge clk_i) disable iff (!sva_on_q) rsp_fire && rsp_kind_o == EV_DELIVER && head_q);
  c_deliver_stored: cover property (@(posedge clk_i) disable iff (!sva_on_q) rsp_fire && rsp_kind_o == EV_DELIVER && !head_q);
  c_nack_stored: cover property (@(posedge clk_i) disable iff (!sva_on_q) rsp_fire && rsp_kind_o == EV_NACK && !rsp_last_o);
  c_nack_arrival: cover property (@(posedge clk_i) disable iff (!sva_on_q) rsp_fire && rsp_kind_o == EV_NACK && rsp_last_o);
  c_ack_old: cover property (@(posedge clk_i) disable iff (!sva_on_q) rsp_fire && mode_q == MODE_OLD);
  c_duplicate: cover property (@(posedge clk_i) disable iff (!sva_on_q) rsp_fire && mode_q == MODE_DUP);
  c_seq_wrap: cover property (@(posedge clk_i) disable iff (!sva_on_q)
      rsp_fire && rsp_kind_o == EV_DELIVER && exp_q == {SeqBits{1'b1}});
  c_partition_full: cover property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o && used == CAPACITY);
  c_rsp_stall: cover property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o && !rsp_ready_i);
`endif
`endif
endmodule

`default_nettype wire
