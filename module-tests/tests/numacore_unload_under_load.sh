#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rmmod while the workload faults and migrates: the module goes, the
# workload keeps running and finishes, the pages it had stay where they
# are, and the module loads again.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_nodes 2
nc_need_prog numa_mfc
nc_numacore_load policy=numacore scan_period_min_ms=100 scan_period_max_ms=200
numa_mfc --procs 2 --threads 2 --mb 32 --seconds 16 --start remote > /tmp/nc.mfc &
mfc=$!
sleep 6
nc_stat pages_migrated
t0=$(date +%s)
rmmod numacore || nc_fail "rmmod under load failed"
echo "rmmod took $(($(date +%s) - t0)) s"
[ -d /sys/module/numacore ] && nc_fail "module still present"
kill -0 $mfc 2>/dev/null || nc_fail "workload died at unload"
wait $mfc || nc_fail "workload exited non-zero after unload"
grep -v '^sample' /tmp/nc.mfc
nc_mfc_check_results /tmp/nc.mfc 0 || nc_fail "workload did not finish its report"
insmod "$NC_KO" || nc_fail "reload failed"
nc_numacore_unload
nc_pass "unloaded under load, workload unharmed, reloaded"
