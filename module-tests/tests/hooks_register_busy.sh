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

. "${0%/*}/lib/hooks.sh"

ht_setup

insmod "$KO" || nc_fail "insmod numa_hooktest.ko failed"
ht_loaded || nc_fail "numa_hooktest not in /proc/modules after insmod"
[ -w "$DBG/ctl" ] || nc_fail "$DBG/ctl missing"
[ "$(ht_ctl registered)" = 1 ] || nc_fail "policy not registered after insmod"
dmesg | grep -q 'numa_policy: policy hooktest registered' ||
	nc_fail "no 'policy hooktest registered' kernel message"

echo register2 > "$DBG/ctl" || nc_fail "write register2"
rc=$(ht_ctl second_register)
nc_log "second policy while hooktest is registered: $rc"
[ "$rc" = -16 ] || nc_fail "second registration returned '$rc', want -16 (EBUSY)"

echo register > "$DBG/ctl" || nc_fail "write register"
rc=$(ht_ctl register)
nc_log "same policy registered twice: $rc"
[ "$rc" = -16 ] || nc_fail "registering the registered policy returned '$rc', want -16"

echo unregister > "$DBG/ctl" || nc_fail "write unregister"
rc=$(ht_ctl unregister)
nc_log "unregister: $rc"
[ "$rc" = 0 ] || nc_fail "unregister returned '$rc'"
[ "$(ht_ctl registered)" = 0 ] || nc_fail "still registered after unregister"

# the slot is free now: the second policy must get it (and give it back)
echo register2 > "$DBG/ctl" || nc_fail "write register2"
rc=$(ht_ctl second_register)
nc_log "second policy while none is registered: $rc"
[ "$rc" = 0 ] || nc_fail "second registration into a free slot returned '$rc'"

echo register > "$DBG/ctl" || nc_fail "write register"
rc=$(ht_ctl register)
nc_log "register again: $rc"
[ "$rc" = 0 ] || nc_fail "re-register returned '$rc'"
[ "$(ht_ctl registered)" = 1 ] || nc_fail "not registered after register"

rmmod numa_hooktest || nc_fail "rmmod numa_hooktest failed"
ht_loaded && nc_fail "numa_hooktest still loaded after rmmod"
[ -e "$DBG" ] && nc_fail "$DBG still present after rmmod"

insmod "$KO" || nc_fail "second insmod failed (policy slot not released?)"
[ "$(ht_ctl registered)" = 1 ] || nc_fail "policy not registered after second insmod"
rmmod numa_hooktest || nc_fail "second rmmod failed"
ht_loaded && nc_fail "numa_hooktest still loaded after second rmmod"

n=$(dmesg | grep -c 'numa_policy: policy hooktest unregistered')
nc_log "kernel 'policy hooktest unregistered' messages: $n"
nc_fail_on_splat
nc_log "PASS"
exit 0
