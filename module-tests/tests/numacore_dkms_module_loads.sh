#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_dkms_module_loads: the numacore.ko that DKMS built from dkms.conf + module/ on the host
# (qemu/dkms-check.sh) loads in this kernel, registers as the numacore
# policy, reports the DKMS package version, and unloads.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
KO=${NC_MODULES:-/modules}/numacore-dkms.ko
[ -f "$KO" ] || nc_fail "$KO not found (the host-side DKMS build failed?)"
grep -q '^numacore ' /proc/modules && rmmod numacore
nc_atexit 'grep -q "^numacore " /proc/modules && rmmod numacore'
insmod "$KO" || nc_fail "insmod $KO failed"
ops=$(cat /sys/kernel/numa_policy/ops)
ver=$(cat /sys/module/numacore/version 2>/dev/null)
echo "registered policy: $ops, module version: $ver"
rmmod numacore || nc_fail "rmmod failed"
[ "$ops" = numacore ] || nc_fail "the DKMS-built module did not register numacore"
[ -n "$ver" ] || nc_fail "no module version"
nc_pass "the DKMS-built module loads, registers and unloads"
