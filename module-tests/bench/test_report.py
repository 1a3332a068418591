#!/usr/bin/env python3
"""Unit-style checks of report.py on synthetic TAP input (no guest needed):

    python3 module-tests/bench/test_report.py

The generator writes the records bench_guest.sh / bench_run.c print
("# @ <workload> <arm> <record>"), with a locality ramp from 1 % to `final`
over `conv_s` seconds of a 0.5 s sample period."""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "report.py")


def run_lines(wl, arm, run_no=None, conv_s=3.0, final=99.0, secs=20, nodes=2, cpn=2,
              pte_rate_after=100, migrated=1000, sys_ticks=5, hop_at=None, rc=0, bps=1000000,
              move_at=None, p_lag_ms=0, exit_at=None):
    """Records of one run; run_no: bench_guest's "A run=N" (None: older TAPs).
    hop_at: from then on one writer thread alternates between nodes;
    move_at: from then on that thread runs on the other node; p_lag_ms:
    how long after the workload's own sample the host-side one is taken;
    exit_at: from then on the other writer thread is gone (exited)."""
    pre = "# @ %s %s " % (wl, arm)
    out = []
    if run_no is not None:
        out.append(pre + "A run=%d" % run_no)
    out.append(pre + "A avail=1 balancing=0")
    out.append(pre + "A rc=%d" % rc)
    cpu_node = ",".join("%d:%d" % (c, c // cpn) for c in range(nodes * cpn))
    out.append(pre + "N 1000 name=%s/%s nodes=%d cpu_node=%s" % (wl, arm, nodes, cpu_node))
    t0 = 2000
    total = 81920
    pte = 0
    mig = 0
    cpu = [0] * 7
    ticks = {101: 0, 102: 0}
    for i in range(-1, int(secs * 2) + 1):
        ms = t0 + i * 500
        t = i * 0.5
        if t < 0:
            loc = 1.0
        elif t >= conv_s:
            loc = final
        else:
            loc = 1.0 + (final - 1.0) * t / conv_s
        if t >= 0:
            pte += (5000 if t < conv_s else pte_rate_after / 2.0)
            mig = migrated * min(1.0, t / conv_s if conv_s else 1.0)
        cpu = [cpu[0] + 90, 0, cpu[2] + sys_ticks, cpu[3] + 5, 0, 0, 0]
        g = "G %d cpu=%s numa_pte_updates=%d numa_pages_migrated=%d pgmigrate_success=%d numa_hint_faults=%d numa_hint_faults_local=%d" % (
            ms, ",".join(map(str, cpu)), int(pte), int(mig), int(mig), int(pte / 4), int(pte / 8))
        out.append(pre + g)
        if t >= 0:
            local = int(total * loc / 100)
            out.append(pre + "W %d sample proc=0 t_ms=%d local_pct=%.1f node_pages=%d,%d" % (
                ms, i * 500, loc, total - local, local))
        for tid in ticks:
            ticks[tid] += 50
        cpu_a = 2
        cpu_b = 3
        if hop_at is not None and t >= hop_at and int((t - hop_at) * 2) % 2 == 0:
            cpu_b = 0
        if move_at is not None and t >= move_at:
            cpu_b = 0
        local = int(total * loc / 100)
        thr = ["100:0:1", "101:%d:%d" % (cpu_a, ticks[101]), "102:%d:%d" % (cpu_b, ticks[102])]
        if exit_at is not None and t >= exit_at:
            del thr[1]
        out.append(pre + "P %d pid=100 ppid=1 pages=%d,%d thr=%s" % (
            ms + p_lag_ms, total - local, local, ",".join(thr)))
    out.append(pre + "W %d result proc=0 final_pct=%.1f bytes_per_s=%d" % (t0 + secs * 1000, final, bps))
    out.append(pre + "X %d rc=%d" % (t0 + secs * 1000 + 10, rc))
    return out

def cost_lines(wl, arm, run_no=None, fault=90000, pp=16000):
    pre = "# @ %s %s " % (wl, arm)
    out = []
    if run_no is not None:
        out.append(pre + "A run=%d" % run_no)
    out.append(pre + "A avail=1 balancing=0")
    out.append(pre + "N 1000 name=x nodes=2 cpu_node=0:0,1:0,2:1,3:1")
    out.append(pre + "W 1100 cost fault_pages_per_s=%d pingpong_roundtrips_per_s=%d" % (fault, pp))
    out.append(pre + "X 1200 rc=0")
    return out


def run_report(taps, arms="off stock numad moron numacore", extra=()):
    """Writes taps ({config: [lines]}) and runs report.py; returns (md, csv rows)."""
    with tempfile.TemporaryDirectory(prefix="bench-report-test.") as d:
        paths = []
        for cfg, lines in taps.items():
            p = os.path.join(d, cfg + ".tap")
            with open(p, "w") as f:
                f.write("\n".join(["ok 1 bench_guest"] + lines) + "\n")
            paths.append(p)
        subprocess.run([sys.executable, REPORT, "--out", d, "--arms", arms, *extra, *paths], check=True)
        with open(os.path.join(d, "results.md")) as f:
            md = f.read()
        with open(os.path.join(d, "results.csv")) as f:
            rows = list(csv.DictReader(f))
    return md, rows


def md_tables(md):
    """Every markdown table of results.md as a list of {header: cell} rows."""
    tables, cur, head = [], None, None
    for line in md.splitlines():
        if not line.startswith("|"):
            cur = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cur is None:
            cur, head = [], cells
            tables.append(cur)
        elif not set(line) <= set("|-"):
            cur.append(dict(zip(head, cells)))
    return tables


def md_cell(md, cfg, wl, arm, col, table=0):
    """One cell of the main table (table=0) or the details table (1)."""
    hits = [r for r in md_tables(md)[table] if (r["cfg"], r["workload"], r["arm"]) == (cfg, wl, arm)]
    assert len(hits) == 1, (cfg, wl, arm, hits)
    return hits[0][col]


class Repeats(unittest.TestCase):
    def interleaved(self, run_markers=True):
        """3 repeats of numa01_INVERSE_BIND x (stock, numacore), arms
        interleaved within a repeat, then 3 hard-bind runs."""
        lines, n = [], 0
        conv = {"stock": (4.0, 3.0, 5.0), "numacore": (2.0, 2.0, 2.5)}
        for rep in range(3):
            for arm in ("stock", "numacore"):
                n += 1
                lines += run_lines("numa01_INVERSE_BIND", arm, n if run_markers else None,
                                   conv_s=conv[arm][rep], migrated=1000 * (rep + 1))
        for rep in range(3):
            n += 1
            lines += run_lines("numa01_HARD_BIND", "hard-bind", n if run_markers else None, conv_s=0.0,
                               bps=1000000 * (rep + 1))
        return lines

    def test_csv_keeps_every_repeat(self):
        _, rows = run_report({"n2": self.interleaved()})
        got = [(r["workload"], r["arm"], r["repeat"]) for r in rows]
        for arm in ("stock", "numacore", "hard-bind"):
            self.assertEqual([g[2] for g in got if g[1] == arm], ["1", "2", "3"], arm)
        t90 = [float(r["t90"]) for r in rows if r["arm"] == "stock"]
        self.assertEqual(t90, [4.0, 3.0, 5.0])

    def test_md_median_and_range(self):
        md, _ = run_report({"n2": self.interleaved()})
        wl = "numa01_INVERSE_BIND"
        self.assertEqual(md_cell(md, "n2", wl, "stock", "n"), "3")
        self.assertEqual(md_cell(md, "n2", wl, "stock", "t90 s"), "4.0 (3.0–5.0)")
        self.assertEqual(md_cell(md, "n2", wl, "stock", "pages migrated"), "2000 (1000–3000)")
        self.assertEqual(md_cell(md, "n2", wl, "numacore", "t90 s"), "2.0 (2.0–2.5)")
        self.assertEqual(md_cell(md, "n2", wl, "numacore", ""), "**best**")
        self.assertEqual(md_cell(md, "n2", wl, "stock", "t95 s", table=1), "4.0 (3.0–5.0)")
        # progress relative to the hard-bind run of the same repeat
        self.assertEqual(md_cell(md, "n2", wl, "stock", "progress vs opt"), "0.50 (0.33–1.00)")

    def test_old_taps_without_run_markers(self):
        md, rows = run_report({"n2": self.interleaved(run_markers=False)})
        self.assertEqual(len([r for r in rows if r["arm"] == "stock"]), 3)
        self.assertEqual(md_cell(md, "n2", "numa01_INVERSE_BIND", "stock", "t90 s"), "4.0 (3.0–5.0)")

    def test_back_to_back_repeats_do_not_merge(self):
        """A one-line plan with REPEAT=2: the same (workload, arm) twice in a
        row, told apart only by bench_guest's run number."""
        lines = (run_lines("mfc_remote_128", "numacore", 1, conv_s=2.0, secs=30) +
                 run_lines("mfc_remote_128", "numacore", 2, conv_s=3.0, secs=30))
        md, rows = run_report({"n2": lines})
        self.assertEqual([r["repeat"] for r in rows if r["arm"] == "numacore"], ["1", "2"])
        self.assertEqual(md_cell(md, "n2", "mfc_remote_128", "numacore", "n"), "2")
        self.assertEqual(md_cell(md, "n2", "mfc_remote_128", "numacore", "t90 s"), "2.5 (2.0–3.0)")
        self.assertEqual(md_cell(md, "n2", "mfc_remote_128", "hard-bind (run mfc_remote_128?)", "final %"),
                         "not available (not run)")

    def test_never_reached_in_one_repeat(self):
        lines = (run_lines("numa01", "stock", 1, conv_s=3.0) +
                 run_lines("numa01", "stock", 2, conv_s=3.0, final=60.0) +
                 run_lines("numa01", "stock", 3, conv_s=4.0))
        md, _ = run_report({"n2": lines})
        self.assertEqual(md_cell(md, "n2", "numa01", "stock", "t90 s"), "4.0 (3.0–never)")

    def test_single_repeat_shows_plain_values(self):
        md, _ = run_report({"n2": run_lines("numa01", "stock", 1, conv_s=3.0)})
        self.assertEqual(md_cell(md, "n2", "numa01", "stock", "n"), "1")
        self.assertEqual(md_cell(md, "n2", "numa01", "stock", "t90 s"), "3.0")

    def test_failed_repeat_is_counted_not_averaged(self):
        lines = (run_lines("numa01", "stock", 1, conv_s=3.0) +
                 ["# @ numa01 stock A run=2", "# @ numa01 stock A avail=0 why=insmod_failed"] +
                 run_lines("numa01", "stock", 3, conv_s=5.0))
        md, rows = run_report({"n2": lines})
        self.assertEqual([r["status"] for r in rows if r["arm"] == "stock"],
                         ["ok", "not available (insmod_failed)", "ok"])
        self.assertEqual(md_cell(md, "n2", "numa01", "stock [2 of 3 ok]", "t90 s"), "4.0 (3.0–5.0)")

    def test_cost_median_over_all_runs(self):
        lines = []
        for i, fault in enumerate((90000, 80000, 100000, 95000, 70000)):
            lines += cost_lines("cost_unpatched", "cost-idle", i + 1, fault=fault)
        md, rows = run_report({"cost-stock": lines})
        self.assertIn("| unpatched | 90000 | 1.000 |", md)
        self.assertIn("median of 5/0/0 runs", md)



class AfterConvergence(unittest.TestCase):
    def test_node_changes_and_pte_rate_once_settled(self):
        """stock: a writer thread hops between nodes from 10 s on and PTEs are
        marked at 2000/s once settled; numacore: no hop, 0/s.  numa02 takes
        its locality from the workload's own figure, so the hops do not
        unsettle it."""
        lines = (run_lines("numa02", "stock", 1, conv_s=3.0, pte_rate_after=2000, hop_at=10.0) +
                 run_lines("numa02", "numacore", 2, conv_s=2.0, pte_rate_after=0))
        md, rows = run_report({"n2": lines})
        self.assertEqual(md_cell(md, "n2", "numa02", "numacore", "task node changes (settled)"), "0")
        self.assertEqual(md_cell(md, "n2", "numa02", "numacore", "PTEs marked/s (settled)"), "0")
        self.assertEqual(md_cell(md, "n2", "numa02", "numacore", "settled at s", table=1), "2.0")
        hops = int(md_cell(md, "n2", "numa02", "stock", "task node changes (settled)"))
        self.assertGreater(hops, 5)
        self.assertEqual(md_cell(md, "n2", "numa02", "stock", "PTEs marked/s (settled)"), "2000")
        self.assertEqual([r["node_changes_settled"] for r in rows if r["arm"] != "hard-bind"], [str(hops), "0"])

    def test_move_seen_at_settling_sample_is_not_after_it(self):
        """Both arms settle at 2.0 s by their own samples; the host-side
        samples follow 0.1 s later.  numacore: a thread move first seen at
        2.1 s happened in (1.6, 2.1], during convergence; stock: one first
        seen at 2.6 s happened in (2.1, 2.6], after it."""
        lines = (run_lines("numa02", "numacore", 1, conv_s=2.0, move_at=2.0, p_lag_ms=100) +
                 run_lines("numa02", "stock", 2, conv_s=2.0, move_at=2.5, p_lag_ms=100))
        md, _ = run_report({"n2": lines})
        self.assertEqual(md_cell(md, "n2", "numa02", "numacore", "settled at s", table=1), "2.0")
        self.assertEqual(md_cell(md, "n2", "numa02", "numacore", "task node changes (settled)"), "0")
        self.assertEqual(md_cell(md, "n2", "numa02", "stock", "task node changes (settled)"), "1")
        for arm in ("numacore", "stock"):
            self.assertEqual(md_cell(md, "n2", "numa02", arm, "task node changes (whole run)", table=1), "1")

    def test_final_before_writers_exit(self):
        """A process split over two nodes (99 % of its pages with one writer,
        1 % with the other) is 50 % local; once the local writer exits, the
        one left is no measure of the process's placement: final is the
        last sample before a writer exits."""
        md, _ = run_report({"n2": run_lines("numa01", "stock", 1, conv_s=2.0, final=99.0,
                                            move_at=0.0, exit_at=19.5)})
        self.assertEqual(md_cell(md, "n2", "numa01", "stock", "final %"), "50.0")

    def test_settled_below_full_locality(self):
        """An arm stuck at 50 % is settled once it stays there."""
        md, _ = run_report({"n2": run_lines("numa01", "stock", 1, conv_s=4.0, final=50.0)})
        self.assertEqual(md_cell(md, "n2", "numa01", "stock", "t90 s"), "never")
        self.assertEqual(md_cell(md, "n2", "numa01", "stock", "settled at s", table=1), "4.0")


class Stamp(unittest.TestCase):
    def test_guest_shapes_named(self):
        md, _ = run_report({"n4-oversub": run_lines("numa01", "stock", 1, nodes=4, cpn=1)},
                           extra=("--configs", "n2:2:2 n4:4:2 n4-oversub:4:1"))
        self.assertIn("n4 = 4 nodes x 2 vCPUs;", md)
        self.assertIn("n4-oversub = 4 nodes x 1 vCPU (oversubscribed", md)


    def test_module_stamp(self):
        stamp = "Module measured: `abc1234-dirty` (git describe --always --dirty of the tree at the start)."
        md, _ = run_report({"n2": run_lines("numa01", "stock", 1)}, extra=("--stamp", stamp))
        self.assertIn("\n" + stamp + "\n", md)
        md, _ = run_report({"n2": run_lines("numa01", "stock", 1)})
        self.assertIn("Module measured: not recorded", md)


if __name__ == "__main__":
    unittest.main()
