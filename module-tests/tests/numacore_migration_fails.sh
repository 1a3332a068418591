#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_migration_fails: while node 1's free memory is locked away
# (nodehog), a process pinned to node 1 with its memory on node 0 cannot
# get its pages: the policy keeps scanning, counts the failed migrations,
# takes no more hinting faults than it marked PTEs (a failed migration does
# not refault in a loop) and slows its scanning down (at most MAX_PASSES
# faults per page of the buffer in the window), and the memory stays
# mostly remote; once the memory is released it converges (>= 90% on
# node 1 within CONVERGE_S, the slowed-down scan period included).
# nc-timeout: 240
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
HEADROOM_MB=64		# node 1 memory left free besides the hog (less: OOM)
MB=192			# the workload's buffer, 3x the headroom
BLOCKED_S=20
MAX_PASSES=20		# at the shortest period (250 ms) it would be ~70
CONVERGE_S=60
nc_need_nodes 2
nc_need_prog nodehog
nc_need_prog numa_mfc
nc_numacore_load policy=numacore
free_kb=$(awk '/MemFree/ { print $4 }' /sys/devices/system/node/node1/meminfo)
hog=$((free_kb / 1024 - HEADROOM_MB))
[ $hog -gt $MB ] || nc_fail "node 1 has only $((free_kb / 1024)) MiB free"
nodehog --node 1 --mb $hog > /tmp/nc.hog 2>&1 &
hogpid=$!
nc_bg $hogpid
t=0
until grep -q '^nodehog ' /tmp/nc.hog; do
	kill -0 $hogpid 2>/dev/null || { cat /tmp/nc.hog; nc_fail "nodehog failed"; }
	[ $t -lt 600 ] || nc_fail "nodehog did not lock $hog MiB in 60 s"
	usleep 100000
	t=$((t + 1))
done
echo "$(cat /tmp/nc.hog); node 1 now: $(awk '/MemFree/ { print $4 " kB free" }' /sys/devices/system/node/node1/meminfo)"

nc_stats_snap /tmp/nc.s0
numa_mfc --procs 1 --threads 2 --mb $MB --node 1 --start remote --seconds 150 > /tmp/nc.mfc &
mfc=$!
nc_bg $mfc
nc_mfc_wait /tmp/nc.mfc 1 $mfc
pid=$(nc_mfc_procs /tmp/nc.mfc pid)
sleep $BLOCKED_S
nc_stats_snap /tmp/nc.s1
pct=$(nc_node_pct "$pid" 1)
for k in scans pages_marked hint_faults migrate_failed pages_migrated; do
	eval "d_$k=\$(( \$(awk '\$1 == \"$k\" { print \$2 }' /tmp/nc.s1) - \$(awk '\$1 == \"$k\" { print \$2 }' /tmp/nc.s0) ))"
done
echo "blocked ${BLOCKED_S} s: ${pct}% on node 1; scans $d_scans, pages_marked $d_pages_marked, hint_faults $d_hint_faults, migrate_failed $d_migrate_failed, pages_migrated $d_pages_migrated"
[ "$d_migrate_failed" -gt 0 ] || nc_fail "no failed migration counted"
[ "$d_scans" -gt 1 ] || nc_fail "the policy stopped scanning"
[ "$d_hint_faults" -le "$d_pages_marked" ] ||
	nc_fail "more hinting faults ($d_hint_faults) than PTEs marked ($d_pages_marked): faults repeat"
[ "$d_hint_faults" -le $((MAX_PASSES * MB * 256)) ] ||
	nc_fail "$d_hint_faults hinting faults in ${BLOCKED_S} s: more than $MAX_PASSES per page, the scanner did not slow down"
[ "$pct" -lt 50 ] || nc_fail "${pct}% moved to a node without free memory: the hog did not block"

kill $hogpid
wait $hogpid 2>/dev/null
t=0
until [ "$(nc_node_pct "$pid" 1)" -ge 90 ]; do
	[ $t -lt $CONVERGE_S ] || nc_fail "not converged $CONVERGE_S s after the release: $(nc_node_pct "$pid" 1)% on node 1"
	sleep 1
	t=$((t + 1))
done
echo "converged: $(nc_node_pct "$pid" 1)% on node 1 ${t} s after the release"
kill $mfc 2>/dev/null
wait $mfc 2>/dev/null
nc_numacore_unload
nc_pass "failed migrations counted without refaulting; converged after the release"
