#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_params_apply_live: a valid parameter change takes effect while a workload runs: with a scan
# period of an hour the workload's memory is scanned about once, lowering
# the period to 100-200 ms makes scans frequent at once.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_nodes 2
nc_need_prog numa_mfc
nc_numacore_load scan_period_min_ms=3600000 scan_period_max_ms=3600000
numa_mfc --procs 1 --threads 2 --mb 16 --seconds 40 --start local > /tmp/nc.mfc &
mfc=$!
nc_bg $mfc
nc_mfc_wait /tmp/nc.mfc 1 $mfc
# let the tasks' first scans (which do not wait for the period) pass
sleep 6
s0=$(nc_stat scans)
sleep 6
s1=$(nc_stat scans)
echo 100 > $NC_PARAMS/scan_period_min_ms || nc_fail "min=100 refused"
echo 200 > $NC_PARAMS/scan_period_max_ms || nc_fail "max=200 refused"
sleep 6
s2=$(nc_stat scans)
kill -0 $mfc 2>/dev/null || nc_fail "numa_mfc ended before the measurement did"
kill $mfc 2>/dev/null; wait $mfc
echo "scans: start=$s0, +$((s1 - s0)) in 6 s at 3600000 ms, +$((s2 - s1)) in 6 s at 100-200 ms"
nc_numacore_unload
# A task's first scan does not wait for its period: allow a few of those.
[ $((s1 - s0)) -le 3 ] || nc_fail "scanned repeatedly while the period was an hour"
[ $((s2 - s1)) -ge 5 ] && [ $((s2 - s1)) -gt $((3 * (s1 - s0))) ] ||
	nc_fail "lowering the period did not speed up scanning"
nc_pass "scan period change applied live"
