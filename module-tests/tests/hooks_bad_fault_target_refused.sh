#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hooks_bad_fault_target_refused: a policy whose fault_target names a node
# that does not exist (numa_hooktest target_node=<nodes + 5>) gets no page
# migrated there: the kernel leaves the pages in place, warns once naming
# the policy and the node, and reports at unregistration how many faults
# it refused.  Without the check, migrate_misplaced_page() would use a
# node with no pgdat.
. "${0%/*}/lib/hooks.sh"

ht_setup
[ "$(nc_nodes_online)" -ge 2 ] || nc_fail "needs >= 2 NUMA nodes"
nc_need_prog numa_mfc
bad=$(( $(nc_nodes_online) + 5 ))
nc_balancing_force 0
insmod "$KO" target_node=$bad || nc_fail "insmod numa_hooktest.ko target_node=$bad failed"
v0_mig=$(nc_vmstat numa_pages_migrated)
v0_hint=$(nc_vmstat numa_hint_faults)
numa_mfc --procs 2 --threads 2 --mb 32 --seconds 6 --start remote > /tmp/hooks_bad.$$ 2>&1 ||
	{ cat /tmp/hooks_bad.$$; nc_fail "numa_mfc failed"; }
d_mig=$(( $(nc_vmstat numa_pages_migrated) - v0_mig ))
d_hint=$(( $(nc_vmstat numa_hint_faults) - v0_hint ))
rmmod numa_hooktest || nc_fail "rmmod numa_hooktest failed"
nc_dmesg_since "$NC_DMESG_MARK" > /tmp/hooks_bad.dmesg
grep numa_policy /tmp/hooks_bad.dmesg
warned=$(grep -c "policy hooktest chose node $bad, which has no memory" /tmp/hooks_bad.dmesg)
refused=$(sed -n "s/.*policy hooktest chose a node without memory for \([0-9]*\) hinting faults.*/\1/p" /tmp/hooks_bad.dmesg)
nc_log "hinting faults $d_hint, pages migrated $d_mig, warnings $warned, refused ${refused:-none}"
[ "$d_hint" -gt 0 ] || nc_fail "no hinting fault: the test did not exercise fault_target"
[ "$d_mig" -eq 0 ] || nc_fail "$d_mig pages migrated towards node $bad"
[ "$warned" -eq 1 ] || nc_fail "warned $warned times, want once"
[ "${refused:-0}" -gt 0 ] || nc_fail "no refused-fault count at unregistration"
nc_fail_on_splat
nc_pass "node $bad refused: $refused faults left in place, one warning"
