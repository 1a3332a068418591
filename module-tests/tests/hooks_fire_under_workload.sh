#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hooks_fire_under_workload: with numa_hooktest registered and
# kernel.numa_balancing=0, a memory-follows-CPU workload (memory first
# touched on the remote node) drives every fault/scan hook: task_tick queues
# task_work, task_work marks pages with change_prot_numa(), the marked
# pages take hinting faults (fault_target, fault_done) and are migrated to
# the faulting node.  The vmstat deltas prove the policy's own scans make
# the hinting faults and migrations with the kernel's balancer off.
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
[ "$(nr_nodes)" -ge 2 ] || skip "needs >= 2 NUMA nodes"
command -v numa_mfc >/dev/null || die "numa_mfc not found"

SECONDS_RUN=${HOOKS_MFC_SECONDS:-25}
set_numa_balancing 0
insmod "$KO" || die "insmod numa_hooktest.ko failed"

v0_hint=$(vmstat_get numa_hint_faults)
v0_local=$(vmstat_get numa_hint_faults_local)
v0_mig=$(vmstat_get numa_pages_migrated)
v0_pte=$(vmstat_get numa_pte_updates)

out=/tmp/hooks_fire.$$
numa_mfc --procs 2 --threads 2 --mb 64 --seconds "$SECONDS_RUN" \
	--start remote --target 95 > "$out" 2>&1
rc=$?
grep -E '^(config|result|summary)' "$out"
[ $rc -eq 0 ] || { cat "$out"; die "numa_mfc exited $rc"; }

d_hint=$(( $(vmstat_get numa_hint_faults) - v0_hint ))
d_local=$(( $(vmstat_get numa_hint_faults_local) - v0_local ))
d_mig=$(( $(vmstat_get numa_pages_migrated) - v0_mig ))
d_pte=$(( $(vmstat_get numa_pte_updates) - v0_pte ))

say "numa_hooktest counts:"
sed 's/^/  /' "$DBG/counts"
say "vmstat deltas: numa_pte_updates=$d_pte numa_hint_faults=$d_hint" \
	"numa_hint_faults_local=$d_local numa_pages_migrated=$d_mig"
say "kernel.numa_balancing=$(cat /proc/sys/kernel/numa_balancing)"

fail=
for c in fault_target fault_done task_tick task_work pages_marked; do
	v=$(ht_count $c)
	[ "${v:-0}" -gt 0 ] || { say "$c count is ${v:-missing}, want > 0"; fail=1; }
done
[ "$d_hint" -gt 0 ] || { say "numa_hint_faults did not grow"; fail=1; }
v=$(ht_count context_errors)
[ "${v:-0}" -eq 0 ] || { say "context_errors=$v: a callback ran in a context the contract excludes"; fail=1; }
[ "$d_mig" -gt 0 ] || { say "numa_pages_migrated did not grow"; fail=1; }

rmmod numa_hooktest || die "rmmod numa_hooktest failed"
rm -f "$out"
check_dmesg
[ -z "$fail" ] || die "hooks did not fire as expected"
say "PASS"
exit 0
