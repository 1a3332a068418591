#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_counters_consistent: the module's counters agree with themselves and with /proc/vmstat: local
# faults never exceed faults, pages migrated equal the kernel's
# numa_pages_migrated delta, pages marked equal numa_pte_updates.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_mfc_converges numacore 95
f=$(nc_delta hint_faults) l=$(nc_delta hint_faults_local)
m=$(nc_delta pages_migrated) vm=$(nc_delta vmstat_numa_pages_migrated)
p=$(nc_delta pages_marked) vp=$(nc_delta vmstat_numa_pte_updates)
echo "faults=$f local=$l migrated=$m vmstat_migrated=$vm marked=$p vmstat_pte_updates=$vp"
[ "$f" -gt 0 ] || nc_fail "no hinting faults counted"
[ "$l" -le "$f" ] || nc_fail "local faults $l > faults $f"
[ "$m" -gt 0 ] || nc_fail "no pages migrated"
# The kernel counts a migration before the policy hears of it: a fault in
# flight at the snapshot may differ by one huge page at most.
d=$((m - vm)); [ "$d" -lt 0 ] && d=$((-d))
[ "$d" -le 512 ] || nc_fail "pages_migrated $m != numa_pages_migrated delta $vm"
[ "$p" -eq "$vp" ] || nc_fail "pages_marked $p != numa_pte_updates delta $vp"
nc_pass "counters consistent"
