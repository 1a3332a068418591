// SPDX-License-Identifier: GPL-2.0
/* numa_util.c - see numa_util.h */
#include "numa_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int nr_nodes;
static int nr_cpus;
static cpu_set_t node_cpus[NU_MAX_NODES];
static int node_ncpus[NU_MAX_NODES];
static int cpu_node[CPU_SETSIZE];

static int read_file(const char *path, char *buf, size_t sz)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sz - 1, f);
	fclose(f);
	buf[n] = 0;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return (int)n;
}

int nu_parse_cpulist(const char *s, cpu_set_t *set)
{
	int n = 0;

	CPU_ZERO(set);
	while (*s) {
		char *end;
		long a, b;

		while (*s == ',' || *s == ' ' || *s == '\n')
			s++;
		if (!*s)
			break;
		a = strtol(s, &end, 10);
		if (end == s)
			return -1;
		b = a;
		s = end;
		if (*s == '-') {
			s++;
			b = strtol(s, &end, 10);
			if (end == s)
				return -1;
			s = end;
		}
		if (a < 0 || b < a || b >= CPU_SETSIZE)
			return -1;
		for (long c = a; c <= b; c++) {
			CPU_SET(c, set);
			n++;
		}
	}
	return n;
}

int nu_init(void)
{
	char buf[4096], path[128];
	cpu_set_t online;
	int max = -1;

	if (nr_nodes)
		return nr_nodes;
	if (read_file("/sys/devices/system/node/online", buf, sizeof(buf)) < 0) {
		fprintf(stderr, "numa_util: cannot read /sys/devices/system/node/online: %s\n",
			strerror(errno));
		return -1;
	}
	if (nu_parse_cpulist(buf, &online) <= 0) {
		fprintf(stderr, "numa_util: bad node online list '%s'\n", buf);
		return -1;
	}
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &online))
			max = i;
	if (max + 1 > NU_MAX_NODES) {
		fprintf(stderr, "numa_util: too many nodes (%d)\n", max + 1);
		return -1;
	}
	for (int i = 0; i < CPU_SETSIZE; i++)
		cpu_node[i] = -1;
	for (int n = 0; n <= max; n++) {
		if (!CPU_ISSET(n, &online)) {
			fprintf(stderr, "numa_util: node ids not dense (node%d offline)\n", n);
			return -1;
		}
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", n);
		if (read_file(path, buf, sizeof(buf)) < 0) {
			fprintf(stderr, "numa_util: cannot read %s: %s\n", path, strerror(errno));
			return -1;
		}
		node_ncpus[n] = nu_parse_cpulist(buf, &node_cpus[n]);
		if (node_ncpus[n] < 0) {
			fprintf(stderr, "numa_util: bad cpulist '%s' in %s\n", buf, path);
			return -1;
		}
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &node_cpus[n])) {
				cpu_node[c] = n;
				if (c + 1 > nr_cpus)
					nr_cpus = c + 1;
			}
	}
	nr_nodes = max + 1;
	return nr_nodes;
}

int nu_num_nodes(void)
{
	return nr_nodes ? nr_nodes : nu_init();
}

int nu_num_cpus(void)
{
	if (!nr_nodes)
		nu_init();
	return nr_cpus;
}

int nu_node_cpus(int node, cpu_set_t *set)
{
	if (node < 0 || node >= nu_num_nodes())
		return -1;
	if (set)
		*set = node_cpus[node];
	return node_ncpus[node];
}

int nu_cpu_to_node(int cpu)
{
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -1;
	if (!nr_nodes)
		nu_init();
	return cpu_node[cpu];
}

int nu_current_node(void)
{
	return nu_cpu_to_node(sched_getcpu());
}

int nu_pin_to_node(int node)
{
	cpu_set_t set;

	if (nu_node_cpus(node, &set) <= 0)
		return -EINVAL;
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	return 0;
}

int nu_pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	return 0;
}

int nu_unpin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int n = 0; n < nu_num_nodes(); n++)
		CPU_OR(&set, &set, &node_cpus[n]);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	return 0;
}

static void node_mask(unsigned long *mask, int node)
{
	mask[0] = mask[1] = 0;
	mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
}

int nu_bind_task_node(int node)
{
	unsigned long mask[2];

	if (node < 0 || node >= NU_MAX_NODES)
		return -EINVAL;
	node_mask(mask, node);
	if (syscall(SYS_set_mempolicy, NU_MPOL_BIND, mask, NU_MAX_NODES + 1))
		return -errno;
	return 0;
}

int nu_interleave_task(int nodes)
{
	unsigned long mask[2] = { 0, 0 };

	if (nodes < 1 || nodes > NU_MAX_NODES)
		return -EINVAL;
	for (int n = 0; n < nodes; n++)
		mask[n / (8 * sizeof(long))] |= 1UL << (n % (8 * sizeof(long)));
	if (syscall(SYS_set_mempolicy, NU_MPOL_INTERLEAVE, mask, NU_MAX_NODES + 1))
		return -errno;
	return 0;
}

int nu_task_policy_default(void)
{
	if (syscall(SYS_set_mempolicy, NU_MPOL_DEFAULT, NULL, 0))
		return -errno;
	return 0;
}

int nu_get_task_policy(void)
{
	int mode = -1;

	if (syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 0))
		return -errno;
	return mode;
}

int nu_mbind_node(void *addr, size_t len, int mode, int node, unsigned flags)
{
	unsigned long mask[2];
	long r;

	if (mode == NU_MPOL_DEFAULT) {
		r = syscall(SYS_mbind, addr, len, mode, NULL, 0, flags);
	} else {
		if (node < 0 || node >= NU_MAX_NODES)
			return -EINVAL;
		node_mask(mask, node);
		r = syscall(SYS_mbind, addr, len, mode, mask, NU_MAX_NODES + 1, flags);
	}
	return r ? -errno : 0;
}

#define QCHUNK 1024

long nu_page_nodes_move_pages(const void *buf, size_t len, long *counts, long *absent)
{
	void *pages[QCHUNK];
	int status[QCHUNK];
	uintptr_t start = (uintptr_t)buf & ~(NU_PAGE_SIZE - 1);
	uintptr_t end = (uintptr_t)buf + len;
	long present = 0, miss = 0;

	memset(counts, 0, sizeof(long) * NU_MAX_NODES);
	for (uintptr_t a = start; a < end;) {
		unsigned long n = 0;

		while (n < QCHUNK && a < end) {
			pages[n++] = (void *)a;
			a += NU_PAGE_SIZE;
		}
		if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0) < 0)
			return -errno;
		for (unsigned long i = 0; i < n; i++) {
			if (status[i] >= 0 && status[i] < NU_MAX_NODES) {
				counts[status[i]]++;
				present++;
			} else {
				miss++;
			}
		}
	}
	if (absent)
		*absent = miss;
	return present;
}

/* PFN ranges per node from /proc/zoneinfo (populated zones only). */
#define NU_MAX_RANGES 64
static struct { uint64_t start, end; int node; } ranges[NU_MAX_RANGES];
static int nr_ranges = -1;	/* -1: not loaded yet, 0: unusable */
static int pagemap_fd = -1;
static pid_t pagemap_pid;	/* /proc/self/pagemap is per process: reopen after fork */
static int query_method;	/* 0 undecided, 1 pagemap, 2 move_pages */

static void load_ranges(void)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	char line[256];
	int node = -1;
	unsigned long spanned = 0, start;

	nr_ranges = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		int n;

		if (sscanf(line, "Node %d, zone", &n) == 1) {
			node = n;
			spanned = 0;
		} else if (sscanf(line, " spanned %lu", &spanned) == 1) {
			continue;
		} else if (sscanf(line, " start_pfn: %lu", &start) == 1) {
			if (node < 0 || node >= NU_MAX_NODES || !spanned ||
			    nr_ranges >= NU_MAX_RANGES)
				continue;
			ranges[nr_ranges].start = start;
			ranges[nr_ranges].end = start + spanned;
			ranges[nr_ranges].node = node;
			nr_ranges++;
		}
	}
	fclose(f);
}

static int pfn_to_node(uint64_t pfn)
{
	static int last;

	if (last < nr_ranges && pfn >= ranges[last].start && pfn < ranges[last].end)
		return ranges[last].node;
	for (int i = 0; i < nr_ranges; i++)
		if (pfn >= ranges[i].start && pfn < ranges[i].end) {
			last = i;
			return ranges[i].node;
		}
	return -1;
}

#define PM_PRESENT (1ULL << 63)
#define PM_PFN_MASK ((1ULL << 55) - 1)

long nu_page_nodes_pagemap(const void *buf, size_t len, long *counts, long *absent)
{
	uint64_t ent[QCHUNK];
	uintptr_t start = (uintptr_t)buf & ~(NU_PAGE_SIZE - 1);
	uintptr_t end = (uintptr_t)buf + len;
	long present = 0, miss = 0;

	if (nr_ranges < 0)
		load_ranges();
	if (!nr_ranges)
		return -ENOENT;
	if (pagemap_fd >= 0 && pagemap_pid != getpid()) {
		close(pagemap_fd);
		pagemap_fd = -1;
	}
	if (pagemap_fd < 0) {
		pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
		if (pagemap_fd < 0)
			return -errno;
		pagemap_pid = getpid();
	}
	memset(counts, 0, sizeof(long) * NU_MAX_NODES);
	for (uintptr_t a = start; a < end;) {
		size_t n = (end - a + NU_PAGE_SIZE - 1) / NU_PAGE_SIZE;
		ssize_t r;

		if (n > QCHUNK)
			n = QCHUNK;
		r = pread(pagemap_fd, ent, n * sizeof(ent[0]), (off_t)(a / NU_PAGE_SIZE * 8));
		if (r < 0)
			return -errno;
		if ((size_t)r != n * sizeof(ent[0]))
			return -EIO;
		for (size_t i = 0; i < n; i++) {
			int node = -1;

			if (ent[i] & PM_PRESENT) {
				uint64_t pfn = ent[i] & PM_PFN_MASK;

				if (!pfn)
					return -EPERM;	/* PFNs hidden: not root */
				node = pfn_to_node(pfn);
			}
			if (node >= 0 && node < NU_MAX_NODES) {
				counts[node]++;
				present++;
			} else {
				miss++;
			}
		}
		a += n * NU_PAGE_SIZE;
	}
	if (absent)
		*absent = miss;
	return present;
}

long nu_page_nodes(const void *buf, size_t len, long *counts, long *absent)
{
	long r;

	if (!query_method) {
		const char *e = getenv("NU_PAGE_QUERY");

		query_method = e && !strcmp(e, "move_pages") ? 2 : 1;
		if (query_method == 1 && !(e && !strcmp(e, "pagemap"))) {
			/* auto: probe pagemap on the buffer itself */
			r = nu_page_nodes_pagemap(buf, len, counts, absent);
			if (r < 0)
				query_method = 2;
			else
				return r;
		}
	}
	if (query_method == 1)
		return nu_page_nodes_pagemap(buf, len, counts, absent);
	return nu_page_nodes_move_pages(buf, len, counts, absent);
}

const char *nu_page_query_method(void)
{
	if (!query_method) {
		const char *e = getenv("NU_PAGE_QUERY");

		if (e && !strcmp(e, "move_pages"))
			return "move_pages";
		if (e && !strcmp(e, "pagemap"))
			return "pagemap";
		/* auto: decide with a probe on a page of our own stack */
		{
			long c[NU_MAX_NODES];
			volatile char probe[NU_PAGE_SIZE];

			probe[0] = 1;
			nu_page_nodes((const void *)probe, 1, c, NULL);
		}
	}
	return query_method == 1 ? "pagemap" : "move_pages";
}

int nu_page_node(const void *addr)
{
	void *p = (void *)((uintptr_t)addr & ~(NU_PAGE_SIZE - 1));
	int status = -1;

	if (syscall(SYS_move_pages, 0, 1UL, &p, NULL, &status, 0) < 0)
		return -errno;
	return status;
}

double nu_pct(long local, long total)
{
	return total > 0 ? 100.0 * (double)local / (double)total : 0.0;
}

double nu_locality(const long *counts, int node)
{
	long total = 0;

	for (int i = 0; i < NU_MAX_NODES; i++)
		total += counts[i];
	if (node < 0 || node >= NU_MAX_NODES)
		return 0.0;
	return nu_pct(counts[node], total);
}

void *nu_mmap_aligned(size_t len, int flags)
{
	size_t full = len + NU_HUGE_SIZE;
	char *p = mmap(NULL, full, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | flags, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED)
		return p;
	a = ((uintptr_t)p + NU_HUGE_SIZE - 1) & ~(NU_HUGE_SIZE - 1);
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	if ((uintptr_t)p + full > a + len)
		munmap((void *)(a + len), (uintptr_t)p + full - (a + len));
	return (void *)a;
}

size_t nu_slice_size(size_t len, int parts)
{
	size_t s = parts > 0 ? len / parts : 0;

	if (s >= NU_HUGE_SIZE)
		return s & ~(NU_HUGE_SIZE - 1);
	return s & ~(NU_PAGE_SIZE - 1);
}

uint64_t nu_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

char *nu_fmt_counts(char *buf, size_t sz, const long *counts, int nodes)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < nodes && off < sz; i++)
		off += snprintf(buf + off, sz - off, "%s%ld", i ? "," : "", counts[i]);
	return buf;
}

void nu_out(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	for (int off = 0; off < n;) {
		ssize_t w = write(1, buf + off, n - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		off += (int)w;
	}
}
