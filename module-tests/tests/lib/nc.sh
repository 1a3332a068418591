# module-tests/tests/lib/nc.sh - shared helpers for the in-guest tests.
# Sourced (busybox sh) by /tests/<name>.sh as:
#     . "${0%/*}/lib/nc.sh"
# The guest runner copies module-tests/tests/lib/ to /tests/lib/.
#
# Exit protocol (kselftest): 0 pass, 4 skip, anything else fail.

NC_PASS=0
NC_FAIL=1
NC_SKIP=4

nc_log()  { echo "$*"; }
nc_skip() { echo "SKIP: $*"; exit $NC_SKIP; }
nc_fail() { echo "FAIL: $*"; exit $NC_FAIL; }
nc_pass() { echo "PASS: $*"; exit $NC_PASS; }

# nc_need_prog PROG...: fail unless every program is on PATH.
nc_need_prog() {
	for p in "$@"; do
		command -v "$p" >/dev/null 2>&1 || nc_fail "program $p not found in PATH"
	done
}

# Number of online NUMA nodes seen by the guest (highest id + 1).
nc_nodes_online() {
	awk -F'[-,]' '{ print $NF + 1 }' /sys/devices/system/node/online
}

# nc_need_nodes N: skip the test unless the guest has >= N nodes.
nc_need_nodes() {
	_n=$(nc_nodes_online)
	[ "${_n:-0}" -ge "$1" ] || nc_skip "needs >= $1 NUMA nodes, guest has ${_n:-0}"
}

# Count CPUs in a cpulist string like "0-1,4".
nc_cpulist_count() {
	echo "$1" | awk -F, '{ n = 0
		for (i = 1; i <= NF; i++) {
			if ($i == "") continue
			if (split($i, r, "-") == 2) n += r[2] - r[1] + 1; else n++
		}
		print n }'
}

# nc_vmstat KEY: value of KEY in /proc/vmstat (empty if absent).
nc_vmstat() {
	awk -v k="$1" '$1 == k { print $2; found = 1 } END { if (!found) exit 1 }' /proc/vmstat
}

# nc_vmstat_snap FILE: save /proc/vmstat.
nc_vmstat_snap() { cat /proc/vmstat > "$1"; }

# nc_vmstat_delta FILE KEY: current value minus the value saved in FILE.
nc_vmstat_delta() {
	_b=$(awk -v k="$2" '$1 == k { print $2 }' "$1")
	_a=$(nc_vmstat "$2")
	echo $(( ${_a:-0} - ${_b:-0} ))
}

# NUMA balancing sysctl helpers.
NC_BAL=/proc/sys/kernel/numa_balancing
nc_balancing_get() { cat "$NC_BAL" 2>/dev/null; }
nc_balancing_set() {
	[ -w "$NC_BAL" ] || { echo "kernel.numa_balancing not available"; return 1; }
	sysctl -w kernel.numa_balancing="$1" >/dev/null 2>&1 || echo "$1" > "$NC_BAL"
	[ "$(cat "$NC_BAL")" = "$1" ]
}

# nc_numacore_loaded: true if a numacore policy module is loaded, i.e. any
# module whose .ko in $NC_MODULES has "numacore" in its name, or the module
# "numacore" itself.
nc_numacore_loaded() {
	_mods="numacore"
	for ko in "${NC_MODULES:-/modules}"/*numacore*.ko; do
		[ -f "$ko" ] || continue
		_m=${ko##*/}
		_mods="$_mods ${_m%.ko}"
	done
	for m in $_mods; do
		m=$(echo "$m" | tr - _)
		grep -q "^$m " /proc/modules 2>/dev/null && return 0
		[ -d "/sys/module/$m" ] && [ -e "/sys/module/$m/initstate" ] && return 0
	done
	return 1
}

# nc_field LINE KEY: value of key=value in a workload output line.
nc_field() {
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# nc_mfc_check_results FILE MINPCT: print one line per "result" line of a
# numa_mfc output file and return 1 if any process ended below MINPCT
# (or if there are no result lines / fewer than the "config procs=").
nc_mfc_check_results() {
	awk -v min="$2" '
	/^config / { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "procs") procs = kv[2] } }
	/^result / {
		n++
		for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] }
		ok = (r["final_pct"] + 0 >= min)
		printf "proc %s: node=%s final_pct=%s t90_ms=%s t95_ms=%s pages=%s bytes_per_s=%s %s\n",
			r["proc"], r["node"], r["final_pct"], r["t90_ms"], r["t95_ms"], r["pages"],
			r["bytes_per_s"], ok ? "ok" : "BELOW " min "%"
		if (!ok) bad++
	}
	END {
		if (n == 0) { print "no result lines"; exit 1 }
		if (procs != "" && n != procs) { printf "only %d of %d processes reported\n", n, procs; exit 1 }
		exit bad ? 1 : 0
	}' "$1"
}
