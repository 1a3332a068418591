#!/usr/bin/env bash
# Build Debian packages of the patched guest kernel (`make deb`) with the
# kernel's own bindeb-pkg, from the tree and configuration `make kernel`
# left in build/.  The release carries CONFIG_LOCALVERSION ("-numacore",
# qemu/guest.config), so the packages never clash with Debian's own
# linux-image-6.1.0-*-amd64.
#
# Result in build/deb/:
#   linux-image-<release>_<version>_amd64.deb
#   linux-headers-<release>_<version>_amd64.deb
#   linux-libc-dev_<version>_amd64.deb
#   image/          the linux-image package unpacked (boot/vmlinuz-<release>),
#                   which `make check` boots for the DKMS test
#   REVISION        the Debian revision, also the kernel's build version
#                   (uname -v starts with "#<REVISION> "), so that a guest
#                   can tell the packaged image from build/bzImage
#   KEY             what the packages were built from (see below)
#
# Incremental: the packages depend only on the patch series and the
# configuration, and are rebuilt only when either changed (build/applied/hash,
# build/kernel-config.hash).  bindeb-pkg relinks the tree's vmlinux with the
# package's build version, so the next `make kernel` copies that image to
# build/bzImage: the same sources and configuration, another version string.
# Environment: NC_BUILD (build directory), JOBS.
set -euo pipefail

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${NC_BUILD:-$TOP/build}
TREE=$BUILD/linux-source-6.1
OUT=$BUILD/deb
JOBS=${JOBS:-$(nproc)}

log() { echo "deb: $*"; }
die() { echo "deb: ERROR: $*" >&2; exit 1; }

[ -f "$BUILD/bzImage" ] && [ -f "$TREE/include/config/kernel.release" ] ||
	die "no built kernel in ${BUILD#"$TOP"/} (make kernel)"
krel=$(cat "$TREE/include/config/kernel.release")
case "$krel" in
*-*) ;;
*) die "kernel release '$krel' has no local version; CONFIG_LOCALVERSION in qemu/guest.config keeps the packages apart from Debian's" ;;
esac

key=$(cat "$BUILD/applied/hash" "$BUILD/kernel-config.hash" 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ "$(cat "$OUT/KEY" 2>/dev/null)" = "$key" ] && [ -f "$OUT/REVISION" ] &&
   [ -f "$OUT/image/boot/vmlinuz-$krel" ]; then
	log "packages of $krel up to date in ${OUT#"$TOP"/}"
	exit 0
fi

# A revision that changes with every packaging, so that the booted image
# proves it came from this package build.
rev=1nc$(date -u +%Y%m%d%H%M%S)
log "building linux-image/linux-headers $krel, version $krel-$rev (-j$JOBS)"
rm -rf "$OUT" "$BUILD"/*.deb "$BUILD"/*.buildinfo "$BUILD"/*.changes
start=$(date +%s)
# -d: the build dependencies are `make deps`'s packages; do not make
# dpkg-buildpackage insist on Debian's names for them.
make -C "$TREE" -s -j"$JOBS" bindeb-pkg KDEB_PKGVERSION="$krel-$rev" \
	DPKG_FLAGS=-d > "$BUILD/deb.log" 2>&1 ||
	{ tail -n 30 "$BUILD/deb.log" >&2; die "bindeb-pkg failed (log: ${BUILD#"$TOP"/}/deb.log)"; }
mkdir -p "$OUT"
mv "$BUILD"/*.deb "$OUT/"
rm -f "$BUILD"/*.buildinfo "$BUILD"/*.changes
dpkg-deb -x "$OUT/linux-image-${krel}_$krel-${rev}_"*.deb "$OUT/image"
[ -f "$OUT/image/boot/vmlinuz-$krel" ] || die "linux-image package holds no boot/vmlinuz-$krel"
echo "$rev" > "$OUT/REVISION"
echo "$key" > "$OUT/KEY"
log "done in $(( $(date +%s) - start ))s:"
(cd "$OUT" && ls -1 ./*.deb | sed 's|^\./|  |')
