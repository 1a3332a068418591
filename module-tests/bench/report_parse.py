# SPDX-License-Identifier: GPL-2.0
"""report.py, stage 1 (parse): the TAP copies of the `make bench` guest
boots into runs.

Input: build/bench/raw/<config>.tap, where the guest printed
"# @ <workload> <arm> <record>" lines (see bench_guest.sh, bench_run.c).
parse() gathers them into one Run per run of a workload under an arm.
"""
import collections
import os
import re


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
