#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_tracepoints: numacore's tracepoints fire with plausible fields: with events/numacore/
# enabled in tracefs while a CPU-follows-memory workload runs, the trace
# holds numacore_scan (marked >= 0, period within the parameters,
# duration_ns > 0), numacore_fault (nodes that exist, a known reason),
# numacore_place (a known outcome) and numacore_class (a class) events.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_nodes 2
nc_need_prog numa_mfc
T=/sys/kernel/tracing
[ -d "$T/events" ] || mount -t tracefs nodev "$T" 2>/dev/null
[ -d "$T/events" ] || nc_fail "tracefs not available at $T (kernel without tracing?)"
nodes=$(nc_nodes_online)
nc_numacore_load policy=numacore scan_period_max_ms=2000
[ -d "$T/events/numacore" ] || nc_fail "no events/numacore in tracefs"
# "7 (expanded: 1408)" before the buffer is first used: keep the number
old_kb=$(sed 's/[^0-9].*//' "$T/buffer_size_kb")
nc_atexit "[ -d $T/events/numacore ] && echo 0 > $T/events/numacore/enable; echo $old_kb > $T/buffer_size_kb; echo > $T/trace"
echo 8192 > "$T/buffer_size_kb"
echo > "$T/trace"
echo 1 > "$T/events/numacore/enable"
numa_mfc --procs 2 --threads 2 --mb 16 --seconds 12 --start cpu-follows \
	> /tmp/nc.mfc || nc_fail "numa_mfc failed"
echo 0 > "$T/events/numacore/enable"
cat "$T/trace" > /tmp/nc.trace
nc_numacore_unload
for e in numacore_scan numacore_fault numacore_place numacore_class; do
	echo "$e: $(grep -c " $e: " /tmp/nc.trace) events, e.g.: $(grep -m1 " $e: " /tmp/nc.trace | sed 's/.*: \(numacore_[a-z]*: \)/\1/')"
done
awk -v nodes="$nodes" '
	function kv(key,   i, a) {
		for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == key) return a[2] }
		return ""
	}
	/ numacore_scan: / { n["scan"]++
		if (kv("marked") !~ /^[0-9]+$/ || kv("duration_ns") + 0 <= 0 ||
		    kv("period_ms") + 0 < 10 || kv("period_ms") + 0 > 2000) bad("scan") }
	/ numacore_fault: / { n["fault"]++
		if (kv("page_nid") + 0 >= nodes || kv("cpu_nid") + 0 >= nodes ||
		    kv("reason") !~ /^(local|moron|task_follows|first_fault|filtered|two_samples|split)$/ ||
		    kv("type") !~ /^(shared|private|unknown)$/) bad("fault") }
	/ numacore_place: / { n["place"]++
		if (kv("outcome") !~ /^(moved|swapped|regrouped|affinity|no_capacity|no_improvement|no_improvement_anchored)$/ ||
		    kv("dst_nid") + 0 >= nodes) bad("place") }
	/ numacore_class: / { n["class"]++
		if (kv("new") !~ /^(private|shared)$/) bad("class") }
	function bad(e) { if (!shown[e]++) print "implausible " e ": " $0; nbad++ }
	END {
		split("scan fault place class", want, " ")
		for (i = 1; i <= 4; i++) if (!n[want[i]]) { print "no numacore_" want[i] " event"; nbad++ }
		exit nbad > 0
	}' /tmp/nc.trace || nc_fail "missing or implausible events"
nc_pass "every numacore tracepoint fired with plausible fields"
