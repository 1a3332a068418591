// SPDX-License-Identifier: GPL-2.0
/*
 * bench_sample - the samplers of bench_run (see bench_run.c for the
 * records they print).
 *
 * N: the node of each CPU, from /sys/devices/system/node/node<N>/cpulist.
 * P: per process, resident pages per node summed over /proc/<pid>/numa_maps,
 *    and per thread the CPU it last ran on and its utime+stime
 *    (/proc/<pid>/task/<tid>/stat).
 * G: /proc/stat's cpu line, the NUMA counters of /proc/vmstat and the
 *    numacore stats in debugfs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_sample.h"

#define MAXN 64
#define MAXCPU 256

static int nodes;
static int cpu_node[MAXCPU];

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int read_file(const char *path, char *buf, size_t sz)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, off = 0;

	if (fd < 0)
		return -1;
	while (off < (ssize_t)sz - 1 && (n = read(fd, buf + off, sz - 1 - off)) > 0)
		off += n;
	close(fd);
	buf[off] = 0;
	return (int)off;
}

static void topology(void)
{
	char path[128], buf[4096];

	for (int c = 0; c < MAXCPU; c++)
		cpu_node[c] = -1;
	for (int n = 0; n < MAXN; n++) {
		char *p;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", n);
		if (read_file(path, buf, sizeof(buf)) < 0)
			continue;
		nodes = n + 1;
		p = buf;
		while (*p && *p != '\n') {
			long a = strtol(p, &p, 10), b = a;

			if (*p == '-')
				b = strtol(p + 1, &p, 10);
			for (long c = a; c <= b && c < MAXCPU; c++)
				if (c >= 0)
					cpu_node[c] = n;
			if (*p == ',')
				p++;
			else
				break;
		}
	}
	if (!nodes)
		nodes = 1;
}

void sample_topology(const char *name)
{
	char buf[65536];
	int off, first = 1;

	topology();
	off = snprintf(buf, sizeof(buf), "N %llu name=%s nodes=%d cpu_node=",
		       (unsigned long long)now_ms(), name, nodes);
	for (int i = 0; i < MAXCPU; i++)
		if (cpu_node[i] >= 0) {
			off += snprintf(buf + off, sizeof(buf) - off, "%s%d:%d", first ? "" : ",", i, cpu_node[i]);
			first = 0;
		}
	printf("%s\n", buf);
}

/* Fields of /proc/.../stat after the ")" of comm: index 0 = field 3 (state). */
static int stat_fields(const char *path, long *ppid, long *cpu, unsigned long long *ticks)
{
	char buf[1024], *p;
	int f = 3;

	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	p += 2;
	*ticks = 0;
	while (*p) {
		if (f == 4)
			*ppid = strtol(p, NULL, 10);
		else if (f == 14 || f == 15)
			*ticks += strtoull(p, NULL, 10);
		else if (f == 39) {
			*cpu = strtol(p, NULL, 10);
			return 0;
		}
		while (*p && *p != ' ')
			p++;
		while (*p == ' ')
			p++;
		f++;
	}
	return -1;
}

/* Sums the N<node>=<pages> fields of /proc/<pid>/numa_maps into pages[]. */
static int node_pages(long pid, long long *pages)
{
	char path[128];
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/numa_maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		char *tok = strtok(line, " \n");

		while (tok) {
			if (tok[0] == 'N' && isdigit((unsigned char)tok[1])) {
				char *eq = strchr(tok, '=');
				int n = atoi(tok + 1);

				if (eq && n >= 0 && n < MAXN)
					pages[n] += atoll(eq + 1);
			}
			tok = strtok(NULL, " \n");
		}
	}
	free(line);
	fclose(f);
	return 0;
}

/* Appends <tid>:<cpu>:<ticks>,... of @pid's threads to buf at @off. */
static int append_threads(char *buf, size_t sz, int off, long pid)
{
	char path[128], tpath[300];
	struct dirent *de;
	DIR *d;
	int first = 1;

	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	d = opendir(path);
	if (!d)
		return off;
	while ((de = readdir(d))) {
		long tppid = 0, cpu = -1;
		unsigned long long ticks = 0;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(tpath, sizeof(tpath), "/proc/%ld/task/%s/stat", pid, de->d_name);
		if (stat_fields(tpath, &tppid, &cpu, &ticks))
			continue;
		if (off < (int)sz - 64)
			off += snprintf(buf + off, sz - off, "%s%s:%ld:%llu",
					first ? "" : ",", de->d_name, cpu, ticks);
		first = 0;
	}
	closedir(d);
	return off;
}

static char *mapsbuf;
static size_t mapsbuf_sz;

static void sample_proc(uint64_t t, long pid, long ppid)
{
	long long pages[MAXN] = { 0 };
	int off = 0;

	if (node_pages(pid, pages))
		return;
	if (!mapsbuf) {
		mapsbuf_sz = 65536;
		mapsbuf = malloc(mapsbuf_sz);
		if (!mapsbuf)
			return;
	}
	off = snprintf(mapsbuf, mapsbuf_sz, "P %llu pid=%ld ppid=%ld pages=", (unsigned long long)t, pid, ppid);
	for (int n = 0; n < nodes; n++)
		off += snprintf(mapsbuf + off, mapsbuf_sz - off, "%s%lld", n ? "," : "", pages[n]);
	off += snprintf(mapsbuf + off, mapsbuf_sz - off, " thr=");
	append_threads(mapsbuf, mapsbuf_sz, off, pid);
	printf("%s\n", mapsbuf);
}

void sample_procs(uint64_t t, long root)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char path[128];

	if (!d)
		return;
	while ((de = readdir(d))) {
		long pid, ppid = -1, cpu;
		unsigned long long ticks;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atol(de->d_name);
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		if (stat_fields(path, &ppid, &cpu, &ticks))
			continue;
		if (pid == root || ppid == root)
			sample_proc(t, pid, ppid);
	}
	closedir(d);
}

/* Appends " <key>=<value>" for each "<key> <value>" line of buf that
 * @keep accepts (every line if NULL), the key prefixed with @prefix. */
static int append_pairs(char *out, size_t sz, int off, char *buf, const char *prefix,
			int (*keep)(const char *line))
{
	char *p, *nl;

	for (p = buf; *p; p = nl + 1) {
		char *sp;

		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = 0;
		if (keep && !keep(p))
			continue;
		sp = strchr(p, ' ');
		if (sp && off < (int)sz - 128)
			off += snprintf(out + off, sz - off, " %s%.*s=%s",
					prefix, (int)(sp - p), p, sp + 1);
	}
	return off;
}

/* The /proc/vmstat counters of the G record. */
static int numa_counter(const char *p)
{
	return !strncmp(p, "numa_pte", 8) || !strncmp(p, "numa_huge_pte", 13) ||
	       !strncmp(p, "numa_hint", 9) || !strncmp(p, "numa_pages", 10) ||
	       !strncmp(p, "pgmigrate_", 10);
}

void sample_global(uint64_t t)
{
	static char buf[65536];
	char out[8192];
	int off;

	off = snprintf(out, sizeof(out), "G %llu", (unsigned long long)t);
	if (read_file("/proc/stat", buf, sizeof(buf)) > 0 && !strncmp(buf, "cpu ", 4)) {
		unsigned long long v[7] = { 0 };

		sscanf(buf + 4, "%llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		       &v[4], &v[5], &v[6]);
		off += snprintf(out + off, sizeof(out) - off, " cpu=%llu,%llu,%llu,%llu,%llu,%llu,%llu",
				v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
	}
	if (read_file("/proc/vmstat", buf, sizeof(buf)) > 0)
		off = append_pairs(out, sizeof(out), off, buf, "", numa_counter);
	if (read_file("/sys/kernel/debug/numacore/stats", buf, sizeof(buf)) > 0)
		append_pairs(out, sizeof(out), off, buf, "nc_", NULL);
	printf("%s\n", out);
}
