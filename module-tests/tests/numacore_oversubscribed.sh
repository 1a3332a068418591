#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_oversubscribed: policy=numacore with more tasks than CPUs: 3 processes x 2 threads
# sharing their buffer on 2 nodes x 2 CPUs.  The load balancer keeps 3
# threads per node, so one process has to be split; the policy keeps the
# two others together: at the end at most one process is split, and the
# threads' locality (the share of their buffer on their node) is >= 80%.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
. "${0%/*}/lib/placement.sh"
MIN_PCT=80
nc_need_nodes 2
nc_need_prog numa_bench
nc_numacore_load policy=numacore
numa_bench --bench numa01 --procs 3 --threads 2 --mb 32 --seconds 40 \
	> /tmp/nc.bench || nc_fail "numa_bench failed"
grep -E '^(config|result|summary)' /tmp/nc.bench
grep -E '^(place_|task_|moves_undone|lb_)' "$NC_DEBUGFS/stats"
nc_numacore_unload
# Per thread, the share of its process's buffer on the node it runs on
# (every thread writes the whole buffer), at each process's last sample.
awk -v min=$MIN_PCT '
function kv(key,   i, a) { for (i = 2; i <= NF; i++) { split($i, a, "="); if (a[1] == key) return a[2] } return "" }
/^sample / { tn[kv("proc")] = kv("thread_nodes"); np[kv("proc")] = kv("node_pages") }
END {
	for (p in tn) {
		nprocs++
		n = split(tn[p], t, ","); split(np[p], pg, ",")
		tot = 0; for (i in pg) tot += pg[i]
		sp = 0
		for (i = 1; i <= n; i++) {
			loc += tot ? pg[t[i] + 1] / tot : 0; nt++
			if (t[i] != t[1]) sp = 1
		}
		split_procs += sp
		printf "proc %s: threads on nodes %s, pages per node %s%s\n", p, tn[p], np[p], sp ? " (split)" : ""
	}
	pct = nt ? 100 * loc / nt : 0
	printf "locality over %d threads %.1f%%, %d of %d processes split\n", nt, pct, split_procs, nprocs
	exit (nprocs != 3 || pct < min || split_procs > 1) ? 1 : 0
}' /tmp/nc.bench || nc_fail "locality below ${MIN_PCT}% or more than one process split"
nc_pass "oversubscribed: locality >= ${MIN_PCT}%, at most one process split"
