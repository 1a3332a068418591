#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vmstat_counters: /proc/vmstat exports the NUMA balancing counters
# (numa_hint_faults, numa_hint_faults_local, numa_pages_migrated,
# numa_pte_updates, numa_huge_pte_updates) with numeric values.
# nc-timeout: 30
. "${0%/*}/lib/nc.sh"

bad=0
for k in numa_hint_faults numa_hint_faults_local numa_pages_migrated \
	numa_pte_updates numa_huge_pte_updates; do
	v=$(nc_vmstat "$k")
	case "$v" in
	'') echo "FAIL: $k missing from /proc/vmstat"; bad=1 ;;
	*[!0-9]*) echo "FAIL: $k has non-numeric value '$v'"; bad=1 ;;
	*) echo "$k $v" ;;
	esac
done
[ "$bad" = 0 ] || nc_fail "NUMA balancing counters missing (CONFIG_NUMA_BALANCING?)"
nc_pass "all 5 counters present"
