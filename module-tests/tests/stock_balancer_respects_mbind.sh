#!/bin/sh
# stock_balancer_respects_mbind: memory kept mbind(MPOL_BIND) to a remote node
# stays there under the stock balancer (kernel.numa_balancing=1): after
# NC_MFC_SECONDS (15) of writes from pinned threads on another node, every
# numa_mfc --mbind-remote process still has <= 5% of its pages local.
# Control: the same run without --mbind-remote is stock_balancer_migrates.
# nc-timeout: 180
NC_LIB=${0%/*}/lib/nc.sh
[ -f "$NC_LIB" ] || { echo "FAIL: $NC_LIB missing (module-tests/tests/lib/ must be installed as /tests/lib/)"; exit 1; }
. "$NC_LIB"

MB=${NC_MFC_MB:-32}
SECS=${NC_MFC_SECONDS:-15}
MAX_PCT=5
OUT=/tmp/stock_balancer_respects_mbind.out
SNAP=/tmp/stock_balancer_respects_mbind.vmstat

nc_need_prog numa_mfc
nc_need_nodes 2
nc_numacore_loaded && nc_fail "a numacore module is loaded (left by an earlier test?); this test is about the stock balancer"
[ -e "$NC_BAL" ] || nc_fail "$NC_BAL missing (kernel without CONFIG_NUMA_BALANCING?)"

nc_balancing_set 1 || nc_fail "cannot set kernel.numa_balancing=1"

nc_vmstat_snap "$SNAP"
numa_mfc --start remote --mbind-remote --mb "$MB" --seconds "$SECS" > "$OUT" 2>&1
rc=$?
cat "$OUT"
[ "$rc" = 0 ] || nc_fail "numa_mfc exited $rc"
echo "delta numa_pte_updates=$(nc_vmstat_delta "$SNAP" numa_pte_updates)" \
	"numa_hint_faults=$(nc_vmstat_delta "$SNAP" numa_hint_faults)" \
	"numa_pages_migrated=$(nc_vmstat_delta "$SNAP" numa_pages_migrated)"

awk -v max="$MAX_PCT" '
/^config / { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "procs") procs = kv[2] } }
/^result / {
	n++
	for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] }
	if (r["final_pct"] + 0 > max) { printf "FAIL: proc %s ended %s%% local (> %s%%): bound memory moved\n", r["proc"], r["final_pct"], max; bad++ }
	else printf "proc %s: final_pct=%s pages=%s (stayed on the bound node)\n", r["proc"], r["final_pct"], r["pages"]
	if (r["pages"] + 0 == 0) { printf "FAIL: proc %s has no present pages\n", r["proc"]; bad++ }
}
END { if (n == 0 || n != procs) { print "FAIL: missing result lines"; exit 1 } exit bad ? 1 : 0 }' "$OUT" ||
	nc_fail "the stock balancer moved memory against an MPOL_BIND policy"
nc_pass "MPOL_BIND memory stayed remote"
