# SPDX-License-Identifier: GPL-2.0
"""report.py, stage 4 (markdown): the text of results.md.

The main and details tables of the cells, the memory-follows-CPU table,
numad's activity and the cost-when-unused table, with their legends.
"""
import collections
import statistics

from report_metrics import SETTLE_BAND
from report_tables import NEVER, med



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
    "last 0.5 s sample before a writer thread exits; per-slice shapes THREAD_ALLOC/numa02*: the workload's own per-slice figure); "
    "t90: first sample at or above 90 % after the write phase started; "
    "settled: from the first sample after which locality stays within BAND points of its final value "
    "to the end of the run (see the details table for when); "
    "task node changes: threads seen on another node than in their previous running sample (settled: both samples in the window); "
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


# Columns of the main and the details table after cfg, workload, arm, mark
# and n; main_columns() and detail_columns() give their cells.
MAIN_HEAD = ["final %", "t90 s", "task node changes (settled)", "guest sys %", "pages migrated",
             "PTEs marked/s (settled)", "progress vs opt"]
DETAIL_HEAD = ["start %", "own final %", "min task %", "t95 s", "settled at s", "PTEs marked",
               "task node changes (whole run)", "hint faults (local %)"]


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
    md += md_table(cells, MAIN_HEAD, main_columns)
    md += ["", MAIN_LEGEND, "", "### Details", ""]
    md += md_table(cells, DETAIL_HEAD, detail_columns)
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


def results_md(a, cells, runs, cost_md):
    """The lines of results.md: the tables of the cells, the memory follows
    CPU and numad sections, the cost section cost_md and the wall time."""
    md = md_main(cells, a) + md_issue4(cells) + md_numad(runs) + cost_md
    if a.wall:
        md += ["", "Wall time of this `make bench` run: %s s." % a.wall]
    return md
