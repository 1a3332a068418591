#!/usr/bin/env python3
"""Turn the TAP copies of `make bench` guest boots into results.csv,
results.md, locality.dat and locality-panels.gp (for locality.gp).

Input: build/bench/raw/<config>.tap, where the guest printed
"# @ <workload> <arm> <record>" lines (see bench_guest.sh, bench_run.c).
Every number written here is computed from those lines; a run without data
is reported as "not available".
"""
import argparse
import collections
import csv
import os
import re
import statistics

DIAG_ARMS = ("numad-noshim", "numad-noclock")


def kv(tokens):
    d = {}
    for t in tokens:
        if "=" in t:
            k, v = t.split("=", 1)
            d[k] = v
    return d


class Run:
    def __init__(self, config, workload, arm, repeat, run_no=None):
        self.config, self.workload, self.arm = config, workload, arm
        self.repeat = repeat  # 1-based occurrence of (config, workload, arm)
        self.run_no = run_no  # bench_guest's run number (A run=N), if printed
        self.attrs = {}
        self.notes = []
        self.wlines = []      # (ms, text)
        self.procs = collections.defaultdict(list)  # ms -> list of P dicts
        self.glob = []        # (ms, dict)
        self.cpu_node = {}
        self.rc = None
        self.seen = False


def add_record(r, typ, rec):
    """Adds one "<type> <ms> <key=value...>" record of bench_run (or an "A"
    line of bench_guest) to run r."""
    if typ == "A":
        for k, v in (t.split("=", 1) for t in rec[1:] if "=" in t):
            if k in ("numad_log", "numad_cand"):
                r.notes.append(v.replace("_", " "))
            else:
                r.attrs[k] = v
    elif typ == "N" and len(rec) > 2:
        for pair in kv(rec[2:]).get("cpu_node", "").split(","):
            if ":" in pair:
                c, n = pair.split(":")
                r.cpu_node[int(c)] = int(n)
        r.seen = True
    elif typ == "W" and len(rec) > 2:
        r.wlines.append((int(rec[1]), " ".join(rec[2:])))
    elif typ == "P" and len(rec) > 2:
        d = kv(rec[2:])
        pages = [int(x) for x in d.get("pages", "").split(",") if x != ""]
        thr = [tuple(int(y) for y in t.split(":")) for t in d.get("thr", "").split(",") if t.count(":") == 2]
        r.procs[int(rec[1])].append({"pid": int(d.get("pid", 0)), "pages": pages, "thr": thr})
    elif typ == "G" and len(rec) > 2:
        g = {}
        for k, v in kv(rec[2:]).items():
            if k == "cpu":
                g["cpu"] = [int(x) for x in v.split(",")]
            elif re.fullmatch(r"-?[0-9]+", v):
                g[k] = int(v)
        r.glob.append((int(rec[1]), g))
    elif typ == "X":
        r.rc = kv(rec[2:]).get("rc")


def parse(paths):
    """Runs of the TAP copies, keyed by (config, workload, arm, repeat); the
    config is the TAP file's base name and repeat counts the runs of the
    same (config, workload, arm) from 1.  A run starts at bench_guest's
    "A run=N" line, or (TAPs without it) where the (workload, arm) changes."""
    runs = collections.OrderedDict()
    for path in paths:
        config = os.path.basename(path).rsplit(".", 1)[0]
        cur = None
        with open(path, errors="replace") as f:
            for line in f:
                if not line.startswith("# @ "):
                    continue
                parts = line[4:].rstrip("\n").split(" ")
                if len(parts) < 3:
                    continue
                wl, arm, rec = parts[0], parts[1], parts[2:]
                run_no = kv(rec[1:]).get("run") if rec[0] == "A" else None
                if cur is None or (cur.workload, cur.arm) != (wl, arm) or \
                        (run_no is not None and run_no != cur.run_no):
                    n = 1 + sum(1 for k in runs if k[:3] == (config, wl, arm))
                    cur = runs[(config, wl, arm, n)] = Run(config, wl, arm, n, run_no)
                add_record(cur, rec[0], rec)
    return runs


def uses_own_locality(workload):
    """Per-slice shapes: threads of one process legitimately sit on
    different nodes, so only the workload's own per-slice figure (pages of
    each thread's slice on the node that thread runs on) is meaningful."""
    return any(workload.startswith(s) for s in ("numa01_THREAD_ALLOC", "numa02"))


def workload_lines(r):
    """The workload's own W lines: t0 (start of its write phase, its t_ms=0,
    in monotonic ms), per-sample per-process locality, results, cost lines."""
    t0 = None
    own = collections.defaultdict(dict)   # ms -> proc -> (local, present)
    results, cost = [], []
    for ms, text in r.wlines:
        f = text.split(" ")
        d = kv(f[1:])
        if f[0] == "sample" and "t_ms" in d:
            cand = ms - int(d["t_ms"])
            t0 = cand if t0 is None else min(t0, cand)
            np_ = [int(x) for x in d.get("node_pages", "").split(",") if x]
            present = sum(np_)
            own[ms][d.get("proc")] = (float(d["local_pct"]) * present / 100.0, present)
        elif f[0] == "result":
            results.append(d)
        elif f[0] == "cost":
            cost.append(d)
    return t0, own, results, cost


def sampler_series(r, t0):
    """Locality from the sampler's view (numa_maps pages per node, weighted by
    where the writer threads spent CPU time since the previous sample).
    Returns (series, node change times in ms); a series point is
    (t_s, locality %, local pages, present pages, [(pid, %)])."""
    series = []
    last_node, last_ticks = {}, {}
    change_ms = []
    for ms in sorted(r.procs):
        tot_local = tot_pages = 0.0
        per = []
        for p in r.procs[ms]:
            pages = p["pages"]
            total = sum(pages)
            share = collections.Counter()
            for tid, cpu, ticks in p["thr"]:
                node = r.cpu_node.get(cpu, -1)
                dt = ticks - last_ticks.get(tid, ticks)
                if tid == p["pid"]:
                    # main thread: first touch (numa01) / sampling, not a writer
                    last_ticks[tid] = ticks
                    continue
                if tid in last_ticks and dt > 0:
                    share[node] += dt
                    if tid in last_node and last_node[tid] != node:
                        change_ms.append(ms)
                    last_node[tid] = node
                elif tid not in last_node:
                    last_node[tid] = node
                last_ticks[tid] = ticks
            if total < 4096:          # parent / exited process
                continue
            if not share:
                # no writer ran in this interval (starting or exiting): no
                # placement to judge for this process in this sample
                continue
            s = sum(share.values())
            local = sum(pages[n] * w / s for n, w in share.items() if 0 <= n < len(pages)) if s else 0
            tot_local += local
            tot_pages += total
            per.append((p["pid"], 100.0 * local / total))
        if tot_pages:
            series.append(((ms - t0) / 1000.0, 100.0 * tot_local / tot_pages, tot_local, tot_pages, per))
    return series, change_ms


def own_series(own, t0):
    """Locality from the workload's own per-slice figures: one point per
    sample round, with the latest value of every process."""
    series = []
    latest = {}
    for ms in sorted(own):
        latest.update(own[ms])
        loc = sum(v[0] for v in latest.values())
        pres = sum(v[1] for v in latest.values())
        if pres:
            series.append(((ms - t0) / 1000.0, 100.0 * loc / pres, loc, pres, []))
    return series


def locality_metrics(m, series):
    """Start/final locality, misplaced pages, t90/t95 from a series."""
    after = [s for s in series if s[0] >= 0]
    if not after:
        return
    m["misplaced0_pages"] = int(round(after[0][3] - after[0][2]))
    m["misplaced_end_pages"] = int(round(after[-1][3] - after[-1][2]))
    m["initial_pct"] = after[0][1]
    m["final_pct"] = after[-1][1]
    if after[-1][4]:
        m["final_min_task_pct"] = min(x[1] for x in after[-1][4])
    for thr in (90, 95):
        hit = [s[0] for s in after if s[1] >= thr]
        m["t%d" % thr] = hit[0] if hit else None


COUNTERS = ("numa_pte_updates", "numa_huge_pte_updates", "numa_hint_faults",
            "numa_hint_faults_local", "numa_pages_migrated", "pgmigrate_success",
            "nc_pages_marked", "nc_hint_faults", "nc_hint_faults_local",
            "nc_pages_migrated", "nc_task_moves", "nc_migrate_failed")


def rate_between(glob, key, ta, tb, min_ms=5000):
    """key's rate (/s) over the G samples in [ta, tb] (ms), and the window in
    s; (None, None) when the samples span less than min_ms."""
    pts = [(ms, g) for ms, g in glob if ta <= ms <= tb and key in g]
    if len(pts) < 2 or pts[-1][0] - pts[0][0] < min_ms:
        return None, None
    dt = (pts[-1][0] - pts[0][0]) / 1000.0
    return (pts[-1][1][key] - pts[0][1][key]) / dt, dt


SETTLE_BAND = 5.0   # locality points around the final value


def settled_metrics(m, r, t0, change_ms):
    """After convergence: from the first sample after which locality stays
    within SETTLE_BAND points of its final value (for an arm that reaches
    ~100 %, about t95; also defined for one that ends at 50 %) to the end of
    the write phase: task node changes and the PTE marking rate (/s, over
    >= 5 s, else not measured)."""
    after = [s_ for s_ in m["series"] if s_[0] >= 0]
    if not after:
        return
    final = after[-1][1]
    settled = after[-1][0]
    for s_ in reversed(after):
        if abs(s_[1] - final) > SETTLE_BAND:
            break
        settled = s_[0]
    ta, tb = t0 + settled * 1000, t0 + after[-1][0] * 1000
    m["settled_s"] = settled
    m["settled_window_s"] = after[-1][0] - settled
    m["node_changes_settled"] = sum(1 for ms in change_ms if ta < ms <= tb)
    m["pte_rate_settled"], _ = rate_between(r.glob, "numa_pte_updates", ta, tb)


def counter_metrics(m, r, t0):
    """Counter deltas between the first G (before the workload) and the last
    (after it), guest system CPU share, PTE marking rate after t95."""
    if len(r.glob) < 2:
        return
    g0, g1 = r.glob[0][1], r.glob[-1][1]
    for k in COUNTERS:
        m[k] = g1[k] - g0[k] if k in g0 and k in g1 else None
    if "cpu" in g0 and "cpu" in g1:
        d = [b - a for a, b in zip(g0["cpu"], g1["cpu"])]
        tot = sum(d)
        m["sys_pct"] = 100.0 * (d[2] + d[5] + d[6]) / tot if tot else None
    # PTE marking rate after convergence: [t95, t95 + 15 s].
    if m.get("t95") is not None:
        ta = t0 + m["t95"] * 1000
        rate, window = rate_between(r.glob, "numa_pte_updates", ta, ta + 15000)
        if rate is not None:
            m["pte_rate_after95"], m["pte_rate_window_s"] = rate, window


def analyse(r):
    """Returns a dict of metrics (None = not measurable)."""
    t0, own, results, cost = workload_lines(r)
    if cost:
        return {"cost": cost}
    if t0 is None:
        return None
    m = {"t0": t0}
    own_final = [float(d["final_pct"]) for d in results if "final_pct" in d]
    m["own_final_pct"] = statistics.mean(own_final) if own_final else None
    bps = [int(d.get("bytes_per_s", 0)) for d in results]
    m["bytes_per_s"] = sum(bps) if bps else None
    m["procs_ok"] = len(results)
    series, change_ms = sampler_series(r, t0)
    m["node_changes"] = len(change_ms)
    if uses_own_locality(r.workload):
        series = own_series(own, t0)
        m["locality_source"] = "workload"
    else:
        m["locality_source"] = "numa_maps"
    m["series"] = series
    locality_metrics(m, series)
    counter_metrics(m, r, t0)
    settled_metrics(m, r, t0, change_ms)
    return m


def group_of(workload):
    w = workload.replace("_INVERSE_BIND", "").replace("_HARD_BIND", "")
    if w in ("mfc_remote", "mfc_cpu_follows", "mfc"):
        return "mfc"
    return w


# --- rows (one per run) --------------------------------------------------------

ROW_KEYS = ("initial_pct", "final_pct", "own_final_pct", "final_min_task_pct", "t90", "t95", "numa_pages_migrated",
            "pgmigrate_success", "misplaced0_pages", "misplaced_end_pages", "numa_hint_faults", "numa_hint_faults_local",
            "numa_pte_updates", "nc_pages_marked", "nc_task_moves", "node_changes", "sys_pct",
            "bytes_per_s", "pte_rate_after95", "pte_rate_window_s", "settled_s", "settled_window_s",
            "node_changes_settled", "pte_rate_settled", "locality_source")


def index_runs(runs):
    """(config, workload) -> arms seen, in plan order (cost and hard-bind runs
    left out); (config, group) -> [keys of the group's hard-bind runs], in
    repeat order."""
    by_cfg_wl = collections.OrderedDict()
    hard = collections.defaultdict(list)
    for key in runs:
        cfg, wl, arm, _ = key
        if wl.endswith("_HARD_BIND"):
            hard[(cfg, group_of(wl))].append(key)
        if wl.startswith("cost_") or wl.endswith("_HARD_BIND"):
            continue
        arms = by_cfg_wl.setdefault((cfg, wl), [])
        if arm not in arms:
            arms.append(arm)
    return by_cfg_wl, hard


def arm_row(cfg, wl, arm, repeat, r, m, src):
    """One results row for a run r with metrics m (either may be None)."""
    row = {"config": cfg, "workload": wl, "arm": arm, "repeat": repeat, "run": src, "mark": ""}
    if r is None or m is None or r.attrs.get("avail") == "0" or "final_pct" not in (m or {}):
        why = (r.attrs.get("why") if r else None) or ("no output" if r else "not run")
        row["status"] = "not available (%s)" % why
        return row
    row["status"] = "ok" if (r.rc in ("0", None)) else "rc=%s" % r.rc
    row.update({k: m.get(k) for k in ROW_KEYS})
    hf = m.get("numa_hint_faults")
    row["hint_local_pct"] = 100.0 * m["numa_hint_faults_local"] / hf if hf else None
    mig, m0, m1 = m.get("numa_pages_migrated"), m.get("misplaced0_pages"), m.get("misplaced_end_pages")
    row["migrated_beyond_placed"] = mig - (m0 - m1) if None not in (mig, m0, m1) else None
    if arm.startswith("numad"):
        row["numad"] = "moved=%s (to all nodes: %s) skipped_recent=%s advising=%s crit=%s" % (
            r.attrs.get("numad_moved", "?"), r.attrs.get("numad_moved_all", "?"), r.attrs.get("numad_skip_recent", "?"),
            r.attrs.get("numad_advising", "?"), r.attrs.get("numad_crit", "?"))
    return row


def repeats_of(runs, cfg, wl, arm):
    return sorted(k[3] for k in runs if k[:3] == (cfg, wl, arm))


def block_rows(runs, results, cfg, wl, order, hard_keys):
    """Per-run rows of one (config, workload): for each repeat, its arms in
    order; hard-bind is the group's hard-bind run of the same repeat."""
    nrep = max([len(repeats_of(runs, cfg, wl, arm)) for arm in order if arm != "hard-bind"] +
               [len(hard_keys), 1])
    rows = []
    for rep in range(1, nrep + 1):
        for arm in order:
            if arm == "hard-bind":
                key = hard_keys[rep - 1] if rep <= len(hard_keys) else None
                if key is None and rep > 1:
                    continue          # fewer hard-bind runs than repeats
                src = key[1] if key else wl + "?"
            else:
                key, src = (cfg, wl, arm, rep), wl
                if key not in runs and rep > 1:
                    continue
            rows.append(arm_row(cfg, wl, arm, rep, runs.get(key), results.get(key), src))
    return rows


def progress_rel(rows):
    """Write progress relative to the hard-bind run of the same repeat (or
    of the first repeat when hard-bind ran fewer times)."""
    opt = {x["repeat"]: x["bytes_per_s"] for x in rows if x["arm"] == "hard-bind" and x.get("bytes_per_s")}
    for x in rows:
        base = opt.get(x["repeat"], opt.get(1))
        if base and x.get("bytes_per_s"):
            x["progress_rel"] = x["bytes_per_s"] / base


def build_rows(runs, results, want_arms):
    """Per-run rows, grouped as [(config, workload, arm order, rows)]."""
    by_cfg_wl, hard = index_runs(runs)
    blocks = []
    for (cfg, wl), arms in by_cfg_wl.items():
        order = [x for x in want_arms if x in arms or x == "hard-bind"]
        order += [x for x in arms if x not in order]
        rows = block_rows(runs, results, cfg, wl, order, hard.get((cfg, group_of(wl)), []))
        progress_rel(rows)
        blocks.append((cfg, wl, order, rows))
    return blocks, by_cfg_wl, hard


# --- cells (one per config, workload, arm: median and range over repeats) ------

NEVER = float("inf")       # t90/t95 never reached: ranks after every time
CELL_KEYS = tuple(k for k in ROW_KEYS if k != "locality_source") + (
    "hint_local_pct", "migrated_beyond_placed", "progress_rel")


class Stat:
    """Median and range of one metric over the repeats that measured it."""
    def __init__(self, values):
        v = sorted(values)
        self.n = len(v)
        self.med = statistics.median(v) if v else None
        self.lo, self.hi = (v[0], v[-1]) if v else (None, None)

    def __repr__(self):
        return "Stat(%r, %r-%r, n=%d)" % (self.med, self.lo, self.hi, self.n)


def stat_of(rows, key):
    if key in ("t90", "t95"):
        return Stat(NEVER if x.get(key) is None else x[key] for x in rows)
    return Stat(x[key] for x in rows if x.get(key) is not None)


def make_cell(cfg, wl, arm, rows):
    """Aggregate the per-repeat rows of one arm; medians over the ok runs."""
    ok = [x for x in rows if x["status"] == "ok"]
    cell = {"config": cfg, "workload": wl, "arm": arm, "run": rows[0]["run"], "mark": "",
            "repeats": sum(1 for x in rows if x["status"] != "not available (not run)"), "ok": len(ok), "rows": rows}
    if not ok:
        bad = [x for x in rows if x["status"] != "ok"]
        cell["status"] = bad[0]["status"] if bad else "not available (not run)"
        return cell
    cell["status"] = "ok"
    cell["stats"] = {k: stat_of(ok, k) for k in CELL_KEYS}
    cell["locality_source"] = ok[0].get("locality_source")
    if arm.startswith("numad"):
        cell["numad"] = ok[0].get("numad")
    return cell


def med(cell, key):
    """The cell's median of key (None: not measured; NEVER: never reached)."""
    s = cell.get("stats", {}).get(key)
    return s.med if s else None


def best_score(c):
    """Best arm: median locality to 1 %, then median t90 to the 0.5 s sample
    period, then fewest migrations."""
    t90 = med(c, "t90")
    return (round(med(c, "final_pct")), -(round(t90 * 2) / 2 if t90 != NEVER else 1e9),
            -(med(c, "pgmigrate_success") or 0))


def mark_cells(cells):
    for c in cells:
        if c["arm"] == "hard-bind" and c["status"] == "ok":
            c["mark"] = "optimum"
    cands = [c for c in cells if c["status"] == "ok" and c["arm"] not in ("hard-bind",) + DIAG_ARMS
             and med(c, "final_pct") is not None]
    if cands:
        max(cands, key=best_score)["mark"] = "best"


def build_cells(blocks):
    cells = []
    for cfg, wl, order, rows in blocks:
        block = [make_cell(cfg, wl, arm, [x for x in rows if x["arm"] == arm])
                 for arm in order if any(x["arm"] == arm for x in rows)]
        mark_cells(block)
        for c in block:
            for x in c["rows"]:
                x["mark"] = c["mark"]
        cells.extend(block)
    return cells


# --- results.csv (one row per run) ---------------------------------------------

CSV_COLS = ["config", "workload", "arm", "repeat", "mark", "status", "run", "locality_source", "initial_pct",
            "final_pct", "own_final_pct", "final_min_task_pct", "t90", "t95", "pgmigrate_success", "numa_pages_migrated",
            "misplaced0_pages", "misplaced_end_pages", "migrated_beyond_placed", "numa_hint_faults", "hint_local_pct",
            "numa_pte_updates", "nc_pages_marked", "pte_rate_after95", "pte_rate_window_s", "settled_s",
            "settled_window_s", "pte_rate_settled", "node_changes", "node_changes_settled",
            "nc_task_moves", "sys_pct", "bytes_per_s", "progress_rel", "numad",
            "cost_fault_pages_per_s", "cost_pingpong_per_s"]


def csv_value(v):
    if v is None:
        return ""
    return ("%.3f" % v) if isinstance(v, float) else v


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_COLS)
        for x in rows:
            w.writerow([csv_value(x.get(c)) for c in CSV_COLS])


# --- results.md -----------------------------------------------------------------

def fmt_cell(c, key, spec="{:.1f}", none="-"):
    """"median (min–max)" over the repeats; the value alone when they agree
    (or there is one); "never" for a threshold not reached."""
    s = c.get("stats", {}).get(key)
    if s is None or s.med is None:
        return none

    def one(v):
        return "never" if v == NEVER else spec.format(int(round(v)) if spec == "{:d}" else v)
    if one(s.lo) == one(s.hi):
        return one(s.med)
    return "%s (%s–%s)" % (one(s.med), one(s.lo), one(s.hi))


def md_arm(c):
    run = "" if c["run"] == c["workload"] else " (run %s)" % c["run"]
    ok = " [%d of %d ok]" % (c["ok"], c["repeats"]) if 0 < c["ok"] < c["repeats"] else ""
    return c["arm"] + run + ok


MAIN_LEGEND = (
    "Cells: median over the repeats, with the range (min–max) when they differ; "
    "n: repeats that ran (a cell counts only the runs that completed). "
    "final %: share of the workload's resident pages on the node its threads run on at the end "
    "(numa01/mfc: /proc/<pid>/numa_maps weighted by where the threads spent CPU time in the "
    "last 0.5 s sample; per-slice shapes THREAD_ALLOC/numa02*: the workload's own per-slice figure); "
    "t90: first sample at or above 90 % after the write phase started; "
    "settled: from the first sample after which locality stays within BAND points of its final value "
    "to the end of the run (see the details table for when); "
    "task node changes: threads seen on another node than in their previous running sample; "
    "guest sys %: system+irq+softirq share of /proc/stat over the run; "
    "pages migrated: pgmigrate_success delta (also counts numad's migrate_pages(2)); "
    "PTEs marked/s: numa_pte_updates rate while settled (n/a when settled for < 5 s); "
    "progress: bytes written relative to hard-bind of the same repeat.").replace("BAND", "%g" % SETTLE_BAND)

DETAIL_LEGEND = (
    "start %: locality at the first sample; own final %: the workload's own final figure (mean over "
    "processes; numa01: pages on the majority node of its threads, mfc: pages on the home node, which "
    "numad's re-pinning makes meaningless), for cross-checking; min task %: the least local process at "
    "the end; t95: as t90; settled at: start of the settled window; PTEs marked: numa_pte_updates over "
    "the whole run; hint faults: numa_hint_faults (share local).")


def md_configs(configs):
    """Legend of the guest shapes (bench.sh's name:nodes:cpus list)."""
    out = []
    for c in configs.split():
        name, nodes, cpus = c.split(":")
        note = " (oversubscribed: a process's threads cannot share a node without sharing its CPU)" \
            if "oversub" in name else ""
        out.append("%s = %s nodes x %s vCPU%s%s" % (name, nodes, cpus, "s" if cpus != "1" else "", note))
    return ["Guests: " + "; ".join(out) + "."] if out else []


def md_header(a):
    opts = (" QUICK=1" if a.quick not in ("", "0") else "") + (" REPEAT=%s" % a.repeat if a.repeat != "1" else "")
    md = ["# numacore placement benchmark (`make bench%s`)" % opts, "",
          "QEMU TCG guest: placement as the kernel reports it; times are guest wall "
          "time under emulation (relative only), progress is relative to hard-bind.", ""]
    md += [a.stamp or "Module measured: not recorded (report.py run without --stamp).", ""]
    if a.configs:
        md += md_configs(a.configs) + [""]
    return md


def md_table(cells, head, columns):
    """A markdown table of the cells: head names the columns after cfg,
    workload, arm, mark and n; columns(cell) gives their text."""
    md = ["| cfg | workload | arm | | n | %s |" % " | ".join(head),
          "|" + "---|" * (5 + len(head))]
    for c in cells:
        mark = {"best": "**best**", "optimum": "*optimum*"}.get(c["mark"], "")
        lead = [c["config"], c["workload"], md_arm(c), mark, str(c["repeats"])]
        if c["status"] != "ok":
            rest = [c["status"]] + [""] * (len(head) - 1)
        else:
            rest = columns(c)
        md.append("| %s |" % " | ".join(lead + rest))
    return md


def main_columns(c):
    return [fmt_cell(c, "final_pct"), fmt_cell(c, "t90", none="never"),
            fmt_cell(c, "node_changes_settled", "{:d}"), fmt_cell(c, "sys_pct"),
            fmt_cell(c, "pgmigrate_success", "{:d}"), fmt_cell(c, "pte_rate_settled", "{:.0f}", none="n/a"),
            fmt_cell(c, "progress_rel", "{:.2f}")]


def detail_columns(c):
    hf = fmt_cell(c, "numa_hint_faults", "{:d}")
    if med(c, "numa_hint_faults"):
        hf += " (%.0f%%)" % med(c, "hint_local_pct")
    return [fmt_cell(c, "initial_pct"), fmt_cell(c, "own_final_pct"), fmt_cell(c, "final_min_task_pct"),
            fmt_cell(c, "t95", none="never"), fmt_cell(c, "settled_s"), fmt_cell(c, "numa_pte_updates", "{:d}"),
            fmt_cell(c, "node_changes", "{:d}"), hf]


def md_main(cells, a):
    md = md_header(a)
    md += md_table(cells, ["final %", "t90 s", "task node changes (settled)", "guest sys %", "pages migrated",
                           "PTEs marked/s (settled)", "progress vs opt"], main_columns)
    md += ["", MAIN_LEGEND, "", "### Details", ""]
    md += md_table(cells, ["start %", "own final %", "min task %", "t95 s", "settled at s", "PTEs marked",
                           "task node changes (whole run)", "hint faults (local %)"], detail_columns)
    md += ["", DETAIL_LEGEND]
    return md


def md_issue4(cells):
    """Memory follows CPU, 2 x 128 MiB: time to 90% and pages moved."""
    sub = [c for c in cells if c["workload"] == "mfc_remote_128" and c["arm"] in ("stock", "moron", "numacore")]
    if not sub:
        return []
    md = ["", "## Memory follows CPU, 2 x 128 MiB", "",
          "| cfg | arm | n | t90 s | pages migrated (numa_pages_migrated) | misplaced at start -> end | "
          "migrations beyond pages placed | PTE marking rate after 95 % (numa_pte_updates/s, window) | rate / stock |",
          "|---|---|---|---|---|---|---|---|---|"]
    stock_rate = {c["config"]: med(c, "pte_rate_after95") for c in sub if c["arm"] == "stock"}
    for c in sub:
        if c["status"] != "ok":
            md.append("| %s | %s | %d | %s | | | | | |" % (c["config"], c["arm"], c["repeats"], c["status"]))
            continue
        rate, srate = med(c, "pte_rate_after95"), stock_rate.get(c["config"])
        md.append("| %s |" % " | ".join([
            c["config"], md_arm(c), str(c["repeats"]), fmt_cell(c, "t90", none="never"),
            fmt_cell(c, "numa_pages_migrated", "{:d}"),
            "%s -> %s" % (fmt_cell(c, "misplaced0_pages", "{:d}"), fmt_cell(c, "misplaced_end_pages", "{:d}")),
            fmt_cell(c, "migrated_beyond_placed", "{:d}"),
            ("%s (%.1f s)" % (fmt_cell(c, "pte_rate_after95", "{:.0f}"), med(c, "pte_rate_window_s")))
            if rate is not None else "n/a (95 % not reached or < 5 s left)",
            ("%.2f" % (rate / srate)) if rate is not None and srate else "n/a"]))
    md += ["", "migrations beyond pages placed: pages migrated minus the drop in the workload's misplaced "
           "pages (0 when each migration placed one misplaced page; positive for ping-pong, or "
           "migrations of other processes' pages); rate / stock: ratio of the medians, the issue's target is <= 0.25."]
    return md


def md_numad(runs):
    """numad's own evidence, from /var/log/numad.log in the guest."""
    nd = [(k, r) for k, r in runs.items() if k[2].startswith("numad")]
    if not nd:
        return []
    md = ["", "## numad activity (from /var/log/numad.log in the guest)", "",
          "numad: shim adds 1 h to numad's CLOCK_MONOTONIC and supplies Mems_allowed_list; "
          "numad-noclock: Mems_allowed_list only (real clock: skips every never-bound process "
          "while guest uptime < 300 s); numad-noshim: no shim (no cpusets in the guest: exits).", ""]
    for (cfg, wl, arm, rep), r in nd:
        md.append("- %s %s %s%s: %s; binds (moved to node(s))=%s of which to all nodes (no-op)=%s, "
                  "skipped as done too recently=%s, advising=%s, fatal errors=%s; guest uptime at start %s s" % (
                      cfg, wl, arm, " (repeat %d)" % rep if rep > 1 or (cfg, wl, arm, 2) in runs else "",
                      "started" if r.attrs.get("avail") == "1" else "not available",
                      r.attrs.get("numad_moved", "?"), r.attrs.get("numad_moved_all", "?"),
                      r.attrs.get("numad_skip_recent", "?"), r.attrs.get("numad_advising", "?"),
                      r.attrs.get("numad_crit", "?"), r.attrs.get("uptime_s", "?")))
        for n in r.notes[:6]:
            md.append("  - `%s`" % n)
    return md


COST_KERNELS = ["unpatched", "patched_no_policy", "patched_numacore_idle"]


def cost_section(runs, results):
    """Cost when unused: medians per kernel over all its runs. Returns (md
    lines, csv rows)."""
    cost = collections.OrderedDict()
    for key, m in results.items():
        if key[1].startswith("cost_") and m and "cost" in m:
            cost.setdefault(key[1][5:], []).extend(m["cost"])
    if not cost and not any(k[1].startswith("cost_") for k in runs):
        return [], []

    def median_of(v, k):
        return statistics.median(float(d[k]) for d in v)
    md = ["", "## Cost when unused (median of %s runs)" % "/".join(str(len(cost.get(k, []))) for k in COST_KERNELS), "",
          "| kernel | faults (pages/s) | ratio | pipe ping-pong (round trips/s) | ratio |",
          "|---|---|---|---|---|"]
    csv_rows = []
    base = cost.get("unpatched")
    bf = median_of(base, "fault_pages_per_s") if base else None
    bp = median_of(base, "pingpong_roundtrips_per_s") if base else None
    for k in COST_KERNELS:
        v = cost.get(k)
        if not v:
            md.append("| %s | not available | | not available | |" % k)
            continue
        mf, mp = median_of(v, "fault_pages_per_s"), median_of(v, "pingpong_roundtrips_per_s")
        md.append("| %s | %.0f | %s | %.0f | %s |" % (
            k, mf, ("%.3f" % (mf / bf)) if bf else "n/a", mp, ("%.3f" % (mp / bp)) if bp else "n/a"))
        csv_rows.append({"config": "n2", "workload": "cost", "arm": k, "status": "ok",
                         "run": "median of %d" % len(v), "cost_fault_pages_per_s": "%.0f" % mf,
                         "cost_pingpong_per_s": "%.0f" % mp})
    return md, csv_rows


# --- locality.dat / locality-panels.gp ------------------------------------------

ARM_COLORS = {"off": "#888888", "stock": "#1a9850", "numad": "#4575b4", "moron": "#f46d43",
              "numacore": "#d73027", "hard-bind": "#000000", "numad-noclock": "#9970ab",
              "numad-noshim": "#c2a5cf"}


def write_locality_dat(path, results):
    """One gnuplot data block per run with a series; returns key -> index."""
    index = {}
    with open(path, "w") as f:
        for key, m in results.items():
            if not m or not m.get("series") or key[1].startswith("cost_"):
                continue
            f.write("# %s %s %s repeat %d\n" % key)
            for s_ in m["series"]:
                f.write("%.2f %.2f\n" % (s_[0], s_[1]))
            f.write("\n\n")
            index[key] = len(index)
    return index


def write_locality_panels(path, index, by_cfg_wl, hard):
    """One panel per (config, workload) with its arms plus the hard-bind runs
    of its group; one curve per run, the repeats of an arm in its colour."""
    panels = []
    for (cfg, wl) in by_cfg_wl:
        lst = [(i, key[2], key[3]) for key, i in index.items() if key[:2] == (cfg, wl)]
        lst += [(index[k], "hard-bind", k[3]) for k in hard.get((cfg, group_of(wl)), []) if k in index]
        if lst:
            panels.append(((cfg, wl), lst))
    n = max(1, len(panels))
    colsn = 2 if n > 1 else 1
    rowsn = (n + colsn - 1) // colsn
    with open(path, "w") as f:
        f.write("set terminal pngcairo size %d,%d noenhanced font ',9'\n" % (700 * colsn, 330 * rowsn))
        f.write("set output 'locality.png'\n")
        f.write("set multiplot layout %d,%d\n" % (rowsn, colsn))
        for (cfg, wl), lst in panels:
            f.write("set title '%s %s'\n" % (cfg, wl))
            plots = ["'locality.dat' index %d using 1:2 with linespoints pt 7 ps 0.3 lw %s lc rgb '%s' %s" % (
                     i, "2" if arm == "hard-bind" else "1.2", ARM_COLORS.get(arm, "#666666"),
                     "title '%s'" % arm if rep == 1 else "notitle")
                     for i, arm, rep in lst]
            f.write("plot " + ", \\\n     ".join(plots) + "\n")
        f.write("unset multiplot\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--arms", default="")
    ap.add_argument("--quick", default="0")
    ap.add_argument("--wall", default="")
    ap.add_argument("--repeat", default="1")
    ap.add_argument("--stamp", default="", help="what was measured (bench.sh's module_stamp)")
    ap.add_argument("--configs", default="", help="name:nodes:cpus ... (bench.sh's guest shapes)")
    ap.add_argument("taps", nargs="*")
    a = ap.parse_args()
    runs = parse([p for p in a.taps if os.path.exists(p)])
    results = collections.OrderedDict((key, analyse(r) if r.seen else None) for key, r in runs.items())
    blocks, by_cfg_wl, hard = build_rows(runs, results, a.arms.split() + ["hard-bind"])
    cells = build_cells(blocks)
    cost_md, cost_rows = cost_section(runs, results)
    write_csv(os.path.join(a.out, "results.csv"), [x for b in blocks for x in b[3]] + cost_rows)
    md = md_main(cells, a) + md_issue4(cells) + md_numad(runs) + cost_md
    if a.wall:
        md += ["", "Wall time of this `make bench` run: %s s." % a.wall]
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    index = write_locality_dat(os.path.join(a.out, "locality.dat"), results)
    write_locality_panels(os.path.join(a.out, "locality-panels.gp"), index, by_cfg_wl, hard)


if __name__ == "__main__":
    main()
