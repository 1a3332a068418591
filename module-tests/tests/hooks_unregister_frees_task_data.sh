#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hooks_unregister_frees_task_data: numa_policy_unregister() promises that
# every task's policy data is freed when it returns, so a policy registered
# afterwards must never see data of an earlier registration.
#
# numa_hooktest tags its task data with a registration generation and
# counts (stale_task_data) every callback that finds data of an earlier one.
# With scan_delay_ms=0 every user task gets data on its first tick; short
# CPU-burning processes are created and reaped continuously while the
# policy is unregistered and registered again (debugfs ctl) many times.
# Tasks that exited just before an unregistration are off the task list:
# if their data survived, the next registration's task_exit
# (or can_migrate/task_tick) sees it and the test fails.
#
# nc-timeout: 600

. "${0%/*}/lib/hooks.sh"

ht_setup
CYCLES=${HOOKS_REREG_CYCLES:-200}
SPAWNERS=${HOOKS_REREG_SPAWNERS:-4}
STOP=/tmp/hooks_rereg.stop.$$
rm -f "$STOP"

insmod "$KO" scan_delay_ms=0 || nc_fail "insmod numa_hooktest.ko scan_delay_ms=0 failed"

i=0
while [ $i -lt "$SPAWNERS" ]; do
	( while [ ! -e "$STOP" ]; do
		sh -c 'i=0; while [ $i -lt 300 ]; do i=$((i + 1)); done'
	  done ) &
	BG_PIDS="$BG_PIDS $!"
	i=$((i + 1))
done
sleep 1

t0=$(nc_now_ms)
n=0
while [ $n -lt "$CYCLES" ]; do
	echo unregister > "$DBG/ctl" || nc_fail "write unregister"
	[ "$(ht_ctl unregister)" = 0 ] || nc_fail "unregister #$((n + 1)): $(ht_ctl unregister)"
	echo register > "$DBG/ctl" || nc_fail "write register"
	[ "$(ht_ctl register)" = 0 ] || nc_fail "register #$((n + 1)): $(ht_ctl register)"
	n=$((n + 1))
done
t1=$(nc_now_ms)
touch "$STOP"
for p in $BG_PIDS; do wait "$p"; done
BG_PIDS=
rm -f "$STOP"
sleep 1

nc_log "$n unregister/register cycles in $((t1 - t0)) ms with $SPAWNERS process spawners"
sed 's/^/  /' "$DBG/counts"
stale=$(ht_count stale_task_data)
allocs=$(ht_count task_data_allocated)
frees=$(ht_count task_exit)
rmmod numa_hooktest || nc_fail "rmmod numa_hooktest failed"
nc_fail_on_splat
[ "${allocs:-0}" -ge 100 ] && [ "${frees:-0}" -ge 100 ] ||
	nc_fail "too little task data/task exits (allocated=$allocs freed=$frees) for the test to mean anything"
[ "${stale:-0}" -eq 0 ] ||
	nc_fail "$stale callback(s) saw task data of an earlier registration (not freed by numa_policy_unregister)"
nc_log "PASS"
exit 0
