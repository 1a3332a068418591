#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_private_slices: policy=numacore spreads private tasks (numa02 shape): one process, a
# thread per CPU, each writing its own slice, all memory first touched on
# node 0.  The slices follow their threads: >= 95% of the pages end on the
# node of the thread that writes them.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
. "${0%/*}/lib/placement.sh"
nc_need_nodes 2
nc_need_prog numa_bench
nc_numacore_load policy=numacore
nc_stats_snap /tmp/nc.stats0
nc_vmstat_snap /tmp/nc.vmstat0
numa_bench --bench numa02 --touch-node 0 --mb 64 --seconds 30 \
	> /tmp/nc.bench || nc_fail "numa_bench failed"
grep -E '^(config|result|summary)' /tmp/nc.bench
nc_deltas /tmp/nc.stats0 /tmp/nc.vmstat0 > /tmp/nc.deltas
grep -E '^(pages_migrated|migrate_deferred|place_|task_|moves_undone|lb_)' /tmp/nc.deltas
nc_numacore_unload
# One process: its threads are meant to spread, so only locality counts.
awk '/^result / { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "final_pct") p = kv[2] } }
	END { if (p == "") exit 1; print "final_pct=" p; exit p + 0 >= 95 ? 0 : 1 }' /tmp/nc.bench ||
	nc_fail "slices not >= 95% on their threads' nodes"
nc_pass "private slices ended on their threads' nodes"
