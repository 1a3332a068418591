#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_mfc_moron: policy=moron: every misplaced page migrates to the referencing node.
# Proof that moron (not numacore) ran: the policy parameter reads back
# "moron", the module logged "loaded, policy=moron", and migrate_filtered
# stays 0 with first_fault=0, a setting under which numacore's two-sample
# filter refuses every page's first hinting fault: a short contrast run
# under policy=numacore first_fault=0 on the same workload must count
# filtered migrations, the moron run none.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_nodes 2
nc_need_prog numa_mfc

# contrast: numacore with first_fault=0 filters first faults
nc_numacore_load policy=numacore first_fault=0
nc_stats_snap /tmp/nc.stats0
numa_mfc --procs 2 --threads 2 --mb 16 --seconds 8 --start remote > /tmp/nc.mfc.contrast ||
	nc_fail "numa_mfc (contrast run) failed"
filt_n=$(nc_stat_delta /tmp/nc.stats0 migrate_filtered)
mig_n=$(nc_stat_delta /tmp/nc.stats0 pages_migrated)
nc_numacore_unload
echo "contrast, policy=numacore first_fault=0: migrate_filtered=$filt_n pages_migrated=$mig_n"
[ "$filt_n" -gt 0 ] || nc_fail "contrast run: numacore filtered nothing, so migrate_filtered=0 would not tell moron apart"

mark=$(nc_dmesg_mark)
nc_numacore_load policy=moron first_fault=0
pol=$(cat "$NC_PARAMS/policy")
echo "policy parameter reads back: $pol"
[ "$pol" = moron ] || nc_fail "policy parameter is '$pol', not moron"
nc_dmesg_since "$mark" | grep -q 'numacore: loaded, policy=moron' ||
	nc_fail "no 'numacore: loaded, policy=moron' kernel message"
nc_stats_snap /tmp/nc.stats0
nc_vmstat_snap /tmp/nc.vmstat0
numa_mfc --procs 2 --threads 2 --mb 64 --seconds 60 --start remote --target 95 > /tmp/nc.mfc ||
	nc_fail "numa_mfc failed"
grep -v '^sample' /tmp/nc.mfc
nc_deltas /tmp/nc.stats0 /tmp/nc.vmstat0 > /tmp/nc.deltas
cat /tmp/nc.deltas
pol=$(cat "$NC_PARAMS/policy")
nc_numacore_unload
[ "$pol" = moron ] || nc_fail "policy parameter changed to '$pol' during the run"
nc_mfc_check_results /tmp/nc.mfc 95 || nc_fail "locality below 95%"
filt=$(nc_delta migrate_filtered) mig=$(nc_delta pages_migrated)
echo "policy=moron first_fault=0: migrate_filtered=$filt pages_migrated=$mig (numacore: $filt_n filtered)"
[ "$mig" -gt 0 ] || nc_fail "moron migrated nothing"
[ "$filt" -eq 0 ] || nc_fail "migrate_filtered=$filt under moron: numacore's filter ran"
nc_pass "memory followed the CPUs under policy=moron (no filtered migrations, numacore filtered $filt_n)"
