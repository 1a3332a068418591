#!/usr/bin/env bash
# Host side DKMS checks, one "ok NAME" / "not ok NAME" line each (with "# "
# diagnostics), for qemu/check.sh.  Nothing is installed into the host's
# /lib/modules or loaded into its kernel: DKMS runs on a scratch tree
# (--dkmstree, --sourcetree, --installtree under build/dkms/).
#
#  dkms_source_is_module_dir  the DKMS source is dkms.conf plus module/
#                             only, and PACKAGE_VERSION is numacore.ko's
#                             MODULE_VERSION
#  dkms_builds_against_hooks  `dkms build` against the patched guest kernel
#                             tree yields a numacore.ko whose vermagic is
#                             that kernel's; it is left in build/dkms/ for
#                             the guest to load (module-tests: dkms boot)
#  dkms_refuses_stock_headers `dkms build` against Debian's own headers
#                             (linux-headers-*-amd64, no hooks) is refused
#                             by BUILD_EXCLUSIVE_CONFIG, building nothing
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${NC_BUILD:-$TOP/build}
TREE=${KDIR:-$BUILD/linux-source-6.1}
D=$BUILD/dkms
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")

ok() { echo "ok $1"; }
notok() { echo "not ok $1"; }
diag() { sed 's/^/# /'; }
dkms_() {
	dkms --dkmstree "$D/tree" --sourcetree "$D/src" --installtree "$D/install" "$@"
}

rm -rf "$D"
mkdir -p "$D/tree" "$D/src/numacore-$VER/module" "$D/install"
cp "$TOP/dkms.conf" "$D/src/numacore-$VER/"
for f in "$TOP"/module/*; do
	case "$f" in *.c|*.h|*/Kbuild|*/Makefile|*/numacore-stat) cp "$f" "$D/src/numacore-$VER/module/" ;; esac
done
rm -f "$D/src/numacore-$VER/module/"*.mod.c

modver=$(modinfo -F version "$TOP/module/numacore.ko" 2>/dev/null)
if [ -n "$VER" ] && [ "$modver" = "$VER" ] &&
   grep -q '^MAKE\[0\]="make -C module ' "$TOP/dkms.conf"; then
	ok dkms_source_is_module_dir
else
	echo "PACKAGE_VERSION=$VER numacore.ko version=$modver; MAKE[0]: $(grep '^MAKE' "$TOP/dkms.conf")" | diag
	notok dkms_source_is_module_dir
fi

krel=$(cat "$TREE/include/config/kernel.release" 2>/dev/null)
out=$(dkms_ add -m numacore -v "$VER" 2>&1 &&
      dkms_ build -m numacore -v "$VER" -k "$krel" --kernelsourcedir "$TREE" 2>&1)
rc=$?
ko=$(find "$D/tree/numacore/$VER/$krel" -name numacore.ko 2>/dev/null | head -n 1)
vm=$([ -n "$ko" ] && modinfo -F vermagic "$ko" | cut -d' ' -f1)
if [ $rc -eq 0 ] && [ -n "$ko" ] && [ "$vm" = "$krel" ]; then
	cp "$ko" "$D/numacore-dkms.ko"
	echo "built $ko (vermagic $vm)" | diag
	ok dkms_builds_against_hooks
else
	{ echo "$out" | tail -20; echo "rc=$rc ko=$ko vermagic=$vm kernel=$krel"; } | diag
	notok dkms_builds_against_hooks
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
