#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_groups_shared_threads: policy=numacore gathers the threads that share memory (numa01 shape):
# one process per node, each with 2 threads writing its one buffer,
# nothing bound.  Every process ends on one node with >= 95% of its
# buffer there.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
. "${0%/*}/lib/placement.sh"
nc_need_nodes 2
nc_need_prog numa_bench
nodes=$(nc_nodes_online)
nc_numacore_load policy=numacore
nc_stats_snap /tmp/nc.stats0
nc_vmstat_snap /tmp/nc.vmstat0
nc_tasks_later 35 /tmp/nc.tasks numa_bench
numa_bench --bench numa01 --procs "$nodes" --threads 2 --mb 32 --seconds 40 \
	> /tmp/nc.bench || nc_fail "numa_bench failed"
grep -E '^(config|result|summary)' /tmp/nc.bench
nc_deltas /tmp/nc.stats0 /tmp/nc.vmstat0 > /tmp/nc.deltas
grep -E '^(pages_migrated|place_|task_|moves_undone|lb_)' /tmp/nc.deltas
wait
nc_numacore_unload
nc_bench_check /tmp/nc.bench 95 || {
	sed 's/^/tasks at 35 s: /' /tmp/nc.tasks
	nc_fail "a process is split or below 95% local"
}
nc_pass "each process's threads gathered on the node of its memory"
