#!/usr/bin/env bash
# Host side of `make check` (expects kernel, modules and initramfs built).
#
#  1. checkpatch: each patch listed in hooks-patch/series (--strict) and each
#     module/*.c, module/*.h (--no-tree -f); one TAP test per file.
#  2. every boot in module-tests/boots.conf, sequentially, via qemu/boot.sh;
#     the guests' TAP results are renumbered into one stream as
#     <boot>/<test>, plus one <boot>/console_clean test per boot that fails
#     on kernel splats (BUG:, WARNING:, Oops, panic, RCU stall, lockdep,
#     list corruption, KASAN), a timeout or a missing NC-DONE.
#  3. last line: "N passed, N failed, N skipped"; exit 1 if anything failed.
#
# Environment: BOOTS (boots file), BOOT_TIMEOUT (seconds per boot, default
# 120 + 330 per test), CHECK_ONLY (space-separated boot names to run).
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
TREE=$TOP/build/linux-source-6.1
BOOTS=${BOOTS:-$TOP/module-tests/boots.conf}
LOGS=$TOP/build/logs
mkdir -p "$LOGS"

n=0 pass=0 fail=0 skip=0
result() { # status(ok|not ok|skip) name [diagnostic lines on stdin if $3=-]
	n=$((n + 1))
	case "$1" in
	ok) pass=$((pass + 1)); echo "ok $n $2" ;;
	skip) skip=$((skip + 1)); echo "ok $n $2 # SKIP${3:+ $3}" ;;
	*) fail=$((fail + 1)); echo "not ok $n $2" ;;
	esac
}
diag() { sed 's/^/# /'; }

echo "TAP version 13"

# ------------------------------------------------------------ checkpatch ---
CHECKPATCH=$TREE/scripts/checkpatch.pl
patches=()
if [ -f "$TOP/hooks-patch/series" ]; then
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%#*}
		line=$(echo "$line" | xargs)
		[ -n "$line" ] && patches+=("$line")
	done < "$TOP/hooks-patch/series"
fi
if [ ! -x "$CHECKPATCH" ]; then
	echo "# $CHECKPATCH missing (make kernel)"
	result "not ok" checkpatch
else
	for p in ${patches[@]+"${patches[@]}"}; do
		if out=$(cd "$TREE" && ./scripts/checkpatch.pl --strict --no-color "$TOP/hooks-patch/$p" 2>&1); then
			result ok "checkpatch_$p"
		else
			echo "$out" | diag
			result "not ok" "checkpatch_$p"
		fi
	done
	srcs=()
	for f in "$TOP"/module/*.c "$TOP"/module/*.h; do
		[ -f "$f" ] && srcs+=("$f")
	done
	if [ ${#srcs[@]} -eq 0 ]; then
		result skip checkpatch_module "no module/*.c or module/*.h"
	fi
	for f in ${srcs[@]+"${srcs[@]}"}; do
		if out=$("$CHECKPATCH" --no-tree --no-color -f "$f" 2>&1); then
			result ok "checkpatch_$(basename "$f")"
		else
			echo "$out" | diag
			result "not ok" "checkpatch_$(basename "$f")"
		fi
	done
fi

# ----------------------------------------------------------------- boots ---
# Kernel console lines (PRINTK_TIME prefix) that mean the boot is not clean.
SPLAT='^\[ *[0-9]+\.[0-9]+\].*(BUG:|WARNING:|Oops|Kernel panic|rcu_sched detected stall|rcu_preempt detected stall|RCU stall|detected stalls on CPUs|list_del corruption|list_add corruption|KASAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|soft lockup|blocked for more than|general protection fault)'

boots_src=$BOOTS
if [ ! -f "$BOOTS" ]; then
	echo "# $BOOTS missing"
	result "not ok" boots.conf
	boots_src=/dev/null
fi
lineno=0
while IFS= read -r line <&3 || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	line=${line%%#*}
	read -r bname bnodes bcpus bmem btests bextra <<< "$line" || true
	[ -n "${bname:-}" ] || continue
	if [ -z "${btests:-}" ] || ! [[ $bnodes$bcpus$bmem =~ ^[0-9]+$ ]]; then
		echo "# boots.conf:$lineno: malformed line: $line"
		result "not ok" "boots.conf:$lineno"
		continue
	fi
	if [ -n "${CHECK_ONLY:-}" ] && ! [[ " $CHECK_ONLY " == *" $bname "* ]]; then
		continue
	fi
	IFS=, read -r -a names <<< "$btests"
	to=${BOOT_TIMEOUT:-$((120 + 330 * ${#names[@]}))}
	log=$LOGS/$bname.log
	echo "# boot $bname: $bnodes nodes x $bcpus vCPUs x ${bmem}MB, tests $btests${bextra:+, append '$bextra'} (log build/logs/$bname.log)"
	bstart=$(date +%s)
	"$TOP/qemu/boot.sh" --quiet --name "$bname" --nodes "$bnodes" \
		--cpus-per-node "$bcpus" --mem-per-node "$bmem" --tests "$btests" \
		--append "${bextra:-}" --timeout "$to" 2> "$LOGS/$bname.boot.err"
	brc=$?
	echo "# boot $bname: $(( $(date +%s) - bstart ))s, boot.sh exit $brc"

	# Guest TAP: "# ..." diagnostics, then "ok|not ok N name[ # SKIP]".
	declare -A seen=()
	diags=()
	while IFS= read -r l; do
		if [[ $l =~ ^(not\ )?ok\ [0-9]+\ ([^ ]+)(\ #\ (SKIP|skip).*)?$ ]]; then
			tname=${BASH_REMATCH[2]}
			seen[$tname]=1
			for d in ${diags[@]+"${diags[@]}"}; do echo "$d"; done
			diags=()
			if [ -n "${BASH_REMATCH[1]}" ]; then
				result "not ok" "$bname/$tname"
			elif [ -n "${BASH_REMATCH[4]}" ]; then
				result skip "$bname/$tname"
			else
				result ok "$bname/$tname"
			fi
		elif [[ $l == "# "* ]]; then
			diags+=("$l")
		fi
	done < <(sed -n '/^TAP version 13$/,/^NC-DONE/p' "$log" 2>/dev/null)
	for tname in "${names[@]}"; do
		if [ -z "${seen[$tname]:-}" ]; then
			for d in ${diags[@]+"${diags[@]}"}; do echo "$d"; done
			diags=()
			echo "# no result from guest for $tname"
			result "not ok" "$bname/$tname"
		fi
	done
	unset seen

	problems=()
	case $brc in
	0) ;;
	124) problems+=("guest timed out after ${to}s") ;;
	3) problems+=("guest never printed NC-DONE") ;;
	*) problems+=("boot.sh failed with status $brc: $(tail -n 1 "$LOGS/$bname.boot.err")") ;;
	esac
	splats=$(grep -E "$SPLAT" "$log" 2>/dev/null | head -n 20)
	if [ -n "$splats" ]; then
		problems+=("kernel splats on the console:")
	fi
	if [ ${#problems[@]} -eq 0 ]; then
		result ok "$bname/console_clean"
	else
		printf '%s\n' "${problems[@]}" | diag
		[ -n "$splats" ] && echo "$splats" | diag
		result "not ok" "$bname/console_clean"
	fi
done 3< "$boots_src"

echo "1..$n"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
