#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# topology: the guest sees the NUMA topology the boot asked for:
#   - NC_NODES nodes in /sys/devices/system/node/online,
#   - NC_CPUS_PER_NODE CPUs in each nodeN/cpulist,
#   - nodeN/meminfo MemTotal at most max(10% of NC_MEM_PER_NODE_MB,
#     NC_TOPO_SLACK_MB=64 MiB) below NC_MEM_PER_NODE_MB and never above it.
#     The slack is for memory the kernel reserves: its own image (which
#     KASLR may put on any node: ~45 MiB seen for a distro kernel), the
#     struct page array (~1.6%) and the firmware holes below 1 MiB.
#     On a KASAN kernel node 0 also holds the shadow of all guest memory
#     (1/KASAN_SHADOW_RATIO of it), so its floor is that much lower.
# nc-timeout: 60
. "${0%/*}/lib/nc.sh"

[ -n "$NC_NODES" ] && [ -n "$NC_CPUS_PER_NODE" ] && [ -n "$NC_MEM_PER_NODE_MB" ] ||
	nc_fail "NC_NODES/NC_CPUS_PER_NODE/NC_MEM_PER_NODE_MB not set by the runner"
SLACK_MB=${NC_TOPO_SLACK_MB:-64}

online=$(cat /sys/devices/system/node/online)
nodes=$(nc_nodes_online)
echo "node online list: '$online' -> $nodes nodes (expected $NC_NODES)"
echo "cpu online list: '$(cat /sys/devices/system/cpu/online)'"
bad=0
[ "$nodes" = "$NC_NODES" ] || { echo "FAIL: $nodes nodes online, expected $NC_NODES"; bad=1; }

want_kb=$((NC_MEM_PER_NODE_MB * 1024))
slack_kb=$((want_kb / 10))
[ "$slack_kb" -ge $((SLACK_MB * 1024)) ] || slack_kb=$((SLACK_MB * 1024))
min_kb=$((want_kb - slack_kb))
KASAN_SHADOW_RATIO=8	# generic KASAN: one shadow byte per 8 bytes
kasan_kb=0
if dmesg | grep -q 'KernelAddressSanitizer initialized'; then
	kasan_kb=$((want_kb * NC_NODES / KASAN_SHADOW_RATIO))
	echo "KASAN kernel: node0 floor lowered by its shadow, ${kasan_kb}kB"
fi
max_kb=$((want_kb + want_kb / 200))
n=0
while [ "$n" -lt "$NC_NODES" ]; do
	d=/sys/devices/system/node/node$n
	if [ ! -d "$d" ]; then
		echo "FAIL: $d missing"
		bad=1
		n=$((n + 1))
		continue
	fi
	cl=$(cat "$d/cpulist")
	nc=$(nc_cpulist_count "$cl")
	mt=$(awk '$3 == "MemTotal:" { print $4 }' "$d/meminfo")
	mf=$(awk '$3 == "MemFree:" { print $4 }' "$d/meminfo")
	lo_kb=$min_kb
	[ "$n" -eq 0 ] && lo_kb=$((min_kb - kasan_kb))
	pct=$(awk -v a="${mt:-0}" -v b="$want_kb" 'BEGIN { printf "%.1f", 100 * a / b }')
	echo "node$n: cpulist=$cl cpus=$nc (expected $NC_CPUS_PER_NODE) MemTotal=${mt}kB MemFree=${mf}kB = ${pct}% of ${NC_MEM_PER_NODE_MB}MiB (allowed ${lo_kb}..${max_kb}kB)"
	[ "$nc" = "$NC_CPUS_PER_NODE" ] || { echo "FAIL: node$n has $nc CPUs, expected $NC_CPUS_PER_NODE"; bad=1; }
	if [ -z "$mt" ] || [ "$mt" -lt "$lo_kb" ] || [ "$mt" -gt "$max_kb" ]; then
		echo "FAIL: node$n MemTotal ${mt:-?}kB outside ${lo_kb}..${max_kb}kB"
		bad=1
	fi
	n=$((n + 1))
done
# No CPU or memory on a node beyond the requested ones.
extra=$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)
[ "$extra" = "$NC_NODES" ] || { echo "FAIL: $extra node directories, expected $NC_NODES"; bad=1; }

[ "$bad" = 0 ] || nc_fail "topology differs from the boot request"
nc_pass "$NC_NODES nodes x $NC_CPUS_PER_NODE CPUs x ~${NC_MEM_PER_NODE_MB}MiB"
