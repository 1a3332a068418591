#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_backs_off_when_converged: policy=numacore at its defaults: once memory followed the CPUs, the
# scanner backs off.  In the 10 s after every process is >= 95% local it
# marks far fewer PTEs than one pass over the workload's memory (less than
# a tenth of one), and does not scan without deferring (stock 6.1 rescans
# converged memory every few seconds: about one pass per scan period).
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_nodes 2
nc_need_prog numa_mfc
pages=$((2 * 64 * 256))		# 2 processes x 64 MiB, in 4 KiB pages
nc_numacore_load policy=numacore
numa_mfc --procs 2 --threads 2 --mb 64 --seconds 40 --start remote > /tmp/nc.mfc &
mfc=$!
nc_bg $mfc
nc_mfc_wait /tmp/nc.mfc 2 $mfc

nc_wait_local /tmp/nc.mfc $mfc 2 25
nc_scan_window 10
kill -0 $mfc 2>/dev/null || nc_fail "numa_mfc exited during the 10 s window"
echo "in the 10 s after convergence: pages_marked=$marked scans=$scans scans_deferred=$deferred (one pass: $pages pages, limit $((pages / 10)))"
grep numa_mfc "$NC_DEBUGFS/tasks"
kill $mfc 2>/dev/null
wait $mfc
nc_numacore_unload
[ "$marked" -lt $((pages / 10)) ] || nc_fail "marked $marked PTEs after convergence, not below a tenth of one pass ($pages pages)"
# Backed off: no scan in the window, or its expiries deferred the scans.
[ "$scans" -eq 0 ] || [ "$deferred" -gt 0 ] ||
	nc_fail "$scans scans and none deferred after convergence"
nc_pass "scanner backed off after convergence"
