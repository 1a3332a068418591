#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_threads_back_off_together: policy=numacore backs off the scan of
# a process with several working threads as fast as that of a single one:
# one process, a thread per CPU, each writing its own slice, all memory
# first touched on node 0 (numa02 shape).  In 10 s, from 5 s after the
# slices are >= 95% on their threads' nodes (the last misplaced pages
# follow in the first scans), fewer PTEs are marked than a quarter of the
# process's memory.  (When only the task whose turn it was to scan adapted
# its period, the threads took turns at short periods: a full pass every
# 4-5 s after convergence.)
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_nodes 2
nc_need_prog numa_bench
MB=64
pages=$((MB * 256))		# in 4 KiB pages
nc_numacore_load policy=numacore
numa_bench --bench numa02 --touch-node 0 --mb $MB --seconds 30 > /tmp/nc.bench &
bench=$!
nc_bg $bench

nc_wait_local /tmp/nc.bench $bench 1 15
sleep 5
nc_scan_window 10
kill -0 $bench 2>/dev/null || nc_fail "numa_bench exited during the 10 s window"
echo "in 10 s from 5 s after convergence: pages_marked=$marked scans=$scans scans_deferred=$deferred (process: $pages pages, limit $((pages / 4)))"
grep numa_bench "$NC_DEBUGFS/tasks"
wait $bench
nc_numacore_unload
[ "$marked" -lt $((pages / 4)) ] ||
	nc_fail "marked $marked PTEs after convergence, not below a quarter of the process's $pages pages"
nc_pass "the threads' scanner backed off after convergence"
