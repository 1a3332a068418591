# SPDX-License-Identifier: GPL-2.0
"""report.py, stage 5 (writers): the output files.

results.csv (one row per run, columns CSV_COLS), results.md (the text of
report_markdown), locality.dat (one gnuplot data block per run) and
locality-panels.gp (one panel per config and workload, for locality.gp,
arms coloured by ARM_COLORS).
"""
import csv
import os

from report_markdown import cost_section, results_md
from report_tables import group_of


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

def write_md(path, md):
    """results.md from its lines (report_markdown.results_md)."""
    with open(path, "w") as f:
        f.write("\n".join(md) + "\n")


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


def locality_panels(index, by_cfg_wl, hard):
    """[((config, workload), [(data index, arm, repeat)])]: one panel per
    (config, workload) with a series, its arms plus the hard-bind runs of
    its group."""
    panels = []
    for (cfg, wl) in by_cfg_wl:
        lst = [(i, key[2], key[3]) for key, i in index.items() if key[:2] == (cfg, wl)]
        lst += [(index[k], "hard-bind", k[3]) for k in hard.get((cfg, group_of(wl)), []) if k in index]
        if lst:
            panels.append(((cfg, wl), lst))
    return panels


def write_locality_panels(path, index, by_cfg_wl, hard):
    """One panel per (config, workload) with its arms plus the hard-bind runs
    of its group; one curve per run, the repeats of an arm in its colour."""
    panels = locality_panels(index, by_cfg_wl, hard)
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


# --- all of them ----------------------------------------------------------------

def write_outputs(a, runs, results, tables):
    """results.csv, results.md, locality.dat and locality-panels.gp in a.out
    from the runs, their metrics and their tables (report_tables.Tables)."""
    cost_md, cost_rows = cost_section(runs, results)
    write_csv(os.path.join(a.out, "results.csv"), [x for b in tables.blocks for x in b[3]] + cost_rows)
    write_md(os.path.join(a.out, "results.md"), results_md(a, tables.cells, runs, cost_md))
    index = write_locality_dat(os.path.join(a.out, "locality.dat"), results)
    write_locality_panels(os.path.join(a.out, "locality-panels.gp"), index, tables.by_cfg_wl, tables.hard)
