#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hooks_stock_after_unload: after a policy was registered, used and
# unloaded, the kernel's own NUMA balancing works again: with
# kernel.numa_balancing=1 and no policy registered, memory first touched on
# the remote node follows the CPU (>= 90% local) and numa_pages_migrated
# grows.
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
[ "$(nr_nodes)" -ge 2 ] || skip "needs >= 2 NUMA nodes"
command -v numa_mfc >/dev/null || die "numa_mfc not found"
SECONDS_RUN=${HOOKS_MFC_SECONDS:-40}

# let the policy do some work first, so it has state to leave behind
set_numa_balancing 0
insmod "$KO" || die "insmod numa_hooktest.ko failed"
numa_mfc --procs 2 --threads 2 --mb 16 --seconds 3 --start remote \
	> /dev/null 2>&1 || die "numa_mfc (under hooktest) failed"
say "under hooktest: task_work=$(ht_count task_work) pages_marked=$(ht_count pages_marked)"
rmmod numa_hooktest || die "rmmod numa_hooktest failed"
ht_loaded && die "numa_hooktest still loaded"
dmesg | tail -50 | grep -q 'numa_policy: policy hooktest unregistered' ||
	die "no 'policy hooktest unregistered' message"

set_numa_balancing 1
v0_hint=$(vmstat_get numa_hint_faults)
v0_mig=$(vmstat_get numa_pages_migrated)
out=/tmp/hooks_stock.$$
numa_mfc --procs 2 --threads 2 --mb 64 --seconds "$SECONDS_RUN" \
	--start remote --target 95 > "$out" 2>&1
rc=$?
grep -E '^(config|result|summary)' "$out"
[ $rc -eq 0 ] || { cat "$out"; die "numa_mfc exited $rc"; }
d_hint=$(( $(vmstat_get numa_hint_faults) - v0_hint ))
d_mig=$(( $(vmstat_get numa_pages_migrated) - v0_mig ))
say "stock balancer: numa_hint_faults delta=$d_hint numa_pages_migrated delta=$d_mig"

minpct=$(sed -n 's/^summary .*min_final_pct=\([0-9.]*\).*/\1/p' "$out")
[ -n "$minpct" ] || { cat "$out"; die "no summary line from numa_mfc"; }
rm -f "$out"
check_dmesg
[ "$d_mig" -gt 0 ] || die "numa_pages_migrated did not grow"
awk -v p="$minpct" 'BEGIN { exit !(p >= 90) }' ||
	die "locality ${minpct}% < 90% with the stock balancer"
say "PASS (min_final_pct=$minpct)"
exit 0
