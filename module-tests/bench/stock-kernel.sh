#!/usr/bin/env bash
# Build the UNPATCHED guest kernel (Debian linux-source-6.1 without
# hooks-patch/) into build/stock-kernel/bzImage, for the "cost when unused"
# comparison of `make bench`.  Same configuration as `make kernel`
# (tinyconfig + qemu/guest.config) minus CONFIG_NUMA_POLICY_HOOKS, which
# does not exist without the series.  Incremental: a second call with the
# same fragment only runs the (no-op) kernel make.
#
# Waits while another kernel build is running on the host (any cc1
# process), to not compete for the 2 cores; gives up (exit 3) after
# BENCH_WAIT_BUILD_S (default 600) s.  JOBS (default 2) parallel jobs.
set -euo pipefail

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=$TOP/build/stock-kernel
TREE=$OUT/linux-source-6.1
TARBALL=${KSRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
FRAGMENT=$TOP/qemu/guest.config
JOBS=${JOBS:-2}
log() { echo "stock-kernel: $*"; }

[ -f "$TARBALL" ] || { log "ERROR: $TARBALL not found (make deps)"; exit 1; }
mkdir -p "$OUT"
sed -e '/CONFIG_NUMA_POLICY_HOOKS/d' -e 's/[[:space:]]*#[[:space:]]*optional[[:space:]]*$//' \
	"$FRAGMENT" > "$OUT/guest.config.stock"
hash=$(sha256sum < "$OUT/guest.config.stock" | cut -d' ' -f1)

if [ -f "$OUT/bzImage" ] && [ "$hash" = "$(cat "$OUT/config.hash" 2>/dev/null)" ] &&
   [ "${BENCH_STOCK_REBUILD:-0}" = 0 ]; then
	log "build/stock-kernel/bzImage is up to date"
	exit 0
fi

waited=0
while [ "$(pgrep -c -x cc1 || true)" -gt 0 ]; do
	if [ "$waited" -ge "${BENCH_WAIT_BUILD_S:-600}" ]; then
		log "another kernel build kept the CPU busy for ${waited}s: not building (retry later)"
		exit 3
	fi
	[ $((waited % 60)) = 0 ] && log "another build is running ($(pgrep -c -x cc1) cc1); waiting"
	sleep 10
	waited=$((waited + 10))
done

if [ ! -f "$TREE/.nc-unpacked" ]; then
	log "unpacking $TARBALL into $TREE"
	rm -rf "$TREE" "$OUT/tmp"
	mkdir -p "$OUT/tmp"
	tar -xf "$TARBALL" -C "$OUT/tmp"
	mv "$OUT/tmp/linux-source-6.1" "$TREE"
	rmdir "$OUT/tmp"
	touch "$TREE/.nc-unpacked"
fi
if [ "$hash" != "$(cat "$OUT/config.hash" 2>/dev/null)" ] || [ ! -f "$TREE/.config" ]; then
	log "configuring (tinyconfig + qemu/guest.config without CONFIG_NUMA_POLICY_HOOKS)"
	(
		cd "$TREE"
		make -s tinyconfig >/dev/null
		scripts/kconfig/merge_config.sh -m .config "$OUT/guest.config.stock" >/dev/null
		make -s olddefconfig >/dev/null
	)
	if grep -q '^CONFIG_NUMA_POLICY_HOOKS' "$TREE/.config"; then
		log "ERROR: the stock tree knows CONFIG_NUMA_POLICY_HOOKS (patched tarball?)"
		exit 1
	fi
fi
log "building bzImage with -j$JOBS (a few minutes)"
start=$(date +%s)
make -C "$TREE" -s -j"$JOBS" bzImage
cp "$TREE/arch/x86/boot/bzImage" "$OUT/bzImage.tmp"
mv "$OUT/bzImage.tmp" "$OUT/bzImage"
echo "$hash" > "$OUT/config.hash"
log "done in $(( $(date +%s) - start ))s: build/stock-kernel/bzImage"
