#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hooks_fire_under_workload: with numa_hooktest registered and
# kernel.numa_balancing=0, a memory-follows-CPU workload (memory first
# touched on the remote node) drives every fault/scan hook: task_tick queues
# task_work, task_work marks pages with change_prot_numa(), the marked
# pages take hinting faults (fault_target, fault_done) and are migrated to
# the faulting node.  The vmstat deltas prove the policy's own scans make
# the hinting faults and migrations with the kernel's balancer off.
#
# Exit: 0 pass, 4 skip, anything else fail.  Env: NC_MODULES (dir of .ko files),
# NC_NODES (NUMA nodes).

. "${0%/*}/lib/hooks.sh"

hooks_setup
[ "$(nr_nodes)" -ge 2 ] || skip "needs >= 2 NUMA nodes"
command -v numa_mfc >/dev/null || die "numa_mfc not found"

SECONDS_RUN=${HOOKS_MFC_SECONDS:-25}
set_numa_balancing 0
insmod "$KO" || die "insmod numa_hooktest.ko failed"

v0_hint=$(vmstat_get numa_hint_faults)
v0_local=$(vmstat_get numa_hint_faults_local)
v0_mig=$(vmstat_get numa_pages_migrated)
v0_pte=$(vmstat_get numa_pte_updates)

out=/tmp/hooks_fire.$$
numa_mfc --procs 2 --threads 2 --mb 64 --seconds "$SECONDS_RUN" \
	--start remote --target 95 > "$out" 2>&1
rc=$?
grep -E '^(config|result|summary)' "$out"
[ $rc -eq 0 ] || { cat "$out"; die "numa_mfc exited $rc"; }

d_hint=$(( $(vmstat_get numa_hint_faults) - v0_hint ))
d_local=$(( $(vmstat_get numa_hint_faults_local) - v0_local ))
d_mig=$(( $(vmstat_get numa_pages_migrated) - v0_mig ))
d_pte=$(( $(vmstat_get numa_pte_updates) - v0_pte ))

say "numa_hooktest counts:"
sed 's/^/  /' "$DBG/counts"
say "vmstat deltas: numa_pte_updates=$d_pte numa_hint_faults=$d_hint" \
	"numa_hint_faults_local=$d_local numa_pages_migrated=$d_mig"
say "kernel.numa_balancing=$(cat /proc/sys/kernel/numa_balancing)"

fail=
for c in fault_target fault_done task_tick task_work pages_marked; do
	v=$(ht_count $c)
	[ "${v:-0}" -gt 0 ] || { say "$c count is ${v:-missing}, want > 0"; fail=1; }
done
[ "$d_hint" -gt 0 ] || { say "numa_hint_faults did not grow"; fail=1; }
v=$(ht_count context_errors)
[ "${v:-0}" -eq 0 ] || { say "context_errors=$v: a callback ran in a context the contract excludes"; fail=1; }
[ "$d_mig" -gt 0 ] || { say "numa_pages_migrated did not grow"; fail=1; }

rmmod numa_hooktest || die "rmmod numa_hooktest failed"
rm -f "$out"
check_dmesg
[ -z "$fail" ] || die "hooks did not fire as expected"
say "PASS"
exit 0
