// SPDX-License-Identifier: GPL-2.0
/*
 * numad_shim.so - LD_PRELOAD adapter that lets Debian's numad 0.5+20150602
 * act in the benchmark guest.  It changes what numad *sees* of two guest
 * properties that real servers do not have; it changes no numad decision
 * logic.  Both are documented in docs/bench.md ("numad in the guest"):
 *
 * 1. Fresh boot clock.  numad keeps per-process bind_time_stamp in 1/100 s
 *    of CLOCK_MONOTONIC, 0 meaning "never bound", and skips a process while
 *    bind_time_stamp + MIN_DELAY_FOR_REEVALUATION (300 s) > now.  For a
 *    never-bound process that is "now < 300 s": for the first five minutes
 *    after boot numad logs "Skipping evaluation of PID ... because done too
 *    recently" for every candidate.  A benchmark guest is always in its first
 *    minutes, so the shim adds NUMAD_SHIM_MONO_OFFSET_S (default 3600) to
 *    CLOCK_MONOTONIC as seen by numad (a host that has been up for an hour).
 *
 * 2. No cpusets.  The guest kernel has no CONFIG_CPUSETS, so
 *    /proc/<pid>/status lacks "Mems_allowed_list:" and numad exits with
 *    "Could not get node Mems_allowed_list" at its first candidate.  Without
 *    a cpuset restriction the kernel would print every node with memory, so
 *    the shim appends "Mems_allowed_list:\t<N_MEMORY nodes>" when the line is
 *    missing (NUMAD_SHIM_MEMS=0 disables this).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long mono_offset = -1;

static long offset_s(void)
{
	if (mono_offset < 0) {
		const char *e = getenv("NUMAD_SHIM_MONO_OFFSET_S");

		mono_offset = e ? atol(e) : 3600;
		if (mono_offset < 0)
			mono_offset = 0;
	}
	return mono_offset;
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	int r = (int)syscall(SYS_clock_gettime, clk, ts);

	if (!r && (clk == CLOCK_MONOTONIC || clk == CLOCK_MONOTONIC_COARSE ||
		   clk == CLOCK_MONOTONIC_RAW || clk == CLOCK_BOOTTIME))
		ts->tv_sec += offset_s();
	return r;
}

static int is_proc_status(const char *path)
{
	const char *p;

	if (strncmp(path, "/proc/", 6))
		return 0;
	p = path + 6;
	if (*p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	return !strcmp(p, "/status");
}

int open(const char *path, int flags, ...)
{
	static int (*real_open)(const char *, int, ...);
	const char *e = getenv("NUMAD_SHIM_MEMS");
	mode_t mode = 0;
	va_list ap;
	int fd;

	if (!real_open)
		real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	fd = real_open(path, flags, mode);
	if (fd < 0 || (e && *e == '0') || !is_proc_status(path))
		return fd;
	{
		char buf[8192], nodes[256] = "0";
		ssize_t n, off = 0;
		int nf, p[2];

		while (off < (ssize_t)sizeof(buf) - 512 &&
		       (n = read(fd, buf + off, sizeof(buf) - 512 - off)) > 0)
			off += n;
		close(fd);
		buf[off] = 0;
		if (!strstr(buf, "Mems_allowed_list:")) {
			nf = real_open("/sys/devices/system/node/has_memory", O_RDONLY);
			if (nf >= 0) {
				n = read(nf, nodes, sizeof(nodes) - 1);
				nodes[n > 0 ? n : 0] = 0;
				close(nf);
				nodes[strcspn(nodes, "\n")] = 0;
			}
			off += snprintf(buf + off, sizeof(buf) - off, "Mems_allowed_list:\t%s\n", nodes);
		}
		if (pipe(p))
			return -1;
		if (write(p[1], buf, off) != off) {
			close(p[0]);
			close(p[1]);
			errno = EIO;
			return -1;
		}
		close(p[1]);
		return p[0];
	}
}
