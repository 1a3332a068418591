#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_params_need_root: a user other than root cannot change any
# numacore parameter through /sys/module/numacore/parameters (the write
# fails, the value stays), while root can.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
nc_need_prog su
uid=$(su -s /bin/sh nobody -c 'id -u' 2>&1)
[ "$uid" = 65534 ] || nc_fail "su nobody does not run as uid 65534: '$uid'"
nc_numacore_load
fails=0 n=0
for f in "$NC_PARAMS"/*; do
	p=${f##*/}
	old=$(cat "$f")
	case "$p" in
	policy) new=moron ;;
	scan_period_min_ms) new=500 ;;
	scan_period_max_ms) new=30000 ;;
	scan_size_mb|settle_count) new=7 ;;
	*) case "$old" in Y) new=N ;; *) new=Y ;; esac ;;
	esac
	if su -s /bin/sh nobody -c "echo $new > $f" 2>/dev/null; then
		echo "nobody wrote $p=$new"; fails=$((fails + 1))
	fi
	[ "$(cat "$f")" = "$old" ] || { echo "$p changed to $(cat "$f") by nobody"; fails=$((fails + 1)); }
	echo "$new" > "$f" || { echo "root cannot write $p=$new"; fails=$((fails + 1)); }
	echo "$old" > "$f"
	n=$((n + 1))
done
nc_numacore_unload
[ $n -ge 10 ] || nc_fail "only $n parameters found in $NC_PARAMS"
[ $fails -eq 0 ] || nc_fail "$fails problem(s)"
nc_pass "$n parameters refuse writes by nobody and accept them from root"
