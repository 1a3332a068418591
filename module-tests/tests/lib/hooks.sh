# module-tests/tests/lib/hooks.sh - helpers of the hooks_* tests (numa_hooktest.ko).
# Sourced as:  . "${0%/*}/lib/hooks.sh"   (sources lib/nc.sh, whose EXIT
# trap checks the kernel log for splats; registers a cleanup that stops
# background jobs, unloads the test policy and restores
# kernel.numa_balancing, however the test exits).

. "${0%/*}/lib/nc.sh"

KO=${NC_MODULES:-/modules}/numa_hooktest.ko
DBG=/sys/kernel/debug/numa_hooktest
BG_PIDS=

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
ensure_debugfs() {
	grep -q ' /sys/kernel/debug debugfs ' /proc/mounts ||
		mount -t debugfs debugfs /sys/kernel/debug ||
		die "cannot mount debugfs"
}
set_numa_balancing() {
	nc_balancing_set "$1" || die "cannot set kernel.numa_balancing=$1"
}
cleanup() {
	for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
	for p in $BG_PIDS; do wait "$p" 2>/dev/null; done
	BG_PIDS=
	ht_loaded && { rmmod numa_hooktest || echo "warning: cleanup: rmmod numa_hooktest failed"; }
}
nc_atexit cleanup
hooks_setup() {
	[ -f "$KO" ] || die "$KO not found"
	ensure_debugfs
	grep -qE '^numacore ' /proc/modules &&
		die "numacore is loaded: a second policy cannot register"
	if ht_loaded; then
		say "numa_hooktest left loaded by an earlier test, removing it"
		rmmod numa_hooktest || die "cannot remove a stale numa_hooktest"
	fi
}
# fail if the kernel logged a splat (lib/splat.patterns) since the test
# started (the EXIT trap of lib/nc.sh checks again after the cleanup)
check_dmesg() {
	nc_check_dmesg || die "the kernel logged a splat during the test"
}
