#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_shared_mapping_migrates: a MAP_SHARED buffer mapped and written by two processes on one node
# migrates there (pages mapped by several processes are migratable, seed
# 008).  numa_mfc --map-shared --shared: one 64 MiB MAP_SHARED buffer, both
# processes (threads on node 0) write all of it, memory first placed on
# node 1.  Proof that the pages are shared: each process's numa_maps shows
# (nearly) every page of the buffer mapped in it, with mapmax >= 2.
# Locality: numa_mfc's figures (>= 95%) cross-checked with the kernel's
# numa_maps in the last second of the run (>= 90% on node 0).
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_nodes 2
nc_need_prog numa_mfc
nc_numacore_load policy=numacore
nc_stats_snap /tmp/nc.stats0
nc_vmstat_snap /tmp/nc.vmstat0
numa_mfc --procs 2 --threads 2 --mb 32 --seconds 30 --start remote \
	--map-shared --shared > /tmp/nc.mfc &
mfc=$!
nc_bg $mfc
nc_mfc_wait /tmp/nc.mfc 2 $mfc
pages=$(nc_mfc_procs /tmp/nc.mfc pages | head -n 1)
nc_mfc_procs /tmp/nc.mfc pid > /tmp/nc.pids
rm -f /tmp/nc.maps.*
while kill -0 $mfc 2>/dev/null; do
	for p in $(cat /tmp/nc.pids); do
		m=$(nc_numa_maps "$p")
		# none once the process exits (or with its mm being torn down)
		case "$m" in ""|"0 "*) continue ;; esac
		echo "$m" > /tmp/nc.maps.$p
		# the highest mapmax seen with the whole buffer present
		set -- $m
		[ "$1" -ge $((pages * 99 / 100)) ] && [ "$3" -gt "$(cat /tmp/nc.mapmax.$p 2>/dev/null || echo 0)" ] &&
			echo "$3" > /tmp/nc.mapmax.$p
	done
	sleep 1
done
wait $mfc || nc_fail "numa_mfc failed"
grep -v '^sample' /tmp/nc.mfc
nc_deltas /tmp/nc.stats0 /tmp/nc.vmstat0 > /tmp/nc.deltas
cat /tmp/nc.deltas
nc_numacore_unload
nc_mfc_check_results /tmp/nc.mfc 95
loc=$?
for p in $(cat /tmp/nc.pids); do
	[ -s /tmp/nc.maps.$p ] || nc_fail "no numa_maps reading of pid $p"
	set -- $(cat /tmp/nc.maps.$p)
	mm=$(cat /tmp/nc.mapmax.$p 2>/dev/null || echo 0)
	on0=$(echo "$2" | cut -d, -f1)
	echo "pid $p numa_maps (last second): $1 of $pages pages mapped, per node $2; highest mapmax with the buffer present: $mm"
	[ "$mm" -ge 2 ] || nc_fail "pid $p: buffer pages not mapped by several processes (mapmax $mm)"
	[ "$1" -ge $((pages * 99 / 100)) ] || nc_fail "pid $p maps only $1 of the $pages shared pages"
	[ "$loc" = 0 ] || continue
	[ $((100 * on0)) -ge $((90 * $1)) ] || nc_fail "numa_maps: pid $p has only $on0 of $1 pages on node 0"
done
[ "$loc" = 0 ] || nc_fail "locality below 95% (migrate_failed $(nc_delta migrate_failed))"
[ "$(nc_delta pages_migrated)" -gt 0 ] || nc_fail "no pages migrated"
nc_pass "shared mapping (each page mapped by both processes) migrated to its users' node"
