#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_respects_affinity: policy=numacore never moves a task out of its CPU mask: threads pinned
# to their home node, memory on the other node.  The threads never run
# outside their node, the policy counts the moves the mask refused, and
# the memory follows the threads instead (>= 95% local).
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
. "${0%/*}/lib/placement.sh"
nc_need_nodes 2
nc_need_prog numa_mfc
nc_numacore_load policy=numacore
nc_stats_snap /tmp/nc.stats0
numa_mfc --procs 2 --threads 2 --mb 32 --seconds 20 --start remote > /tmp/nc.mfc &
mfc=$!
nc_bg $mfc
# Every second: each writer's CPU must be on its process's home node.
outside=0 samples=0
while kill -0 $mfc 2>/dev/null; do
	for line in $(awk '/^proc / { for (i = 2; i <= NF; i++) { split($i, kv, "=");
		if (kv[1] == "pid") p = kv[2]; if (kv[1] == "node") n = kv[2] } print p ":" n }' /tmp/nc.mfc); do
		pid=${line%:*} home=${line#*:}
		for st in /proc/"$pid"/task/*/stat; do
			cpu=$(awk '{ print $39 }' "$st" 2>/dev/null) || continue
			[ -n "$cpu" ] || continue
			samples=$((samples + 1))
			node=$(nc_cpu_node "$cpu")
			if [ "$node" != "$home" ]; then
				echo "thread ${st%/stat} of $pid (home $home) on CPU $cpu, node $node"
				outside=$((outside + 1))
			fi
		done
	done
	sleep 1
done
wait $mfc || nc_fail "numa_mfc failed"
grep -v '^sample' /tmp/nc.mfc
refused=$(nc_stat_delta /tmp/nc.stats0 place_affinity)
echo "thread samples $samples, outside the mask $outside, place_affinity $refused"
nc_numacore_unload
[ "$samples" -gt 0 ] || nc_fail "no thread sampled"
[ "$outside" -eq 0 ] || nc_fail "$outside samples outside the CPU mask"
[ "$refused" -gt 0 ] || nc_fail "the policy never wanted to move a pinned task (place_affinity 0)"
nc_mfc_check_results /tmp/nc.mfc 95 || nc_fail "memory did not follow the pinned threads"
nc_pass "pinned tasks stayed in their masks, their memory followed them"
