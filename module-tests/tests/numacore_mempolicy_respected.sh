#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Memory bound with mbind(MPOL_BIND) to the remote node never moves, even
# with threads writing it from the other node all the time.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_nodes 2
nc_need_prog numa_mfc
nc_numacore_load policy=numacore
nc_vmstat_snap /tmp/nc.vmstat0
nc_stats_snap /tmp/nc.stats0
numa_mfc --procs 2 --threads 2 --mb 32 --seconds 20 --start remote --mbind-remote > /tmp/nc.mfc || nc_fail "numa_mfc failed"
grep -v '^sample' /tmp/nc.mfc
nc_deltas /tmp/nc.stats0 /tmp/nc.vmstat0 > /tmp/nc.deltas
nc_numacore_unload
m=$(nc_delta pages_migrated) vm=$(nc_delta vmstat_numa_pages_migrated)
echo "module pages_migrated=$m vmstat numa_pages_migrated=$vm"
# The bound buffers are 16384 pages; a few pages of stack or heap outside
# them may still move, the buffers themselves must not.
[ "$m" -lt 64 ] || nc_fail "$m pages migrated: bound memory moved"
# Every process must still have (almost) all its pages on the remote node.
nc_mfc_check_results /tmp/nc.mfc 0 >/dev/null || nc_fail "workload did not report"
bad=$(awk '/^result /{ for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "final_pct" && kv[2] + 0 > 1) n++ } } END { print n + 0 }' /tmp/nc.mfc)
[ "$bad" -eq 0 ] || nc_fail "$bad process(es) gained local pages despite MPOL_BIND"
nc_pass "MPOL_BIND memory stayed on the remote node"
