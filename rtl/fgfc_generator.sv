// FGFC frame generator, switch side (fine-grained flow control of the Cassini NIC / Rosetta switch pair as
// the architecture note summarises it; the pause/resume step of Flowcut draining, De Sensi et al.,
// Section II-B). Matches netasic::FgfcGenerator (tlm/blocks/fgfc.h) cycle for cycle.
//
// Flows are tracked in Slots slots: a register CAM of flow ids, each slot with one pending frame
// {xoff, period, credit} and a gap down-counter. A slot is in use while it has a pending frame or its
// gap runs; it frees itself when both are over.
//
// Request port (valid/ready): flow id, xoff (0 = XON), period (16 bits, 0 for XON), credit (24 bits).
//   in-use slot holds the flow -> its pending frame is replaced (latest wins): COALESCED if a frame was
//                                 pending (and not emitted this cycle), else ACCEPTED;
//   otherwise the lowest free slot takes it -> ACCEPTED, the frame is eligible from the next cycle;
//   no free slot -> FULL (nothing changes; the caller retries).
//   Response: rsp_status_o, latency 1 cycle (registered); the request port is ready again once it is taken.
// Frame port (valid/ready): the pending frame of the lowest slot whose gap has ended; when taken the
//   slot's next frame waits Gap cycles. Within a cycle the frame port is served first, then the request
//   (a request for the flow whose frame goes out this cycle is ACCEPTED and waits for the gap).
// Storage: Slots x (32 + 1 + 1 + 16 + 24 + ceil(log2 Gap)) flip-flops.
`default_nettype none

module fgfc_generator #(
  parameter integer Slots = 16,  // 1 .. 64
  parameter integer Gap   = 64   // cycles between two frames of one flow: 1 .. 65535
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        req_valid_i,
  output wire        req_ready_o,
  input  wire [31:0] req_flow_id_i,
  input  wire        req_xoff_i,
  input  wire [15:0] req_period_i,
  input  wire [23:0] req_credit_i,
  output wire        rsp_valid_o,
  input  wire        rsp_ready_i,
  output wire [1:0]  rsp_status_o,  // 0 ACCEPTED, 1 COALESCED, 2 FULL
  output wire        frm_valid_o,
  input  wire        frm_ready_i,
  output wire [31:0] frm_flow_id_o,
  output wire        frm_xoff_o,
  output wire [15:0] frm_period_o,
  output wire [23:0] frm_credit_o
);
  localparam integer CW = Gap > 1 ? $clog2(Gap) : 1;  // gap counter: Gap - 1 .. 0
  localparam integer SW = Slots > 1 ? $clog2(Slots) : 1;
  localparam [1:0] ST_ACCEPTED = 2'd0, ST_COALESCED = 2'd1, ST_FULL = 2'd2;
  localparam [CW-1:0] GAP_LOAD = CW'(Gap - 1);

  // The parameter checks at the end of the module stop elaboration; this prints the offending values too
  // (Yosys while it elaborates, a simulator at time 0). $display, not $error: Yosys 0.23 has no $error
  // here.
  initial begin
    if (Slots < 1 || Slots > 64) $display("fgfc_generator: Slots (%0d) outside 1 .. 64", Slots);
    if (Gap < 1 || Gap > 65535) $display("fgfc_generator: Gap (%0d) outside 1 .. 65535", Gap);
  end

  // Slot registers: flip-flops (every slot is compared and counted at once); mem2reg keeps Yosys from
  // taking the arrays for memories now that one slot is written at an index.
  (* mem2reg *) reg [31:0]   fid_q    [0:Slots-1];
  (* mem2reg *) reg          xoff_q   [0:Slots-1];
  (* mem2reg *) reg [15:0]   period_q [0:Slots-1];
  (* mem2reg *) reg [23:0]   credit_q [0:Slots-1];
  (* mem2reg *) reg [CW-1:0] cnt_q    [0:Slots-1];
  reg [Slots-1:0] pend_q;

  // Frame port: lowest eligible slot.
  reg [Slots-1:0] in_use, eligible, match;
  integer i;
  always @* begin
    for (i = 0; i < Slots; i = i + 1) begin
      in_use[i] = pend_q[i] || cnt_q[i] != {CW{1'b0}};
      eligible[i] = pend_q[i] && cnt_q[i] == {CW{1'b0}};
      match[i] = in_use[i] && fid_q[i] == req_flow_id_i;
    end
  end
  // Priority encoders (lowest slot wins): isolate the lowest set bit (x & -x), then encode the one-hot
  // vector, each select bit an OR over the slots whose number has that bit (0 when none is set).
  localparam integer MaskWidth = Slots;
  `include "bit_index_mask.svh"
  wire             any_eligible = |eligible;
  wire             any_free = !(&in_use);
  wire             hit = |match;
  wire [Slots-1:0] emit_1h = eligible & (~eligible + Slots'(1));
  wire [Slots-1:0] free_1h = ~in_use & (in_use + Slots'(1));
  wire [Slots-1:0] match_1h = match & (~match + Slots'(1));
  wire [SW-1:0]    emit_sel, free_sel, match_sel;
  genvar sb;
  for (sb = 0; sb < SW; sb = sb + 1) begin : g_encode
    localparam [Slots-1:0] Mask = bit_index_mask(sb);
    assign emit_sel[sb] = |(emit_1h & Mask);
    assign free_sel[sb] = |(free_1h & Mask);
    assign match_sel[sb] = |(match_1h & Mask);
  end

  assign frm_valid_o = any_eligible;
  assign frm_flow_id_o = fid_q[emit_sel];
  assign frm_xoff_o = xoff_q[emit_sel];
  assign frm_period_o = period_q[emit_sel];
  assign frm_credit_o = credit_q[emit_sel];
  wire emit_fire = frm_valid_o && frm_ready_i;

  // Request port: one request in flight, the registered status is the response.
  reg        rsp_valid_q;
  reg [1:0]  rsp_status_q;
  wire       req_fire = req_valid_i && req_ready_o;
  assign req_ready_o = !rsp_valid_q;
  assign rsp_valid_o = rsp_valid_q;
  assign rsp_status_o = rsp_status_q;

  wire          emitted_match = emit_fire && emit_sel == match_sel;
  wire [SW-1:0] wr_sel = hit ? match_sel : free_sel;
  wire          wr_en = req_fire && (hit || any_free);
  wire [1:0]    status = !(hit || any_free) ? ST_FULL
                       : (hit && pend_q[match_sel] && !emitted_match) ? ST_COALESCED : ST_ACCEPTED;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsp_valid_q <= 1'b0;
      pend_q <= {Slots{1'b0}};
      for (i = 0; i < Slots; i = i + 1) cnt_q[i] <= {CW{1'b0}};
    end else begin
      if (req_fire) rsp_valid_q <= 1'b1;
      else if (rsp_ready_i) rsp_valid_q <= 1'b0;
      // Every gap counter counts down; the gap starts when the frame goes out: the emitted slot's counter
      // reloads (the later assignment wins), eligible again Gap cycles later. A request sets its slot's
      // pending bit, an emitted frame clears it (the request wins in the same cycle).
      for (i = 0; i < Slots; i = i + 1)
        if (cnt_q[i] != {CW{1'b0}}) cnt_q[i] <= cnt_q[i] - 1'b1;
      if (emit_fire) cnt_q[emit_sel] <= GAP_LOAD;
      pend_q <= (wr_en ? Slots'(1) << wr_sel : {Slots{1'b0}})
              | (pend_q & ~(emit_fire ? Slots'(1) << emit_sel : {Slots{1'b0}}));
    end
  end

  // Slot contents need no reset: a slot is read only while pend_q or its counter says it is in use.
  always @(posedge clk_i) begin
    if (req_fire) rsp_status_q <= status;
    if (wr_en) begin
      fid_q[wr_sel] <= req_flow_id_i;
      xoff_q[wr_sel] <= req_xoff_i;
      period_q[wr_sel] <= req_period_i;
      credit_q[wr_sel] <= req_credit_i;
    end
  end
`ifdef FORMAL
  // Invariants the gap proof builds on (verification/formal/fgfc_gap.sv, docs/formal.md; Yosys
  // read_verilog -formal defines FORMAL): a gap counter never exceeds Gap - 1, and the slots in use hold
  // distinct flow ids (a request for a tracked flow goes to that flow's slot, never to a second one).
  // The gap rule itself is restated here for one arbitrary flow id f_flow, with the slot counter it
  // rests on, so that it is 1-inductive at any Gap: f_left, the cycles left in f_flow's gap after its
  // frame was taken, equals the gap counter of the slot in use for f_flow. F_GAP is Gap - 1 written out
  // again, not GAP_LOAD, so that a wrong GAP_LOAD fails the proof.
  localparam [CW-1:0] F_GAP = CW'(Gap - 1);
  (* anyconst *) reg [31:0] f_flow;
  reg [CW-1:0] f_left;
  reg          f_linked;
  wire         f_offered = frm_valid_o && frm_flow_id_o == f_flow;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) f_left <= {CW{1'b0}};
    else if (f_offered && frm_ready_i) f_left <= F_GAP;
    else if (f_left != {CW{1'b0}}) f_left <= f_left - 1'b1;
  end
  integer f_i, f_j;
  always @* begin
    f_linked = f_left == {CW{1'b0}};
    for (f_i = 0; f_i < Slots; f_i = f_i + 1) begin
      assert(cnt_q[f_i] <= F_GAP);
      for (f_j = f_i + 1; f_j < Slots; f_j = f_j + 1)
        assert(!(in_use[f_i] && in_use[f_j] && fid_q[f_i] == fid_q[f_j]));
      if (in_use[f_i] && fid_q[f_i] == f_flow && cnt_q[f_i] == f_left) f_linked = 1'b1;
    end
    assert(f_linked);
    assert(!(f_offered && f_left != {CW{1'b0}}));
  end
`endif

  // Parameter checks at elaboration: an illegal value instantiates a module that does not exist and
  // whose name states the rule, so Verilator and Yosys both stop and name it.
  generate
    if (Slots < 1 || Slots > 64) begin : g_bad_Slots
      ERROR_fgfc_generator_Slots_must_be_in_1_to_64 u_param_error ();
    end
    if (Gap < 1 || Gap > 65535) begin : g_bad_Gap
      ERROR_fgfc_generator_Gap_must_be_in_1_to_65535 u_param_error ();
    end
  endgenerate

`ifndef SYNTHESIS
`ifndef FORMAL  // Yosys' formal read (verification/formal) parses no concurrent assertions
  // ---- Assertions and cover points: simulation only (Verilator --assert / --coverage-user in
  // verification/rtl); Yosys defines SYNTHESIS, or FORMAL in the proofs, and never sees them. ----
  reg             sva_on_q;    // out of reset (the checks sample this flop, not the asynchronous reset)
  reg             sva_busy_q;  // a request accepted, its status not yet taken
  reg [Slots-1:0] sva_sent_q, sva_sent_xoff_q;  // per slot: a frame went out for its flow, and which
  integer j;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sva_on_q <= 1'b0;
      sva_busy_q <= 1'b0;
      sva_sent_q <= {Slots{1'b0}};
    end else begin
      sva_on_q <= 1'b1;
      if (req_fire) sva_busy_q <= 1'b1;
      else if (rsp_valid_o && rsp_ready_i) sva_busy_q <= 1'b0;
      for (i = 0; i < Slots; i = i + 1) begin
        if (emit_fire && emit_sel == SW'(i)) sva_sent_q[i] <= 1'b1;
        else if (!in_use[i]) sva_sent_q[i] <= 1'b0;
      end
    end
  end
  always @(posedge clk_i) if (emit_fire) sva_sent_xoff_q[emit_sel] <= frm_xoff_o;
  reg [Slots-1:0] sva_gap_last;  // the gap counter's last cycle: 1 -> 0
  always @* for (i = 0; i < Slots; i = i + 1) sva_gap_last[i] = cnt_q[i] == {{(CW - 1){1'b0}}, 1'b1};

  // Handshake: the status holds until taken; one request in flight, answered exactly once in the next
  // cycle; a frame offered stays offered until taken (its contents may be replaced by a newer request
  // for the flow: latest wins, as in the model).
  a_rsp_hold: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      rsp_valid_o && !rsp_ready_i |=> rsp_valid_o && $stable(rsp_status_o))
    else $error("fgfc_generator: status withdrawn or changed before it was taken");
  a_rsp_once: assert property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o |-> sva_busy_q && !req_ready_o)
    else $error("fgfc_generator: status without an accepted request");
  a_answered: assert property (@(posedge clk_i) disable iff (!sva_on_q) req_fire |=> rsp_valid_o)
    else $error("fgfc_generator: accepted request not answered in the next cycle");
  a_frm_hold: assert property (@(posedge clk_i) disable iff (!sva_on_q) frm_valid_o && !frm_ready_i |=> frm_valid_o)
    else $error("fgfc_generator: frame withdrawn before it was taken");
  // Invariants: a gap counter never leaves 0 .. Gap-1 (it stops at 0, it does not wrap); no two slots in
  // use hold the same flow (one pending frame per flow); FULL only when no slot could take the request.
  always @(posedge clk_i) begin
    if (sva_on_q) begin
      for (i = 0; i < Slots; i = i + 1) begin
        /* verilator lint_off CMPCONST */  // always true when Gap is a power of two: still the contract
        a_gap_range: assert (cnt_q[i] <= GAP_LOAD) else $error("fgfc_generator: gap counter of slot %0d wrapped", i);
        /* verilator lint_on CMPCONST */
        for (j = i + 1; j < Slots; j = j + 1)
          a_flow_unique: assert (!(in_use[i] && in_use[j] && fid_q[i] == fid_q[j]))
            else $error("fgfc_generator: slots %0d and %0d both hold flow %0d", i, j, fid_q[i]);
      end
    end
  end
  a_full_means_full: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      req_fire && status == ST_FULL |-> !hit && !any_free)
    else $error("fgfc_generator: FULL while a slot could take the request");

  // Functional coverage: XOFF and XON requests and frames, both transitions of one flow's frames
  // (XOFF then XON, XON then XOFF), a pending XOFF replaced by XON and the reverse, FULL, coalescing, a
  // gap counter running out with a frame waiting, every slot in use, a frame held by the link.
  c_xoff_req: cover property (@(posedge clk_i) disable iff (!sva_on_q) wr_en && req_xoff_i);
  c_xon_req: cover property (@(posedge clk_i) disable iff (!sva_on_q) wr_en && !req_xoff_i);
  c_xoff_frame: cover property (@(posedge clk_i) disable iff (!sva_on_q) emit_fire && frm_xoff_o);
  c_xon_frame: cover property (@(posedge clk_i) disable iff (!sva_on_q) emit_fire && !frm_xoff_o);
  c_frame_xoff_to_xon: cover property (@(posedge clk_i) disable iff (!sva_on_q)
      emit_fire && sva_sent_q[emit_sel] && sva_sent_xoff_q[emit_sel] && !frm_xoff_o);
  c_frame_xon_to_xoff: cover property (@(posedge clk_i) disable iff (!sva_on_q)
      emit_fire && sva_sent_q[emit_sel] && !sva_sent_xoff_q[emit_sel] && frm_xoff_o);
  c_pending_xoff_to_xon: cover property (@(posedge clk_i) disable iff (!sva_on_q)
      wr_en && hit && pend_q[match_sel] && xoff_q[match_sel] && !req_xoff_i);
  c_pending_xon_to_xoff: cover property (@(posedge clk_i) disable iff (!sva_on_q)
      wr_en && hit && pend_q[match_sel] && !xoff_q[match_sel] && req_xoff_i);
  c_full: cover property (@(posedge clk_i) disable iff (!sva_on_q) req_fire && status == ST_FULL);
  c_coalesced: cover property (@(posedge clk_i) disable iff (!sva_on_q) req_fire && status == ST_COALESCED);
  c_gap_runs_out: cover property (@(posedge clk_i) disable iff (!sva_on_q) |(pend_q & sva_gap_last));
  c_all_slots_in_use: cover property (@(posedge clk_i) disable iff (!sva_on_q) &in_use);
  c_frm_stall: cover property (@(posedge clk_i) disable iff (!sva_on_q) frm_valid_o && !frm_ready_i);
`endif
`endif
endmodule

`default_nettype wire
