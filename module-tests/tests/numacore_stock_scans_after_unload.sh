#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_stock_scans_after_unload: the kernel's own scanner resumes at once after numacore is unloaded,
# even for processes the policy had left at a long scan period (their
# mm's next scan time up to scan_period_max_ms ahead): within 8 s of
# rmmod with kernel.numa_balancing=1, the running workload's PTEs are
# marked again (numa_pte_updates rises).
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_nodes 2
nc_need_prog numa_bench
WAIT_S=8
nc_numacore_load policy=numacore scan_period_max_ms=60000
numa_bench --bench numa01 --procs 2 --threads 2 --mb 32 --seconds 50 \
	> /tmp/nc.bench &
nc_bg $!
sleep 30
# The precondition: the policy backed the workload's scan off.
period=$(awk '/comm=numa_bench / { for (i = 1; i <= NF; i++)
	if ($i ~ /^scan_period_ms=/) { split($i, a, "="); if (a[2] > m) m = a[2] } }
	END { print m + 0 }' "$NC_DEBUGFS/tasks")
echo "longest scan period under numacore: ${period} ms"
[ "$period" -gt $((WAIT_S * 1000)) ] ||
	nc_fail "the policy did not back the scan off beyond ${WAIT_S} s: nothing to show"
nc_numacore_unload
nc_balancing_force 1
v0=$(nc_vmstat numa_pte_updates)
sleep "$WAIT_S"
updates=$(( $(nc_vmstat numa_pte_updates) - v0 ))
echo "numa_pte_updates in the ${WAIT_S} s after unload: $updates"
[ "$updates" -gt 0 ] ||
	nc_fail "the kernel's scanner stayed off for ${WAIT_S} s after unload"
nc_pass "the kernel's own scanning resumed after unload"
