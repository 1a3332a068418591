#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# stock_balancer_migrates_base_pages: like stock_balancer_migrates, but the
# buffers are madvise(MADV_NOHUGEPAGE), so the stock balancer must move them
# 4K page by 4K page: numa_hint_faults grows by at least a tenth of the pages
# (no huge-PMD shortcut), numa_pages_migrated grows, and every numa_mfc
# process ends with >= 90% of its pages local.
# Knobs (env): NC_MFC_MB (32 MiB per process), NC_MFC_SECONDS (90).
# nc-timeout: 300
. "${0%/*}/lib/nc.sh"

MB=${NC_MFC_MB:-32}
SECS=${NC_MFC_SECONDS:-90}
MIN_PCT=90
OUT=/tmp/stock_balancer_migrates_base_pages.out
SNAP=/tmp/stock_balancer_migrates_base_pages.vmstat

nc_stock_setup

nc_vmstat_snap "$SNAP"
numa_mfc --start remote --thp never --mb "$MB" --seconds "$SECS" --target 95 > "$OUT" 2>&1
rc=$?
cat "$OUT"
[ "$rc" = 0 ] || nc_fail "numa_mfc exited $rc"

pages=$(awk '/^proc / { for (i = 2; i <= NF; i++) if ($i ~ /^pages=/) { sub("pages=", "", $i); n += $i } } END { print n + 0 }' "$OUT")
hint=$(nc_vmstat_delta "$SNAP" numa_hint_faults)
migr=$(nc_vmstat_delta "$SNAP" numa_pages_migrated)
hpte=$(nc_vmstat_delta "$SNAP" numa_huge_pte_updates)
echo "--- $pages pages in all"
echo "delta numa_hint_faults=$hint numa_pages_migrated=$migr numa_huge_pte_updates=$hpte"
nc_mfc_check_results "$OUT" "$MIN_PCT"
res=$?

bad=0
[ "$hint" -ge $((pages / 10)) ] || { echo "FAIL: only $hint hint faults for $pages base pages"; bad=1; }
[ "$migr" -gt 0 ] || { echo "FAIL: numa_pages_migrated did not increase"; bad=1; }
[ "$res" = 0 ] || { echo "FAIL: not every process reached ${MIN_PCT}% local pages"; bad=1; }
[ "$bad" = 0 ] || nc_fail "stock balancer did not bring base pages to their CPUs"
nc_pass "hint_faults=$hint pages_migrated=$migr for $pages base pages"
