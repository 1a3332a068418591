#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_params_fuzz: every parameter refuses bad values (empty,
# whitespace, hex, exponent, negative, 2^32, 20 digits, 4000 characters,
# out of range, min > max in either order, unknown names) with EINVAL and
# exactly one kernel message naming it ("numacore: <param>=... refused"),
# counted among the messages logged since the write, and keeps its old
# value; insmod with a bad value fails cleanly with a message naming the
# parameter.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
fails=0 writes=0
refuse() {	# refuse PARAM VALUE
	old=$(cat $NC_PARAMS/$1)
	m=$(nc_dmesg_mark)
	if err=$( (echo "$2" > $NC_PARAMS/$1) 2>&1); then
		echo "$1='$2' was accepted"; fails=$((fails + 1))
	else
		case "$err" in *"Invalid argument"*) ;;
		*) echo "$1='$2': '$err', want EINVAL (Invalid argument)"; fails=$((fails + 1)) ;;
		esac
	fi
	writes=$((writes + 1))
	new=$(cat $NC_PARAMS/$1)
	[ "$new" = "$old" ] || { echo "$1 changed $old -> $new"; fails=$((fails + 1)); }
	n=$(nc_dmesg_since "$m" | grep -c "numacore: $1=.* refused")
	[ "$n" -eq 1 ] || { echo "$n 'numacore: $1=... refused' kernel messages for $1='$2', want 1"; fails=$((fails + 1)); }
}
nc_numacore_load
# under a page, so that sysfs passes it to the module whole
long=$(printf '%4000s' | tr ' ' 7)
for p in scan_period_min_ms scan_period_max_ms scan_size_mb settle_count; do
	for v in 0 -1 abc 1.5 "" " " 0x10 1e3 4294967296 12345678901234567890 "$long"; do
		refuse $p "$v"
	done
done
refuse scan_size_mb 65537
refuse scan_period_min_ms 3600001
max=$(cat $NC_PARAMS/scan_period_max_ms)
refuse scan_period_min_ms $((max + 1))
min=$(cat $NC_PARAMS/scan_period_min_ms)
refuse scan_period_max_ms $((min - 1))
for v in fifo "" 1 MORON numacore2 " numacore" "$long"; do refuse policy "$v"; done
for p in faults_up faults_down first_fault task_follows settle; do
	for v in 2 maybe -1 "" 10 1x yes "$long"; do refuse $p "$v"; done
done
nc_numacore_unload
echo "$writes bad writes through $NC_PARAMS"
for bad in scan_size_mb=0 settle_count=-3 scan_period_min_ms=x scan_size_mb=0x10 \
	settle_count=4294967296 policy=none task_follows=2 \
	"scan_period_min_ms=5000 scan_period_max_ms=1000" \
	"scan_period_max_ms=1000 scan_period_min_ms=5000"; do
	m=$(nc_dmesg_mark)
	if insmod "$NC_KO" $bad 2>/dev/null; then
		echo "insmod with $bad succeeded"; fails=$((fails + 1)); rmmod numacore
	fi
	[ -d /sys/module/numacore ] && { echo "numacore left behind by $bad"; fails=$((fails + 1)); }
	p=${bad%%=*}
	n=$(nc_dmesg_since "$m" | grep -c "numacore: .*$p=")
	[ "$n" -ge 1 ] || { echo "no 'numacore: $p=...' kernel message for insmod $bad"; fails=$((fails + 1)); }
done
[ "$fails" -eq 0 ] || nc_fail "$fails problem(s)"
nc_pass "$writes bad values refused with one message each, old values kept, bad insmod failed"
