#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hooks_can_migrate_fires: the load balancer asks the registered policy
# (can_migrate) before pulling a task to another CPU.  2*ncpu busy loops are
# started on CPU 0 only and then allowed on every CPU, so the balancer must
# pull queued (not running) tasks off CPU 0: can_migrate must be called
# for them.  While they are pinned the balancer rejects them before asking
# the policy, so the count is taken from the moment they are unpinned.
# Where the loops ended up is checked too: the policy stays neutral, so
# the balancer must have spread them over every CPU (none left idle, no CPU
# with more than twice its share), i.e. the asked tasks were really moved.
#

. "${0%/*}/lib/hooks.sh"

ht_setup
nc_need_prog taskset
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || nc_skip "needs >= 2 CPUs"
allmask=$(printf '%x' $(( (1 << ncpu) - 1 )))
nloops=$((2 * ncpu))
RUN_S=${HOOKS_LB_SECONDS:-10}

insmod "$KO" || nc_fail "insmod numa_hooktest.ko failed"

i=0
while [ $i -lt $nloops ]; do
	taskset 1 sh -c 'while :; do :; done' &
	BG_PIDS="$BG_PIDS $!"
	i=$((i + 1))
done
sleep 1
# all on CPU 0 while pinned (field 39 of /proc/<pid>/stat: last CPU)
for p in $BG_PIDS; do
	c=$(awk '{ print $39 }' /proc/$p/stat)
	[ "$c" = 0 ] || nc_fail "loop $p pinned to CPU 0 ran on CPU $c"
done
c0=$(ht_count can_migrate)
for p in $BG_PIDS; do
	taskset -p "$allmask" "$p" >/dev/null || nc_fail "taskset -p $allmask $p"
done
sleep "$RUN_S"
c1=$(ht_count can_migrate)

# where the loops ended up
for p in $BG_PIDS; do
	awk '{ print $39 }' /proc/$p/stat 2>/dev/null
done | sort | uniq -c > /tmp/hooks_lb.dist.$$
dist=$(awk '{ printf "cpu%s:%s ", $2, $1 }' /tmp/hooks_lb.dist.$$)
ncpus_used=$(wc -l < /tmp/hooks_lb.dist.$$)
maxper=$(awk 'BEGIN { m = 0 } $1 > m { m = $1 } END { print m }' /tmp/hooks_lb.dist.$$)
nseen=$(awk '{ n += $1 } END { print n + 0 }' /tmp/hooks_lb.dist.$$)
rm -f /tmp/hooks_lb.dist.$$
nc_log "$nloops busy loops on $ncpu CPUs after ${RUN_S}s: $dist"
nc_log "can_migrate calls: pinned=$c0 total=$c1 after-unpin=$((c1 - c0))"
sed 's/^/  /' "$DBG/counts"
cerr=$(ht_count context_errors)

for p in $BG_PIDS; do kill "$p"; done
for p in $BG_PIDS; do wait "$p" 2>/dev/null; done
BG_PIDS=
rmmod numa_hooktest || nc_fail "rmmod numa_hooktest failed"
nc_fail_on_splat
[ $((c1 - c0)) -gt 0 ] || nc_fail "can_migrate never called while the balancer spread $nloops loops"
[ "${cerr:-0}" -eq 0 ] || nc_fail "context_errors=$cerr: a callback ran in a context the contract excludes"
[ "$nseen" -eq "$nloops" ] || nc_fail "only $nseen of $nloops loops were still running"
[ "$ncpus_used" -eq "$ncpu" ] ||
	nc_fail "the loops ended on $ncpus_used of $ncpu CPUs ($dist): the balancer did not spread them"
[ "$maxper" -le $((2 * nloops / ncpu)) ] ||
	nc_fail "a CPU kept $maxper of $nloops loops ($dist): the balancer did not spread them"
nc_log "PASS"
exit 0
