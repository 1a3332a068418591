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

. "${0%/*}/lib/hooks.sh"

ht_setup
nc_need_nodes 2
nc_need_prog numa_mfc

SECONDS_RUN=${HOOKS_MFC_SECONDS:-25}
nc_balancing_force 0
insmod "$KO" || nc_fail "insmod numa_hooktest.ko failed"

v0_hint=$(nc_vmstat numa_hint_faults)
v0_local=$(nc_vmstat numa_hint_faults_local)
v0_mig=$(nc_vmstat numa_pages_migrated)
v0_pte=$(nc_vmstat numa_pte_updates)

out=/tmp/hooks_fire.$$
ht_mfc "$out" "$SECONDS_RUN"

d_hint=$(( $(nc_vmstat numa_hint_faults) - v0_hint ))
d_local=$(( $(nc_vmstat numa_hint_faults_local) - v0_local ))
d_mig=$(( $(nc_vmstat numa_pages_migrated) - v0_mig ))
d_pte=$(( $(nc_vmstat numa_pte_updates) - v0_pte ))

nc_log "numa_hooktest counts:"
sed 's/^/  /' "$DBG/counts"
nc_log "vmstat deltas: numa_pte_updates=$d_pte numa_hint_faults=$d_hint" \
	"numa_hint_faults_local=$d_local numa_pages_migrated=$d_mig"
nc_log "kernel.numa_balancing=$(cat /proc/sys/kernel/numa_balancing)"

fail=
for c in fault_target fault_done task_tick task_work pages_marked; do
	v=$(ht_count $c)
	[ "${v:-0}" -gt 0 ] || { nc_log "$c count is ${v:-missing}, want > 0"; fail=1; }
done
[ "$d_hint" -gt 0 ] || { nc_log "numa_hint_faults did not grow"; fail=1; }
v=$(ht_count context_errors)
[ "${v:-0}" -eq 0 ] || { nc_log "context_errors=$v: a callback ran in a context the contract excludes"; fail=1; }
[ "$d_mig" -gt 0 ] || { nc_log "numa_pages_migrated did not grow"; fail=1; }

rmmod numa_hooktest || nc_fail "rmmod numa_hooktest failed"
rm -f "$out"
nc_fail_on_splat
[ -z "$fail" ] || nc_fail "hooks did not fire as expected"
nc_log "PASS"
exit 0
