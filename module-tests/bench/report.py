#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the TAP copies of `make bench` guest boots into results.csv,
results.md, locality.dat and locality-panels.gp (for locality.gp).

Input: build/bench/raw/<config>.tap, where the guest printed
"# @ <workload> <arm> <record>" lines (see bench_guest.sh, bench_run.c).
Every number written here is computed from those lines; a run without data
is reported as "not available".

This is the command line; the work is done in stages, one module each:
report_parse (TAP lines -> runs), report_metrics (run -> metrics),
report_tables (per-run rows, per-arm cells), report_markdown (the text of
results.md) and report_writers (the output files).
"""
import argparse
import os

from report_metrics import analyse_all
from report_parse import parse
from report_tables import build_tables
from report_writers import write_outputs


def parse_args(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--arms", default="")
    ap.add_argument("--quick", default="0")
    ap.add_argument("--wall", default="")
    ap.add_argument("--repeat", default="1")
    ap.add_argument("--stamp", default="", help="what was measured (bench.sh's module_stamp)")
    ap.add_argument("--configs", default="", help="name:nodes:cpus ... (bench.sh's guest shapes)")
    ap.add_argument("taps", nargs="*")
    return ap.parse_args(argv)


def main(argv=None):
    a = parse_args(argv)
    runs = parse([p for p in a.taps if os.path.exists(p)])
    results = analyse_all(runs)
    write_outputs(a, runs, results, build_tables(runs, results, a.arms))


if __name__ == "__main__":
    main()
