# module-tests/tests/lib/placement.sh - helpers for the task placement tests.
# Sourced after lib/nc.sh and lib/numacore.sh.

# nc_bench_check FILE MINPCT: print each numa_bench "result" line's
# locality and the nodes its threads ran on at the last sample; return 1
# if a process ended below MINPCT, ran split over several nodes at the
# end, or did not report.
nc_bench_check() {
	awk -v min="$2" '
	function kv(line, key,   i, a, n, f) {
		n = split(line, f, " ")
		for (i = 2; i <= n; i++) { split(f[i], a, "="); if (a[1] == key) return a[2] }
		return ""
	}
	/^config / { procs = kv($0, "procs") }
	/^sample / { tn[kv($0, "proc")] = kv($0, "thread_nodes") }
	/^result / {
		n++
		p = kv($0, "proc"); pct = kv($0, "final_pct")
		split(tn[p], nodes, ",")
		split_nodes = 0
		for (i in nodes) if (nodes[i] != nodes[1]) split_nodes = 1
		ok = pct + 0 >= min && !split_nodes
		printf "proc %s: final_pct=%s t90_ms=%s node_changes=%s thread_nodes=%s %s\n",
			p, pct, kv($0, "t90_ms"), kv($0, "node_changes"), tn[p],
			ok ? "ok" : (split_nodes ? "SPLIT" : "BELOW " min "%")
		if (!ok) bad++
	}
	'"$NC_AWK_RESULTS_END" "$1"
}

# nc_cpu_node CPU: the node of a CPU.
nc_cpu_node() {
	for _d in /sys/devices/system/cpu/cpu"$1"/node*; do
		[ -d "$_d" ] && { echo "${_d##*node}"; return; }
	done
	echo 0
}

# nc_cpu_nodes: "cpu:node ..." for every online CPU, for nc_tid_nodes.
nc_cpu_nodes() {
	for _c in /sys/devices/system/cpu/cpu[0-9]*; do
		[ -d "$_c" ] && echo "${_c##*cpu}:$(nc_cpu_node "${_c##*cpu}")"
	done | tr '\n' ' '
}

# nc_tid_nodes COMM MAP: "tid node" of every thread of the processes named
# COMM, MAP from nc_cpu_nodes.  One process reads every stat file, so that
# sampling each second adds no burst of short tasks for the load balancer
# to spread (a fork per thread did, and moved the workload's threads).
nc_tid_nodes() {
	awk -v c="($1)" -v map="$2" '
		BEGIN { n = split(map, m, " "); for (i = 1; i <= n; i++) { split(m[i], f, ":"); node[f[1]] = f[2] } }
		$2 == c { print $1, node[$39] }' /proc/[0-9]*/task/[0-9]*/stat 2>/dev/null
}

# nc_sys_ticks: "system total" jiffies from the cpu line of /proc/stat.
nc_sys_ticks() {
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print $4, t }' /proc/stat
}

# nc_sys_pct "S0 T0" "S1 T1": system time % between two nc_sys_ticks.
nc_sys_pct() {
	echo "$1 $2" | awk '{ d = $4 - $2; printf "%d\n", (d > 0 ? 100 * ($3 - $1) / d : 0) }'
}

# nc_tasks_later SEC FILE COMM: in the background, after SEC seconds, save
# the policy's per-task lines of the tasks named COMM into FILE (what the
# policy believed near the end of a run, shown when a test fails).
nc_tasks_later() {
	( sleep "$1"; grep "comm=$3 " /sys/kernel/debug/numacore/tasks > "$2" ) &
}

# nc_numa01_gathers PROCS [numa_bench options...]: run numa01 (PROCS
# processes x 2 threads on a 32 MiB buffer each, 40 s) under
# policy=numacore and fail unless every process ends on one node with
# >= 95% of its buffer there.
nc_numa01_gathers() {
	_procs=$1
	shift
	nc_need_prog numa_bench
	nc_numacore_load policy=numacore
	nc_stats_snap /tmp/nc.stats0
	nc_vmstat_snap /tmp/nc.vmstat0
	nc_tasks_later 35 /tmp/nc.tasks numa_bench
	numa_bench --bench numa01 --procs "$_procs" --threads 2 --mb 32 \
		--seconds 40 "$@" > /tmp/nc.bench || nc_fail "numa_bench failed"
	grep -E '^(config|result|summary)' /tmp/nc.bench
	nc_deltas /tmp/nc.stats0 /tmp/nc.vmstat0 > /tmp/nc.deltas
	grep -E '^(pages_migrated|place_|task_|moves_undone|lb_)' /tmp/nc.deltas
	wait
	nc_numacore_unload
	nc_bench_check /tmp/nc.bench 95 || {
		sed 's/^/tasks at 35 s: /' /tmp/nc.tasks
		nc_fail "a process is split or below 95% local"
	}
}
