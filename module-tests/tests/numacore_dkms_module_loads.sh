#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numacore_dkms_module_loads: in the kernel of the linux-image package
# (`make deb`), the numacore.ko that DKMS built against the matching
# linux-headers package loads, registers as the numacore policy, reports
# the DKMS package version, and unloads.
. "${0%/*}/lib/nc.sh"
. "${0%/*}/lib/numacore.sh"
KO=${NC_MODULES:-/modules}/numacore-dkms.ko
[ -n "${NC_DEB_REVISION:-}" ] ||
	nc_fail "not booted from the linux-image package (no ncdeb= on the command line; boots.conf: nc-kernel=deb)"
case "$(uname -v)" in
"#$NC_DEB_REVISION "*) ;;
*) nc_fail "uname -v '$(uname -v)' is not the packaged build #$NC_DEB_REVISION" ;;
esac
[ -f "$KO" ] || nc_fail "$KO not found (the host-side DKMS build failed?)"
grep -q '^numacore ' /proc/modules && rmmod numacore
nc_atexit 'grep -q "^numacore " /proc/modules && rmmod numacore'
insmod "$KO" || nc_fail "insmod $KO failed in $(uname -r)"
ops=$(cat /sys/kernel/numa_policy/ops)
ver=$(cat /sys/module/numacore/version 2>/dev/null)
echo "kernel $(uname -r) $(uname -v | cut -d' ' -f1); registered policy: $ops, module version: $ver"
rmmod numacore || nc_fail "rmmod failed"
[ "$ops" = numacore ] || nc_fail "the DKMS-built module did not register numacore"
[ -n "$ver" ] || nc_fail "no module version"
nc_pass "the DKMS-built module loads in the packaged kernel, registers and unloads"
