#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_exec_starts_afresh: policy=numacore forgets a task's fault history when it calls exec():
# the new program's memory says nothing of the old one's.  A shell that
# ran long enough to get policy state execs another busy shell; the
# exec_resets counter must rise once the new program runs.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_numacore_load policy=numacore
nc_stats_snap /tmp/nc.stats0
# Spin for $1 seconds of uptime, then run the rest of the arguments.
busy='read u _ < /proc/uptime; end=$((${u%.*} + $1)); shift
while read u _ < /proc/uptime && [ "${u%.*}" -lt "$end" ]; do :; done
[ $# -gt 0 ] && exec "$@"'
sh -c "$busy" sh 3 sh -c "$busy" sh 3 &
pid=$!
nc_bg "$pid"
sleep 2
grep "^pid=$pid " "$NC_DEBUGFS/tasks" ||
	nc_fail "the spinning shell $pid has no policy state after 2 s"
wait "$pid"
resets=$(nc_stat_delta /tmp/nc.stats0 exec_resets)
echo "exec_resets $resets"
nc_numacore_unload
[ "$resets" -ge 1 ] || nc_fail "exec() did not reset the task's policy state"
nc_pass "the task's policy state started afresh after exec()"
