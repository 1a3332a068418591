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
# Exit: 0 pass, 4 skip, anything else fail.  Env: NC_MODULES (dir of .ko files),
# NC_NODES (NUMA nodes).

# ---- common helpers (kept inline so that each test is self-contained) ----
KO=${NC_MODULES:-/modules}/numa_hooktest.ko
DBG=/sys/kernel/debug/numa_hooktest
BG_PIDS=
OLD_NB=

say() { echo "$*"; }
die() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 4; }
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
ht_loaded() { grep -q '^numa_hooktest ' /proc/modules; }
ht_count() { awk -v k="$1" '$1 == k { print $2 }' "$DBG/counts"; }
ht_ctl() { sed -n "s/^$1=//p" "$DBG/ctl"; }
vmstat_get() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
meminfo_kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
nr_nodes() {
	if [ -n "$NC_NODES" ]; then echo "$NC_NODES"; return; fi
	ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l
}
# kernel messages that mean the test broke the kernel
dmesg_bad() {
	dmesg | grep -cE 'WARNING:|BUG:|Oops|general protection|sleeping function called from invalid context|lockdep|INFO: task .* blocked|rcu_.*stall|refcount_t:'
}
ensure_debugfs() {
	grep -q ' /sys/kernel/debug debugfs ' /proc/mounts ||
		mount -t debugfs debugfs /sys/kernel/debug ||
		die "cannot mount debugfs"
}
set_numa_balancing() {
	[ -z "$OLD_NB" ] && OLD_NB=$(cat /proc/sys/kernel/numa_balancing)
	echo "$1" > /proc/sys/kernel/numa_balancing ||
		die "cannot set kernel.numa_balancing=$1"
}
cleanup() {
	for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
	for p in $BG_PIDS; do wait "$p" 2>/dev/null; done
	ht_loaded && rmmod numa_hooktest
	[ -n "$OLD_NB" ] && echo "$OLD_NB" > /proc/sys/kernel/numa_balancing
}
trap cleanup EXIT
trap 'exit 1' INT TERM
hooks_setup() {
	[ -f "$KO" ] || die "$KO not found"
	ensure_debugfs
	grep -qE '^numacore ' /proc/modules &&
		die "numacore is loaded: a second policy cannot register"
	if ht_loaded; then
		say "numa_hooktest left loaded by an earlier test, removing it"
		rmmod numa_hooktest || die "cannot remove a stale numa_hooktest"
	fi
	BAD0=$(dmesg_bad)
}
# fail if the kernel logged a warning/bug since hooks_setup
check_dmesg() {
	bad=$(dmesg_bad)
	if [ "$bad" -gt "$BAD0" ]; then
		dmesg | grep -E -A20 'WARNING:|BUG:|Oops|general protection|sleeping function called from invalid context|lockdep|INFO: task .* blocked|rcu_.*stall|refcount_t:' | tail -60
		die "kernel logged $((bad - BAD0)) warning/bug line(s) during the test"
	fi
}
# ---- end of common helpers ----

hooks_setup
CYCLES=${HOOKS_REREG_CYCLES:-200}
SPAWNERS=${HOOKS_REREG_SPAWNERS:-4}
STOP=/tmp/hooks_rereg.stop.$$
rm -f "$STOP"

insmod "$KO" scan_delay_ms=0 || die "insmod numa_hooktest.ko scan_delay_ms=0 failed"

i=0
while [ $i -lt "$SPAWNERS" ]; do
	( while [ ! -e "$STOP" ]; do
		sh -c 'i=0; while [ $i -lt 300 ]; do i=$((i + 1)); done'
	  done ) &
	BG_PIDS="$BG_PIDS $!"
	i=$((i + 1))
done
sleep 1

t0=$(now_ms)
n=0
while [ $n -lt "$CYCLES" ]; do
	echo unregister > "$DBG/ctl" || die "write unregister"
	[ "$(ht_ctl unregister)" = 0 ] || die "unregister #$((n + 1)): $(ht_ctl unregister)"
	echo register > "$DBG/ctl" || die "write register"
	[ "$(ht_ctl register)" = 0 ] || die "register #$((n + 1)): $(ht_ctl register)"
	n=$((n + 1))
done
t1=$(now_ms)
touch "$STOP"
for p in $BG_PIDS; do wait "$p"; done
BG_PIDS=
rm -f "$STOP"
sleep 1

say "$n unregister/register cycles in $((t1 - t0)) ms with $SPAWNERS process spawners"
sed 's/^/  /' "$DBG/counts"
stale=$(ht_count stale_task_data)
allocs=$(ht_count task_data_allocated)
frees=$(ht_count task_exit)
rmmod numa_hooktest || die "rmmod numa_hooktest failed"
check_dmesg
[ "${allocs:-0}" -ge 100 ] && [ "${frees:-0}" -ge 100 ] ||
	die "too little task data/task exits (allocated=$allocs freed=$frees) for the test to mean anything"
[ "${stale:-0}" -eq 0 ] ||
	die "$stale callback(s) saw task data of an earlier registration (not freed by numa_policy_unregister)"
say "PASS"
exit 0
