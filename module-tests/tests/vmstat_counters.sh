#!/bin/sh
# vmstat_counters: /proc/vmstat exports the NUMA balancing counters
# (numa_hint_faults, numa_hint_faults_local, numa_pages_migrated,
# numa_pte_updates, numa_huge_pte_updates) with numeric values.
# nc-timeout: 30
NC_LIB=${0%/*}/lib/nc.sh
[ -f "$NC_LIB" ] || { echo "FAIL: $NC_LIB missing (module-tests/tests/lib/ must be installed as /tests/lib/)"; exit 1; }
. "$NC_LIB"

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
