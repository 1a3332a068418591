#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# policy=numacore with more tasks than CPUs: 3 processes x 2 threads
# sharing their buffer on 2 nodes x 2 CPUs.  Total locality >= 80%, and no
# process runs split across nodes for more than SPLIT_MAX_S in a row once
# SETTLE s have passed.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
. "${0%/*}/lib/placement.sh"
SETTLE=15
SPLIT_MAX_S=5
MIN_PCT=80
nc_need_nodes 2
nc_need_prog numa_bench
nc_numacore_load policy=numacore
trap 'nc_numacore_loaded && rmmod numacore' EXIT
numa_bench --bench numa01 --procs 3 --threads 2 --mb 32 --seconds 40 \
	> /tmp/nc.bench || nc_fail "numa_bench failed"
grep -E '^(config|result|summary)' /tmp/nc.bench
grep -E '^(place_|task_|moves_undone|lb_)' "$NC_DEBUGFS/stats"
nc_numacore_unload
trap - EXIT
# Longest run of consecutive samples (after SETTLE) with a process split.
awk -v settle=$((SETTLE * 1000)) -v maxs=$SPLIT_MAX_S -v min=$MIN_PCT '
function kv(key,   i, a) { for (i = 2; i <= NF; i++) { split($i, a, "="); if (a[1] == key) return a[2] } return "" }
/^config / { ms = kv("sample_ms") }
/^sample / {
	if (kv("t_ms") + 0 < settle) next
	p = kv("proc"); n = split(kv("thread_nodes"), tn, ",")
	sp = 0; for (i = 2; i <= n; i++) if (tn[i] != tn[1]) sp = 1
	run[p] = sp ? run[p] + 1 : 0
	if (run[p] > worst[p]) worst[p] = run[p]
}
/^result / { sum += kv("final_pct"); np++ }
END {
	bad = 0
	for (p in worst) {
		s = worst[p] * ms / 1000
		printf "proc %s: longest split %.1f s\n", p, s
		if (s > maxs) bad = 1
	}
	avg = np ? sum / np : 0
	printf "average final locality %.1f%% over %d processes\n", avg, np
	if (np != 3 || avg < min) bad = 1
	exit bad
}' /tmp/nc.bench || nc_fail "locality below ${MIN_PCT}% or a process split for more than ${SPLIT_MAX_S} s"
nc_pass "oversubscribed: locality >= ${MIN_PCT}%, no lasting split"
