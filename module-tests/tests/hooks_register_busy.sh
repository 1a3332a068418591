#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hooks_register_busy: only one NUMA policy can be registered at a time
# (-EBUSY for a second one), a policy can unregister and register again, and
# its module loads and unloads cleanly, twice.
#
# numa_hooktest's debugfs ctl file: "register2" registers a second ops
# struct (and unregisters it again at once if that worked), "unregister" and
# "register" act on the module's main ops; ctl reads back the return codes.
#
# Exit: 0 pass, 4 skip, anything else fail.  Env: NC_MODULES (dir of .ko files),
# NC_NODES (NUMA nodes).

. "${0%/*}/lib/hooks.sh"

hooks_setup

insmod "$KO" || die "insmod numa_hooktest.ko failed"
ht_loaded || die "numa_hooktest not in /proc/modules after insmod"
[ -w "$DBG/ctl" ] || die "$DBG/ctl missing"
[ "$(ht_ctl registered)" = 1 ] || die "policy not registered after insmod"
dmesg | grep -q 'numa_policy: policy hooktest registered' ||
	die "no 'policy hooktest registered' kernel message"

echo register2 > "$DBG/ctl" || die "write register2"
rc=$(ht_ctl second_register)
say "second policy while hooktest is registered: $rc"
[ "$rc" = -16 ] || die "second registration returned '$rc', want -16 (EBUSY)"

echo register > "$DBG/ctl" || die "write register"
rc=$(ht_ctl register)
say "same policy registered twice: $rc"
[ "$rc" = -16 ] || die "registering the registered policy returned '$rc', want -16"

echo unregister > "$DBG/ctl" || die "write unregister"
rc=$(ht_ctl unregister)
say "unregister: $rc"
[ "$rc" = 0 ] || die "unregister returned '$rc'"
[ "$(ht_ctl registered)" = 0 ] || die "still registered after unregister"

# the slot is free now: the second policy must get it (and give it back)
echo register2 > "$DBG/ctl" || die "write register2"
rc=$(ht_ctl second_register)
say "second policy while none is registered: $rc"
[ "$rc" = 0 ] || die "second registration into a free slot returned '$rc'"

echo register > "$DBG/ctl" || die "write register"
rc=$(ht_ctl register)
say "register again: $rc"
[ "$rc" = 0 ] || die "re-register returned '$rc'"
[ "$(ht_ctl registered)" = 1 ] || die "not registered after register"

rmmod numa_hooktest || die "rmmod numa_hooktest failed"
ht_loaded && die "numa_hooktest still loaded after rmmod"
[ -e "$DBG" ] && die "$DBG still present after rmmod"

insmod "$KO" || die "second insmod failed (policy slot not released?)"
[ "$(ht_ctl registered)" = 1 ] || die "policy not registered after second insmod"
rmmod numa_hooktest || die "second rmmod failed"
ht_loaded && die "numa_hooktest still loaded after second rmmod"

n=$(dmesg | grep -c 'numa_policy: policy hooktest unregistered')
say "kernel 'policy hooktest unregistered' messages: $n"
check_dmesg
say "PASS"
exit 0
