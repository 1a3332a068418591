#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench_hard_bind_local: numa_bench --bind hard really places every thread
# and its memory on the same node (the best-case reference of `make bench`):
# with NUMA balancing off, numa01 and numa02 hard-bound runs end with >= 99%
# local pages in every process, no thread changes node, and the two numa01
# processes run on two different nodes.
# nc-timeout: 120
. "${0%/*}/lib/nc.sh"

MIN_PCT=99
SECS=${NC_BENCH_SECONDS:-4}
nc_need_prog numa_bench
nc_need_nodes 2

# (lib/nc.sh restores kernel.numa_balancing at exit)
nc_balancing_force 0

bad=0
for b in numa01 numa02; do
	out=/tmp/bench_hard_bind_local.$b
	numa_bench --bench "$b" --bind hard --mb 32 --seconds "$SECS" > "$out" 2>&1
	rc=$?
	grep -E '^(config|result|summary)' "$out"
	if [ "$rc" != 0 ]; then
		cat "$out"
		echo "FAIL: numa_bench --bench $b exited $rc"
		bad=1
		continue
	fi
	awk -v min="$MIN_PCT" -v b="$b" '
	/^config / { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "procs") procs = kv[2] } }
	/^result / {
		n++
		for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] }
		if (r["final_pct"] + 0 < min) { printf "FAIL: %s proc %s only %s%% local\n", b, r["proc"], r["final_pct"]; bad++ }
		if (r["node_changes"] + 0 != 0) { printf "FAIL: %s proc %s: %s node changes while pinned\n", b, r["proc"], r["node_changes"]; bad++ }
	}
	/^summary / {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); s[kv[1]] = kv[2] }
		if (b == "numa01" && s["distinct_maj_nodes"] + 0 != 2) { printf "FAIL: numa01 processes share a node\n"; bad++ }
	}
	END { if (n == 0 || n != procs) { print "FAIL: missing result lines"; exit 1 } exit bad ? 1 : 0 }' "$out" || bad=1
done
[ "$bad" = 0 ] || nc_fail "hard-bound benchmark placement is not local"
nc_pass "numa01/numa02 --bind hard: all threads and memory local"
