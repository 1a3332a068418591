#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_unload_under_load: rmmod while the workload faults and migrates: the module goes, the
# workload keeps running and finishes, the pages it had stay where they
# are, and the module loads again.
#   - "while it migrates": rmmod once the module migrated >= 1024 of the
#     workload's 16384 pages, while memory is still converging (scans of
#     1 MiB every 100-200 ms: converging takes seconds); the test fails if
#     every process was already >= 95% local when rmmod began (nothing to
#     check).  rmmod takes up to 5 s on the debug kernel, so memory may
#     converge during it: then only the workload's health is checked after;
#   - "stay where they are": with the module gone and kernel.numa_balancing=0
#     nothing moves the pages any more: each process's share of local pages
#     in the kernel's numa_maps right after rmmod and in the last second of
#     the run differ by at most 2 points.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_nodes 2
nc_need_prog numa_mfc
nc_numacore_load policy=numacore scan_period_min_ms=100 scan_period_max_ms=200 scan_size_mb=1
numa_mfc --procs 2 --threads 2 --mb 32 --seconds 20 --start remote > /tmp/nc.mfc &
mfc=$!
nc_bg $mfc
nc_mfc_wait /tmp/nc.mfc 2 $mfc
nc_mfc_procs /tmp/nc.mfc pid > /tmp/nc.pids
nc_mfc_procs /tmp/nc.mfc node > /tmp/nc.nodes

# locality PID NODE: % of PID's buffer on NODE (numa_maps), "-" when it
# cannot be read or the buffer is not resident (process exiting)
locality() {
	_m=$(nc_numa_maps "$1")
	if [ -z "$_m" ] || [ "${_m%% *}" -lt 4096 ]; then
		echo -
		return
	fi
	echo "$_m" | awk -v node="$2" '{ split($2, c, ","); printf "%d\n", 100 * c[node + 1] / $1 }'
}
snap() {	# snap FILE: "pid node pct" per process
	paste /tmp/nc.pids /tmp/nc.nodes | while read -r p n; do
		echo "$p $n $(locality "$p" "$n")"
	done > "$1"
}

t=0
until [ "$(nc_stat pages_migrated)" -ge 1024 ]; do
	[ $t -lt $((150 * NC_TIME_SCALE)) ] ||
		nc_fail "the module migrated only $(nc_stat pages_migrated) pages in $((15 * NC_TIME_SCALE)) s"
	kill -0 $mfc 2>/dev/null || nc_fail "numa_mfc ended before the module migrated 1024 pages"
	usleep 100000
	t=$((t + 1))
done
m=$(nc_stat pages_migrated)
snap /tmp/nc.loc.rmmod
t0=$(date +%s)
rmmod numacore || nc_fail "rmmod under load failed"
snap /tmp/nc.loc0
v0=$(nc_vmstat numa_pages_migrated)
echo "rmmod after the module migrated $m pages; rmmod took $(($(date +%s) - t0)) s"
echo "locality when rmmod began (pid node %):"; cat /tmp/nc.loc.rmmod
echo "locality right after rmmod (pid node %):"; cat /tmp/nc.loc0
[ -d /sys/module/numacore ] && nc_fail "module still present"
awk '$3 != "-" && $3 < 95 { n++ } END { exit !n }' /tmp/nc.loc.rmmod ||
	nc_fail "every process was already >= 95% local at rmmod: unload did not happen mid-migration"
kill -0 $mfc 2>/dev/null || nc_fail "workload died at unload"
while kill -0 $mfc 2>/dev/null; do
	snap /tmp/nc.loc.tmp
	grep -q ' -$' /tmp/nc.loc.tmp || mv /tmp/nc.loc.tmp /tmp/nc.loc1
	sleep 1
done
wait $mfc || nc_fail "workload exited non-zero after unload"
v1=$(nc_vmstat numa_pages_migrated)
grep -v '^sample' /tmp/nc.mfc
nc_mfc_check_results /tmp/nc.mfc 0 || nc_fail "workload did not finish its report"
[ -s /tmp/nc.loc1 ] || nc_fail "no numa_maps reading after rmmod"
echo "locality in the last second of the run (pid node %):"; cat /tmp/nc.loc1
echo "numa_pages_migrated after rmmod: $((v1 - v0))"
paste /tmp/nc.loc0 /tmp/nc.loc1 | awk '{
	if ($3 == "-" || $6 == "-") { printf "pid %s: no numa_maps after rmmod\n", $1; bad++; next }
	d = $6 - $3; if (d < 0) d = -d
	if (d > 2) { printf "pid %s: %s%% local at rmmod, %s%% at the end: pages moved after unload\n", $1, $3, $6; bad++ }
} END { exit bad ? 1 : 0 }' || nc_fail "locality changed after the module was unloaded"
insmod "$NC_KO" || nc_fail "reload failed"
nc_numacore_unload
nc_pass "unloaded under load after $m migrations, locality unchanged after, workload unharmed, reloaded"
