#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_stat_tool: numacore-stat reports what the policy does: with no policy it exits 1
# with a message; with numacore running a workload it names the policy,
# its per-task lines for -p PID belong to that process only, -i 1 -c 2
# prints a header and two rate lines, and its pages_migrated and
# pages_marked equal the kernel's numa_pages_migrated and
# numa_pte_updates since the module was loaded.  Bad usage exits 2.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_nodes 2
nc_need_prog numacore-stat numa_mfc
grep -q '^numacore ' /proc/modules && rmmod numacore
out=$(numacore-stat 2>&1); rc=$?
echo "no policy: exit $rc: $out"
[ "$rc" -eq 1 ] || nc_fail "numacore-stat without a policy exited $rc, want 1"
echo "$out" | grep -q "no NUMA policy registered" || nc_fail "no clear message without a policy"

nc_vmstat_snap /tmp/nc.vmstat0
nc_numacore_load policy=numacore
for bad in "-i 0" "-i x" "-c 2" "-p abc" "extra"; do
	numacore-stat $bad > /dev/null 2>&1; rc=$?
	[ "$rc" -eq 2 ] || nc_fail "numacore-stat $bad exited $rc, want 2"
done
numa_mfc --procs 2 --threads 2 --mb 16 --seconds 20 --start remote > /tmp/nc.mfc &
mfc=$!
nc_bg $mfc
nc_mfc_wait /tmp/nc.mfc 2 $mfc
pid=$(nc_mfc_procs /tmp/nc.mfc pid | head -n 1)
# stat_tasks: the task lines of /tmp/nc.stat; fails if one is not $pid's.
stat_tasks() {
	awk '/^tasks:/ { t = 1; next } t && $1 != "PID" { n++; if ($2 != p) bad++ }
		END { print n + 0; exit bad > 0 }' p="$pid" /tmp/nc.stat
}
# A task gets policy state at its first scan: wait for one (a debug
# kernel takes several seconds).
t=0
while :; do
	numacore-stat -p "$pid" > /tmp/nc.stat || nc_fail "numacore-stat -p $pid failed"
	n=$(stat_tasks) || { cat /tmp/nc.stat; nc_fail "-p $pid listed tasks of other processes"; }
	[ "$n" -gt 0 ] && break
	[ $t -lt 12 ] || { cat /tmp/nc.stat; nc_fail "-p $pid listed no task in 12 s"; }
	sleep 1
	t=$((t + 1))
done
cat /tmp/nc.stat
grep -q '^policy: numacore (module numacore' /tmp/nc.stat || nc_fail "policy line missing"
numacore-stat -i 1 -c 2 > /tmp/nc.rates || nc_fail "numacore-stat -i 1 -c 2 failed"
rates=$(awk '/^pages_marked|^scans/ { h = 1; next } h' /tmp/nc.rates | wc -l)
tail -3 /tmp/nc.rates
[ "$rates" -eq 2 ] || nc_fail "-i 1 -c 2 printed $rates rate lines, want 2"
wait $mfc
numacore-stat > /tmp/nc.stat
mig=$(awk '$1 == "pages_migrated" { print $2 }' /tmp/nc.stat)
marked=$(awk '$1 == "pages_marked" { print $2 }' /tmp/nc.stat)
vmig=$(nc_vmstat_delta /tmp/nc.vmstat0 numa_pages_migrated)
vmarked=$(nc_vmstat_delta /tmp/nc.vmstat0 numa_pte_updates)
echo "numacore-stat: pages_migrated=$mig pages_marked=$marked; vmstat: numa_pages_migrated=$vmig numa_pte_updates=$vmarked"
nc_numacore_unload
[ "$mig" -gt 0 ] || nc_fail "no page migrated: nothing to compare"
[ "$mig" = "$vmig" ] && [ "$marked" = "$vmarked" ] ||
	nc_fail "numacore-stat disagrees with /proc/vmstat"
numacore-stat > /dev/null 2>&1 && nc_fail "numacore-stat succeeded after unload"
nc_pass "numacore-stat reports the policy, its tasks, rates and the kernel's figures"
