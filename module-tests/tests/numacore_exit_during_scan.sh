#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_exit_during_scan: with policy=numacore scanning at its shortest
# period, a thousand processes fork, exit, exec, mprotect and munmap /
# remap their memory while being scanned (faultfork --churn --forks): at
# least MIN_FORKS children run, at least MIN_SCANNED distinct processes are
# scanned (numacore_scan events), every child exits 0, no page written is
# found corrupt, no kernel splat, and the module unloads.
# nc-timeout: 700
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
MIN_FORKS=1000
MIN_SCANNED=100
MAX_SECONDS=600		# the run ends after MIN_FORKS children (~30 s here)
nc_need_nodes 2
nc_need_prog faultfork
T=/sys/kernel/tracing
[ -d "$T/events" ] || mount -t tracefs nodev "$T" 2>/dev/null
[ -d "$T/events" ] || nc_fail "tracefs not available at $T (kernel without tracing?)"
nc_numacore_load policy=numacore scan_period_min_ms=10 scan_size_mb=1
old_kb=$(sed 's/[^0-9].*//' "$T/buffer_size_kb")
nc_atexit "[ -d $T/events/numacore ] && echo 0 > $T/events/numacore/numacore_scan/enable; echo $old_kb > $T/buffer_size_kb; echo > $T/trace"
echo 8192 > "$T/buffer_size_kb"
echo > "$T/trace"
echo 1 > "$T/events/numacore/numacore_scan/enable"
s0=$(nc_stat scans)
faultfork --threads 2 --seconds $MAX_SECONDS --forks $MIN_FORKS --mb 4 --fork-ms 1 \
	--churn > /tmp/nc.ff 2>&1
rc=$?
echo 0 > "$T/events/numacore/numacore_scan/enable"
cat "$T/trace" > /tmp/nc.trace	# the events cannot be printed once unloaded
s1=$(nc_stat scans)
tail -n 1 /tmp/nc.ff
grep -E '^(scans|pages_marked|exec_resets)' "$NC_DEBUGFS/stats"
nc_numacore_unload
[ $rc -eq 0 ] || nc_fail "faultfork exited $rc (a child failed, an error, or corrupt pages)"
forks=$(sed -n 's/^faultfork .* forks=\([0-9]*\).*/\1/p' /tmp/nc.ff)
scanned=$(sed -n 's/.* numacore_scan: tgid=\([0-9]*\) .*/\1/p' /tmp/nc.trace | sort -u | wc -l)
echo "$forks children, $((s1 - s0)) scan steps over $scanned distinct processes"
[ "${forks:-0}" -ge $MIN_FORKS ] || nc_fail "only ${forks:-0} children (< $MIN_FORKS)"
[ "$scanned" -ge $MIN_SCANNED ] || nc_fail "only $scanned processes scanned (< $MIN_SCANNED): the churn ran unscanned"
nc_pass "$forks children forked, exec'd, remapped and exited under the scanner"
