#!/usr/bin/env python3
"""Seeded violations: shows that every assertion in rtl/*.sv can fire. For each entry below, copies rtl/ to
a scratch directory, applies the edit (a deliberate bug), Verilates the block at one small parameter point
with --assert and assertion_driver.cpp (random stimulus, no scoreboard), runs it and checks that the
expected assertion is the one that stops it. The unmodified RTL is run first per block: nothing may fire.
One Verilator build per entry (about 50; 10-60 s each), so this is run by hand, not by CTest:

    verification/rtl/mutation/seed_violations.py [--only SUBSTRING]... [--keep]

Exit status 1 if an assertion did not fire, another fired instead, or the unmodified RTL fired.
An edit ("file", "old", "new") replaces exactly one occurrence; ("file", "DROP:a_name", "") removes that
assertion (for a bug another assertion catches first in the same cycle). A seed runs the model from random
initial state (for the RAM-clear bugs).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RTL = os.path.normpath(os.path.join(HERE, "..", "..", "..", "rtl"))
FC = ["flowcut_table.sv", "flowcut_table_cam.sv", "flowcut_table_hashed.sv", "flowcut_op_unit.sv", "crc32_key.sv"]
POINTS = {  # block: (top, files, parameters, driver defines)
    "flowlet": ("flowlet_table", ["flowlet_table.sv", "xoshiro256ss.sv"],
                ["-GEntries=8", "-GKeyWidth=32", "-GPortWidth=3"], ["-DBLK_FLOWLET"]),
    "fgfc": ("fgfc_generator", ["fgfc_generator.sv"], ["-GSlots=4", "-GGap=5"], ["-DBLK_FGFC"]),
    "cam": ("flowcut_table", FC, ['-GImpl="CAM"', "-GEntries=4", "-GKeyWidth=32", "-GInflightWidth=4"],
            ["-DBLK_FLOWCUT"]),
    "hashed": ("flowcut_table", FC, ['-GImpl="HASHED"', "-GEntries=4", "-GWays=2", "-GKeyWidth=32",
                                     "-GInflightWidth=4"], ["-DBLK_FLOWCUT"]),
    # The line-rate hashed Flowcut table (same ports as the compact one, same driver).
    "hashed_lr": ("flowcut_table_hashed_lr", ["flowcut_table_hashed_lr.sv", "flowcut_op_unit.sv", "crc32_key.sv"],
                  ["-GEntries=4", "-GWays=2", "-GKeyWidth=32", "-GInflightWidth=4"], ["-DBLK_FLOWCUT"]),
    "flowsail": ("flowsail", ["flowsail.sv", "xoshiro256ss.sv"],
                 ["-GQueues=4", "-GNftEntries=4", "-GCftEntries=2", "-GQLow=1000", "-GQHigh=3000", "-GSizeBits=12",
                  "-GPauseBits=2", "-GFlownumBits=2"], ["-DBLK_FLOWSAIL"]),
    "reorder": ("reorder_buffer", ["reorder_buffer.sv"],
                ["-GConnections=2", "-GSeqBits=3", "-GBufferUnits=4", "-GMaxPacketUnits=2"],
                ["-DBLK_REORDER", "-DMAXU=2"]),
}

# (block, assertion expected to fire, [edits], random-init seed or None)
MUTATIONS = [
    ('flowlet', 'a_rsp_hold', [('flowlet_table.sv', '  assign rsp_new_flowlet_o = rsp_new_q;', '  assign rsp_new_flowlet_o = rsp_new_q ^ rsp_ready_i;')], None),
    ('flowlet', 'a_rsp_has_req', [('flowlet_table.sv', 'assign req_ready_o = state_q == ST_IDLE;', 'assign req_ready_o = state_q == ST_IDLE || state_q == ST_RSP;')], None),
    ('flowlet', 'a_answered', [('flowlet_table.sv', "        rd_en = 1'b1;\n        state_d = ST_EXEC;", "        rd_en = 1'b1;\n        state_d = ST_READ;")], None),
    ('flowlet', 'a_ptr_range', [('flowlet_table.sv', "if (ptr_q == Entries[IDX_W:0] - 1'b1) state_d = ST_IDLE;", "if (ptr_q == Entries[IDX_W:0] + 1'b1) state_d = ST_IDLE;")], None),
    ('flowlet', 'a_draw_range', [('flowlet_table.sv', '    .range_i(count_q),', "    .range_i(count_q + 1'b1),")], None),
    # The bug shows only when the uncleared entry's random initial valid bit is 1: with the current coding,
    # seeds 4 to 11 (1 to 3 leave it 0, and the unmodified table is then indistinguishable).
    ('flowlet', 'a_rd_valid', [('flowlet_table.sv', "if (ptr_q == Entries[IDX_W:0] - 1'b1) state_d = ST_IDLE;", "if (ptr_q == Entries[IDX_W:0] - 2'd2) state_d = ST_IDLE;")], '4'),
    ('fgfc', 'a_rsp_hold', [('fgfc_generator.sv', "      else if (rsp_ready_i) rsp_valid_q <= 1'b0;", "      else rsp_valid_q <= 1'b0;")], None),
    ('fgfc', 'a_rsp_once', [('fgfc_generator.sv', '  assign req_ready_o = !rsp_valid_q;', "  assign req_ready_o = 1'b1;")], None),
    ('fgfc', 'a_answered', [('fgfc_generator.sv', "      if (req_fire) rsp_valid_q <= 1'b1;", "      if (req_fire && req_xoff_i) rsp_valid_q <= 1'b1;")], None),
    ('fgfc', 'a_frm_hold', [('fgfc_generator.sv', '  assign frm_valid_o = any_eligible;', '  assign frm_valid_o = any_eligible && !req_valid_i;')], None),
    ('fgfc', 'a_gap_range', [('fgfc_generator.sv', "        if (cnt_q[i] != {CW{1'b0}}) cnt_q[i] <= cnt_q[i] - 1'b1;", "        cnt_q[i] <= cnt_q[i] - 1'b1;")], None),
    ('fgfc', 'a_flow_unique', [('fgfc_generator.sv', '  wire [SW-1:0] wr_sel = hit ? match_sel : free_sel;', '  wire [SW-1:0] wr_sel = free_sel;')], None),
    ('fgfc', 'a_full_means_full', [('fgfc_generator.sv', '  wire [1:0]    status = !(hit || any_free) ? ST_FULL', "  wire [1:0]    status = !(hit || any_free) || req_flow_id_i == 32'd3 ? ST_FULL")], None),
    ('cam', 'a_rsp_hold', [('flowcut_table_cam.sv', '  assign rsp_drain_o = rsp_entry_q[OFF_RA + 48];', '  assign rsp_drain_o = rsp_entry_q[OFF_RA + 48] ^ rsp_ready_i;')], None),
    ('cam', 'a_rsp_once', [('flowcut_table_cam.sv', '  assign req_ready_o = state_q == ST_IDLE;', '  assign req_ready_o = state_q == ST_IDLE || state_q == ST_RSP;')], None),
    ('cam', 'a_answered', [('flowcut_table_cam.sv', '      ST_EXEC: state_d = ST_RSP;', '      ST_EXEC: state_d = op_q == FC_OP_READ ? ST_EXEC : ST_RSP;')], None),
    ('cam', 'a_add_no_wrap', [('flowcut_op_unit.sv', '          inflight_o = saturate ? INFLIGHT_MAX[InflightWidth-1:0] : sum[InflightWidth-1:0];', '          inflight_o = sum[InflightWidth-1:0];')], None),
    ('cam', 'a_ack_no_wrap', [('flowcut_op_unit.sv', "  wire [InflightWidth-1:0] remaining = underflow ? {InflightWidth{1'b0}}", "  wire [InflightWidth-1:0] remaining = 1'b0 ? {InflightWidth{1'b0}}")], None),
    ('cam', 'a_insert_free', [('flowcut_table_cam.sv', "  wire [Entries-1:0] free_1h = ~valid_q & (valid_q + Entries'(1));", "  wire [Entries-1:0] free_1h = Entries'(1);")], None),
    ('cam', 'a_key_unique', [('flowcut_table_cam.sv', 'match[m] = valid_q[m] && key_q_mem[m] == key_q;', 'match[m] = valid_q[m] && key_q_mem[m] == key_q && m != 0;')], None),
    ('hashed', 'a_rsp_hold', [('flowcut_table_hashed.sv', '  assign rsp_drain_o = rsp_entry_q[OFF_RA + 48];', '  assign rsp_drain_o = rsp_entry_q[OFF_RA + 48] ^ rsp_ready_i;')], None),
    ('hashed', 'a_rsp_once', [('flowcut_table_hashed.sv', '  assign req_ready_o = state_q == ST_IDLE;', '  assign req_ready_o = state_q == ST_IDLE || state_q == ST_RSP;')], None),
    ('hashed', 'a_answered', [('flowcut_table_hashed.sv', '      ST_READ: state_d = ST_EXEC;', '      ST_READ: state_d = op_q == FC_OP_READ ? ST_READ : ST_EXEC;')], None),
    ('hashed', 'a_add_no_wrap', [('flowcut_op_unit.sv', '          inflight_o = saturate ? INFLIGHT_MAX[InflightWidth-1:0] : sum[InflightWidth-1:0];', '          inflight_o = sum[InflightWidth-1:0];')], None),
    ('hashed', 'a_ack_no_wrap', [('flowcut_op_unit.sv', "  wire [InflightWidth-1:0] remaining = underflow ? {InflightWidth{1'b0}}", "  wire [InflightWidth-1:0] remaining = 1'b0 ? {InflightWidth{1'b0}}")], None),
    ('hashed', 'a_count_no_wrap', [('flowcut_op_unit.sv', '        end else if (free_i) begin', '        end else if (free_i || table_full_i) begin'), ('flowcut_table_hashed.sv', 'DROP:a_insert_free', '')], None),
    ('hashed', 'a_count_matches', [('flowcut_table_hashed.sv', "    else if (exec && unit_dec) count_q <= count_q - 1'b1;", "    else if (exec && unit_dec && op_q != FC_OP_DELETE) count_q <= count_q - 1'b1;")], None),
    ('hashed', 'a_insert_free', [('flowcut_table_hashed.sv', "        has_free = 1'b1;\n        free_way = i[WAY_W-1:0];", "        has_free = 1'b1;\n        free_way = {WAY_W{1'b0}};")], None),
    ('hashed', 'a_rd_valid', [('flowcut_table_hashed.sv', "if (init_q == SETS[SET_W:0] - 1'b1) state_d = ST_IDLE;", "if (init_q == SETS[SET_W:0] - 2'd2) state_d = ST_IDLE;")], '2'),
    ('hashed_lr', 'a_rsp_hold', [('flowcut_table_hashed_lr.sv', '  assign rsp_drain_o = rsp_entry_q[OFF_RA + 48];', '  assign rsp_drain_o = rsp_entry_q[OFF_RA + 48] ^ rsp_ready_i;')], None),
    ('hashed_lr', 'a_rsp_accepted', [('flowcut_table_hashed_lr.sv', '        v1_q <= req_fire;', '        v1_q <= req_valid_i;'), ('flowcut_table_hashed_lr.sv', 'DROP:a_in_flight', '')], None),
    ('hashed_lr', 'a_in_flight', [('flowcut_table_hashed_lr.sv', '        v3_q <= v2_q;', '        v3_q <= v2_q || v1_q;')], None),
    ('hashed_lr', 'a_line_rate', [('flowcut_table_hashed_lr.sv', '  assign req_ready_o = !init_q && adv;', '  assign req_ready_o = !init_q && adv && !v2_q;')], None),
    ('hashed_lr', 'a_latency', [('flowcut_table_hashed_lr.sv', '        v2_q <= v1_q;', '        v2_q <= v1_q && op1_q != FC_OP_READ;'), ('flowcut_table_hashed_lr.sv', 'DROP:a_in_flight', '')], None),
    ('hashed_lr', 'a_add_no_wrap', [('flowcut_op_unit.sv', '          inflight_o = saturate ? INFLIGHT_MAX[InflightWidth-1:0] : sum[InflightWidth-1:0];', '          inflight_o = sum[InflightWidth-1:0];')], None),
    ('hashed_lr', 'a_ack_no_wrap', [('flowcut_op_unit.sv', "  wire [InflightWidth-1:0] remaining = underflow ? {InflightWidth{1'b0}}", "  wire [InflightWidth-1:0] remaining = 1'b0 ? {InflightWidth{1'b0}}")], None),
    ('hashed_lr', 'a_count_no_wrap', [('flowcut_op_unit.sv', '        end else if (free_i) begin', '        end else if (free_i || table_full_i) begin'), ('flowcut_table_hashed_lr.sv', 'DROP:a_insert_free', '')], None),
    ('hashed_lr', 'a_count_matches', [('flowcut_table_hashed_lr.sv', "    else if (exec && unit_dec) count_q <= count_q - 1'b1;", "    else if (exec && unit_dec && op2_q != FC_OP_DELETE) count_q <= count_q - 1'b1;")], None),
    ('hashed_lr', 'a_insert_free', [('flowcut_table_hashed_lr.sv', "        has_free = 1'b1;\n        free_way = i[WAY_W-1:0];", "        has_free = 1'b1;\n        free_way = {WAY_W{1'b0}};")], None),
    ('hashed_lr', 'a_rd_valid', [('flowcut_table_hashed_lr.sv', '    else if (adv) byp_q <= st2_write && set2_q == set1;', "    else if (adv) byp_q <= 1'b0;")], None),
    ('hashed_lr', 'a_rd_valid', [('flowcut_table_hashed_lr.sv', "if (init_row_q == SETS[SET_W:0] - 1'b1) init_q <= 1'b0;", "if (init_row_q == SETS[SET_W:0] - 2'd2) init_q <= 1'b0;")], '2'),
    ('flowsail', 'a_rsp_hold', [('flowsail.sv', "    for (k = 0; k < Queues; k = k + 1) rsp_paused_queues_o[k] = cf_q[k] != {PB{1'b0}};", "    for (k = 0; k < Queues; k = k + 1) rsp_paused_queues_o[k] = (cf_q[k] != {PB{1'b0}}) ^ rsp_ready_i;")], None),
    ('flowsail', 'a_rsp_once', [('flowsail.sv', '  assign req_ready_o = state_q == ST_IDLE;', '  assign req_ready_o = state_q == ST_IDLE || state_q == ST_RSP;')], None),
    ('flowsail', 'a_answered', [('flowsail.sv', '      ST_READ: state_d = ST_EXEC;', '      ST_READ: state_d = op_q == OP_DEQ ? ST_READ : ST_EXEC;')], None),
    ('flowsail', 'a_enq_no_wrap', [('flowsail.sv', '      overflow = size_add[SB] || len_add[SB];', "      overflow = 1'b0;")], None),
    ('flowsail', 'a_deq_no_wrap', [('flowsail.sv', '      underflow = bytes_q > size || bytes_q > len;', "      underflow = 1'b0;")], None),
    ('flowsail', 'a_qt_saturate', [('flowsail.sv', "(cf_inc_orig && n_q == QW'(k))) && cf_q[k] != PAUSE_MAX)", "(cf_inc_orig && n_q == QW'(k))))")], None),
    ('flowsail', 'a_pause_marked', [('flowsail.sv', "            pause = congested && pn == {PB{1'b0}};", "            pause = pn == {PB{1'b0}};")], None),
    ('flowsail', 'a_nft_cleared', [('flowsail.sv', "      nft_we = ptr_q < (PIW + 1)'(NftEntries);", "      nft_we = ptr_q < (PIW + 1)'(NftEntries - 1);")], '1'),
    ('flowsail', 'a_cft_cleared', [('flowsail.sv', "      cft_we = ptr_q < (PIW + 1)'(CftEntries);", "      cft_we = ptr_q < (PIW + 1)'(CftEntries - 1);")], '1'),
    ('reorder', 'a_rsp_hold', [('reorder_buffer.sv', '  wire rsp_fire = rsp_valid_o && rsp_ready_i;', '  wire rsp_fire = rsp_valid_o && (rsp_ready_i || rsp_kind_o == EV_ACK);')], None),
    ('reorder', 'a_stream_continues', [('reorder_buffer.sv', '      ST_EVENT: if (rsp_fire && rsp_last_o) begin', '      ST_EVENT: if (rsp_fire && (rsp_last_o || rsp_kind_o == EV_NACK)) begin')], None),
    ('reorder', 'a_rsp_once', [('reorder_buffer.sv', '  assign req_ready_o = state_q == ST_IDLE;', '  assign req_ready_o = state_q == ST_IDLE || state_q == ST_EVENT;')], None),
    ('reorder', 'a_answered', [('reorder_buffer.sv', '      ST_LOAD: state_d = ST_EVENT;', '      ST_LOAD: state_d = mode == MODE_OLD ? ST_LOAD : ST_EVENT;')], None),
    ('reorder', 'a_stream_bounded', [('reorder_buffer.sv', "          if (rsp_fire) v_d[max_sel] = 1'b0;", '          ;')], None),
    ('reorder', 'a_capacity', [('reorder_buffer.sv', "  wire room = used + NW'(pu_q) <= CAPACITY;", '  wire room = used <= CAPACITY;')], None),
    ('reorder', 'a_slots', [('reorder_buffer.sv', '      MODE_DUP: begin\n        rsp_kind_o = EV_STORED;\n        rsp_sn_o = sn_q;', "      MODE_DUP: begin\n        rsp_kind_o = EV_STORED;\n        rsp_sn_o = sn_q;\n        if (rsp_fire) begin v_d[free_sel] = 1'b1; sq_d[free_sel] = sn_q; u_d[free_sel] = 1; end")], None),
    ('reorder', 'a_cleared', [('reorder_buffer.sv', "        if (ptr_q == (CIW + 1)'(Connections - 1)) state_d = ST_IDLE;", "        if (ptr_q == (CIW + 1)'(Connections - 2)) state_d = ST_IDLE;")], '1'),
]


def apply(rtl, edits):
    for f, old, new in edits:
        path = os.path.join(rtl, f)
        text = open(path).read()
        if old.startswith("DROP:"):
            name = old[len("DROP:"):]
            m = re.search(r"\n  %s: assert property.*?\);\n" % re.escape(name), text, re.S)
            if not m:
                return "assertion %s not found in %s" % (name, f)
            text = text[:m.start()] + "\n" + text[m.end():]
        else:
            if text.count(old) != 1:
                return "edit not found once in %s: %r" % (f, old)
            text = text.replace(old, new)
        open(path, "w").write(text)
    return None


def build(block, rtl, work):
    """Verilates the block from rtl/ with the driver; returns None or the build error."""
    top, files, params, defines = POINTS[block]
    cmd = ["verilator", "--cc", "--exe", "--build", "-O1", "--assert", "--x-assign", "unique", "--x-initial",
           "unique", "-Wno-fatal", "-Wno-lint", "-Wno-style", "-I" + rtl, "--top-module", top, "--prefix", "Vdut",
           "-CFLAGS", "-O1 " + " ".join(defines), "-Mdir", work, "-o", "vdut"] + params
    cmd += [os.path.join(rtl, f) for f in files] + [os.path.join(HERE, "assertion_driver.cpp")]
    b = subprocess.run(cmd, capture_output=True, text=True)
    return None if b.returncode == 0 else "BUILD FAILED: " + (b.stdout + b.stderr)[-300:]


def fired(work, seed):
    """Runs the built driver; returns the name of the assertion that stopped it, or None."""
    r = subprocess.run([os.path.join(work, "vdut")] + ([seed] if seed else []), capture_output=True, text=True)
    m = re.search(r"Assertion failed in (\S+):", r.stdout + r.stderr)
    return m.group(1).split(".")[-1] if m else None


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", default=[], help="entries whose block or assertion contains this")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    a = ap.parse_args(argv)
    todo = [m for m in MUTATIONS if not a.only or any(o in m[0] or o in m[1] for o in a.only)]
    scratch = tempfile.mkdtemp(prefix="seed_violations_")
    bad = 0
    for block in sorted({m[0] for m in todo}):
        work = os.path.join(scratch, "clean_" + block)
        err = build(block, RTL, work)
        for seed in (None, "1"):
            got = err or fired(work, seed)
            bad += got is not None
            print("%-8s %-20s %s" % (block, "(unmodified%s)" % (", random init" if seed else ""),
                                     "nothing fired" if got is None else "FIRED: %s" % got), flush=True)
    for i, (block, want, edits, seed) in enumerate(todo):
        rtl = os.path.join(scratch, "rtl%d" % i)
        work = os.path.join(scratch, "m%d" % i)
        shutil.copytree(RTL, rtl)
        got = apply(rtl, edits) or build(block, rtl, work) or fired(work, seed)
        bad += got != want
        print("%-8s %-20s %s" % (block, want, "fired" if got == want else "NOT AS EXPECTED: %s" % got), flush=True)
    if not a.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
