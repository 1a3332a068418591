#!/usr/bin/env bash
# Assemble build/initramfs.cpio (uncompressed newc) from a staging dir:
#   /bin/busybox + applet symlinks      (busybox-static)
#   /init                               (qemu/init)
#   /tests/                             (module-tests/tests/*, $EXTRA_TESTS)
#   /bin/<prog>                         (every executable in build/module-tests)
#   /modules/*.ko                       (module/, module-tests/kmod/)
#   numad + the shared libraries it needs
set -euo pipefail

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${NC_BUILD:-$TOP/build}
STAGE=$BUILD/initramfs
OUT=$BUILD/initramfs.cpio
PROGS=$BUILD/module-tests

die() { echo "initramfs: ERROR: $*" >&2; exit 1; }

rm -rf "$STAGE"
mkdir -p "$STAGE"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,tests,modules,etc,root,var/log,var/run,run}
chmod 1777 "$STAGE/tmp"

# busybox: a static binary is required (the guest has no libc otherwise).
BB=$(command -v busybox) || die "busybox not found (make deps)"
file -L "$BB" 2>/dev/null | grep -q 'statically linked' ||
	{ ldd "$BB" 2>&1 || true; } | grep -q 'not a dynamic' || die "$BB is not static (install busybox-static)"
cp -L "$BB" "$STAGE/bin/busybox"
"$STAGE/bin/busybox" --list-full | while read -r applet; do
	[ -e "$STAGE/$applet" ] || [ -L "$STAGE/$applet" ] || ln -s /bin/busybox "$STAGE/$applet"
done

install -m 0755 "$TOP/qemu/init" "$STAGE/init"

# Test scripts: all of module-tests/tests/ (the *.sh tests and their helper
# files, e.g. lib/) -> /tests/.  EXTRA_TESTS: more such directories, e.g.
# local experiments that are not in the repo.
for d in "$TOP/module-tests/tests" ${EXTRA_TESTS:-}; do
	[ -d "$d" ] && cp -R "$d"/. "$STAGE/tests/"
done
ntests=$(find "$STAGE/tests" -maxdepth 1 -name '*.sh' | wc -l)

# Static test programs: every executable regular file directly in $PROGS.
nprogs=0
if [ -d "$PROGS" ]; then
	for f in "$PROGS"/*; do
		[ -f "$f" ] && [ -x "$f" ] || continue
		rm -f "$STAGE/bin/$(basename "$f")"   # may shadow a busybox applet
		install -m 0755 "$f" "$STAGE/bin/"
		nprogs=$((nprogs + 1))
	done
fi

# The status tool shipped with the module.
install -m 0755 "$TOP/module/numacore-stat" "$STAGE/bin/numacore-stat"

# Modules.
nmods=0
for d in module module-tests/kmod; do
	for ko in "$TOP/$d"/*.ko; do
		[ -f "$ko" ] || continue
		install -m 0644 "$ko" "$STAGE/modules/"
		nmods=$((nmods + 1))
	done
done
# The numacore.ko that DKMS built (qemu/dkms-check.sh), when there is one.
if [ -f "$BUILD/dkms/numacore-dkms.ko" ]; then
	install -m 0644 "$BUILD/dkms/numacore-dkms.ko" "$STAGE/modules/"
	nmods=$((nmods + 1))
fi

# numad (dynamically linked): binary, libraries and loader at their host paths.
NUMAD=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v numad || true)
if [ -n "$NUMAD" ]; then
	mkdir -p "$STAGE/$(dirname "$NUMAD")"
	cp -L "$NUMAD" "$STAGE/$NUMAD"
	[ -e "$STAGE/usr/sbin/numad" ] || ln -s "$NUMAD" "$STAGE/usr/sbin/numad"
	ldd "$NUMAD" | grep -oE '/[^ ]+' | while read -r lib; do
		mkdir -p "$STAGE/$(dirname "$lib")"
		cp -L "$lib" "$STAGE/$lib"
	done
else
	echo "initramfs: warning: numad not installed, not included" >&2
fi

# Initial console for /init (the kernel opens /dev/console before /init runs;
# devtmpfs is only mounted by /init itself).  Needs root; /init also
# re-opens the console after mounting devtmpfs, so this is best effort.
mknod -m 600 "$STAGE/dev/console" c 5 1 2>/dev/null || true

printf "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/tmp:/bin/sh\n" > "$STAGE/etc/passwd"
printf "root:x:0:\nnogroup:x:65534:\n" > "$STAGE/etc/group"

(cd "$STAGE" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 > "$OUT.tmp")
mv "$OUT.tmp" "$OUT"
echo "initramfs: ${OUT#"$TOP"/} ($(du -h "$OUT" | cut -f1)): $ntests test scripts, $nprogs programs, $nmods modules, numad=${NUMAD:-none}"
