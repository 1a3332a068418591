// SPDX-License-Identifier: GPL-2.0
/*
 * nodehog - take a node's free memory away, so that migrations to it fail.
 *
 * Maps --mb MiB of anonymous memory bound (MPOL_BIND) to --node N, locks it
 * (mlock: it can be neither reclaimed nor migrated), writes every page,
 * prints "nodehog node=<N> mb=<M> locked=<pages>", then holds it until a
 * signal ends the program (exit 0).
 * Exit 1 if the memory cannot be mapped, bound or locked, 2 on bad usage.
 */
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int opt_node, opt_mb = 64;

static const struct wl_opt opts[] = {
	WL_OPT_INT("node", 'n', opt_node, 0, 63),
	WL_OPT_INT("mb", 'm', opt_mb, 1, 1 << 20),
	WL_OPT_END,
};

static const struct wl_prog prog = {
	.name = "nodehog",
	.usage =
	"usage: nodehog [--node N] [--mb M]\n"
	"  --node N   node whose memory is taken (default 0)\n"
	"  --mb M     MiB to take, bound to N and locked (default 64)\n",
	.opts = opts,
};

int main(int argc, char **argv)
{
	size_t len, off;
	char *p;
	int nodes = wl_setup(&prog, argc, argv);

	if (nodes < 0)
		return 1;
	if (opt_node >= nodes) {
		fprintf(stderr, "nodehog: --node %d but only %d nodes\n", opt_node, nodes);
		return 2;
	}
	len = (size_t)opt_mb << 20;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("nodehog: mmap");
		return 1;
	}
	errno = -nu_mbind_node(p, len, NU_MPOL_BIND, opt_node, 0);
	if (errno) {
		perror("nodehog: mbind");
		return 1;
	}
	if (mlock(p, len)) {
		perror("nodehog: mlock");
		return 1;
	}
	for (off = 0; off < len; off += NU_PAGE_SIZE)
		p[off] = 1;
	nu_out("nodehog node=%d mb=%d locked=%zu\n", opt_node, opt_mb, len / NU_PAGE_SIZE);
	for (;;)
		pause();
}
