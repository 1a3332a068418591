#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hooks_can_migrate_fires: the load balancer asks the registered policy
# (can_migrate) before pulling a task to another CPU.  2*ncpu busy loops are
# started on CPU 0 only and then allowed on every CPU, so the balancer must
# pull queued (not running) tasks off CPU 0: can_migrate must be called
# for them.  While they are pinned the balancer rejects them before asking
# the policy, so the count is taken from the moment they are unpinned.
#
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
command -v taskset >/dev/null || die "taskset not found"
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || skip "needs >= 2 CPUs"
allmask=$(printf '%x' $(( (1 << ncpu) - 1 )))
nloops=$((2 * ncpu))
RUN_S=${HOOKS_LB_SECONDS:-10}

insmod "$KO" || die "insmod numa_hooktest.ko failed"

i=0
while [ $i -lt $nloops ]; do
	taskset 1 sh -c 'while :; do :; done' &
	BG_PIDS="$BG_PIDS $!"
	i=$((i + 1))
done
sleep 1
c0=$(ht_count can_migrate)
for p in $BG_PIDS; do
	taskset -p "$allmask" "$p" >/dev/null || die "taskset -p $allmask $p"
done
sleep "$RUN_S"
c1=$(ht_count can_migrate)

# where the loops ended up (field 39 of /proc/<pid>/stat: last CPU)
dist=$(for p in $BG_PIDS; do
	awk '{ print $39 }' /proc/$p/stat 2>/dev/null
done | sort | uniq -c | awk '{ printf "cpu%s:%s ", $2, $1 }')
say "$nloops busy loops on $ncpu CPUs after ${RUN_S}s: $dist"
say "can_migrate calls: pinned=$c0 total=$c1 after-unpin=$((c1 - c0))"
sed 's/^/  /' "$DBG/counts"
cerr=$(ht_count context_errors)

for p in $BG_PIDS; do kill "$p"; done
for p in $BG_PIDS; do wait "$p" 2>/dev/null; done
BG_PIDS=
rmmod numa_hooktest || die "rmmod numa_hooktest failed"
check_dmesg
[ $((c1 - c0)) -gt 0 ] || die "can_migrate never called while the balancer spread $nloops loops"
[ "${cerr:-0}" -eq 0 ] || die "context_errors=$cerr: a callback ran in a context the contract excludes"
say "PASS"
exit 0
