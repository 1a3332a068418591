#!/usr/bin/env bash
# Build the guest kernel: unpack linux-source-6.1 into build/, keep it in sync
# with hooks-patch/series, configure it from qemu/guest.config and build
# bzImage.  Incremental: an unchanged patch series and config cost seconds.
#
# State kept in build/ (all ignored by git):
#   linux-source-6.1/    the kernel tree (never enters the repo)
#   applied/series       patch names currently applied to the tree, in order
#   applied/<name>       copy of each applied patch as it was applied, so it
#                        can be reverse-applied even after the repo copy changed
#   applied/hash         content hash of the series last applied completely
#   kernel-config.hash   hash of guest.config + applied series used for .config
#   bzImage              the result
#
# Environment: TOP (repo root), KSRC_TARBALL, JOBS; NC_BUILD (build directory,
# default build/), NC_DEBUG=1 (add qemu/debug.config to the fragment),
# NC_SERIES_LEN=K (apply only the first K patches of the series).
set -euo pipefail

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${NC_BUILD:-$TOP/build}
TREE=$BUILD/linux-source-6.1
TARBALL=${KSRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
PATCHDIR=$TOP/hooks-patch
SERIES=$PATCHDIR/series
APPLIED=$BUILD/applied
FRAGMENT=$TOP/qemu/guest.config
if [ "${NC_DEBUG:-0}" = 1 ]; then
	mkdir -p "$BUILD"
	cat "$FRAGMENT" "$TOP/qemu/debug.config" > "$BUILD/guest+debug.config"
	FRAGMENT=$BUILD/guest+debug.config
fi
JOBS=${JOBS:-$(nproc)}

. "$TOP/qemu/lib.sh"
log() { echo "kernel: $*"; }
die() { echo "kernel: ERROR: $*" >&2; exit 1; }

mkdir -p "$BUILD"

# ---------------------------------------------------------------- unpack ---
unpack() {
	[ -f "$TARBALL" ] || die "$TARBALL not found (run 'make deps')"
	log "unpacking $TARBALL into $TREE"
	rm -rf "$TREE" "$APPLIED" "$BUILD/kernel-config.hash" "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -xf "$TARBALL" -C "$TREE.tmp"
	mv "$TREE.tmp/linux-source-6.1" "$TREE"
	rmdir "$TREE.tmp"
	mkdir -p "$APPLIED"
	: > "$APPLIED/series"
	touch "$TREE/.nc-unpacked"
}
[ -f "$TREE/.nc-unpacked" ] || unpack
mkdir -p "$APPLIED"
[ -f "$APPLIED/series" ] || : > "$APPLIED/series"

# ------------------------------------------------------------ patch sync ---
# Wanted series: the entries of hooks-patch/series (missing file: none).
mapfile -t wanted < <(read_series "$SERIES")
if [ -n "${NC_SERIES_LEN:-}" ]; then
	[[ $NC_SERIES_LEN =~ ^[0-9]+$ ]] && [ "$NC_SERIES_LEN" -le "${#wanted[@]}" ] ||
		die "NC_SERIES_LEN=$NC_SERIES_LEN: not a number from 0 to ${#wanted[@]}"
	wanted=(${wanted[@]+"${wanted[@]:0:NC_SERIES_LEN}"})
fi
for p in ${wanted[@]+"${wanted[@]}"}; do
	[ -f "$PATCHDIR/$p" ] || die "series lists '$p' but $PATCHDIR/$p does not exist"
done

series_hash() {
	{
		echo "series:"
		local p
		for p in "$@"; do
			echo "$p $(sha256sum < "$PATCHDIR/$p" | cut -d' ' -f1)"
		done
	} | sha256sum | cut -d' ' -f1
}
want_hash=$(series_hash ${wanted[@]+"${wanted[@]}"})
have_hash=$(cat "$APPLIED/hash" 2>/dev/null || true)

if [ "$want_hash" != "$have_hash" ]; then
	rm -f "$APPLIED/hash"
	mapfile -t have < "$APPLIED/series"
	# Keep the common prefix: patches applied in the same position with the
	# same content as the repo copy stay in the tree.
	keep=0
	while [ "$keep" -lt "${#have[@]}" ] && [ "$keep" -lt "${#wanted[@]}" ] &&
	      [ "${have[keep]}" = "${wanted[keep]}" ] &&
	      cmp -s "$APPLIED/${have[keep]}" "$PATCHDIR/${wanted[keep]}"; do
		keep=$((keep + 1))
	done
	# Reverse-apply the rest, newest first, from the saved copies.
	for ((i = ${#have[@]} - 1; i >= keep; i--)); do
		p=${have[i]}
		log "reverting $p"
		if ! patch -d "$TREE" -p1 -R -s -N --dry-run < "$APPLIED/$p" >/dev/null 2>&1; then
			log "cannot cleanly revert $p; re-unpacking a pristine tree"
			unpack
			keep=0
			break
		fi
		patch -d "$TREE" -p1 -R -s -N < "$APPLIED/$p"
		rm -f "$APPLIED/$p"
		head -n "$i" "$APPLIED/series" > "$APPLIED/series.new"
		mv "$APPLIED/series.new" "$APPLIED/series"
	done
	for p in ${wanted[@]+"${wanted[@]:keep}"}; do
		log "applying $p"
		if ! out=$(patch -d "$TREE" -p1 -N --dry-run < "$PATCHDIR/$p" 2>&1); then
			echo "$out" >&2
			die "hooks-patch/$p does not apply (tree holds: $(tr '\n' ' ' < "$APPLIED/series"))"
		fi
		mkdir -p "$APPLIED/$(dirname "$p")"
		cp "$PATCHDIR/$p" "$APPLIED/$p"
		patch -d "$TREE" -p1 -N -s < "$APPLIED/$p"
		echo "$p" >> "$APPLIED/series"
	done
	echo "$want_hash" > "$APPLIED/hash"
	log "series in sync (${#wanted[@]} patches, $keep kept applied)"
else
	log "patch series unchanged (${#wanted[@]} patches)"
fi

# ---------------------------------------------------------------- config ---
[ -f "$FRAGMENT" ] || die "$FRAGMENT missing"
cfg_hash=$( { cat "$FRAGMENT"; echo "$want_hash"; } | sha256sum | cut -d' ' -f1)
if [ "$cfg_hash" != "$(cat "$BUILD/kernel-config.hash" 2>/dev/null || true)" ] \
   || [ ! -f "$TREE/.config" ]; then
	rm -f "$BUILD/kernel-config.hash"
	log "configuring (tinyconfig + qemu/guest.config)"
	# merge_config.sh does not understand trailing comments: strip them.
	sed -e 's/[[:space:]]*#[[:space:]]*optional[[:space:]]*$//' "$FRAGMENT" \
		> "$BUILD/guest.config.merged"
	(
		cd "$TREE"
		make -s tinyconfig >/dev/null
		scripts/kconfig/merge_config.sh -m .config "$BUILD/guest.config.merged" >/dev/null
		make -s olddefconfig >/dev/null
	)
	# Verify the fragment made it into the final .config.
	missing=0
	while IFS= read -r line; do
		optional=0
		case "$line" in *"# optional"*) optional=1 ;; esac
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=([^[:space:]#]+) ]]; then
			sym=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
			if ! grep -qx "$sym=$val" "$TREE/.config"; then
				got=$(grep -E "^$sym=|^# $sym is not set" "$TREE/.config" || echo "(absent)")
				if [ "$optional" = 1 ]; then
					log "note: optional $sym=$val not in .config (got: $got)"
				else
					echo "kernel: ERROR: $sym=$val requested by qemu/guest.config, .config has: $got" >&2
					missing=1
				fi
			fi
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set ]]; then
			sym=${BASH_REMATCH[1]}
			if grep -qE "^$sym=[ym]" "$TREE/.config"; then
				echo "kernel: ERROR: $sym must not be set, .config has: $(grep -E "^$sym=" "$TREE/.config")" >&2
				missing=1
			fi
		fi
	done < "$FRAGMENT"
	[ "$missing" = 0 ] || die "config fragment not satisfied (missing dependencies?); see above"
	echo "$cfg_hash" > "$BUILD/kernel-config.hash"
else
	log "config unchanged"
fi

# ----------------------------------------------------------------- build ---
log "building bzImage (+modules, for Module.symvers) with -j$JOBS"
make -C "$TREE" -s -j"$JOBS" bzImage modules
cp "$TREE/arch/x86/boot/bzImage" "$BUILD/bzImage.tmp"
mv "$BUILD/bzImage.tmp" "$BUILD/bzImage"
log "done: ${BUILD#"$TOP"/}/bzImage ($(grep -o '^CONFIG_NUMA_POLICY_HOOKS=y' "$TREE/.config" || echo 'no NUMA_POLICY_HOOKS'))"
