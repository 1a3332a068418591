# module-tests/tests/lib/numacore.sh - helpers for the numacore.ko tests.
# Sourced after lib/nc.sh:  . "${0%/*}/lib/nc.sh"; . "${0%/*}/lib/numacore.sh"

NC_KO="${NC_MODULES:-/modules}/numacore.ko"
NC_PARAMS=/sys/module/numacore/parameters
NC_DEBUGFS=/sys/kernel/debug/numacore

# nc_numacore_load [param=value...]: load the policy with the kernel's own
# balancing off.  A missing numacore.ko or a failed insmod fails the test
# (never a skip: a build that lost the module must not pass).  At exit the
# module is removed if still loaded and kernel.numa_balancing restored.
NC_NUMACORE_ATEXIT=
nc_numacore_load() {
	[ -f "$NC_KO" ] || nc_fail "$NC_KO not found (module not built? make module)"
	nc_balancing_set 0 || nc_fail "cannot set kernel.numa_balancing=0"
	if [ -z "$NC_NUMACORE_ATEXIT" ]; then
		NC_NUMACORE_ATEXIT=1
		nc_atexit 'grep -q "^numacore " /proc/modules && { rmmod numacore || echo "warning: cleanup: rmmod numacore failed"; }'
	fi
	if grep -q '^numacore ' /proc/modules; then
		echo "numacore was already loaded (left by an earlier test?): removing it"
		rmmod numacore || nc_fail "cannot remove a numacore left loaded"
	fi
	insmod "$NC_KO" "$@" || nc_fail "insmod numacore.ko $* failed"
	for _a in "$@"; do
		_v=$(cat "$NC_PARAMS/${_a%%=*}" 2>/dev/null)
		_e=${_a#*=}
		case "$_v" in Y|N)	# bool parameters read back as Y/N
			case "$_e" in 1|y|Y|on) _e=Y ;; 0|n|N|off) _e=N ;; esac ;;
		esac
		[ "$_v" = "$_e" ] || nc_fail "parameter ${_a%%=*} reads back '$_v' after insmod ... $_a"
	done
}

nc_numacore_unload() {
	rmmod numacore || nc_fail "rmmod numacore failed"
}

# nc_stat NAME: a counter from the module's debugfs stats file.
nc_stat() {
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) exit 1 }' "$NC_DEBUGFS/stats"
}

nc_stats_snap() { cat "$NC_DEBUGFS/stats" > "$1"; }

# nc_stat_delta FILE NAME: counter now minus the value saved in FILE.
nc_stat_delta() {
	_b=$(awk -v k="$2" '$1 == k { print $2 }' "$1")
	_a=$(nc_stat "$2")
	echo $(( ${_a:-0} - ${_b:-0} ))
}

# nc_deltas STATS0 VMSTAT0: "name delta" lines for every module counter
# and the kernel's numa_* vmstat counters since the two snapshots.
nc_deltas() {
	for k in $(awk '{ print $1 }' "$1"); do
		echo "$k $(nc_stat_delta "$1" "$k")"
	done
	for k in $(awk '/^numa_/ { print $1 }' "$2"); do
		echo "vmstat_$k $(nc_vmstat_delta "$2" "$k")"
	done
}

# nc_delta NAME: a delta saved by the last nc_mfc_converges.
nc_delta() {
	awk -v k="$1" '$1 == k { print $2 }' /tmp/nc.deltas
}

# nc_mfc_converges POLICY MINPCT [numa_mfc options...]: load the module
# with POLICY, run numa_mfc with memory starting on the remote node, and
# fail unless every process ends with >= MINPCT% of its pages local.
nc_mfc_converges() {
	_pol=$1 _min=$2
	shift 2
	nc_need_nodes 2
	nc_need_prog numa_mfc
	nc_numacore_load policy="$_pol"
	nc_stats_snap /tmp/nc.stats0
	nc_vmstat_snap /tmp/nc.vmstat0
	numa_mfc --procs 2 --threads 2 --mb 64 --seconds 60 --start remote \
		--target "$_min" "$@" > /tmp/nc.mfc || nc_fail "numa_mfc failed"
	grep -v '^sample' /tmp/nc.mfc
	nc_deltas /tmp/nc.stats0 /tmp/nc.vmstat0 > /tmp/nc.deltas
	cat /tmp/nc.deltas
	nc_numacore_unload
	nc_mfc_check_results /tmp/nc.mfc "$_min" || nc_fail "locality below $_min%"
}

# nc_class_of_workload PIDFILE: print "<private> <shared> <unknown>" counts
# of the classes the module reports for the threads of the processes whose
# pids are listed in PIDFILE, counting only the threads that write the
# buffer (>= 100 pages of hinting faults; the main and sampler threads
# fault on a few pages of their own).
nc_class_of_workload() {
	for pid in $(cat "$1"); do
		ls /proc/"$pid"/task 2>/dev/null
	done > /tmp/nc.tids
	awk 'NR == FNR { tid[$1] = 1; next }
	{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] }
		if (!(r["pid"] in tid) || r["private"] + r["shared"] < 100) next
		c[r["class"]]++
		print "  " $0 > "/dev/stderr"
	}
	END { printf "%d %d %d\n", c["private"], c["shared"], c["unknown"] }' \
		/tmp/nc.tids "$NC_DEBUGFS/tasks"
}

# nc_classify EXPECT [numa_mfc options...]: run numa_mfc under numacore
# and fail unless its writer threads are classified EXPECT (private|shared).
nc_classify() {
	_want=$1
	shift
	nc_need_nodes 2
	nc_need_prog numa_mfc
	# Classification is revised once per scan sequence: keep sequences
	# coming (the default back-off to 60 s would freeze an early verdict).
	nc_numacore_load policy=numacore scan_period_max_ms=2000
	numa_mfc --procs 2 --threads 2 --mb 32 --seconds 40 --start remote "$@" > /tmp/nc.mfc &
	_mfc=$!
	nc_bg $_mfc
	nc_mfc_wait /tmp/nc.mfc 2 $_mfc
	nc_mfc_procs /tmp/nc.mfc pid > /tmp/nc.pids
	_got=""
	for _t in 5 10 15 20 25 30; do
		sleep 5
		kill -0 $_mfc 2>/dev/null || nc_fail "numa_mfc exited early"
		set -- $(nc_class_of_workload /tmp/nc.pids 2>/tmp/nc.classes)
		echo "t=${_t}s private=$1 shared=$2 unknown=$3"
		if [ "$_want" = private ] && [ "$1" -ge 4 ] && [ "$2" -eq 0 ]; then _got=1; break; fi
		if [ "$_want" = shared ] && [ "$2" -ge 4 ] && [ "$1" -eq 0 ]; then _got=1; break; fi
	done
	cat /tmp/nc.classes
	kill "$_mfc" 2>/dev/null
	wait "$_mfc"
	nc_numacore_unload
	[ -n "$_got" ] || nc_fail "writer threads not all classified $_want"
}

# nc_mfc_thp always|never: memory follows CPU under numacore with THP set
# to MODE system-wide: huge PMD hinting faults must occur with "always"
# and must not with "never".  The THP mode is restored at exit.
nc_mfc_thp() {
	nc_thp_set "$1"
	nc_mfc_converges numacore 95
	_huge=$(nc_delta hint_faults_huge)
	echo "THP $1: hint_faults_huge delta $_huge"
	case $1 in
	always) [ "${_huge:-0}" -gt 0 ] || nc_fail "no huge PMD hinting faults" ;;
	never) [ "${_huge:-0}" -eq 0 ] || nc_fail "huge PMD hinting faults with THP never" ;;
	esac
}

# nc_wait_local FILE PID NPROCS SECS: wait until the latest "sample" line
# of each of NPROCS processes in FILE (proc=<i> local_pct=<x>, written by
# numa_mfc or numa_bench PID) is >= 95% local; fail after SECS seconds or
# if PID exits first.
nc_wait_local() {
	_t=0
	until awk -v n="$3" '/^sample / {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] }
		pct[r["proc"]] = r["local_pct"] + 0
	}
	END { k = 0; for (p in pct) { if (pct[p] < 95) exit 1; k++ } exit k == n ? 0 : 1 }' "$1"; do
		[ $_t -lt "$4" ] || nc_fail "not >= 95% local after $4 s"
		kill -0 "$2" 2>/dev/null || nc_fail "pid $2 exited before converging"
		sleep 1
		_t=$((_t + 1))
	done
	echo "converged after ${_t} s"
}

# nc_scan_window SECS: the scanner's work over the next SECS seconds: sets
# marked, scans and deferred (deltas of pages_marked, scans and
# scans_deferred).
nc_scan_window() {
	nc_stats_snap /tmp/nc.stats.window
	sleep "$1"
	marked=$(nc_stat_delta /tmp/nc.stats.window pages_marked)
	scans=$(nc_stat_delta /tmp/nc.stats.window scans)
	deferred=$(nc_stat_delta /tmp/nc.stats.window scans_deferred)
}
