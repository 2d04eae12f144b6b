// FlowSail per-port flow control (Li et al., "FlowSail", IEEE/ACM ToN 2024, Section IV): flow-to-queue
// mapping and hierarchical congested-flow identification (Algorithm 1), dequeue and RESUME (Algorithm 2),
// control frames and isolation in rsvQ (Algorithm 3), S_fair of equation (1) by a shift whose amount is
// ceil(log2 flowNum) from a leading-one detector. Matches netasic::Flowsail (tlm/blocks/flowsail.h)
// cycle for cycle, including its random queue choice (xoshiro256** seeded like netasic::Rng).
//
// Queues 0 .. Queues-2 are normal queues, Queues-1 is rsvQ. NFT and CFT are RAMs indexed by CRC-32 of the
// 32-bit flow id (no chaining: colliding flows share an entry); QT (length, flowNum, cfNum per queue) is
// in flip-flops, so the empty-queue bitmap and the paused-queue bitmap are plain comparisons.
//
// Requests (valid/ready), one at a time, latency 3 cycles (hash + NFT/CFT read in c+1, decide and write
// back in c+2, response from c+3); the request port is ready again the cycle after the response is taken:
//   op 0 ENQUEUE fid, bytes                    -> status, queue, congested mark (and whether Qh made it),
//                                                 PAUSE (pauseNum 0 -> 1)
//   op 1 DEQUEUE fid, queue, bytes, congested   -> status, RESUME (pauseNum 1 -> 0)
//   op 2 CONTROL fid, pause (1 PAUSE, 0 RESUME) -> status, paused-queue bitmap (cfNum != 0)
//   op 3 RELEASE fid                           -> status: OK if the flow's CFT entry was resumed and empty
//                                                 and is now free, else NOT_FOUND (nothing changes)
// Status: 0 OK, 1 OVERFLOW, 2 UNDERFLOW, 3 CFT_COLLISION, 4 NOT_FOUND (refused requests change nothing).
// With any request: req_thr_load_i loads Ql and Qh from req_q_low_i / req_q_high_i (kept until the next
// load; QLow / QHigh after reset), and the request already uses them; req_seed_load_i loads the random
// source from seed_i (an owner whose queue choice draws from a stream shared with other users hands the
// stream's state over with the request that may draw).
// DeferredRelease 0: a congested flow's CFT entry is freed as soon as the flow is resumed and has nothing
// in rsvQ (DEQUEUE or CONTROL RESUME); 1: it stays until a RELEASE frees it (the owner's hysteresis).
// The choices where the paper's pseudo-code is loose are the model's (listed in tlm/blocks/flowsail.h).
// After reset both RAMs are cleared, one entry per cycle (max(NftEntries, CftEntries) cycles), while
// the random source loads seed_i.
// Storage: RAM NftEntries x (32 + log2 Queues + SizeBits + PauseBits), RAM CftEntries x (35 + SizeBits
// + PauseBits + log2 Queues), flip-flops Queues x (SizeBits + FlownumBits + PauseBits) + 2 x SizeBits (Ql, Qh).
`default_nettype none

module flowsail #(
  parameter integer Queues      = 8,      // 2 .. 32 (Queues - 1 normal queues + rsvQ)
  parameter integer NftEntries  = 1024,   // power of two, 2 .. 2^20
  parameter integer CftEntries  = 256,    // power of two, 2 .. 2^20
  parameter integer QLow        = 20000,  // Ql after reset, bytes
  parameter integer QHigh       = 60000,  // Qh after reset, bytes, QLow <= QHigh < 2^SizeBits
  parameter integer SizeBits    = 24,     // size and queue-length counters: 4 .. 32
  parameter integer PauseBits   = 8,      // pauseNum and cfNum: 2 .. 16
  parameter integer FlownumBits = 16,     // flowNum: 2 .. 20
  parameter integer DeferredRelease = 0   // 0 or 1: CFT entries are freed only by RELEASE
) (
  input  wire                        clk_i,
  input  wire                        rst_ni,
  input  wire [255:0]                seed_i,  // netasic::Rng state {s3, s2, s1, s0}
  input  wire                        req_valid_i,
  output wire                        req_ready_o,
  input  wire [1:0]                  req_op_i,
  input  wire [31:0]                 req_fid_i,
  input  wire [SizeBits-1:0]         req_bytes_i,
  input  wire [$clog2(Queues)-1:0]   req_queue_i,
  input  wire                        req_congested_i,
  input  wire                        req_pause_i,
  input  wire                        req_thr_load_i,   // load Ql / Qh with this request
  input  wire [SizeBits-1:0]         req_q_low_i,
  input  wire [SizeBits-1:0]         req_q_high_i,
  input  wire                        req_seed_load_i,  // load the random source from seed_i with this request
  output wire                        rsp_valid_o,
  input  wire                        rsp_ready_i,
  output reg  [2:0]                  rsp_status_o,
  output reg  [$clog2(Queues)-1:0]   rsp_queue_o,
  output reg                         rsp_congested_o,
  output reg                         rsp_over_high_o,  // marked because the queue was above Qh
  output reg                         rsp_pause_o,
  output reg                         rsp_resume_o,
  output reg  [Queues-1:0]           rsp_paused_queues_o
);
  localparam integer QW = $clog2(Queues);
  localparam integer NIW = $clog2(NftEntries);
  localparam integer CIW = $clog2(CftEntries);
  localparam integer PIW = NIW > CIW ? NIW : CIW;  // RAM clear pointer
  localparam integer SB = SizeBits, PB = PauseBits, FB = FlownumBits;
  localparam integer NW = 32 + QW + SB + PB;            // NFT {pause, size, qidx, fid}
  localparam integer CW = 1 + 32 + SB + PB + 2 + QW;    // CFT {orig_q, orig_paused, resumed, pause, size, fid, valid}
  localparam [QW-1:0] RSV = QW'(Queues - 1);
  localparam [SB-1:0] Q_LOW = SB'(QLow), Q_HIGH = SB'(QHigh);
  localparam [PB-1:0] PAUSE_MAX = {PB{1'b1}};
  localparam [FB-1:0] FLOWNUM_MAX = {FB{1'b1}};
  localparam [1:0] OP_ENQ = 2'd0, OP_DEQ = 2'd1, OP_CTL = 2'd2, OP_REL = 2'd3;
  localparam [2:0] S_OK = 3'd0, S_OVERFLOW = 3'd1, S_UNDERFLOW = 3'd2, S_CFT_COLLISION = 3'd3, S_NOT_FOUND = 3'd4;
  localparam [2:0] ST_INIT = 3'd0, ST_IDLE = 3'd1, ST_READ = 3'd2, ST_EXEC = 3'd3, ST_RSP = 3'd4;

  // The parameter checks at the end of the module stop elaboration; this prints the offending values too
  // (Yosys while it elaborates, a simulator at time 0). $display, not $error: Yosys 0.23 has no $error
  // here.
  initial begin
    if (Queues < 2 || Queues > 32) $display("flowsail: Queues (%0d) outside 2 .. 32", Queues);
    if (NftEntries < 2 || NftEntries > (1 << 20) || (NftEntries & (NftEntries - 1)) != 0)
      $display("flowsail: NftEntries (%0d) must be a power of two in 2 .. 1048576", NftEntries);
    if (CftEntries < 2 || CftEntries > (1 << 20) || (CftEntries & (CftEntries - 1)) != 0)
      $display("flowsail: CftEntries (%0d) must be a power of two in 2 .. 1048576", CftEntries);
    if (SizeBits < 4 || SizeBits > 32) $display("flowsail: SizeBits (%0d) outside 4 .. 32", SizeBits);
    if (PauseBits < 2 || PauseBits > 16) $display("flowsail: PauseBits (%0d) outside 2 .. 16", PauseBits);
    if (FlownumBits < 2 || FlownumBits > 20) $display("flowsail: FlownumBits (%0d) outside 2 .. 20", FlownumBits);
    if (DeferredRelease != 0 && DeferredRelease != 1)
      $display("flowsail: DeferredRelease (%0d) must be 0 or 1", DeferredRelease);
    if (QLow < 0 || QLow > QHigh || (SizeBits < 31 && QHigh >= (1 << SizeBits)))
      $display("flowsail: need 0 <= QLow (%0d) <= QHigh (%0d) < 2^SizeBits", QLow, QHigh);
  end

  reg [2:0]     state_q, state_d;
  reg [PIW:0]   ptr_q, ptr_d;
  reg [1:0]     op_q;
  reg [31:0]    fid_q;
  reg [SB-1:0]  bytes_q;
  reg [QW-1:0]  queue_q;
  reg           cong_in_q, pause_in_q;
  reg [SB-1:0]  q_low_q, q_high_q;  // Ql, Qh
  wire          req_fire = req_valid_i && req_ready_o;
  assign req_ready_o = state_q == ST_IDLE;
  assign rsp_valid_o = state_q == ST_RSP;

  // The entries' index: CRC-32 of the flow id (crc32_key.svh, the index function of every table), computed
  // only in ST_READ and ST_EXEC, the two states that address the RAMs with it (ST_INIT uses the clear
  // pointer), and 0 in the others: a cycle-based simulator (Verilator) then skips its 32 serial bit steps
  // there.
  localparam integer KeyWidth = 32;  // the flow id, for crc32_key_f
  `include "crc32_key.svh"
  reg [31:0]     crc;
  always @* begin
    crc = 32'd0;
    if (state_q == ST_READ || state_q == ST_EXEC) crc = crc32_key_f(fid_q);
  end
  wire [NIW-1:0] nft_idx = crc[NIW-1:0];
  wire [CIW-1:0] cft_idx = crc[CIW-1:0];
  wire           unused_crc = ^crc;  // the tables use the low index bits only

  // NFT and CFT: one synchronous read port and one write port each.
  reg [NW-1:0] nft [0:NftEntries-1];
  reg [CW-1:0] cft [0:CftEntries-1];
  reg [NW-1:0] nft_rd_q;
  reg [CW-1:0] cft_rd_q;
  reg          nft_we, cft_we;
  reg [NIW-1:0] nft_wa;
  reg [CIW-1:0] cft_wa;
  reg [NW-1:0] nft_wd;
  reg [CW-1:0] cft_wd;
  wire         rd_en = state_q == ST_READ;
  always @(posedge clk_i) begin
    if (rd_en) begin
      nft_rd_q <= nft[nft_idx];
      cft_rd_q <= cft[cft_idx];
    end
    if (nft_we) nft[nft_wa] <= nft_wd;
    if (cft_we) cft[cft_wa] <= cft_wd;
  end

  // Queue table in flip-flops.
  reg [SB-1:0] len_q  [0:Queues-1];
  reg [FB-1:0] fnum_q [0:Queues-1];
  reg [PB-1:0] cf_q   [0:Queues-1];
  reg [SB-1:0] len_d  [0:Queues-1];
  reg [FB-1:0] fnum_d [0:Queues-1];
  reg [PB-1:0] cf_d   [0:Queues-1];

  // Entries read.
  wire [31:0]   n_fid = nft_rd_q[31:0];
  wire [QW-1:0] n_q = nft_rd_q[32 +: QW];
  wire [SB-1:0] n_size = nft_rd_q[32 + QW +: SB];
  wire [PB-1:0] n_pn = nft_rd_q[32 + QW + SB +: PB];
  wire          c_valid = cft_rd_q[0];
  wire [31:0]   c_fid = cft_rd_q[1 +: 32];
  wire [SB-1:0] c_size = cft_rd_q[33 +: SB];
  wire [PB-1:0] c_pn = cft_rd_q[33 + SB +: PB];
  wire          c_resumed = cft_rd_q[33 + SB + PB];
  wire          c_orig_paused = cft_rd_q[34 + SB + PB];
  wire [QW-1:0] c_orig_q = cft_rd_q[35 + SB + PB +: QW];
  wire          c_hit = c_valid && c_fid == fid_q;

  // The operation's datapath (below, after the random source) is evaluated in ST_EXEC only.
  integer k;
  reg          any_empty;  // an empty normal queue, and the lowest one
  reg [QW-1:0] empty_sel;

  // New flow, no empty normal queue: a random normal queue (Rng::below(Queues - 1)).
  wire          enq = op_q == OP_ENQ;
  wire          new_normal = enq && !c_hit && n_size == {SB{1'b0}};
  wire [QW-1:0] rnd_q;
  xoshiro256ss #(.RangeWidth(QW)) u_rng (
    .clk_i  (clk_i),
    .load_i (state_q == ST_INIT || (req_fire && req_seed_load_i)),
    .seed_i (seed_i),
    .next_i (state_q == ST_EXEC && new_normal && !any_empty),
    .range_i((QW + 1)'(Queues - 1)),
    .below_o(rnd_q)
  );

  // The operation's datapath. Every consumer is qualified by ST_EXEC (the write-backs, the response
  // registers, the random draw), so it is evaluated in that state only and holds 0 in the others: a
  // cycle-based simulator (Verilator, the co-simulation) then skips it in the other three cycles of an
  // operation and during the RAM clear after reset. The flip-flops and ports see the same values.
  reg          use_cft;  // the operation's entry is the CFT's (CONTROL: always)
  reg [QW-1:0] q;        // the queue it works on
  reg [SB-1:0] size, len;
  reg [PB-1:0] pn;
  reg [FB-1:0] fnum;
  reg [SB:0]   size_add, len_add;  // enqueue: overflow is a carry out of the SizeBits-wide counters
  reg          overflow;
  reg [FB-1:0] fnum_enq, fnum_m1;
  reg [4:0]    log2_ceil;
  reg [SB-1:0] s_fair;
  reg          over_high, over_low, cong_raw, pn_full;
  reg          underflow;  // dequeue
  reg [SB-1:0] size_sub, len_sub;
  reg [FB-1:0] fnum_deq;
  reg          pn_dec;
  reg [PB-1:0] pn_deq;
  always @* begin
    any_empty = 1'b0;
    empty_sel = {QW{1'b0}};
    use_cft = 1'b0;
    q = {QW{1'b0}};
    size = {SB{1'b0}};
    len = {SB{1'b0}};
    pn = {PB{1'b0}};
    fnum = {FB{1'b0}};
    size_add = {(SB + 1){1'b0}};
    len_add = {(SB + 1){1'b0}};
    overflow = 1'b0;
    fnum_enq = {FB{1'b0}};
    fnum_m1 = {FB{1'b0}};
    log2_ceil = 5'd0;
    s_fair = {SB{1'b0}};
    over_high = 1'b0;
    over_low = 1'b0;
    cong_raw = 1'b0;
    pn_full = 1'b0;
    underflow = 1'b0;
    size_sub = {SB{1'b0}};
    len_sub = {SB{1'b0}};
    fnum_deq = {FB{1'b0}};
    pn_dec = 1'b0;
    pn_deq = {PB{1'b0}};
    if (state_q == ST_EXEC) begin
      // Empty-queue bitmap of the normal queues and its lowest set bit.
      for (k = Queues - 2; k >= 0; k = k - 1)
        if (len_q[k] == {SB{1'b0}}) begin
          any_empty = 1'b1;
          empty_sel = QW'(k);
        end
      // The entry and queue the operation works on.
      use_cft = enq ? c_hit : op_q == OP_DEQ ? queue_q == RSV : 1'b1;
      q = !enq ? queue_q : c_hit ? RSV : n_size != {SB{1'b0}} ? n_q : any_empty ? empty_sel : rnd_q;
      size = use_cft ? c_size : n_size;
      pn = use_cft ? c_pn : n_pn;
      len = len_q[q];
      fnum = fnum_q[q];
      // Enqueue arithmetic.
      size_add = {1'b0, size} + {1'b0, bytes_q};
      len_add = {1'b0, len} + {1'b0, bytes_q};
      overflow = size_add[SB] || len_add[SB];
      fnum_enq = (size == {SB{1'b0}} && fnum != FLOWNUM_MAX) ? fnum + 1'b1 : fnum;
      // S_fair = Q >> ceil(log2 flowNum): ceil(log2 n) is the bit length of n - 1 (leading-one position + 1).
      fnum_m1 = fnum_enq == {FB{1'b0}} ? {FB{1'b0}} : fnum_enq - 1'b1;
      for (k = 0; k < FB; k = k + 1)
        if (fnum_m1[k]) log2_ceil = 5'(k + 1);
      s_fair = len_add[SB-1:0] >> log2_ceil;
      over_high = len_add[SB-1:0] > q_high_q;
      over_low = len_add[SB-1:0] > q_low_q;
      cong_raw = over_high || (over_low && size_add[SB-1:0] > s_fair);
      pn_full = pn == PAUSE_MAX;
      // Dequeue arithmetic.
      underflow = bytes_q > size || bytes_q > len;
      size_sub = size - bytes_q;
      len_sub = len - bytes_q;
      fnum_deq = (size_sub == {SB{1'b0}} && fnum != {FB{1'b0}}) ? fnum - 1'b1 : fnum;
      pn_dec = cong_in_q && pn != {PB{1'b0}};
      pn_deq = pn_dec ? pn - 1'b1 : pn;
    end
  end
  localparam [0:0] DEFER = DeferredRelease != 0;
  wire          c_idle = c_hit && c_resumed && c_size == {SB{1'b0}} && c_pn == {PB{1'b0}};

  reg [2:0]    status;
  reg          congested, pause, resume;
  reg [SB-1:0] size_new;
  reg [PB-1:0] pn_new;
  reg          qt_we, nft_we_x, cft_we_x;  // write-backs of the operation
  reg [SB-1:0] len_new;
  reg [FB-1:0] fnum_new;
  reg          cft_valid_new, cft_resumed_new, cft_orig_paused_new;
  reg [QW-1:0] cft_orig_q_new;
  reg          cf_inc_rsv, cf_inc_orig, cf_dec_rsv, cf_dec_orig;
  always @* begin
    status = S_OK;
    congested = 1'b0;
    pause = 1'b0;
    resume = 1'b0;
    size_new = size;
    pn_new = pn;
    qt_we = 1'b0;
    len_new = len;
    fnum_new = fnum;
    nft_we_x = 1'b0;
    cft_we_x = 1'b0;
    cft_valid_new = c_valid;
    cft_resumed_new = c_resumed;
    cft_orig_paused_new = c_orig_paused;
    cft_orig_q_new = c_orig_q;
    cf_inc_rsv = 1'b0;
    cf_inc_orig = 1'b0;
    cf_dec_rsv = 1'b0;
    cf_dec_orig = 1'b0;
    if (state_q == ST_EXEC) begin
      case (op_q)
        OP_ENQ: begin
          if (overflow) begin
            status = S_OVERFLOW;
          end else begin
            size_new = size_add[SB-1:0];
            len_new = len_add[SB-1:0];
            fnum_new = fnum_enq;
            qt_we = 1'b1;
            // A packet is marked only if pauseNum can count it.
            congested = cong_raw && !pn_full;
            if (congested) pn_new = pn + 1'b1;
            pause = congested && pn == {PB{1'b0}};
            nft_we_x = !c_hit;
            cft_we_x = c_hit;
          end
        end
        OP_DEQ: begin
          if (use_cft && !c_hit) begin
            status = S_NOT_FOUND;
          end else if (underflow) begin
            status = S_UNDERFLOW;
          end else begin
            size_new = size_sub;
            len_new = len_sub;
            fnum_new = fnum_deq;
            qt_we = 1'b1;
            pn_new = pn_deq;
            resume = pn_dec && pn_deq == {PB{1'b0}};
            nft_we_x = !use_cft;
            cft_we_x = use_cft;
            if (!DEFER && use_cft && size_sub == {SB{1'b0}} && pn_deq == {PB{1'b0}} && c_resumed)
              cft_valid_new = 1'b0;
          end
        end
        OP_CTL: begin
          if (pause_in_q) begin
            if (!c_hit && c_valid) begin
              status = S_CFT_COLLISION;
            end else begin
              cft_we_x = 1'b1;
              if (!c_hit) begin
                // A new CFT entry; in-order support holds the packets already in the original queue.
                cft_valid_new = 1'b1;
                size_new = {SB{1'b0}};
                pn_new = {PB{1'b0}};
                cft_orig_paused_new = n_size != {SB{1'b0}};
                cft_orig_q_new = n_size != {SB{1'b0}} ? n_q : {QW{1'b0}};
                cf_inc_orig = n_size != {SB{1'b0}};
              end
              cft_resumed_new = 1'b0;
              cf_inc_rsv = 1'b1;
            end
          end else begin
            if (!c_hit) begin
              status = S_NOT_FOUND;
            end else begin
              cft_we_x = 1'b1;
              cf_dec_rsv = 1'b1;
              cf_dec_orig = c_orig_paused;
              cft_orig_paused_new = 1'b0;
              cft_resumed_new = 1'b1;
              if (!DEFER && c_size == {SB{1'b0}} && c_pn == {PB{1'b0}}) cft_valid_new = 1'b0;
            end
          end
        end
        default: begin  // RELEASE
          if (!c_idle) begin
            status = S_NOT_FOUND;
          end else begin
            cft_we_x = 1'b1;
            cft_valid_new = 1'b0;
          end
        end
      endcase
    end
  end

  wire [QW-1:0] n_q_new = new_normal ? q : n_q;
  wire [31:0]   n_fid_new = new_normal ? fid_q : n_fid;
  always @* begin
    nft_we = nft_we_x;
    cft_we = cft_we_x;
    nft_wa = nft_idx;
    cft_wa = cft_idx;
    nft_wd = {pn_new, size_new, n_q_new, n_fid_new};
    cft_wd = {cft_orig_q_new, cft_orig_paused_new, cft_resumed_new, pn_new, size_new, fid_q, cft_valid_new};
    if (state_q == ST_INIT) begin
      nft_we = ptr_q < (PIW + 1)'(NftEntries);
      cft_we = ptr_q < (PIW + 1)'(CftEntries);
      nft_wa = ptr_q[NIW-1:0];
      cft_wa = ptr_q[CIW-1:0];
      nft_wd = {NW{1'b0}};
      cft_wd = {CW{1'b0}};
    end
  end

  // Queue table next state (cfNum saturates both ways); it changes in ST_EXEC only.
  always @* begin
    for (k = 0; k < Queues; k = k + 1) begin
      len_d[k] = len_q[k];
      fnum_d[k] = fnum_q[k];
      cf_d[k] = cf_q[k];
    end
    if (state_q == ST_EXEC) for (k = 0; k < Queues; k = k + 1) begin
      if (qt_we && q == QW'(k)) begin
        len_d[k] = len_new;
        fnum_d[k] = fnum_new;
      end
      if (((cf_inc_rsv && k == Queues - 1) || (cf_inc_orig && n_q == QW'(k))) && cf_q[k] != PAUSE_MAX)
        cf_d[k] = cf_q[k] + 1'b1;
      if (((cf_dec_rsv && k == Queues - 1) || (cf_dec_orig && c_orig_q == QW'(k))) && cf_q[k] != {PB{1'b0}})
        cf_d[k] = cf_q[k] - 1'b1;
    end
  end

  always @* begin
    state_d = state_q;
    ptr_d = ptr_q;
    case (state_q)
      ST_INIT: begin
        ptr_d = ptr_q + 1'b1;
        if (ptr_q == (PIW + 1)'((NftEntries > CftEntries ? NftEntries : CftEntries) - 1)) state_d = ST_IDLE;
      end
      ST_IDLE: if (req_fire) state_d = ST_READ;
      ST_READ: state_d = ST_EXEC;
      ST_EXEC: state_d = ST_RSP;
      ST_RSP: if (rsp_ready_i) state_d = ST_IDLE;
      default: state_d = ST_IDLE;
    endcase
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      q_low_q <= Q_LOW;
      q_high_q <= Q_HIGH;
    end else if (req_fire && req_thr_load_i) begin
      q_low_q <= req_q_low_i;
      q_high_q <= req_q_high_i;
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= ST_INIT;
      ptr_q <= {(PIW + 1){1'b0}};
      for (k = 0; k < Queues; k = k + 1) begin
        len_q[k] <= {SB{1'b0}};
        fnum_q[k] <= {FB{1'b0}};
        cf_q[k] <= {PB{1'b0}};
      end
    end else begin
      state_q <= state_d;
      ptr_q <= ptr_d;
      if (state_q == ST_EXEC) for (k = 0; k < Queues; k = k + 1) begin
        len_q[k] <= len_d[k];
        fnum_q[k] <= fnum_d[k];
        cf_q[k] <= cf_d[k];
      end
    end
  end

  always @(posedge clk_i) begin
    if (req_fire) begin
      op_q <= req_op_i;
      fid_q <= req_fid_i;
      bytes_q <= req_bytes_i;
      queue_q <= req_queue_i;
      cong_in_q <= req_congested_i;
      pause_in_q <= req_pause_i;
    end
    if (state_q == ST_EXEC) begin
      rsp_status_o <= status;
      rsp_queue_o <= q;
      rsp_congested_o <= congested;
      rsp_over_high_o <= congested && over_high;
      rsp_pause_o <= pause;
      rsp_resume_o <= resume;
    end
  end

  // The paused-queue bitmap after the request (QT does not change while the response waits).
  always @* begin
    for (k = 0; k < Queues; k = k + 1) rsp_paused_queues_o[k] = cf_q[k] != {PB{1'b0}};
  end

  // Parameter checks at elaboration: an illegal value instantiates a module that does not exist and
  // whose name states the rule, so Verilator and Yosys both stop and name it.
  generate
    if (Queues < 2 || Queues > 32) begin : g_bad_Queues
      ERROR_flowsail_Queues_must_be_in_2_to_32 u_param_error ();
    end
    if (NftEntries < 2 || NftEntries > (1 << 20) || (NftEntries & (NftEntries - 1)) != 0) begin : g_bad_NftEntries
      ERROR_flowsail_NftEntries_must_be_a_power_of_two_in_2_to_1048576 u_param_error ();
    end
    if (CftEntries < 2 || CftEntries > (1 << 20) || (CftEntries & (CftEntries - 1)) != 0) begin : g_bad_CftEntries
      ERROR_flowsail_CftEntries_must_be_a_power_of_two_in_2_to_1048576 u_param_error ();
    end
    if (SizeBits < 4 || SizeBits > 32) begin : g_bad_SizeBits
      ERROR_flowsail_SizeBits_must_be_in_4_to_32 u_param_error ();
    end
    if (DeferredRelease != 0 && DeferredRelease != 1) begin : g_bad_DeferredRelease
      ERROR_flowsail_DeferredRelease_must_be_0_or_1 u_param_error ();
    end
    if (PauseBits < 2 || PauseBits > 16) begin : g_bad_PauseBits
      ERROR_flowsail_PauseBits_must_be_in_2_to_16 u_param_error ();
    end
    if (FlownumBits < 2 || FlownumBits > 20) begin : g_bad_FlownumBits
      ERROR_flowsail_FlownumBits_must_be_in_2_to_20 u_param_error ();
    end
    // (1 << 31) overflows a 32-bit integer; every integer QHigh fits 31 bits anyway.
    if (QLow < 0 || QLow > QHigh || (SizeBits < 31 && QHigh >= (1 << SizeBits))) begin : g_bad_QLow_QHigh
      ERROR_flowsail_QLow_QHigh_need_0_le_QLow_le_QHigh_lt_2_pow_SizeBits u_param_error ();
    end
  endgenerate

`ifndef SYNTHESIS
`ifndef FORMAL  // Yosys' formal read (verification/formal) parses no concurrent assertions
  // ---- Assertions and cover points: simulation only (Verilator --assert / --coverage-user in
  // verification/rtl); Yosys defines SYNTHESIS, or FORMAL in the proofs, and never sees them. ----
  // Reference state: request in flight, cycles waited, and which NFT/CFT entries were written since
  // reset (an entry never written must read as the RAM clear left it: all zero).
  reg                  sva_on_q;  // out of reset (the checks sample this flop, not the asynchronous reset)
  reg                  sva_busy_q, sva_nft_clean_q, sva_cft_clean_q;
  reg [1:0]            sva_wait_q;
  reg [NftEntries-1:0] sva_nft_w_q;
  reg [CftEntries-1:0] sva_cft_w_q;
  wire                 sva_exec = state_q == ST_EXEC;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sva_on_q <= 1'b0;
      sva_busy_q <= 1'b0;
      sva_wait_q <= 2'd0;
      /* verilator lint_off WIDTHCONCAT */  // one bit per entry
      sva_nft_w_q <= '0;
      sva_cft_w_q <= '0;
      /* verilator lint_on WIDTHCONCAT */
    end else begin
      sva_on_q <= 1'b1;
      if (req_fire) sva_busy_q <= 1'b1;
      else if (rsp_valid_o && rsp_ready_i) sva_busy_q <= 1'b0;
      if (req_fire) sva_wait_q <= 2'd1;
      else if (sva_busy_q && !rsp_valid_o && sva_wait_q != 2'd3) sva_wait_q <= sva_wait_q + 2'd1;
      if (nft_we && state_q != ST_INIT) sva_nft_w_q[nft_wa] <= 1'b1;
      if (cft_we && state_q != ST_INIT) sva_cft_w_q[cft_wa] <= 1'b1;
    end
  end
  always @(posedge clk_i) begin
    if (rd_en) begin
      sva_nft_clean_q <= !sva_nft_w_q[nft_idx];
      sva_cft_clean_q <= !sva_cft_w_q[cft_idx];
    end
  end
  // Per queue: cfNum / flowNum wrapped (0 <-> all ones in one step), cfNum 0 -> not 0 (the queue pauses)
  // and not 0 -> 0 (it resumes).
  reg [Queues-1:0] sva_wrap, sva_q_pause, sva_q_resume;
  always @* begin
    for (k = 0; k < Queues; k = k + 1) begin
      sva_wrap[k] = (cf_q[k] == PAUSE_MAX && cf_d[k] == {PB{1'b0}}) || (cf_q[k] == {PB{1'b0}} && cf_d[k] == PAUSE_MAX)
                 || (fnum_q[k] == FLOWNUM_MAX && fnum_d[k] == {FB{1'b0}})
                 || (fnum_q[k] == {FB{1'b0}} && fnum_d[k] == FLOWNUM_MAX);
      sva_q_pause[k] = cf_q[k] == {PB{1'b0}} && cf_d[k] != {PB{1'b0}};
      sva_q_resume[k] = cf_q[k] != {PB{1'b0}} && cf_d[k] == {PB{1'b0}};
    end
  end
  wire sva_enq_ok = sva_exec && enq && status == S_OK;
  wire sva_deq_ok = sva_exec && op_q == OP_DEQ && status == S_OK;
  wire sva_ctl = sva_exec && op_q == OP_CTL;
  wire sva_rel = sva_exec && op_q == OP_REL;

  // Handshake: the response and all its fields hold until taken; one request in flight, answered
  // exactly once, 3 cycles after it was accepted.
  a_rsp_hold: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      rsp_valid_o && !rsp_ready_i |=> rsp_valid_o && $stable({rsp_status_o, rsp_queue_o, rsp_congested_o,
      rsp_over_high_o, rsp_pause_o, rsp_resume_o, rsp_paused_queues_o}))
    else $error("flowsail: response withdrawn or changed before it was taken");
  a_rsp_once: assert property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o |-> sva_busy_q && !req_ready_o)
    else $error("flowsail: response without an accepted request");
  a_answered: assert property (@(posedge clk_i) disable iff (!sva_on_q) sva_busy_q && !rsp_valid_o |-> sva_wait_q < 2'd3)
    else $error("flowsail: accepted request not answered after 3 cycles");
  // Invariants: an accepted enqueue grows the flow size and the queue length by exactly its bytes (a
  // carry is refused as OVERFLOW, never wrapped) and never lowers flowNum or pauseNum; an accepted
  // dequeue never raises any of them; cfNum and flowNum saturate; PAUSE only with a congestion mark and
  // never together with RESUME; entries never written read as cleared.
  a_enq_no_wrap: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      sva_enq_ok |-> {1'b0, len_new} == len_add && {1'b0, size_new} == size_add && fnum_new >= fnum && pn_new >= pn)
    else $error("flowsail: enqueue wrapped a counter");
  a_deq_no_wrap: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      sva_deq_ok |-> len_new <= len && size_new <= size && fnum_new <= fnum && pn_new <= pn)
    else $error("flowsail: dequeue wrapped a counter");
  a_qt_saturate: assert property (@(posedge clk_i) disable iff (!sva_on_q) sva_wrap == {Queues{1'b0}})
    else $error("flowsail: cfNum or flowNum wrapped");
  a_pause_marked: assert property (@(posedge clk_i) disable iff (!sva_on_q) sva_exec && pause |-> congested && !resume)
    else $error("flowsail: PAUSE without a congestion mark, or with RESUME");
  a_nft_cleared: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      sva_exec && sva_nft_clean_q |-> nft_rd_q == {NW{1'b0}})
    else $error("flowsail: NFT entry read that neither the clear nor a request wrote");
  a_cft_cleared: assert property (@(posedge clk_i) disable iff (!sva_on_q)
      sva_exec && sva_cft_clean_q |-> cft_rd_q == {CW{1'b0}})
    else $error("flowsail: CFT entry read that neither the clear nor a request wrote");

  // Functional coverage: PAUSE (pauseNum 0 -> 1) and RESUME (1 -> 0) per flow, a queue's pause and
  // resume (cfNum 0 <-> not 0) and the CONTROL frames that cause them, CFT collision, overflow,
  // underflow, NOT_FOUND, an enqueue to rsvQ, the random queue choice (no empty queue), an NFT hash
  // collision (a new flow on another flow's entry), flowNum and pauseNum at their maximum.
  c_pause: cover property (@(posedge clk_i) disable iff (!sva_on_q) sva_exec && pause);
  c_resume: cover property (@(posedge clk_i) disable iff (!sva_on_q) sva_exec && resume);
  c_queue_pause: cover property (@(posedge clk_i) disable iff (!sva_on_q) |sva_q_pause);
  c_queue_resume: cover property (@(posedge clk_i) disable iff (!sva_on_q) |sva_q_resume);
  c_ctrl_pause: cover property (@(posedge clk_i) disable iff (!sva_on_q) sva_ctl && pause_in_q && status == S_OK);
  c_ctrl_resume: cover property (@(posedge clk_i) disable iff (!sva_on_q) sva_ctl && !pause_in_q && status == S_OK);
  c_cft_collision: cover property (@(posedge clk_i) disable iff (!sva_on_q) sva_exec && status == S_CFT_COLLISION);
  c_overflow: cover property (@(posedge clk_i) disable iff (!sva_on_q) sva_exec && status == S_OVERFLOW);
  c_underflow: cover property (@(posedge clk_i) disable iff (!sva_on_q) sva_exec && status == S_UNDERFLOW);
  c_not_found: cover property (@(posedge clk_i) disable iff (!sva_on_q) sva_exec && status == S_NOT_FOUND);
  c_rsvq_enqueue: cover property (@(posedge clk_i) disable iff (!sva_on_q) sva_enq_ok && c_hit);
  c_random_queue: cover property (@(posedge clk_i) disable iff (!sva_on_q) sva_exec && new_normal && !any_empty);
  c_nft_collision: cover property (@(posedge clk_i) disable iff (!sva_on_q)
      sva_exec && enq && !c_hit && n_size != {SB{1'b0}} && n_fid != fid_q);
  c_flownum_max: cover property (@(posedge clk_i) disable iff (!sva_on_q) sva_enq_ok && fnum == FLOWNUM_MAX);
  c_pausenum_max: cover property (@(posedge clk_i) disable iff (!sva_on_q) sva_enq_ok && cong_raw && pn_full);
  c_release: cover property (@(posedge clk_i) disable iff (!sva_on_q) sva_rel && status == S_OK);
  c_release_refused: cover property (@(posedge clk_i) disable iff (!sva_on_q) sva_rel && status == S_NOT_FOUND);
  c_thr_load: cover property (@(posedge clk_i) disable iff (!sva_on_q) req_fire && req_thr_load_i);
  c_rsp_stall: cover property (@(posedge clk_i) disable iff (!sva_on_q) rsp_valid_o && !rsp_ready_i);
`endif
`endif
endmodule

`default_nettype wire
