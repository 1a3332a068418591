#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_tiering_mode: with kernel.numa_balancing=2 and 3 (memory tiering
# on) the policy still decides the hinting faults of top-tier pages: its
# two-sample filter holds pages back, and memory follows the CPUs
# (>= 95% local), with the sysctl left as set.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_nodes 2
nc_need_prog numa_mfc
# The guest's nodes are all DRAM, one tier: a slower tier's faults (which
# the kernel keeps from the policy) cannot occur here.
for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
	[ -e "$t/nodelist" ] && nc_log "${t##*/}: nodes $(cat "$t/nodelist")"
done
for mode in 2 3; do
	# first_fault=0: every page's first fault stays (migrate_filtered),
	# which only the policy's fault_target counts.
	nc_numacore_load policy=numacore first_fault=0
	nc_balancing_force "$mode"
	nc_stats_snap /tmp/nc.stats0
	nc_vmstat_snap /tmp/nc.vmstat0
	numa_mfc --procs 2 --threads 2 --mb 64 --seconds 60 --start remote \
		--target 95 > /tmp/nc.mfc || nc_fail "mode $mode: numa_mfc failed"
	filtered=$(nc_stat_delta /tmp/nc.stats0 migrate_filtered)
	moved=$(nc_stat_delta /tmp/nc.stats0 pages_migrated)
	promoted=$(nc_vmstat_delta /tmp/nc.vmstat0 pgpromote_success)
	now=$(nc_balancing_get)
	nc_numacore_unload
	nc_log "mode $mode: migrate_filtered=$filtered pages_migrated=$moved pgpromote_success=$promoted"
	nc_mfc_check_results /tmp/nc.mfc 95 || nc_fail "mode $mode: locality below 95%"
	[ "$now" = "$mode" ] || nc_fail "kernel.numa_balancing read $now under the policy, set to $mode"
	[ "$filtered" -gt 0 ] || nc_fail "mode $mode: no fault reached the policy's filter (the kernel decided them)"
	[ "$moved" -gt 0 ] || nc_fail "mode $mode: no page migrated"
done
nc_pass "the policy placed top-tier memory in memory tiering modes 2 and 3"
