#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hooks_stock_after_unload: after a policy was registered, used and
# unloaded, the kernel's own NUMA balancing works again: with
# kernel.numa_balancing=1 and no policy registered, memory first touched on
# the remote node follows the CPU (>= 90% local) and numa_pages_migrated
# grows.
#
# nc-timeout: 600

. "${0%/*}/lib/hooks.sh"

ht_setup
nc_need_nodes 2
nc_need_prog numa_mfc
SECONDS_RUN=${HOOKS_MFC_SECONDS:-40}

# let the policy do some work first, so it has state to leave behind
nc_balancing_force 0
insmod "$KO" || nc_fail "insmod numa_hooktest.ko failed"
numa_mfc --procs 2 --threads 2 --mb 16 --seconds 3 --start remote \
	> /dev/null 2>&1 || nc_fail "numa_mfc (under hooktest) failed"
nc_log "under hooktest: task_work=$(ht_count task_work) pages_marked=$(ht_count pages_marked)"
rmmod numa_hooktest || nc_fail "rmmod numa_hooktest failed"
ht_loaded && nc_fail "numa_hooktest still loaded"
dmesg | tail -50 | grep -q 'numa_policy: policy hooktest unregistered' ||
	nc_fail "no 'policy hooktest unregistered' message"

nc_balancing_force 1
v0_hint=$(nc_vmstat numa_hint_faults)
v0_mig=$(nc_vmstat numa_pages_migrated)
out=/tmp/hooks_stock.$$
ht_mfc "$out" "$SECONDS_RUN"
d_hint=$(( $(nc_vmstat numa_hint_faults) - v0_hint ))
d_mig=$(( $(nc_vmstat numa_pages_migrated) - v0_mig ))
nc_log "stock balancer: numa_hint_faults delta=$d_hint numa_pages_migrated delta=$d_mig"

minpct=$(sed -n 's/^summary .*min_final_pct=\([0-9.]*\).*/\1/p' "$out")
[ -n "$minpct" ] || { cat "$out"; nc_fail "no summary line from numa_mfc"; }
rm -f "$out"
nc_fail_on_splat
[ "$d_mig" -gt 0 ] || nc_fail "numa_pages_migrated did not grow"
awk -v p="$minpct" 'BEGIN { exit !(p >= 90) }' ||
	nc_fail "locality ${minpct}% < 90% with the stock balancer"
nc_log "PASS (min_final_pct=$minpct)"
exit 0
