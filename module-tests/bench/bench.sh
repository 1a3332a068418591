#!/usr/bin/env bash
# module-tests/bench/bench.sh - host side of `make bench`.
#
#   module-tests/bench/bench.sh            full: every workload x every arm,
#                                          2-node and 4-node guests, plus the
#                                          "cost when unused" microbenchmark
#   QUICK=1 module-tests/bench/bench.sh    2 nodes, 2 workloads, short runs
#
# Needs build/bzImage and build/initramfs.cpio (make initramfs).  Writes
# build/bench/: results.csv, results.md, locality.png (+ locality.dat,
# raw/<config>.tap, logs) and prints results.md.
#
# Environment knobs (all optional):
#   QUICK=1            quick mode (see above)
#   NODES="2 4"        guest node counts (QUICK: 2)
#   BENCH_MB=320       MiB per process of the numa0x / mfc workloads (numad
#                      only considers processes with RSS > 300 MiB)
#   BENCH_SECS=20      seconds per run (mfc_remote_128: BENCH_SECS_128=30, which
#                      leaves >= 15 s after convergence for the PTE rate)
#   BENCH_ARMS="off stock numad moron numacore"   arms besides hard-bind
#   BENCH_COST=0|1     run the cost microbenchmark (default: 1 unless QUICK)
#   BENCH_PLAN_FILE=F use plan F (lines "<workload> <arm> <command...>")
#                      instead of the generated one (REPEAT applies to it too)
#   REPEAT=1           run every (config, workload, arm) REPEAT times; the
#                      repeats of a workload follow each other, and within a
#                      repeat its arms run one after the other (stock, moron,
#                      numacore, ..., then the next repeat), so that compared
#                      arms are measured close in time.  The numad diagnostic
#                      arms run once.  report.py gives median (min-max).
#   BENCH_CONFIGS="n2:2:2 n4:4:2 n4-oversub:4:1"   guest shapes, each
#                      <name>:<nodes>:<vCPUs per node>; the default is built
#                      from NODES: 2 vCPUs per node everywhere, plus, for
#                      4+ nodes, the same node count with 1 vCPU per node as
#                      "n<N>-oversub" (oversubscribed: a process's threads
#                      cannot share a node without sharing its one CPU)
#   BENCH_CPUS=2       vCPUs per node of every default config (set: no
#                      -oversub config);  BENCH_MEM=1024 MiB per node
#   BENCH_DRY=1        print the configs and their (repeated) plans, run nothing
#   BENCH_MODULE_REV=  what results.md says was measured (default: git
#                      describe --always --dirty of this tree at the start)
#   BENCH_KEEP=1       add to the last run instead of starting afresh: keep
#                      build/bench/raw's other configs (and the cost rows
#                      unless BENCH_COST=1), re-run only BENCH_CONFIGS, and
#                      report them all; refused when the last run measured
#                      another numacore.ko.  A full REPEAT=3 run (~4 h) can
#                      so be made of one config per sitting.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
SRC=$TOP/module-tests/bench
OUT=$TOP/build/bench
QUICK=${QUICK:-}
[ "$QUICK" = 0 ] && QUICK=
if [ -n "$QUICK" ]; then
	NODES=${NODES:-2}
	BENCH_SECS=${BENCH_SECS:-20}
	BENCH_SECS_128=${BENCH_SECS_128:-30}
	BENCH_COST=${BENCH_COST:-0}
else
	NODES=${NODES:-2 4}
	BENCH_SECS=${BENCH_SECS:-20}
	BENCH_COST=${BENCH_COST:-1}
fi
BENCH_MB=${BENCH_MB:-320}
BENCH_SECS_128=${BENCH_SECS_128:-30}
BENCH_ARMS=${BENCH_ARMS:-off stock numad moron numacore}
BENCH_CPUS_SET=${BENCH_CPUS:-}
BENCH_CPUS=${BENCH_CPUS:-2}
BENCH_MEM=${BENCH_MEM:-1024}
REPEAT=${REPEAT:-1}
log() { echo "bench: $*" >&2; }
die() { echo "bench: ERROR: $*" >&2; exit 1; }

[[ "$REPEAT" =~ ^[1-9][0-9]*$ ]] || die "REPEAT=$REPEAT: expected a positive integer"

# default_configs: "name:nodes:cpus" per guest shape (see BENCH_CONFIGS above).
default_configs() {
	local n
	for n in $NODES; do
		if [ -n "$BENCH_CPUS_SET" ] || [ "$n" -lt 4 ]; then
			echo "n$n:$n:$BENCH_CPUS"
		else
			echo "n$n:$n:2 n$n-oversub:$n:1"
		fi
	done
}
CONFIGS=$(echo ${BENCH_CONFIGS:-$(default_configs)})
for c in $CONFIGS; do
	[[ "$c" =~ ^[A-Za-z0-9_-]+:[1-9][0-9]*:[1-9][0-9]*$ ]] || die "config '$c': expected name:nodes:cpus"
done

start_all=$(date +%s)
MODULE_REV=${BENCH_MODULE_REV:-$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo "unknown (not a git tree)")}
[ "${BENCH_DRY:-0}" = 1 ] || for f in "$TOP/build/bzImage" "$TOP/build/initramfs.cpio"; do
	[ -f "$f" ] || die "$f missing (make initramfs)"
done

# build_tools: the guest-side binaries of the overlay archive.
build_tools() {
	CC=${CC:-gcc}
	$CC -O2 -Wall -static -o "$OUT/bin/bench_run" "$SRC/bench_run.c" "$SRC/bench_sample.c"
	$CC -O2 -Wall -static -o "$OUT/bin/costbench" "$SRC/costbench.c"
	$CC -O2 -Wall -shared -fPIC -o "$OUT/bin/numad_shim.so" "$SRC/numad_shim.c" -ldl
}

#---------------------------------------------------
# --- plans ------------------------------------------------------------------
# plan_line WORKLOAD ARM COMMAND...
plan_workloads() {
	local nodes=$1 mb=$BENCH_MB s=$BENCH_SECS arm shapes starts diag
	if [ -n "$QUICK" ]; then
		shapes="numa01"
		starts="inverse"
	else
		shapes="numa01 numa01_THREAD_ALLOC numa02 numa02_SMT"
		starts="none inverse"
	fi
	# numad diagnostics first, while uptime < 300 s (docs/bench.md, "numad in the guest")
	if [ "$nodes" = 2 ] && [[ " $BENCH_ARMS " == *" numad "* ]]; then
		diag=numad-noclock
		[ -z "$QUICK" ] && diag="numad-noclock numad-noshim"
		for arm in $diag; do
			echo "numa01_INVERSE_BIND $arm numa_bench --bench numa01 --bind inverse --mb $mb --seconds $s"
		done
	fi
	# memory follows CPU, 128 MiB per process (time to 90%, pages moved)
	for arm in $BENCH_ARMS; do
		[ -n "$QUICK" ] && [ "$arm" = numad ] && continue   # below numad's 300 MiB threshold anyway
		echo "mfc_remote_128 $arm numa_mfc --procs 2 --mb 128 --start remote --seconds $BENCH_SECS_128"
	done
	echo "mfc_remote_128_HARD_BIND hard-bind numa_mfc --procs 2 --mb 128 --start local --seconds $BENCH_SECS_128"
	for shape in $shapes; do
		for st in $starts; do
			local name=$shape
			[ "$st" = inverse ] && name=${shape}_INVERSE_BIND
			for arm in $BENCH_ARMS; do
				echo "$name $arm numa_bench --bench $shape --bind $st --mb $mb --seconds $s"
			done
		done
		echo "${shape}_HARD_BIND hard-bind numa_bench --bench $shape --bind hard --mb $mb --seconds $s"
	done
	if [ -z "$QUICK" ]; then
		for st in remote cpu-follows; do
			for arm in $BENCH_ARMS; do
				echo "mfc_${st/-/_} $arm numa_mfc --procs 2 --mb $mb --start $st --seconds $s"
			done
		done
		echo "mfc_HARD_BIND hard-bind numa_mfc --procs 2 --mb $mb --start local --seconds $s"
	fi
}

# expand_repeats: a plan on stdin, each workload's block of consecutive lines
# REPEAT times on stdout (arms interleaved within a repeat); the numad
# diagnostic arms (numad-noclock/-noshim) once, since they must run while
# the guest's uptime is below 300 s.  Blank and comment lines are dropped.
expand_repeats() {
	awk -v R="$REPEAT" '
	function flush(   r, i) {
		for (r = 1; r <= R; r++)
			for (i = 1; i <= n; i++)
				if (r == 1 || !diag[i])
					print line[i]
		n = 0
	}
	/^[[:space:]]*(#|$)/ { next }
	{
		if (n && $1 != wl)
			flush()
		wl = $1
		line[++n] = $0
		diag[n] = ($2 ~ /^numad-no/)
	}
	END { if (n) flush() }'
}

plan_cost() {
	local arm=$1 i
	for i in 1 2 3 4 5; do
		echo "cost_$2 $arm costbench --seconds 3"
	done
}

# make_initrd NAME PLANFILE: build/initramfs.cpio + an overlay archive
# (concatenated newc archives; the kernel unpacks them in order).
make_initrd() {
	local name=$1 plan=$2 stage=$OUT/stage-$1
	rm -rf "$stage"
	mkdir -p "$stage/bin" "$stage/tests" "$stage/bench"
	install -m 0755 "$OUT/bin/bench_run" "$OUT/bin/costbench" "$stage/bin/"
	install -m 0755 "$SRC/bench_guest.sh" "$stage/tests/bench_guest.sh"
	install -m 0644 "$OUT/bin/numad_shim.so" "$stage/bench/numad_shim.so"
	install -m 0644 "$plan" "$stage/bench/plan"
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
		cpio --quiet -o -H newc -R 0:0 > "$OUT/overlay-$name.cpio")
	cat "$BASE_INITRD" "$OUT/overlay-$name.cpio" > "$OUT/initramfs-$name.cpio"
	rm -rf "$stage"
}

# boot_plan NAME NODES CPUS KERNEL PLANFILE: one guest boot running the plan.
boot_plan() {
	local name=$1 nodes=$2 cpus=$3 kernel=$4 plan=$5 nruns secs t0 rc=0
	make_initrd "$name" "$plan"
	nruns=$(grep -c . "$plan")
	# budget: run seconds + 40 s per run (first touch, setup, output) + 120
	secs=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "--seconds") s += $(i + 1) } END { print s + 0 }' "$plan")
	t0=$(date +%s)
	log "boot $name: $nodes nodes x $cpus vCPUs x ${BENCH_MEM} MiB, $nruns runs, kernel ${kernel#$TOP/}"
	"$TOP/qemu/boot.sh" --name "bench-$name" --nodes "$nodes" --cpus-per-node "$cpus" \
		--mem-per-node "$BENCH_MEM" --tests bench_guest --kernel "$kernel" \
		--initrd "$OUT/initramfs-$name.cpio" --timeout $((secs + nruns * 40 + 120)) \
		--append "nctimeout=$((secs + nruns * 40 + 60))" --quiet || rc=$?
	cp "$TOP/build/logs/bench-$name.tap" "$OUT/raw/$name.tap" 2>/dev/null || true
	log "boot $name: exit $rc after $(( $(date +%s) - t0 ))s (console: build/logs/bench-$name.log)"
	rm -f "$OUT/initramfs-$name.cpio" "$OUT/overlay-$name.cpio"
	return 0
}

# report: (re)write results.* and locality.png from the boots so far, so an
# interrupted run still leaves the finished boots' numbers.
report() {
	python3 "$SRC/report.py" --out "$OUT" --arms "$BENCH_ARMS" --quick "${QUICK:-0}" --repeat "$REPEAT" \
		--configs "$ALL_CONFIGS" --stamp "$STAMP" \
		--wall $(( $(date +%s) - start_all )) "$OUT"/raw/*.tap || log "report failed"
	if command -v gnuplot >/dev/null 2>&1 && [ -s "$OUT/locality.dat" ]; then
		(cd "$OUT" && gnuplot "$SRC/locality.gp") || log "gnuplot failed"
	else
		log "gnuplot missing (apt-get install -y gnuplot-nox) or no data: no locality.png"
	fi
}

# module_stamp: one line naming what was measured, for results.md: the
# tree's git describe at the start (or BENCH_MODULE_REV), the snapshot's
# numacore.ko checksum, and a warning when module sources are newer than
# the initramfs (bench.sh run without `make bench` after an edit).
module_stamp() {
	local ko sum newer
	ko=$OUT/numacore.ko.measured
	(cd "$OUT" && cpio -i --quiet --to-stdout '*modules/numacore.ko' < base-initramfs.cpio > "$ko" 2>/dev/null) || true
	sum="no numacore.ko in the initramfs"
	[ -s "$ko" ] && sum="numacore.ko sha256 $(sha256sum < "$ko" | cut -c1-12)"
	rm -f "$ko"
	# Tracked files only: build outputs in module/ are newer by nature.
	newer=$(cd "$TOP" && git ls-files module hooks-patch 2>/dev/null |
		while read -r f; do [ "$f" -nt build/initramfs.cpio ] && echo "$f"; done |
		head -n 3 | xargs)
	echo "Module measured: \`$MODULE_REV\` (git describe --always --dirty of the tree at the start$(
		[ -n "${BENCH_MODULE_REV:-}" ] && echo ", given as BENCH_MODULE_REV"); $sum; started $(date -u -d @"$start_all" '+%Y-%m-%d %H:%M UTC'))${newer:+; WARNING: sources newer than build/initramfs.cpio: $newer}."
}

# make_plan NODES: the workload plan of one config, repeats expanded.
make_plan() {
	if [ -n "${BENCH_PLAN_FILE:-}" ]; then
		expand_repeats < "$BENCH_PLAN_FILE"
	else
		plan_workloads "$1" | expand_repeats
	fi
}

if [ "${BENCH_DRY:-0}" = 1 ]; then
	for c in $CONFIGS; do
		IFS=: read -r name n cpus <<< "$c"
		echo "== config $name: $n nodes x $cpus vCPUs x $BENCH_MEM MiB, REPEAT=$REPEAT"
		make_plan "$n"
	done
	if [ "$BENCH_COST" = 1 ]; then
		echo "== cost: stock-kernel.sh (builds build/stock-kernel/bzImage unless it is up to date), then:"
		plan_cost cost-idle unpatched
		plan_cost cost-idle patched_no_policy
		plan_cost cost-loaded patched_numacore_idle
	fi
	exit 0
fi

# module_sum: the numacore.ko checksum named in a stamp on stdin.
module_sum() { grep -o 'numacore.ko sha256 [0-9a-f]*' || true; }

mkdir -p "$OUT/bin" "$OUT/raw"
KEEP=
[ "${BENCH_KEEP:-0}" = 1 ] && [ -s "$OUT/raw/stamp" ] && KEEP=1
[ -n "$KEEP" ] || rm -f "$OUT"/raw/*.tap "$OUT"/raw/stamp "$OUT"/raw/configs
rm -f "$OUT"/results.* "$OUT"/locality.*
build_tools

# Snapshot kernel + initramfs: colleagues may rebuild them while we run.
cp "$TOP/build/bzImage" "$OUT/bzImage"
cp "$TOP/build/initramfs.cpio" "$OUT/base-initramfs.cpio"
BASE_INITRD=$OUT/base-initramfs.cpio
STAMP=$(module_stamp)
if [ -n "$KEEP" ]; then
	[ "$(module_sum <<< "$STAMP")" = "$(module_sum < "$OUT/raw/stamp")" ] ||
		die "BENCH_KEEP=1: build/bench/raw holds runs of another module ($(module_sum < "$OUT/raw/stamp")); run without BENCH_KEEP"
	for c in $CONFIGS; do rm -f "$OUT/raw/${c%%:*}.tap"; done
	[ "$BENCH_COST" = 1 ] && rm -f "$OUT"/raw/cost-*.tap
	STAMP="$(cat "$OUT/raw/stamp") Added with BENCH_KEEP=1: $CONFIGS$(
		[ "$BENCH_COST" = 1 ] && echo ' and the cost rows'), started $(date -u -d @"$start_all" '+%Y-%m-%d %H:%M UTC')."
fi
echo "$STAMP" > "$OUT/raw/stamp"
for c in $CONFIGS; do
	grep -qxF "$c" "$OUT/raw/configs" 2>/dev/null || echo "$c" >> "$OUT/raw/configs"
done
ALL_CONFIGS=$(xargs < "$OUT/raw/configs")
log "$STAMP"

for c in $CONFIGS; do
	IFS=: read -r name n cpus <<< "$c"
	make_plan "$n" > "$OUT/plan-$name"
	boot_plan "$name" "$n" "$cpus" "$OUT/bzImage" "$OUT/plan-$name"
	report
done

if [ "$BENCH_COST" = 1 ]; then
	if bash "$SRC/stock-kernel.sh"; then
		plan_cost cost-idle unpatched > "$OUT/plan-cost-stock"
		boot_plan cost-stock 2 "$BENCH_CPUS" "$TOP/build/stock-kernel/bzImage" "$OUT/plan-cost-stock"
	else
		log "unpatched kernel build failed: cost row (a) not available"
	fi
	{ plan_cost cost-idle patched_no_policy; plan_cost cost-loaded patched_numacore_idle; } > "$OUT/plan-cost-patched"
	boot_plan cost-patched 2 "$BENCH_CPUS" "$OUT/bzImage" "$OUT/plan-cost-patched"
fi

report
cat "$OUT/results.md"
log "done in $(( $(date +%s) - start_all ))s: build/bench/results.{csv,md}, build/bench/locality.png"
