// Random driver for the seeded-violation check (seed_violations.py): drives one small parameter point of
// a block with random requests, ready and fields, no scoreboard; only the RTL's own assertions judge.
// Usage: vdut [rand-init seed] [cycles]
#include <verilated.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include "Vdut.h"
static uint64_t s = 88172645463325252ull;
static uint64_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
static bool p(int pct) { return rnd() % 100 < (uint64_t)pct; }
int main(int argc, char** argv) {
  auto* ctx = new VerilatedContext;
  if (argc > 1) { ctx->randReset(2); ctx->randSeed(atoi(argv[1])); s += atoi(argv[1]); }
  Verilated::threadContextp(ctx);
  auto* d = new Vdut(ctx, "dut");
#if defined(BLK_FLOWLET) || defined(BLK_FLOWSAIL)
  for (int i = 0; i < 8; ++i) d->seed_i[i] = 0x9e3779b9u * (i + 1);
#endif
  d->req_valid_i = 0; d->rsp_ready_i = 0;
  d->rst_ni = 1; d->eval(); d->rst_ni = 0; d->eval();
  for (int c = 0; c < 4; ++c) { d->clk_i = 0; d->eval(); d->clk_i = 1; d->eval(); }
  d->rst_ni = 1;
  const int cycles = argc > 2 ? atoi(argv[2]) : 50000;
  for (int c = 0; c < cycles; ++c) {
    d->req_valid_i = p(70);
    d->rsp_ready_i = p(60);
#ifdef BLK_FLOWLET
    d->req_op_i = rnd() % 12 == 0; d->req_key_i = rnd() % 24; d->req_port_count_i = 1 + rnd() % 8;
#endif
#ifdef BLK_FGFC
    d->req_flow_id_i = rnd() % 6; d->req_xoff_i = p(50); d->req_period_i = rnd(); d->req_credit_i = rnd() & 0xffffff;
    d->frm_ready_i = p(40);
#endif
#ifdef BLK_FLOWCUT
    d->req_op_i = rnd() % 7; d->req_key_i = rnd() % 8; d->req_index_i = rnd() % 4;
    d->req_bytes_i = p(50) ? rnd() % 20 : (uint32_t)rnd(); d->req_out_port_i = rnd(); d->req_in_port_i = rnd();
    d->req_rtt_avg_i = rnd(); d->req_last_rtt_i = rnd(); d->req_rtt_diff_avg_i = rnd(); d->req_drain_i = p(50);
#endif
#ifdef BLK_FLOWSAIL
    d->req_op_i = rnd() % 4; d->req_fid_i = rnd() % 8; d->req_bytes_i = rnd() % 900; d->req_queue_i = rnd() % 4;
    d->req_congested_i = p(50); d->req_pause_i = p(50);
    d->req_thr_load_i = p(10); d->req_q_low_i = rnd() % 3000; d->req_q_high_i = rnd() % 6000;
    d->req_seed_load_i = p(5);
#endif
#ifdef BLK_REORDER
    d->req_conn_i = rnd() % 2; d->req_sn_i = rnd() % 8; d->req_units_i = 1 + rnd() % MAXU;
#endif
    d->clk_i = 0; d->eval(); d->clk_i = 1; d->eval();
  }
  d->final();
  printf("no assertion fired in %d cycles\n", cycles);
  return 0;
}
