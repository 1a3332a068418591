#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hooks_register_busy: only one NUMA policy can be registered at a time
# (-EBUSY for a second one), a policy can unregister and register again, and
# its module loads and unloads cleanly, twice.
#
# numa_hooktest's debugfs ctl file: "register2" registers a second ops
# struct (and unregisters it again at once if that worked), "unregister" and
# "register" act on the module's main ops; ctl reads back the return codes.
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

insmod "$KO" || die "insmod numa_hooktest.ko failed"
ht_loaded || die "numa_hooktest not in /proc/modules after insmod"
[ -w "$DBG/ctl" ] || die "$DBG/ctl missing"
[ "$(ht_ctl registered)" = 1 ] || die "policy not registered after insmod"
dmesg | grep -q 'numa_policy: policy hooktest registered' ||
	die "no 'policy hooktest registered' kernel message"

echo register2 > "$DBG/ctl" || die "write register2"
rc=$(ht_ctl second_register)
say "second policy while hooktest is registered: $rc"
[ "$rc" = -16 ] || die "second registration returned '$rc', want -16 (EBUSY)"

echo register > "$DBG/ctl" || die "write register"
rc=$(ht_ctl register)
say "same policy registered twice: $rc"
[ "$rc" = -16 ] || die "registering the registered policy returned '$rc', want -16"

echo unregister > "$DBG/ctl" || die "write unregister"
rc=$(ht_ctl unregister)
say "unregister: $rc"
[ "$rc" = 0 ] || die "unregister returned '$rc'"
[ "$(ht_ctl registered)" = 0 ] || die "still registered after unregister"

# the slot is free now: the second policy must get it (and give it back)
echo register2 > "$DBG/ctl" || die "write register2"
rc=$(ht_ctl second_register)
say "second policy while none is registered: $rc"
[ "$rc" = 0 ] || die "second registration into a free slot returned '$rc'"

echo register > "$DBG/ctl" || die "write register"
rc=$(ht_ctl register)
say "register again: $rc"
[ "$rc" = 0 ] || die "re-register returned '$rc'"
[ "$(ht_ctl registered)" = 1 ] || die "not registered after register"

rmmod numa_hooktest || die "rmmod numa_hooktest failed"
ht_loaded && die "numa_hooktest still loaded after rmmod"
[ -e "$DBG" ] && die "$DBG still present after rmmod"

insmod "$KO" || die "second insmod failed (policy slot not released?)"
[ "$(ht_ctl registered)" = 1 ] || die "policy not registered after second insmod"
rmmod numa_hooktest || die "second rmmod failed"
ht_loaded && die "numa_hooktest still loaded after second rmmod"

n=$(dmesg | grep -c 'numa_policy: policy hooktest unregistered')
say "kernel 'policy hooktest unregistered' messages: $n"
check_dmesg
say "PASS"
exit 0
