#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# demo: what `make run` shows (not a TAP test).  Loads the numacore policy
# if /modules/numacore.ko exists (else uses the stock balancer), runs
# numa_mfc with memory first placed on the wrong node, and prints a
# before/after table per process.  Exit 0 when the workload ran.
# Knobs (env): NC_DEMO_MB (64), NC_DEMO_SECONDS (60), NC_DEMO_PROCS (2).
. "${0%/*}/lib/nc.sh"

MB=${NC_DEMO_MB:-64}
SECS=${NC_DEMO_SECONDS:-60}
PROCS=${NC_DEMO_PROCS:-2}
MODS=${NC_MODULES:-/modules}
OUT=/tmp/demo.mfc.out

nodes=$(nc_nodes_online)
echo "=== numacore demo: $nodes nodes, CPUs $(cat /sys/devices/system/cpu/online), kernel $(uname -r)"
if [ "${nodes:-1}" -lt 2 ]; then
	echo "demo needs >= 2 NUMA nodes"
	exit 1
fi

policy=stock
if [ -f "$MODS/numacore.ko" ]; then
	if nc_numacore_loaded || insmod "$MODS/numacore.ko"; then
		policy=numacore
	else
		echo "insmod $MODS/numacore.ko failed; falling back to the stock balancer"
	fi
fi
nc_balancing_set 1 || echo "warning: cannot set kernel.numa_balancing=1"
echo "policy: $policy   kernel.numa_balancing=$(nc_balancing_get)"
echo "workload: numa_mfc --procs $PROCS --start remote --mb $MB --seconds $SECS --target 95"
echo "(each process: threads pinned to one node, its memory first placed on another)"

snap=/tmp/demo.vmstat
nc_vmstat_snap "$snap"
numa_mfc --procs "$PROCS" --start remote --mb "$MB" --seconds "$SECS" --target 95 > "$OUT" 2>&1
rc=$?
if [ "$rc" != 0 ]; then
	cat "$OUT"
	echo "numa_mfc failed (exit $rc)"
	exit 1
fi

echo
awk -v nodes="$nodes" '
function kv(line,   i, a) {
	delete f
	for (i = 2; i <= NF; i++) { split($i, a, "="); f[a[1]] = a[2] }
}
function pad(s, w) { while (length(s) < w) s = s " "; return s }
function pcts(np,   i, n, c, tot, s) {
	n = split(np, c, ","); tot = 0; s = ""
	for (i = 1; i <= n; i++) tot += c[i]
	for (i = 1; i <= n; i++) s = s sprintf(" %5.1f", tot ? 100 * c[i] / tot : 0)
	return s
}
/^proc / { kv($0); node[f["proc"]] = f["node"] }
/^sample / { kv($0); p = f["proc"]
	if (!(p in first)) first[p] = f["node_pages"]
	last[p] = f["node_pages"]; lastt[p] = f["t_ms"] }
/^result / { kv($0); p = f["proc"]; t90[p] = f["t90_ms"]; fin[p] = f["final_pct"]; bps[p] = f["bytes_per_s"]; nres++ }
END {
	hdr = ""
	for (i = 0; i < nodes; i++) hdr = hdr sprintf(" %5s", "n" i "%")
	w = 6 * nodes
	printf "%-5s %-8s |%s |%s | %-7s %s\n", "", "", pad(" pages before", w), pad(" pages after", w), "", ""
	printf "%-5s %-8s |%s |%s | %-7s %s\n", "proc", "threads", hdr, hdr, "t90", "write MB/s"
	for (p = 0; p < nres; p++)
		printf "%-5s node%-4s |%s |%s | %-7s %.1f\n", p, node[p], pcts(first[p]), pcts(last[p]),
			(t90[p] < 0 ? "never" : sprintf("%.1fs", t90[p] / 1000)), bps[p] / 1048576
}' "$OUT"
echo
for k in numa_pte_updates numa_hint_faults numa_hint_faults_local numa_pages_migrated; do
	printf "%-24s +%s\n" "$k" "$(nc_vmstat_delta "$snap" $k)"
done
grep '^summary' "$OUT"
exit 0
