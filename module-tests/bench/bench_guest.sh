#!/bin/sh
# bench_guest: in-guest half of `make bench` (installed as /tests/bench_guest.sh
# by module-tests/bench/bench.sh, run with nctests=bench_guest).
# nc-timeout: 7200
#
# Reads /bench/plan, one run per line:
#     <workload> <arm> <command...>
# arms: off | stock | numad | numad-noshim | numad-noclock | moron | numacore | hard-bind | cost-idle | cost-loaded
# For each line it sets the arm up, runs the command under bench_run (which
# samples placement and counters every BENCH_INTERVAL_MS, default 500), tears
# the arm down and prints everything bench_run printed prefixed with
#     @ <workload> <arm> 
# plus "@ <workload> <arm> A <key>=<value>" lines describing the arm (numad's
# log summary, module load status), starting with "A run=<n>" (the plan line
# number among runs, so that repeated lines stay apart).  The host parses these from the TAP copy.
PLAN=${BENCH_PLAN_FILE:-/bench/plan}
INTERVAL=${BENCH_INTERVAL_MS:-500}
MODS=${NC_MODULES:-/modules}
BAL=/proc/sys/kernel/numa_balancing
# numad: scan every second (-i 1:1; default 5:15 s), do not touch khugepaged
# (-H 0; default sets scan_sleep_millisecs=1000, unlike the other arms),
# utilization target 100 % (-u 100; at the default 85 % a process running 2
# busy threads asks for 2.35 CPUs, more than a 2-vCPU node, and numad "binds"
# it to all nodes, a no-op), debug log (-l 7) for the Skipping/Advising lines.
NUMAD_FLAGS=${BENCH_NUMAD_FLAGS:--i 1:1 -H 0 -u 100 -l 7}

[ -f "$PLAN" ] || { echo "bench_guest: $PLAN missing"; exit 1; }
echo "bench_guest: kernel $(uname -r) nodes $(cat /sys/devices/system/node/online) cpus $(cat /sys/devices/system/cpu/online)"

bal() { [ -w "$BAL" ] && echo "$1" > "$BAL"; }

unload_all() {
	grep -q '^numacore ' /proc/modules 2>/dev/null && rmmod numacore
	if [ -f /var/run/numad.pid ]; then
		kill "$(cat /var/run/numad.pid)" 2>/dev/null
		sleep 1
		rm -f /var/run/numad.pid
	fi
	bal 0
}

# setup ARM: prints "A" lines, returns non-zero if the arm is not available.
setup() {
	unload_all
	echo 1 > /proc/sys/vm/compact_memory 2>/dev/null
	case "$1" in
	off|hard-bind|cost-idle)
		bal 0 ;;
	stock)
		[ -w "$BAL" ] || { echo "A avail=0 why=no_kernel.numa_balancing"; return 1; }
		bal 1 ;;
	numad|numad-noshim|numad-noclock)
		command -v numad >/dev/null 2>&1 || { echo "A avail=0 why=numad_not_in_initramfs"; return 1; }
		bal 0
		rm -f /var/log/numad.log /var/run/numad.pid
		if [ "$1" = numad ] && [ -f /bench/numad_shim.so ]; then
			LD_PRELOAD=/bench/numad_shim.so numad $NUMAD_FLAGS
		elif [ "$1" = numad-noclock ] && [ -f /bench/numad_shim.so ]; then
			# only the Mems_allowed_list fix: numad sees the real boot clock
			NUMAD_SHIM_MONO_OFFSET_S=0 LD_PRELOAD=/bench/numad_shim.so numad $NUMAD_FLAGS
		else
			numad $NUMAD_FLAGS
		fi
		sleep 2
		[ -f /var/run/numad.pid ] && kill -0 "$(cat /var/run/numad.pid)" 2>/dev/null ||
			{ echo "A avail=0 why=numad_did_not_start"; tail -n 5 /var/log/numad.log 2>/dev/null | sed 's/^/A numad_log=/'; return 1; }
		echo "A numad_flags=$(echo $NUMAD_FLAGS | tr ' ' '_') shim=$([ "$1" != numad-noshim ] && [ -f /bench/numad_shim.so ] && echo 1 || echo 0) uptime_s=$(cut -d' ' -f1 /proc/uptime)" ;;
	moron|numacore|cost-loaded)
		pol=$1
		[ "$pol" = cost-loaded ] && pol=numacore
		[ -f "$MODS/numacore.ko" ] || { echo "A avail=0 why=numacore.ko_missing"; return 1; }
		bal 0
		insmod "$MODS/numacore.ko" policy="$pol" ${BENCH_NC_PARAMS:-} ||
			{ echo "A avail=0 why=insmod_failed"; return 1; }
		echo "A policy=$(cat /sys/module/numacore/parameters/policy 2>/dev/null)" ;;
	*)
		echo "A avail=0 why=unknown_arm"; return 1 ;;
	esac
	echo "A avail=1 balancing=$(cat $BAL 2>/dev/null)"
	return 0
}

numad_summary() {
	l=/var/log/numad.log
	[ -f "$l" ] || { echo "A numad_log=missing"; return; }
	echo "A numad_candidates_lines=$(grep -c ': PID [0-9]*: ' $l) numad_skip_recent=$(grep -c 'done too recently' $l)" \
		"numad_bypass=$(grep -c 'Bypassing delay' $l) numad_advising=$(grep -c 'Advising pid' $l)" \
		"numad_moved=$(grep -c 'moved to node' $l)" \
		"numad_moved_all=$(grep -c "moved to node(s) $(cat /sys/devices/system/node/online) in" $l)" \
		"numad_already_local=$(grep -c 'percent localized' $l)" \
		"numad_crit=$(grep -c 'Could not\|failed' $l)"
	grep -E 'Advising pid|moved to node|Could not|Skipping evaluation|Bypassing|Registering|Shutting' $l |
		head -n 12 | tr ' ' '_' | sed 's/^/A numad_log=/'
	grep -E ': PID [0-9]+: ' $l | tail -n 2 | tr ' ' '_' | sed 's/^/A numad_cand=/'
}

n=0
while read -r wl arm cmd; do
	case "$wl" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	echo "bench_guest: run $n: $wl $arm: $cmd (uptime $(cut -d' ' -f1 /proc/uptime)s)"
	out=/tmp/bench.$n.out
	# "A run=N" first: the host tells repeats of one (workload, arm) apart by it
	if { echo "A run=$n"; setup "$arm"; } > /tmp/bench.arm 2>&1; then
		bench_run -i "$INTERVAL" -n "$wl/$arm" -- $cmd > "$out" 2>&1
		rc=$?
		case "$arm" in numad*) numad_summary ;; esac >> /tmp/bench.arm
		echo "A rc=$rc" >> /tmp/bench.arm
	else
		: > "$out"
	fi
	unload_all >> /tmp/bench.arm 2>&1
	sed "s/^/@ $wl $arm /" /tmp/bench.arm "$out"
	rm -f "$out"
done < "$PLAN"
echo "bench_guest: $n runs done"
exit 0
