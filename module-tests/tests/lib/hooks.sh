# module-tests/tests/lib/hooks.sh - helpers of the hooks_* tests (numa_hooktest.ko).
# Sourced as:  . "${0%/*}/lib/hooks.sh"   (sources lib/nc.sh).  ht_* names
# are about the test policy; sourcing registers ht_cleanup, which stops
# background jobs and unloads the test policy however the test exits.

. "${0%/*}/lib/nc.sh"

KO=${NC_MODULES:-/modules}/numa_hooktest.ko
DBG=/sys/kernel/debug/numa_hooktest
BG_PIDS=

ht_loaded() { grep -q '^numa_hooktest ' /proc/modules; }
ht_count() { awk -v k="$1" '$1 == k { print $2 }' "$DBG/counts"; }
ht_ctl() { sed -n "s/^$1=//p" "$DBG/ctl"; }
ht_cleanup() {
	for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
	for p in $BG_PIDS; do wait "$p" 2>/dev/null; done
	BG_PIDS=
	ht_loaded && { rmmod numa_hooktest || echo "warning: cleanup: rmmod numa_hooktest failed"; }
}
nc_atexit ht_cleanup
ht_setup() {
	[ -f "$KO" ] || nc_fail "$KO not found"
	nc_debugfs_mount
	grep -qE '^numacore ' /proc/modules &&
		nc_fail "numacore is loaded: a second policy cannot register"
	if ht_loaded; then
		nc_log "numa_hooktest left loaded by an earlier test, removing it"
		rmmod numa_hooktest || nc_fail "cannot remove a stale numa_hooktest"
	fi
}
# ht_mfc OUT SECONDS: 2 numa_mfc processes x 2 threads x 64 MiB whose
# memory starts on the remote node, for SECONDS; output in OUT, its
# config/result/summary lines shown; fail if numa_mfc fails.
ht_mfc() {
	numa_mfc --procs 2 --threads 2 --mb 64 --seconds "$2" \
		--start remote --target 95 > "$1" 2>&1
	_rc=$?
	grep -E '^(config|result|summary)' "$1"
	[ $_rc -eq 0 ] || { cat "$1"; nc_fail "numa_mfc exited $_rc"; }
}
