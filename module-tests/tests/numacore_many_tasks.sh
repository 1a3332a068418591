#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_many_tasks: policy=numacore with NC_MANY_THREADS (500) threads in
# one process and NC_MANY_PROCS (200) small processes at once (manytasks;
# the debug kernel runs fewer: see NC_DEBUG_APPEND in qemu/check.sh): at
# least a quarter of the tasks have per-task state while they run (20 s from the
# last one's creation, NC_TIME_SCALE times longer on the debug kernel),
# the policy scans during the run, the tasks make at least one pass each
# on average, every task runs to the end with its memory intact, and the
# module unloads.  On a kernel with failslab,
# a second run makes the slab allocations of the workload's tasks fail at
# random: tasks that cannot get their state stay unmanaged, nothing
# crashes, and the module still unloads.
# nc-timeout: 240
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
THREADS=${NC_MANY_THREADS:-500}
PROCS=${NC_MANY_PROCS:-200}
TASKS=$((THREADS + PROCS))
MIN_MANAGED=$((TASKS / 4))
nc_need_prog manytasks
nc_numacore_load policy=numacore scan_period_min_ms=10
s0=$(nc_stat scans)
manytasks --threads $THREADS --procs $PROCS --seconds $((20 * NC_TIME_SCALE)) > /tmp/nc.many 2>&1 &
mt=$!
nc_bg $mt
t0=$(nc_now_ms)
managed=0
while [ "$managed" -lt $MIN_MANAGED ] && kill -0 $mt 2>/dev/null; do
	sleep 1
	managed=$(grep -c 'comm=manytasks ' "$NC_DEBUGFS/tasks")
done
t1=$(nc_now_ms)
wait $mt
rc=$?
s1=$(nc_stat scans)
cat /tmp/nc.many
echo "$managed manytasks tasks had numacore state $(((t1 - t0) / 1000)) s in; $((s1 - s0)) scan steps"
[ $rc -eq 0 ] || nc_fail "manytasks exited $rc"
passes=$(sed -n 's/.* passes=\([0-9]*\) .*/\1/p' /tmp/nc.many)
[ "${passes:-0}" -ge $TASKS ] || nc_fail "${passes:-0} passes over $TASKS tasks: they did not run together"
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
	sh -c "echo 1 > /proc/self/make-it-fail; exec manytasks --threads $THREADS --procs $PROCS --seconds 10" \
		> /tmp/nc.many2 2>&1
	echo "with failslab (5% of the workload's slab allocations fail): exit $?; $(tail -n 1 /tmp/nc.many2)"
	echo 0 > $F/probability
	echo N > $F/task-filter
	nc_fail_on_splat
else
	echo "no $F (CONFIG_FAILSLAB): the allocation-failure run needs the debug kernel (make check DEBUG=1)"
fi
nc_numacore_unload
nc_pass "$TASKS tasks at once: $managed managed, all ran to the end"
