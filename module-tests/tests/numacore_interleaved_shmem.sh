#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_interleaved_shmem: shared memory under an explicit interleave policy is left alone: two
# processes whose task policy is MPOL_INTERLEAVE (without MPOL_F_MOF, as
# `numactl --interleave` sets it) write a MAP_SHARED buffer whose pages
# are all on the remote node.  That policy applies to the shmem pages at
# fault time and forbids moving them, so policy=numacore migrates none
# and does not keep marking them: fewer PTEs marked in the whole run than
# the buffer has pages (a scanner that kept marking it would mark it
# again every period).
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_nodes 2
nc_need_prog numa_mfc
MB=16
PROCS=2
pages=$((PROCS * MB * 256))
nc_numacore_load policy=numacore
nc_stats_snap /tmp/nc.stats0
nc_vmstat_snap /tmp/nc.vmstat0
numa_mfc --procs $PROCS --threads 2 --mb $MB --seconds 20 --start remote \
	--map-shared --shared --interleave > /tmp/nc.mfc ||
	nc_fail "numa_mfc failed"
grep -E '^(config|result|summary)' /tmp/nc.mfc
grep -q '^config .* interleave=1 ' /tmp/nc.mfc ||
	nc_fail "numa_mfc did not run with --interleave"
nc_deltas /tmp/nc.stats0 /tmp/nc.vmstat0 > /tmp/nc.deltas
grep -E '^(pages_marked|hint_faults|pages_migrated|vmstat_numa_pages_migrated) ' /tmp/nc.deltas
nc_numacore_unload
migrated=$(nc_delta vmstat_numa_pages_migrated)
marked=$(nc_delta pages_marked)
[ "$migrated" -eq 0 ] || nc_fail "$migrated pages migrated despite the interleave policy"
[ "$marked" -lt "$pages" ] ||
	nc_fail "$marked PTEs marked in 20 s: the buffer ($pages pages) kept being scanned"
nc_pass "no page moved and the interleaved buffer was not rescanned ($marked PTEs marked)"
