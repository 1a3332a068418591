# module-tests/tests/lib/nc.sh - shared helpers for the in-guest tests.
# Sourced (busybox sh) by /tests/<name>.sh as:
#     . "${0%/*}/lib/nc.sh"
# The guest runner copies module-tests/tests/lib/ to /tests/lib/.
#
# Exit protocol (kselftest): 0 pass, 4 skip, anything else fail.  A skip is
# for a guest shape the test cannot use (too few nodes or CPUs): qemu/check.sh
# counts it as a failure unless boots.conf allows that test to skip.  A
# missing program, module or kernel feature the guest is built with is a
# failure (nc_fail), never a skip.
#
# Sourcing this file also:
#   - remembers the last kernel message, so that at exit every message the
#     kernel logged since then is checked against lib/splat.patterns (the
#     same file qemu/check.sh scans the console with): a new splat turns a
#     pass or a skip into a failure;
#   - installs the EXIT trap (and INT/TERM/HUP traps that exit through it)
#     that runs the cleanups registered with nc_atexit, newest first, even
#     when the test fails.  Tests must not install their own EXIT trap: use
#     nc_atexit (helpers such as nc_balancing_set, nc_thp_set,
#     nc_numacore_load and nc_bg register their own restores).

NC_PASS=0
NC_FAIL=1
NC_SKIP=4
NC_LIB_DIR=${NC_LIB_DIR:-${0%/*}/lib}
# How many times slower than normal the kernel runs (/init's nctimescale=,
# 3 on the debug kernel): tests wait that many times longer for an event.
NC_TIME_SCALE=${NC_TIME_SCALE:-1}
NC_SPLAT_PATTERNS=${NC_SPLAT_PATTERNS:-$NC_LIB_DIR/splat.patterns}

nc_log()  { echo "$*"; }
nc_skip() { echo "SKIP: $*"; exit $NC_SKIP; }
nc_fail() { echo "FAIL: $*"; exit $NC_FAIL; }
# nc_pass MSG: run the cleanups, fail if the kernel logged a splat during
# the test (cleanups included), else print PASS and exit 0.
nc_pass() {
	_nc_run_atexit
	nc_check_dmesg || nc_fail "the kernel logged a splat during the test"
	echo "PASS: $*"
	exit $NC_PASS
}

# ---------------------------------------------------------- cleanups ---
NC_ATEXIT=
# nc_atexit COMMAND...: run COMMAND (one line, eval'd, stdin /dev/null) when the test
# exits, however it exits; the last registered runs first.  A cleanup must
# not call nc_fail/nc_skip (it would end the cleanups early).
nc_atexit() {
	NC_ATEXIT="$*
$NC_ATEXIT"
}
_nc_run_atexit() {
	_nc_l=$NC_ATEXIT
	NC_ATEXIT=
	[ -n "$_nc_l" ] || return 0
	while IFS= read -r _nc_c; do
		[ -n "$_nc_c" ] && eval "$_nc_c" < /dev/null
	done <<NC_EOF
$_nc_l
NC_EOF
	return 0
}
_nc_on_exit() {
	_nc_rc=$?
	trap - EXIT
	_nc_run_atexit
	if ! nc_check_dmesg; then
		case $_nc_rc in
		0|4)
			echo "FAIL: the kernel logged a splat during the test (exit status was $_nc_rc)"
			_nc_rc=1 ;;
		esac
	fi
	rm -f "$NC_SPLAT_RE"
	exit $_nc_rc
}

# nc_bg PID...: kill these background processes (and wait for them) at exit.
nc_bg() {
	for _p in "$@"; do
		nc_atexit "kill $_p 2>/dev/null; wait $_p 2>/dev/null"
	done
}

# ----------------------------------------------------- kernel splats ---
# The patterns without comments and blank lines (an empty pattern would
# match every line).
NC_SPLAT_RE=/tmp/.nc-splat.re.$$
if [ ! -f "$NC_SPLAT_PATTERNS" ] ||
   ! grep -v -e '^#' -e '^[[:space:]]*$' "$NC_SPLAT_PATTERNS" > "$NC_SPLAT_RE" ||
   [ ! -s "$NC_SPLAT_RE" ]; then
	echo "FAIL: $NC_SPLAT_PATTERNS missing or empty: cannot check the kernel log"
	exit 1
fi

# nc_dmesg_mark: the printk timestamp of the last kernel message.
nc_dmesg_mark() {
	dmesg | awk '{ if (match($0, /^\[ *[0-9]+\.[0-9]+\]/)) { s = substr($0, 2, RLENGTH - 2); gsub(/ /, "", s); t = s } }
		END { print (t == "" ? "none" : t) }'
}
# nc_dmesg_since MARK: the kernel messages logged after MARK (lines without
# a timestamp belong to the message before them).
nc_dmesg_since() {
	dmesg | awk -v t0="$1" '{ if (match($0, /^\[ *[0-9]+\.[0-9]+\]/)) { s = substr($0, 2, RLENGTH - 2); gsub(/ /, "", s); t = s + 0; seen = 1 }
		if (seen && t > t0 + 0) print }'
}
NC_DMESG_MARK=$(nc_dmesg_mark)
if [ "$NC_DMESG_MARK" = none ]; then
	echo "FAIL: dmesg shows no printk timestamps (CONFIG_PRINTK_TIME): cannot tell this test's kernel messages"
	exit 1
fi
# nc_splats: this test's kernel messages that match a splat pattern.
nc_splats() { nc_dmesg_since "$NC_DMESG_MARK" | grep -E -f "$NC_SPLAT_RE"; }
# nc_check_dmesg: return 1 (and print them, once) if the kernel logged a
# splat since the test started.
NC_SPLATS_SHOWN=
nc_check_dmesg() {
	[ -n "$(nc_splats)" ] || return 0
	if [ -z "$NC_SPLATS_SHOWN" ]; then
		NC_SPLATS_SHOWN=1
		echo "kernel splat(s) since the test started (patterns: $NC_SPLAT_PATTERNS):"
		nc_dmesg_since "$NC_DMESG_MARK" | grep -E -A 25 -f "$NC_SPLAT_RE" | head -n 80
	fi
	return 1
}

# nc_fail_on_splat: fail now if the kernel logged a splat since the test
# started (the EXIT trap checks again after the cleanups).
nc_fail_on_splat() {
	nc_check_dmesg || nc_fail "the kernel logged a splat during the test"
}

trap _nc_on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# nc_now_ms: milliseconds since boot.
nc_now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
# nc_meminfo_kb KEY: a /proc/meminfo value in kB.
nc_meminfo_kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
# nc_debugfs_mount: mount debugfs unless it is mounted; fail if it cannot be.
nc_debugfs_mount() {
	grep -q ' /sys/kernel/debug debugfs ' /proc/mounts ||
		mount -t debugfs debugfs /sys/kernel/debug ||
		nc_fail "cannot mount debugfs"
}

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
# nc_balancing_set VALUE: set kernel.numa_balancing; the value it had before
# the first call is restored at exit.
NC_BAL_SAVED=
nc_balancing_set() {
	[ -w "$NC_BAL" ] || { echo "kernel.numa_balancing not available"; return 1; }
	if [ -z "$NC_BAL_SAVED" ]; then
		NC_BAL_SAVED=$(cat "$NC_BAL")
		nc_atexit 'echo "$NC_BAL_SAVED" > "$NC_BAL" || echo "warning: cannot restore kernel.numa_balancing=$NC_BAL_SAVED"'
	fi
	sysctl -w kernel.numa_balancing="$1" >/dev/null 2>&1 || echo "$1" > "$NC_BAL"
	[ "$(cat "$NC_BAL")" = "$1" ]
}

# nc_balancing_force VALUE: nc_balancing_set, failing the test if it cannot.
nc_balancing_force() {
	nc_balancing_set "$1" || nc_fail "cannot set kernel.numa_balancing=$1"
}

# nc_stock_setup: the preconditions of a test of the kernel's own balancer:
# numa_mfc, >= 2 nodes, no numacore module, kernel.numa_balancing=1.
nc_stock_setup() {
	nc_need_prog numa_mfc
	nc_need_nodes 2
	nc_numacore_loaded && nc_fail "a numacore module is loaded (left by an earlier test?); this test is about the stock balancer"
	[ -e "$NC_BAL" ] || nc_fail "$NC_BAL missing (kernel without CONFIG_NUMA_BALANCING?)"
	nc_balancing_force 1
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

# The END of an awk program over a workload's "result" lines that counted
# them in n, its "config procs=" in procs and the failed ones in bad: exit 1
# if none, fewer than procs, or any failed.
NC_AWK_RESULTS_END='
	END {
		if (n == 0) { print "no result lines"; exit 1 }
		if (procs != "" && n != procs) { printf "only %d of %d processes reported\n", n, procs; exit 1 }
		exit bad ? 1 : 0
	}'

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
	'"$NC_AWK_RESULTS_END" "$1"
}

# nc_thp_set MODE: set /sys/kernel/mm/transparent_hugepage/enabled to MODE
# (always|madvise|never); the mode it had before the first call is
# restored at exit.  Fails the test if the guest has no THP.
NC_THP=/sys/kernel/mm/transparent_hugepage/enabled
NC_THP_SAVED=
nc_thp_set() {
	[ -w "$NC_THP" ] || nc_fail "$NC_THP missing (guest kernel without CONFIG_TRANSPARENT_HUGEPAGE?)"
	if [ -z "$NC_THP_SAVED" ]; then
		NC_THP_SAVED=$(sed 's/.*\[\(.*\)\].*/\1/' "$NC_THP")
		nc_atexit 'echo "$NC_THP_SAVED" > "$NC_THP" || echo "warning: cannot restore THP $NC_THP_SAVED"'
	fi
	echo "$1" > "$NC_THP" || nc_fail "cannot set THP $1"
	grep -q "\[$1\]" "$NC_THP" || nc_fail "THP is '$(cat "$NC_THP")' after setting $1"
}

# nc_mfc_wait OUT N [PID] [SECS]: wait (up to SECS, default 60) until the
# numa_mfc writing OUT reported its N processes ("proc" lines, printed once
# a process finished its first touch); fail if PID exits first.
nc_mfc_wait() {
	_w=0
	while [ "$(grep -c '^proc ' "$1" 2>/dev/null)" -lt "$2" ]; do
		if [ -n "$3" ] && ! kill -0 "$3" 2>/dev/null; then
			cat "$1"
			nc_fail "numa_mfc exited before its $2 processes started"
		fi
		[ "$_w" -lt $((${4:-60} * 10)) ] || nc_fail "numa_mfc did not start $2 processes in ${4:-60} s"
		usleep 100000
		_w=$((_w + 1))
	done
}

# nc_mfc_procs OUT KEY: KEY of every "proc" line of numa_mfc output OUT
# (pid, node, mem_node, pages), one per line, in process order.
nc_mfc_procs() {
	awk -v k="$2" '/^proc / { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$1"
}

# nc_numa_maps PID: "<pages> <pages on node0>,<node1>,... <mapmax>" of the
# largest VMA of PID in /proc/PID/numa_maps (the workload's buffer), as
# the kernel reports it; mapmax is the highest mapcount of its pages
# (1 when numa_maps prints none).
nc_numa_maps() {
	awk '{ tot = 0; delete n; mm = 1
		for (i = 2; i <= NF; i++) {
			if ($i ~ /^N[0-9]+=/) { split(substr($i, 2), kv, "="); n[kv[1]] = kv[2]; tot += kv[2] }
			else if ($i ~ /^mapmax=/) mm = substr($i, 8) + 0
		}
		if (tot > best) { best = tot; s = ""
			for (j = 0; j < 64; j++) { if (j in n) last = j }
			for (j = 0; j <= last; j++) s = s (j ? "," : "") (n[j] + 0)
			bmm = mm }
	} END { printf "%d %s %d\n", best, s == "" ? "0" : s, bmm }' "/proc/$1/numa_maps" 2>/dev/null
}

# nc_node_pct PID NODE [MINPAGES]: share (integer %) of the pages of PID's
# largest VMA that numa_maps shows on NODE; 0 while the VMA has fewer than
# MINPAGES pages.
nc_node_pct() {
	nc_numa_maps "$1" | awk -v node="$2" -v min="${3:-1}" '{ split($2, c, ",")
		printf "%d\n", ($1 >= min && $1 > 0) ? 100 * c[node + 1] / $1 : 0 }'
}

# nc_mbind_with_control OUT CTL MB SECS MAXPCT: the "bound memory does not
# move" run with its positive control, at the same time:
#   - numa_mfc --mbind-remote (2 processes, MB MiB each, SECS s): memory kept
#     mbind(MPOL_BIND) to the node after the one its threads run on; output
#     in OUT;
#   - the control, one unbound numa_mfc process (16 MiB, memory first
#     touched remotely, threads on node 0, stops at 90% local); output in
#     CTL.
# Fails unless the control's memory moved (>= 90% local: balancing was
# active during this very run) and every bound process ended with at most
# MAXPCT% of its pages local, both in numa_mfc's own figures and in the
# kernel's numa_maps taken in the last second of the bound run.
nc_mbind_with_control() {
	_out=$1 _ctl=$2 _mb=$3 _secs=$4 _max=$5
	numa_mfc --procs 2 --start remote --mbind-remote --mb "$_mb" --seconds "$_secs" > "$_out" 2>&1 &
	_b=$!
	nc_bg $_b
	numa_mfc --procs 1 --node 0 --start remote --mb 16 --seconds "$_secs" --target 90 > "$_ctl" 2>&1 &
	_c=$!
	nc_bg $_c
	nc_mfc_wait "$_out" 2 $_b
	_i=0
	for _p in $(nc_mfc_procs "$_out" pid); do
		echo "$_i $_p $(nc_mfc_procs "$_out" node | sed -n "$((_i + 1))p")"
		_i=$((_i + 1))
	done > /tmp/nc.bound.procs
	# numa_maps of the bound processes, every second while they run
	while kill -0 $_b 2>/dev/null; do
		while read -r _i _p _n; do
			_m=$(nc_numa_maps "$_p")
			# none once the process exits (or with its mm torn down)
			case "$_m" in ""|"0 "*) ;; *) echo "$_m" > /tmp/nc.bound.maps.$_i ;; esac
		done < /tmp/nc.bound.procs
		sleep 1
	done
	wait $_b
	_rb=$?
	wait $_c
	_rc=$?
	echo "--- bound run (numa_mfc --mbind-remote):"
	grep -v '^sample' "$_out"
	echo "--- control run (unbound, same time):"
	grep -v '^sample' "$_ctl"
	[ "$_rb" = 0 ] || nc_fail "numa_mfc --mbind-remote exited $_rb"
	[ "$_rc" = 0 ] || nc_fail "control numa_mfc exited $_rc"
	nc_mfc_check_results "$_ctl" 90 ||
		nc_fail "positive control: unbound memory did not move in the same run (balancing not active?)"
	awk -v max="$_max" '
	/^config / { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "procs") procs = kv[2] } }
	/^result / {
		n++
		for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] }
		if (r["final_pct"] + 0 > max) { printf "FAIL: proc %s ended %s%% local (> %s%%): bound memory moved\n", r["proc"], r["final_pct"], max; bad++ }
		else printf "proc %s: final_pct=%s pages=%s (stayed on the bound node)\n", r["proc"], r["final_pct"], r["pages"]
		if (r["pages"] + 0 == 0) { printf "FAIL: proc %s has no present pages\n", r["proc"]; bad++ }
	}
	END { if (n == 0 || n != procs) { print "FAIL: missing result lines"; exit 1 } exit bad ? 1 : 0 }' "$_out" ||
		nc_fail "bound memory moved (numa_mfc's own figures)"
	while read -r _i _p _n; do
		[ -s /tmp/nc.bound.maps.$_i ] || nc_fail "no numa_maps of bound process $_i (pid $_p)"
		set -- $(cat /tmp/nc.bound.maps.$_i)
		_pct=$(echo "$2" | awk -F, -v n="$_n" -v tot="$1" '{ printf "%d\n", tot ? 100 * $(n + 1) / tot : 0 }')
		echo "numa_maps, last second of the bound run: proc $_i pid $_p: $1 pages, per node $2, ${_pct}% on its threads' node $_n"
		[ "$1" -gt 0 ] || nc_fail "numa_maps shows no pages for bound process $_i"
		[ "$_pct" -le "$_max" ] || nc_fail "numa_maps: bound process $_i has ${_pct}% of its pages local (> ${_max}%)"
	done < /tmp/nc.bound.procs
	rm -f /tmp/nc.bound.maps.* /tmp/nc.bound.procs
}

# Leak checks.  On a kernel with kmemleak (make check DEBUG=1) slab usage
# says nothing (KASAN's quarantine holds freed objects): kmemleak decides.
NC_KMEMLEAK=/sys/kernel/debug/kmemleak
nc_kmemleak() { [ -w "$NC_KMEMLEAK" ]; }
# nc_kmemleak_clear: forget what kmemleak found so far (the boot's own).
nc_kmemleak_clear() { nc_kmemleak && echo clear > "$NC_KMEMLEAK"; }
# nc_kmemleak_count ERE: scan twice, print how many unreferenced objects
# have a backtrace line matching ERE (their reports go to stderr).
nc_kmemleak_count() {
	echo scan > "$NC_KMEMLEAK"; sleep 5; echo scan > "$NC_KMEMLEAK"
	awk -v re="$1" '
		function end() { if (ours) { n++; printf "%s", blk > "/dev/stderr" } ours = 0; blk = "" }
		/^unreferenced object/ { end() }
		{ blk = blk $0 "\n"; if ($0 ~ re) ours = 1 }
		END { end(); print n + 0 }' "$NC_KMEMLEAK"
}
