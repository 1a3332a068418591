# SPDX-License-Identifier: GPL-2.0
"""report.py, stage 3 (tables): the results as rows and cells.

Rows: one per run (results.csv), grouped in blocks of one (config,
workload) with the hard-bind runs of its group.  Cells: one per (config,
workload, arm), the median and range of each metric over the repeats
(results.md), with the best arm and the optimum marked.
"""
import collections
import statistics

# Diagnostic numad arms (without the shim, or without its clock): never "best".
DIAG_ARMS = ("numad-noshim", "numad-noclock")


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


# --- rows and cells together -------------------------------------------------

Tables = collections.namedtuple("Tables", "blocks by_cfg_wl hard cells")


def build_tables(runs, results, arms):
    """The rows and cells of the runs with their metrics; arms: the arm
    order of the plan (bench.sh's BENCH_ARMS), hard-bind after them."""
    blocks, by_cfg_wl, hard = build_rows(runs, results, arms.split() + ["hard-bind"])
    return Tables(blocks, by_cfg_wl, hard, build_cells(blocks))
