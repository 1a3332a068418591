#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# stock_balancer_respects_mbind: memory kept mbind(MPOL_BIND) to a remote node
# stays there under the stock balancer (kernel.numa_balancing=1): after
# NC_MFC_SECONDS (15) of writes from pinned threads on another node, every
# numa_mfc --mbind-remote process still has <= 5% of its pages local, in
# numa_mfc's own figures and in the kernel's numa_maps.
# Positive control, in the same run: an unbound numa_mfc process whose
# memory also starts remote must reach 90% local, so the stock balancer
# was active while the bound memory stayed put.
# nc-timeout: 180
. "${0%/*}/lib/nc.sh"

MB=${NC_MFC_MB:-32}
SECS=${NC_MFC_SECONDS:-15}
MAX_PCT=5
OUT=/tmp/stock_balancer_respects_mbind.out
CTL=/tmp/stock_balancer_respects_mbind.ctl
SNAP=/tmp/stock_balancer_respects_mbind.vmstat

nc_stock_setup

nc_vmstat_snap "$SNAP"
nc_mbind_with_control "$OUT" "$CTL" "$MB" "$SECS" "$MAX_PCT"
migr=$(nc_vmstat_delta "$SNAP" numa_pages_migrated)
echo "delta numa_pte_updates=$(nc_vmstat_delta "$SNAP" numa_pte_updates)" \
	"numa_hint_faults=$(nc_vmstat_delta "$SNAP" numa_hint_faults)" \
	"numa_pages_migrated=$migr"
[ "$migr" -gt 0 ] || nc_fail "positive control: numa_pages_migrated did not grow"
nc_pass "MPOL_BIND memory stayed remote while unbound memory moved"
