#!/usr/bin/env bash
# Boot the test guest in QEMU (TCG) with emulated NUMA nodes.
# The one boot script behind `make run`, `make check` and benchmarks.
#
#   qemu/boot.sh [--nodes N] [--cpus-per-node C] [--mem-per-node MB]
#                [--tests a,b,c] [--append "extra cmdline"] [--timeout SEC]
#                [--name NAME | --log FILE] [--kernel FILE] [--initrd FILE]
#                [--quiet] [--interactive]
#
# Console goes to build/logs/<NAME>.log (default NAME: boot) and, unless
# --quiet, to stdout; the guest's TAP stream also to <log minus .log>.tap
# (second serial port, free of interleaved kernel messages).  Exit status:
#   0  guest printed NC-DONE (and, for --tests demo, NC-DEMO-RC=0)
#   1  demo returned non-zero
#   2  usage error / missing kernel or initramfs
#   3  guest ended without printing NC-DONE (crash, panic, reboot)
#   124 QEMU killed after --timeout seconds
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
nodes=2 cpus=2 mem=1024 tests= append= timeout=600 name=boot log=
kernel=${NC_BUILD:-$TOP/build}/bzImage initrd=${NC_BUILD:-$TOP/build}/initramfs.cpio quiet=0 interactive=0
QEMU=${QEMU:-qemu-system-x86_64}

usage() { sed -n '2,/^set -e/p' "$0" | sed 's/^# \{0,1\}//; /^set -e/d' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--nodes) nodes=$2; shift 2 ;;
	--cpus-per-node) cpus=$2; shift 2 ;;
	--mem-per-node) mem=$2; shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--initrd) initrd=$2; shift 2 ;;
	--quiet) quiet=1; shift ;;
	--interactive) interactive=1; shift ;;
	-h|--help) usage ;;
	*) echo "boot.sh: unknown option '$1'" >&2; usage ;;
	esac
done
for v in nodes cpus mem timeout; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "boot.sh: --$v must be a positive integer" >&2; exit 2; }
done
[ -f "$kernel" ] || { echo "boot.sh: kernel $kernel not found (make kernel)" >&2; exit 2; }
[ -f "$initrd" ] || { echo "boot.sh: initrd $initrd not found (make initramfs)" >&2; exit 2; }
[ -n "$log" ] || log=${NC_BUILD:-$TOP/build}/logs/$name.log
mkdir -p "$(dirname "$log")"

smp=$((nodes * cpus))
total=$((nodes * mem))
numa=()
for ((i = 0; i < nodes; i++)); do
	first=$((i * cpus)) last=$((i * cpus + cpus - 1))
	numa+=(-object "memory-backend-ram,id=m$i,size=${mem}M"
	       -numa "node,nodeid=$i,cpus=$first-$last,memdev=m$i")
done
# One socket per node: with QEMU's default topology (all vCPUs cores of one
# socket) the CPUs of different nodes share an LLC, and a CONFIG_BUG kernel
# warns at boot (topology_sane: "llc-sibling CPU #0 is not on the same
# node"), which console_clean would count as a splat.
# Second serial port (guest ttyS1): /init's clean copy of the TAP stream.
tap=${log%.log}.tap
rm -f "$tap"
cmdline="console=ttyS0 panic=-1 nctap=ttyS1"
[ -n "$tests" ] && cmdline+=" nctests=$tests"
cmdline+=" ncnodes=$nodes nccpus=$cpus ncmem=$mem"
[ -n "$append" ] && cmdline+=" $append"

cmd=("$QEMU" -accel tcg -machine q35 -cpu max -nographic -no-reboot -nic none
     -serial mon:stdio -serial "file:$tap"
     -m "${total}M" -smp "$smp,sockets=$nodes,cores=$cpus,threads=1" "${numa[@]}"
     -kernel "$kernel" -initrd "$initrd" -append "$cmdline")

echo "boot.sh: $name: $nodes nodes x $cpus vCPUs x ${mem}MB, tests='${tests}', timeout ${timeout}s, log $log" >&2
start=$(date +%s)
set +e
if [ "$interactive" = 1 ]; then
	timeout -k 10 "$timeout" "${cmd[@]}" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
else
	# QEMU must not read the terminal; strip the serial console's CRs.
	if [ "$quiet" = 1 ]; then
		timeout -k 10 "$timeout" "${cmd[@]}" < /dev/null 2>&1 | sed -u 's/\r$//' > "$log"
	else
		timeout -k 10 "$timeout" "${cmd[@]}" < /dev/null 2>&1 | sed -u 's/\r$//' | tee "$log"
	fi
	rc=${PIPESTATUS[0]}
fi
set -e
secs=$(( $(date +%s) - start ))

if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "boot.sh: $name: TIMEOUT: guest still running after ${timeout}s, QEMU killed (log: $log)" >&2
	exit 124
fi
if [ "$rc" != 0 ]; then
	echo "boot.sh: $name: QEMU exited with status $rc after ${secs}s (log: $log)" >&2
fi
if ! grep -qs '^NC-DONE' "$tap" "$log"; then
	echo "boot.sh: $name: guest never printed NC-DONE (crash or panic?) after ${secs}s (log: $log)" >&2
	exit 3
fi
if [ "$tests" = demo ]; then
	demo_rc=$(sed -n 's/^NC-DEMO-RC=\([0-9]*\).*/\1/p' "$tap" 2>/dev/null | tail -n 1)
	[ -n "$demo_rc" ] || demo_rc=$(sed -n 's/^NC-DEMO-RC=\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	if [ "${demo_rc:-x}" != 0 ]; then
		echo "boot.sh: $name: demo failed (NC-DEMO-RC=${demo_rc:-missing}) after ${secs}s" >&2
		exit 1
	fi
fi
echo "boot.sh: $name: finished in ${secs}s" >&2
exit 0
