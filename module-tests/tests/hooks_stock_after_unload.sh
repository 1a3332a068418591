#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hooks_stock_after_unload: after a policy was registered, used and
# unloaded, the kernel's own NUMA balancing works again: with
# kernel.numa_balancing=1 and no policy registered, memory first touched on
# the remote node follows the CPU (>= 90% local) and numa_pages_migrated
# grows.
#
# nc-timeout: 600
# Exit: 0 pass, 4 skip, anything else fail.  Env: NC_MODULES (dir of .ko files),
# NC_NODES (NUMA nodes).

. "${0%/*}/lib/hooks.sh"

hooks_setup
[ "$(nr_nodes)" -ge 2 ] || skip "needs >= 2 NUMA nodes"
command -v numa_mfc >/dev/null || die "numa_mfc not found"
SECONDS_RUN=${HOOKS_MFC_SECONDS:-40}

# let the policy do some work first, so it has state to leave behind
set_numa_balancing 0
insmod "$KO" || die "insmod numa_hooktest.ko failed"
numa_mfc --procs 2 --threads 2 --mb 16 --seconds 3 --start remote \
	> /dev/null 2>&1 || die "numa_mfc (under hooktest) failed"
say "under hooktest: task_work=$(ht_count task_work) pages_marked=$(ht_count pages_marked)"
rmmod numa_hooktest || die "rmmod numa_hooktest failed"
ht_loaded && die "numa_hooktest still loaded"
dmesg | tail -50 | grep -q 'numa_policy: policy hooktest unregistered' ||
	die "no 'policy hooktest unregistered' message"

set_numa_balancing 1
v0_hint=$(vmstat_get numa_hint_faults)
v0_mig=$(vmstat_get numa_pages_migrated)
out=/tmp/hooks_stock.$$
numa_mfc --procs 2 --threads 2 --mb 64 --seconds "$SECONDS_RUN" \
	--start remote --target 95 > "$out" 2>&1
rc=$?
grep -E '^(config|result|summary)' "$out"
[ $rc -eq 0 ] || { cat "$out"; die "numa_mfc exited $rc"; }
d_hint=$(( $(vmstat_get numa_hint_faults) - v0_hint ))
d_mig=$(( $(vmstat_get numa_pages_migrated) - v0_mig ))
say "stock balancer: numa_hint_faults delta=$d_hint numa_pages_migrated delta=$d_mig"

minpct=$(sed -n 's/^summary .*min_final_pct=\([0-9.]*\).*/\1/p' "$out")
[ -n "$minpct" ] || { cat "$out"; die "no summary line from numa_mfc"; }
rm -f "$out"
check_dmesg
[ "$d_mig" -gt 0 ] || die "numa_pages_migrated did not grow"
awk -v p="$minpct" 'BEGIN { exit !(p >= 90) }' ||
	die "locality ${minpct}% < 90% with the stock balancer"
say "PASS (min_final_pct=$minpct)"
exit 0
