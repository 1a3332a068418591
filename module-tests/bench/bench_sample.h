/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_sample.h - the samplers of bench_run (bench_sample.c): they print
 * its N, P and G records (formats in bench_run.c), one line each, on stdout.
 */
#ifndef BENCH_SAMPLE_H
#define BENCH_SAMPLE_H

#include <stdint.h>

/* CLOCK_MONOTONIC milliseconds: the second field of every record. */
uint64_t now_ms(void);
/* Reads the node of every CPU from sysfs and prints the N record. */
void sample_topology(const char *name);
/* One P record for @root and for each of its child processes. */
void sample_procs(uint64_t t, long root);
/* One G record: /proc/stat's cpu line, the NUMA counters of /proc/vmstat
 * and numacore's debugfs stats when present. */
void sample_global(uint64_t t);

#endif
