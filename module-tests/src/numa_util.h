/* SPDX-License-Identifier: GPL-2.0 */
/*
 * numa_util.h - tiny NUMA helper library for the numacore module tests.
 *
 * No libnuma: everything goes through raw syscalls (set_mempolicy, mbind,
 * get_mempolicy, move_pages) and sched_setaffinity, so the programs can be
 * linked statically and run in a busybox-only guest.
 *
 * Topology is read from /sys/devices/system/node/{online,nodeN/cpulist}.
 * Node ids are assumed to be dense (0..nr_nodes-1), which is what the QEMU
 * boots produce; a missing node directory is reported as an error.
 */
#ifndef NUMA_UTIL_H
#define NUMA_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#define NU_MAX_NODES 64
#define NU_PAGE_SIZE 4096UL

/* Mempolicy modes / flags (values from <linux/mempolicy.h>). */
#define NU_MPOL_DEFAULT 0
#define NU_MPOL_PREFERRED 1
#define NU_MPOL_BIND 2
#define NU_MPOL_INTERLEAVE 3
#define NU_MPOL_MF_STRICT (1 << 0)
#define NU_MPOL_MF_MOVE (1 << 1)

/* Read topology; returns number of nodes (>=1) or -1 with a message on stderr. */
int nu_init(void);
int nu_num_nodes(void);
/* Number of CPUs of @node and its cpu_set_t (may be NULL). -1 on bad node. */
int nu_node_cpus(int node, cpu_set_t *set);
/* Node of @cpu, -1 if unknown. */
int nu_cpu_to_node(int cpu);
/* Node the calling thread runs on right now (sched_getcpu based). */
int nu_current_node(void);
/* Highest CPU number + 1 seen in any node's cpulist. */
int nu_num_cpus(void);

/* Pin the calling thread to the CPUs of @node; 0 on success, -errno. */
int nu_pin_to_node(int node);
/* Pin the calling thread to one CPU. */
int nu_pin_to_cpu(int cpu);
/* Allow the calling thread on every CPU of every node. */
int nu_unpin(void);

/* Task policy: MPOL_BIND to @node / back to MPOL_DEFAULT. 0 or -errno. */
int nu_bind_task_node(int node);
int nu_task_policy_default(void);
/* Task policy: MPOL_INTERLEAVE over nodes 0..@nodes-1. 0 or -errno. */
int nu_interleave_task(int nodes);
/* VMA policy on [addr, addr+len): @mode with @node (node ignored for
 * MPOL_DEFAULT), @flags MPOL_MF_*. 0 or -errno. */
int nu_mbind_node(void *addr, size_t len, int mode, int node, unsigned flags);
/* Current task policy mode (MPOL_*) or -errno. */
int nu_get_task_policy(void);

/*
 * Query the node of each 4K page of [buf, buf+len).  counts[] (NU_MAX_NODES
 * entries) receives the number of pages on each node; *absent the number of
 * pages not present / not queryable.  Returns number of present pages, or
 * -errno.
 *
 * Two methods:
 *   move_pages  move_pages(0, n, pages, NULL, status, 0).  On 6.1 this
 *               reports -ENOENT for pages whose PTE the NUMA scanner has
 *               just made PROT_NONE (follow_page() refuses protnone without
 *               FOLL_FORCE), so while balancing runs a varying share of the
 *               pages is invisible to it.
 *   pagemap     /proc/self/pagemap PFNs mapped to nodes with the zone PFN
 *               ranges of /proc/zoneinfo.  Sees PROT_NONE pages, does not
 *               fault anything in; needs root (PFNs are hidden otherwise).
 * Default: pagemap when usable, else move_pages.  The environment variable
 * NU_PAGE_QUERY=move_pages|pagemap forces one.
 */
long nu_page_nodes(const void *buf, size_t len, long *counts, long *absent);
long nu_page_nodes_move_pages(const void *buf, size_t len, long *counts, long *absent);
long nu_page_nodes_pagemap(const void *buf, size_t len, long *counts, long *absent);
/* "pagemap" or "move_pages": the method nu_page_nodes() uses. */
const char *nu_page_query_method(void);
/* Node of one page (-errno if absent). */
int nu_page_node(const void *addr);
/* Percentage (0..100) of @local out of @total, 0 if total==0. */
double nu_pct(long local, long total);
/* counts[node] as a share of the present pages. */
double nu_locality(const long *counts, int node);

/* mmap(PROT_READ|PROT_WRITE, MAP_ANONYMOUS | @flags) of @len bytes whose
 * start is aligned to NU_HUGE_SIZE (2 MiB), so transparent huge pages do not
 * straddle slices cut at 2 MiB multiples.  MAP_FAILED on error (errno set). */
#define NU_HUGE_SIZE (2UL << 20)
void *nu_mmap_aligned(size_t len, int flags);
/* Slice size for @parts parts of @len: a multiple of NU_HUGE_SIZE when each
 * part gets at least that much, else a multiple of NU_PAGE_SIZE (0 if
 * @len is too small). */
size_t nu_slice_size(size_t len, int parts);

/* Monotonic milliseconds. */
uint64_t nu_now_ms(void);
/* Format counts[0..nodes-1] as "a,b,c" into buf. */
char *nu_fmt_counts(char *buf, size_t sz, const long *counts, int nodes);
/* Parse a cpulist ("0-3,8,10-11") into @set; returns number of CPUs or -1. */
int nu_parse_cpulist(const char *s, cpu_set_t *set);
/* Atomic line output: formats into a buffer and write(2)s it at once so
 * lines of several processes/threads never interleave. */
void nu_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
