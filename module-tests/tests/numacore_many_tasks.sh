#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_many_tasks: policy=numacore with 500 threads in one process and
# 200 small processes at once (manytasks): at least MIN_MANAGED (a quarter)
# of the 700 tasks have per-task state within 12 s (times NC_TIME_SCALE,
# as the run's 20 s: a debug kernel starts them slowly), the policy scans during the
# run, every task runs to the end with its memory intact, and the module
# unloads.  On a kernel with failslab,
# a second run makes the slab allocations of the workload's tasks fail at
# random: tasks that cannot get their state stay unmanaged, nothing
# crashes, and the module still unloads.
# nc-timeout: 240
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
MIN_MANAGED=175
nc_need_prog manytasks
nc_numacore_load policy=numacore scan_period_min_ms=10
s0=$(nc_stat scans)
manytasks --threads 500 --procs 200 --seconds $((20 * NC_TIME_SCALE)) > /tmp/nc.many 2>&1 &
mt=$!
nc_bg $mt
t=0
while :; do
	managed=$(grep -c 'comm=manytasks ' "$NC_DEBUGFS/tasks")
	[ "$managed" -lt $MIN_MANAGED ] && [ $t -lt $((12 * NC_TIME_SCALE)) ] || break
	sleep 1
	t=$((t + 1))
done
wait $mt
rc=$?
s1=$(nc_stat scans)
cat /tmp/nc.many
echo "$managed manytasks tasks had numacore state $t s in; $((s1 - s0)) scan steps"
[ $rc -eq 0 ] || nc_fail "manytasks exited $rc"
[ "$managed" -ge $MIN_MANAGED ] || nc_fail "only $managed tasks managed (< $MIN_MANAGED)"
[ $((s1 - s0)) -gt 0 ] || nc_fail "no scan during the run"

F=/sys/kernel/debug/failslab
if [ -d $F ]; then
	nc_atexit "echo 0 > $F/probability; echo N > $F/task-filter"
	echo N > $F/verbose 2>/dev/null || echo 0 > $F/verbose
	echo Y > $F/task-filter
	echo 1 > $F/interval
	echo -1 > $F/times
	echo 5 > $F/probability
	sh -c 'echo 1 > /proc/self/make-it-fail; exec manytasks --threads 200 --procs 50 --seconds 10' \
		> /tmp/nc.many2 2>&1
	echo "with failslab (5% of the workload's slab allocations fail): exit $?; $(tail -n 1 /tmp/nc.many2)"
	echo 0 > $F/probability
	echo N > $F/task-filter
	nc_fail_on_splat
else
	echo "no $F (CONFIG_FAILSLAB): the allocation-failure run needs the debug kernel (make check DEBUG=1)"
fi
nc_numacore_unload
nc_pass "700 tasks at once: $managed managed, all ran to the end"
