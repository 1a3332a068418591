#!/usr/bin/env bash
# Host side module metadata and DKMS checks, one "ok NAME" / "not ok NAME"
# line each (with "# " diagnostics), for qemu/check.sh.  Nothing is installed into the host's
# /lib/modules or loaded into its kernel: DKMS runs on a scratch tree
# (--dkmstree, --sourcetree, --installtree under build/dkms/).
#
#  modinfo_complete           modinfo numacore.ko: a license, a version, a
#                             description, and a description for every
#                             parameter (its __param_* symbols list them)
#  dkms_source_is_module_dir  the DKMS source is dkms.conf plus module/
#                             only, and PACKAGE_VERSION is numacore.ko's
#                             MODULE_VERSION
#  dkms_builds_against_headers_pkg
#                             the linux-headers package of `make deb`,
#                             unpacked into a scratch root, is the only
#                             kernel source `dkms build` gets; it yields a
#                             numacore.ko whose vermagic is the packaged
#                             release, left in build/dkms/ for the guest
#                             booted from the linux-image package to load
#                             (module-tests: boot "packaged")
#  dkms_refuses_stock_headers `dkms build` against Debian's own headers
#                             (linux-headers-*-amd64, no hooks) is refused
#                             by BUILD_EXCLUSIVE_CONFIG, building nothing
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${NC_BUILD:-$TOP/build}
DEB=$BUILD/deb
D=$BUILD/dkms
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")

ok() { echo "ok $1"; }
notok() { echo "not ok $1"; }
diag() { sed 's/^/# /'; }
# sign_file: a path that does not exist, so that DKMS neither signs (the
# guest kernel checks no signatures) nor makes a key in /var/lib/dkms.
dkms_() {
	sign_file=$D/no-sign-file \
	dkms --dkmstree "$D/tree" --sourcetree "$D/src" --installtree "$D/install" "$@"
}

rm -rf "$D"
mkdir -p "$D/tree" "$D/src/numacore-$VER/module" "$D/install" "$D/root"
cp "$TOP/dkms.conf" "$D/src/numacore-$VER/"
for f in "$TOP"/module/*; do
	case "$f" in *.c|*.h|*/Kbuild|*/Makefile|*/numacore-stat) cp "$f" "$D/src/numacore-$VER/module/" ;; esac
done
rm -f "$D/src/numacore-$VER/module/"*.mod.c

KO=$TOP/module/numacore.ko
# Every module parameter leaves a __param_<name> symbol (module_param_cb()
# emits no parmtype that modinfo could list); __param_str_<name> is its
# name string.
params=$(nm "$KO" 2>/dev/null | sed -n 's/.* __param_\([a-z0-9_]*\)$/\1/p' | grep -v '^str_' | sort)
described=$(modinfo -F parm "$KO" 2>/dev/null | sed -n 's/^\([a-z_0-9]*\):[[:space:]]*[^[:space:]].*/\1/p' | sort)
lic=$(modinfo -F license "$KO" 2>/dev/null)
desc=$(modinfo -F description "$KO" 2>/dev/null)
modver=$(modinfo -F version "$KO" 2>/dev/null)
if [ -n "$params" ] && [ "$params" = "$described" ] && [ -n "$lic" ] &&
   [ -n "$desc" ] && [ -n "$modver" ]; then
	echo "$(echo "$params" | wc -l) parameters described; license $lic; version $modver" | diag
	ok modinfo_complete
else
	{ echo "parameters: $(echo $params)"; echo "described: $(echo $described)"
	  echo "license '$lic' description '$desc' version '$modver'"; } | diag
	notok modinfo_complete
fi

if [ -n "$VER" ] && [ "$modver" = "$VER" ] &&
   grep -q '^MAKE\[0\]="make -C module ' "$TOP/dkms.conf"; then
	ok dkms_source_is_module_dir
else
	echo "PACKAGE_VERSION=$VER numacore.ko version=$modver; MAKE[0]: $(grep '^MAKE' "$TOP/dkms.conf")" | diag
	notok dkms_source_is_module_dir
fi

# The headers package of `make deb`, unpacked (not installed) into
# build/dkms/root; its /usr/src/linux-headers-<release> is the kernel
# source DKMS builds against.
hdr=$(ls "$DEB"/linux-headers-*.deb 2>/dev/null | head -n 1)
krel=
if [ -n "$hdr" ]; then
	krel=$(dpkg-deb -f "$hdr" Package)
	krel=${krel#linux-headers-}
	dpkg-deb -x "$hdr" "$D/root"
fi
ksrc=$D/root/usr/src/linux-headers-$krel
if [ -z "$hdr" ] || [ ! -f "$ksrc/Module.symvers" ]; then
	echo "no linux-headers package with Module.symvers in ${DEB#"$TOP"/} (make deb): ${hdr:-none}" | diag
	notok dkms_builds_against_headers_pkg
else
	out=$(dkms_ add -m numacore -v "$VER" 2>&1 &&
	      dkms_ build -m numacore -v "$VER" -k "$krel" --kernelsourcedir "$ksrc" 2>&1)
	rc=$?
	ko=$(find "$D/tree/numacore/$VER/$krel" -name numacore.ko 2>/dev/null | head -n 1)
	vm=$([ -n "$ko" ] && modinfo -F vermagic "$ko" | cut -d' ' -f1)
	if [ $rc -eq 0 ] && [ -n "$ko" ] && [ "$vm" = "$krel" ]; then
		cp "$ko" "$D/numacore-dkms.ko"
		echo "built $ko against $(basename "$hdr") (vermagic $vm)" | diag
		ok dkms_builds_against_headers_pkg
	else
		{ echo "$out" | tail -20; echo "rc=$rc ko=$ko vermagic=$vm package=$krel"; } | diag
		notok dkms_builds_against_headers_pkg
	fi
fi

stock=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
if [ -z "$stock" ]; then
	echo "no /usr/src/linux-headers-*-amd64 (make deps installs linux-headers-amd64)" | diag
	notok dkms_refuses_stock_headers
else
	srel=${stock#/usr/src/linux-headers-}
	out=$(dkms_ build -m numacore -v "$VER" -k "$srel" --kernelsourcedir "$stock" 2>&1)
	rc=$?
	echo "$out" | tail -3 | diag
	if [ $rc -ne 0 ] && echo "$out" | grep -q BUILD_EXCLUSIVE &&
	   [ -z "$(find "$D/tree/numacore/$VER/$srel" -name '*.ko' 2>/dev/null)" ]; then
		ok dkms_refuses_stock_headers
	else
		echo "dkms build against $stock: rc=$rc" | diag
		notok dkms_refuses_stock_headers
	fi
fi
