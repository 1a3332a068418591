#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_follows_moved_threads: policy=numacore at its defaults: after memory converged and the scanner
# backed off (towards scan_period_max_ms, 60 s), the process's threads are
# moved to the other node; its memory follows them within 20 s, well
# before a backed-off scan would come.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_nodes 2
nc_need_prog numa_mfc
nc_need_prog taskset
nc_numacore_load policy=numacore
numa_mfc --procs 1 --threads 2 --mb 64 --seconds 60 --start remote > /tmp/nc.mfc &
mfc=$!
nc_bg $mfc
nc_atexit 'grep -v "^sample" /tmp/nc.mfc | head -n 20'

# node_pct PID NODE: share of the pages of PID's buffer on NODE (the
# kernel's numa_maps), 0 until the 64 MiB buffer (16384 pages) is resident.
node_pct() { nc_node_pct "$1" "$2" 16384; }

nc_mfc_wait /tmp/nc.mfc 1 $mfc
pid=$(nc_mfc_procs /tmp/nc.mfc pid | head -n 1)
home=$(nc_mfc_procs /tmp/nc.mfc node | head -n 1)
echo "workload pid=$pid home=$home"
[ -n "$pid" ] && [ -n "$home" ] || nc_fail "numa_mfc did not report its process"
other=$((1 - home))
t=0
until [ "$(node_pct "$pid" "$home")" -ge 95 ]; do
	[ $t -lt 25 ] || nc_fail "not converged on node $home after 25 s"
	sleep 1
	t=$((t + 1))
done
echo "pid $pid: $(node_pct "$pid" "$home")% on node $home after ${t} s; letting the scanner back off"
sleep 5
grep numa_mfc "$NC_DEBUGFS/tasks"
cpus=$(cat /sys/devices/system/node/node$other/cpulist)
for tid in $(ls /proc/"$pid"/task); do
	taskset -p -c "$cpus" "$tid" > /dev/null || nc_fail "taskset $tid to $cpus failed"
done
echo "moved the threads of $pid to node $other (CPUs $cpus)"
t=0
until [ "$(node_pct "$pid" "$other")" -ge 90 ]; do
	[ $t -lt 20 ] || nc_fail "memory did not follow to node $other in 20 s: $(node_pct "$pid" "$other")%"
	sleep 1
	t=$((t + 1))
done
echo "$(node_pct "$pid" "$other")% on node $other ${t} s after the move"
kill $mfc 2>/dev/null
wait $mfc
nc_numacore_unload
nc_pass "memory followed threads moved after the back-off"
