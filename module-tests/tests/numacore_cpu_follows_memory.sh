#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_cpu_follows_memory: policy=numacore moves tasks to their memory rather than the memory to
# them: 2 processes x 2 threads, each process's memory on the node after
# its threads' first node, threads released after their first pass.
# Within 20 s each process runs where its memory is (>= 95% local) and
# stays there for 2 s, and the pages migrated stay under 10% of the
# processes' memory.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
. "${0%/*}/lib/placement.sh"
MB=64
PROCS=2
nc_need_nodes 2
nc_need_prog numa_mfc
nc_numacore_load policy=numacore
nc_stats_snap /tmp/nc.stats0
nc_vmstat_snap /tmp/nc.vmstat0
numa_mfc --procs $PROCS --threads 2 --mb $MB --seconds 20 --start cpu-follows \
	--target 95 --hold 2000 > /tmp/nc.mfc || nc_fail "numa_mfc failed"
grep -v '^sample' /tmp/nc.mfc
nc_deltas /tmp/nc.stats0 /tmp/nc.vmstat0 > /tmp/nc.deltas
grep -E '^(pages_migrated|migrate_deferred|place_|task_|moves_undone|lb_|vmstat_numa_pages_migrated)' /tmp/nc.deltas
nc_numacore_unload
nc_mfc_check_results /tmp/nc.mfc 95 || nc_fail "a process is not >= 95% local for 2 s within 20 s"
pages=$((PROCS * MB * 256))
migrated=$(nc_delta vmstat_numa_pages_migrated)
moved=$(( $(nc_delta task_moves) + $(nc_delta task_swaps) ))
echo "pages migrated $migrated of $pages, task moves+swaps $moved"
[ "$migrated" -le $((pages / 10)) ] || nc_fail "$migrated pages migrated: more than 10% of $pages"
[ "$moved" -gt 0 ] || nc_fail "no task was moved or swapped"
nc_pass "tasks followed their memory ($moved moves/swaps, $migrated pages migrated)"
