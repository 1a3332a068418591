#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_mempolicy_respected: memory bound with mbind(MPOL_BIND) to the remote node never moves, even
# with threads writing it from the other node all the time (numa_mfc's own
# figures and the kernel's numa_maps).  Positive control, in the same run:
# an unbound process whose memory also starts remote reaches 90% local, so
# the policy was scanning and migrating meanwhile; the module's migrations
# are no more than the control's pages (plus a few of stacks and heaps).
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_nodes 2
nc_need_prog numa_mfc
nc_numacore_load policy=numacore
nc_vmstat_snap /tmp/nc.vmstat0
nc_stats_snap /tmp/nc.stats0
nc_mbind_with_control /tmp/nc.mfc /tmp/nc.ctl 32 20 1
nc_deltas /tmp/nc.stats0 /tmp/nc.vmstat0 > /tmp/nc.deltas
nc_numacore_unload
m=$(nc_delta pages_migrated) vm=$(nc_delta vmstat_numa_pages_migrated)
f=$(nc_delta hint_faults)
cpages=$(nc_mfc_procs /tmp/nc.ctl pages)
echo "module pages_migrated=$m hint_faults=$f, vmstat numa_pages_migrated=$vm; control buffer $cpages pages"
[ "$m" -gt 0 ] && [ "$f" -gt 0 ] || nc_fail "positive control: the policy neither faulted nor migrated"
# The bound buffers are 2 x 8192 pages: had they moved, this would be far
# above the control's pages.
[ "$m" -le $((cpages + 1024)) ] || nc_fail "$m pages migrated, more than the control's $cpages: bound memory moved"
nc_pass "MPOL_BIND memory stayed on the remote node while unbound memory moved"
