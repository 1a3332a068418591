#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_reload_stress: numacore.ko survives NC_RELOAD_CYCLES (default 1000) insmod/rmmod cycles
# under load: policy=numacore and policy=moron alternate, with valid
# parameters varied from cycle to cycle, while three workloads run back to
# back:
#  - faultfork: page faults, migrations between nodes, fork/exit storm of
#    short-lived children; every page it writes is checked (corrupt=0);
#  - numa_bench numa01: threads sharing a buffer, placement and migration;
#  - short numa_mfc runs: set_mempolicy, mbind and sched_setaffinity churn.
# Every insmod and rmmod succeeds, every workload run exits 0, no kernel
# splat, nothing stays loaded, and no leak: SUnreclaim (slab) ends within
# NC_RELOAD_SLAB_KB (default 4096) of its value before the cycles, or on
# a kernel with kmemleak, kmemleak reports no object allocated on the
# policy's paths; and afterwards the kernel's own balancing still moves a
# remote process's memory to it (kernel.numa_balancing=1, >= 90% local).
#
# nc-timeout: 1500
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_nodes 2
nc_need_prog faultfork
nc_need_prog numa_bench
nc_need_prog numa_mfc
[ -f "$NC_KO" ] || nc_fail "$NC_KO not found (module not built? make module)"
CYCLES=${NC_RELOAD_CYCLES:-1000}
SLAB_KB=${NC_RELOAD_SLAB_KB:-4096}
STOCK_PCT=90
DIR=/tmp/nc.reload
rm -rf "$DIR"; mkdir -p "$DIR"
nc_balancing_force 0
nc_atexit 'grep -q "^numacore " /proc/modules && rmmod numacore'

slab_kb() { nc_meminfo_kb SUnreclaim; }
settle_slab() { sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1; slab_kb; }

# loop NAME COMMAND...: run COMMAND back to back until $DIR/stop exists;
# each exit code goes to $DIR/NAME.rc, its output to $DIR/NAME.log.
loop() {
	_n=$1; shift
	( while [ ! -e "$DIR/stop" ]; do
		"$@" >> "$DIR/$_n.log" 2>&1
		echo $? >> "$DIR/$_n.rc"
	done ) &
	nc_bg $!
}

# warm-up: caches that the first load and run populate stay allocated
insmod "$NC_KO" || nc_fail "warm-up insmod failed"
faultfork --threads 2 --seconds 2 --mb 4 > /dev/null 2>&1
rmmod numacore || nc_fail "warm-up rmmod failed"
slab0=$(settle_slab)
nc_kmemleak_clear

loop faultfork faultfork --threads 2 --seconds 10 --mb 8 --fork-ms 20
loop numa01 numa_bench --bench numa01 --procs 2 --threads 2 --mb 16 --seconds 10
loop churn numa_mfc --procs 2 --threads 1 --mb 4 --seconds 1 --start remote --mbind-remote
sleep 2

periods="100 250 500"
sizes="16 64 256"
i=0
t0=$(nc_now_ms)
while [ $i -lt "$CYCLES" ]; do
	set -- $periods; shift $((i % 3)); period=$1
	set -- $sizes; shift $((i / 3 % 3)); size=$1
	if [ $((i % 2)) -eq 0 ]; then
		args="policy=numacore scan_period_min_ms=$period scan_size_mb=$size task_follows=$((i / 2 % 2))"
	else
		args="policy=moron scan_period_min_ms=$period scan_size_mb=$size"
	fi
	insmod "$NC_KO" $args || nc_fail "insmod #$((i + 1)) ($args) failed"
	[ $((i % 4)) -eq 0 ] && usleep 50000
	rmmod numacore || nc_fail "rmmod #$((i + 1)) failed"
	i=$((i + 1))
	[ $((i % 100)) -eq 0 ] && echo "cycle $i at $(( $(nc_now_ms) - t0 )) ms"
done
t1=$(nc_now_ms)
touch "$DIR/stop"
wait
echo "cycles=$i wall_ms=$((t1 - t0))"
grep -q '^numacore ' /proc/modules && nc_fail "numacore still loaded"
fails=0
for n in faultfork numa01 churn; do
	runs=$(wc -l < "$DIR/$n.rc")
	bad=$(grep -vc '^0$' "$DIR/$n.rc")
	echo "$n: $runs runs, $bad failed"
	[ "$runs" -ge 1 ] || { echo "$n never completed a run"; fails=$((fails + 1)); }
	[ "$bad" -eq 0 ] || { tail -5 "$DIR/$n.log"; fails=$((fails + 1)); }
done
grep '^faultfork ' "$DIR/faultfork.log" | tail -2
corrupt=$(sed -n 's/^faultfork .*corrupt=\([0-9]*\).*/\1/p' "$DIR/faultfork.log" |
	awk '{ s += $1 } END { print s + 0 }')
echo "pages found corrupt by faultfork: $corrupt"
[ "$corrupt" -eq 0 ] || fails=$((fails + 1))
slab1=$(settle_slab)
echo "SUnreclaim: ${slab0} kB before, ${slab1} kB after"
if nc_kmemleak; then
	leaks=$(nc_kmemleak_count 'numacore|numa_policy')
	echo "kmemleak: $leaks unreferenced objects from numacore or numa_policy"
	[ "$leaks" -eq 0 ] || fails=$((fails + 1))
elif [ $((slab1 - slab0)) -gt "$SLAB_KB" ]; then
	echo "SUnreclaim grew by $((slab1 - slab0)) kB (limit $SLAB_KB)"
	fails=$((fails + 1))
fi
# The kernel's own balancing still works: with kernel.numa_balancing=1 a
# process whose memory starts remote gets it local (>= STOCK_PCT%).
nc_balancing_force 1
numa_mfc --procs 1 --threads 2 --mb 16 --seconds 30 --start remote \
	--target 95 > "$DIR/stock.log" 2>&1
nc_balancing_force 0
nc_mfc_check_results "$DIR/stock.log" $STOCK_PCT ||
	{ echo "stock balancing after the reloads did not reach ${STOCK_PCT}%"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] || nc_fail "$fails problem(s)"
nc_pass "$CYCLES reloads under load in $((t1 - t0)) ms, every workload run intact"
