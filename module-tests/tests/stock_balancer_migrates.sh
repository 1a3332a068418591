#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# stock_balancer_migrates: with kernel.numa_balancing=1 and no numacore
# module loaded, the stock (in-kernel) NUMA balancer moves memory that was
# first-touched on a remote node to the node its threads are pinned on:
# numa_hint_faults and numa_pages_migrated grow, and every numa_mfc process
# ends with >= MIN_PCT (90)% of its pages local.
# Knobs (env): NC_MFC_MB (64 MiB per process), NC_MFC_SECONDS (60).
# nc-timeout: 300
. "${0%/*}/lib/nc.sh"

MB=${NC_MFC_MB:-64}
SECS=${NC_MFC_SECONDS:-60}
MIN_PCT=90
OUT=/tmp/stock_balancer_migrates.out
SNAP=/tmp/stock_balancer_migrates.vmstat

old=$(nc_balancing_get)
nc_stock_setup
echo "kernel.numa_balancing: $old -> $(nc_balancing_get)"

nc_vmstat_snap "$SNAP"
t_start=$(cut -d' ' -f1 /proc/uptime)
numa_mfc --start remote --mb "$MB" --seconds "$SECS" --target 95 > "$OUT" 2>&1
rc=$?
t_end=$(cut -d' ' -f1 /proc/uptime)
cat "$OUT"
[ "$rc" = 0 ] || nc_fail "numa_mfc exited $rc"

hint=$(nc_vmstat_delta "$SNAP" numa_hint_faults)
hint_local=$(nc_vmstat_delta "$SNAP" numa_hint_faults_local)
migr=$(nc_vmstat_delta "$SNAP" numa_pages_migrated)
pte=$(nc_vmstat_delta "$SNAP" numa_pte_updates)
hpte=$(nc_vmstat_delta "$SNAP" numa_huge_pte_updates)
echo "--- run took ${t_start}s..${t_end}s uptime"
echo "delta numa_pte_updates=$pte numa_huge_pte_updates=$hpte"
echo "delta numa_hint_faults=$hint numa_hint_faults_local=$hint_local numa_pages_migrated=$migr"
echo "--- per process (threads' node, final locality, time to 90%/95%)"
nc_mfc_check_results "$OUT" "$MIN_PCT"
res=$?

bad=0
[ "$hint" -gt 0 ] || { echo "FAIL: numa_hint_faults did not increase"; bad=1; }
[ "$migr" -gt 0 ] || { echo "FAIL: numa_pages_migrated did not increase"; bad=1; }
[ "$res" = 0 ] || { echo "FAIL: not every process reached ${MIN_PCT}% local pages"; bad=1; }
[ "$bad" = 0 ] || nc_fail "stock balancer did not bring memory to its CPUs"
nc_pass "hint_faults=$hint pages_migrated=$migr, all processes >= ${MIN_PCT}% local"
