#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hooks_active_policy_file: /sys/kernel/numa_policy/ tells which policy is
# registered: state, ops, module and since_s read "disabled", "", "", 0
# with none; "enabled", "hooktest", "numa_hooktest" and the boot time of
# the registration while numa_hooktest is loaded and registered; none
# again after the module unregisters its policy (still loaded) and after
# rmmod.  The files are read-only.
#

. "${0%/*}/lib/hooks.sh"

SYSP=/sys/kernel/numa_policy
ht_setup
[ -d "$SYSP" ] || nc_fail "$SYSP missing (kernel without the hooks series?)"

# expect WHEN STATE OPS MODULE: compare the files; since_s checked apart
expect() {
	got="$(cat $SYSP/state)|$(cat $SYSP/ops)|$(cat $SYSP/module)"
	nc_log "$1: state|ops|module = $got, since_s = $(cat $SYSP/since_s)"
	[ "$got" = "$2|$3|$4" ] || nc_fail "$1: want $2|$3|$4"
}
uptime_s() { awk '{ printf "%d\n", $1 }' /proc/uptime; }

expect "no policy" disabled "" ""
[ "$(cat $SYSP/since_s)" = 0 ] || nc_fail "since_s not 0 with no policy"
for f in state ops module since_s; do
	echo x > "$SYSP/$f" 2>/dev/null && nc_fail "$SYSP/$f accepted a write"
done

t0=$(uptime_s)
insmod "$KO" || nc_fail "insmod numa_hooktest.ko failed"
t1=$(uptime_s)
expect "numa_hooktest loaded" enabled hooktest numa_hooktest
since=$(cat $SYSP/since_s)
[ "$since" -ge $((t0 - 1)) ] && [ "$since" -le $((t1 + 1)) ] ||
	nc_fail "since_s=$since, registration happened between ${t0} s and ${t1} s"

echo unregister > "$DBG/ctl" || nc_fail "write unregister"
expect "policy unregistered, module loaded" disabled "" ""
rmmod numa_hooktest || nc_fail "rmmod numa_hooktest failed"
expect "after rmmod" disabled "" ""
nc_fail_on_splat
nc_log "PASS"
exit 0
