#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_cpu_hotplug: with policy=numacore placing tasks whose memory is
# on node 1, every CPU of node 1 goes offline and online again, 10 times:
# no kernel splat, the workload's processes are all still running, every
# CPU is back online, the policy still works afterwards (a new process
# whose memory starts remote gets >= 90% local) and the module unloads.
# nc-timeout: 240
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
ROUNDS=10
NODE=1
nc_need_nodes 2
nc_need_prog numa_mfc
nc_numacore_load policy=numacore
cpus=$(ls -d /sys/devices/system/node/node$NODE/cpu[0-9]* 2>/dev/null | sed 's|.*/cpu||')
[ -n "$cpus" ] || nc_fail "node $NODE has no CPUs"
for c in $cpus; do
	[ -w /sys/devices/system/cpu/cpu$c/online ] ||
		nc_fail "cpu$c cannot go offline (CONFIG_HOTPLUG_CPU?)"
	nc_atexit "echo 1 > /sys/devices/system/cpu/cpu$c/online"
done

# Two processes, homes node 0 and node 1, memory starting on the other
# node: the node-1 process's tasks prefer node 1 while it goes away.
numa_mfc --procs 2 --threads 2 --mb 32 --seconds 600 --start remote > /tmp/nc.mfc &
mfc=$!
nc_bg $mfc
nc_mfc_wait /tmp/nc.mfc 2 $mfc
sleep 3
set_online() { # 0|1: every CPU of $NODE
	for c in $cpus; do
		echo "$1" > /sys/devices/system/cpu/cpu$c/online ||
			nc_fail "cpu$c: online=$1 refused"
	done
}
r=0
while [ $r -lt $ROUNDS ]; do
	set_online 0
	sleep 1
	set_online 1
	sleep 1
	r=$((r + 1))
	nc_fail_on_splat
done
for c in $cpus; do
	[ "$(cat /sys/devices/system/cpu/cpu$c/online)" = 1 ] || nc_fail "cpu$c stayed offline"
done
echo "$ROUNDS rounds of node $NODE's CPUs ($(echo $cpus)) offline and online"
grep -E '^(hint_faults|pages_migrated|task_moves|place_)' "$NC_DEBUGFS/stats"
for p in $mfc $(nc_mfc_procs /tmp/nc.mfc pid); do	# all still running
	kill -0 $p 2>/dev/null || nc_fail "workload process $p died during the hotplug rounds"
done
kill $mfc $(nc_mfc_procs /tmp/nc.mfc pid) 2>/dev/null
wait $mfc 2>/dev/null
numa_mfc --procs 1 --threads 2 --mb 16 --seconds 60 --start remote --target 95 \
	> /tmp/nc.after 2>&1
nc_mfc_check_results /tmp/nc.after 90 ||
	nc_fail "after the hotplug rounds the policy no longer brings memory to its task"
nc_numacore_unload
nc_pass "policy, workload and CPUs survived $ROUNDS hotplug rounds of node $NODE"
