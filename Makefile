# numacore: build / boot / test pipeline.
#
#   make run     build everything, boot the default 2-node guest, run the demo
#   make check   checkpatch + a build of every prefix of the patch series +
#                benchmark-report unit tests + DKMS checks + every boot in
#                module-tests/boots.conf, TAP output
#
# See README.md for the other targets and variables.

SHELL      := /bin/bash
TOP        := $(CURDIR)
# DEBUG=1: the same pipeline on a kernel with KASAN, lockdep, DEBUG_VM,
# kmemleak and fault injection (qemu/debug.config), all in build/debug/.
ifeq ($(DEBUG),1)
BUILD      := $(TOP)/build/debug
export NC_DEBUG := 1
else
BUILD      := $(TOP)/build
endif
export NC_BUILD := $(BUILD)
KSRC_DEFAULT := $(BUILD)/linux-source-6.1
KDIR       ?= $(KSRC_DEFAULT)
JOBS       ?= $(shell nproc)
# Module source directories built against KDIR (skipped when absent).
MODULE_DIRS ?= module module-tests/kmod

# Packages `make deps` installs (Debian 12 names).  patch, xz-utils and perl
# are used directly by the pipeline (applying the series, unpacking the
# tarball, checkpatch) and are listed rather than trusted to come along.
DEPS_PACKAGES := linux-source-6.1 linux-headers-amd64 qemu-system-x86 busybox-static cpio bc bison \
	flex libelf-dev libssl-dev kmod dkms gcc make libc6-dev python3 \
	gnuplot-nox numad patch xz-utils perl dpkg-dev fakeroot rsync

# `make run` guest shape (also the boot.sh defaults).
RUN_NODES  ?= 2
RUN_CPUS   ?= 2
RUN_MEM    ?= 1024
RUN_TIMEOUT ?= 900
# Extra kernel command line for `make run` / `make shell`.
APPEND     ?=

DEPS_STAMP := $(BUILD)/.deps.stamp

.PHONY: all deps kernel deb module module-clean initramfs run shell check clean distclean help

all: initramfs

help:
	@echo "targets: deps kernel deb module initramfs run shell check clean distclean"
	@echo "vars:    KDIR=$(KDIR) JOBS=$(JOBS) MODULE_DIRS='$(MODULE_DIRS)'"
	@echo "         RUN_NODES=$(RUN_NODES) RUN_CPUS=$(RUN_CPUS) RUN_MEM=$(RUN_MEM) APPEND='$(APPEND)'"

# --- host packages ---------------------------------------------------------
# `make deps` always re-checks (a dpkg query, well under a second when all is
# installed); other targets only need the stamp.
deps:
	@qemu/deps.sh $(DEPS_PACKAGES)
	@mkdir -p $(BUILD) && touch $(DEPS_STAMP)

$(DEPS_STAMP):
	@qemu/deps.sh $(DEPS_PACKAGES)
	@mkdir -p $(BUILD) && touch $@

# --- guest kernel ----------------------------------------------------------
# Always invoked: the script keeps its own content-hash stamps and the kernel
# make itself is incremental.
kernel: $(DEPS_STAMP)
	@JOBS=$(JOBS) qemu/build-kernel.sh

# Debian packages (linux-image, linux-headers) of that kernel in build/deb/.
deb: kernel
	@JOBS=$(JOBS) qemu/build-deb.sh

# --- out-of-tree modules ---------------------------------------------------
# With the default KDIR the guest kernel is built first; with KDIR overridden
# (e.g. by dkms) nothing else is pulled in.
module: $(if $(filter $(KSRC_DEFAULT),$(KDIR)),kernel)
	@set -e; for d in $(MODULE_DIRS); do \
		if [ -f $$d/Kbuild ] || [ -f $$d/Makefile ]; then \
			echo "module: building $$d against $(KDIR)"; \
			$(MAKE) -C $(KDIR) M=$(TOP)/$$d modules; \
		else \
			echo "module: $$d absent, skipped"; \
		fi; \
	done

# --- initramfs -------------------------------------------------------------
initramfs: module
	@if [ -f module-tests/Makefile ]; then \
		$(MAKE) -C module-tests OUT=$(BUILD)/module-tests; \
	else \
		echo "initramfs: module-tests/Makefile absent, no test programs"; \
	fi
	@qemu/mkinitramfs.sh

# --- boot ------------------------------------------------------------------
run: initramfs
	qemu/boot.sh --name run --nodes $(RUN_NODES) --cpus-per-node $(RUN_CPUS) \
		--mem-per-node $(RUN_MEM) --tests demo --timeout $(RUN_TIMEOUT) \
		--append "$(APPEND)"

# Interactive busybox shell in the default guest (Ctrl-A x quits QEMU).
shell: initramfs
	qemu/boot.sh --name shell --interactive --nodes $(RUN_NODES) \
		--cpus-per-node $(RUN_CPUS) --mem-per-node $(RUN_MEM) \
		--timeout 86400 --append "$(APPEND)"

# Boots whose extra command line holds "nc-kernel=debug" run on the debug
# kernel: `make check` builds it (in build/debug/) when it runs such a boot.
DEBUG_BOOTS := $(shell awk '/^[^\#]/ && / nc-kernel=debug( |$$)/ { print $$1 }' module-tests/boots.conf 2>/dev/null)
ifneq ($(DEBUG),1)
ifneq ($(if $(CHECK_ONLY),$(filter $(DEBUG_BOOTS),$(CHECK_ONLY)),$(DEBUG_BOOTS)),)
CHECK_DEBUG := debug-initramfs
endif
endif

# The debug build comes first: the modules are built in their source
# directories, so its objects are removed (packed in build/debug/ by then)
# and the normal build that follows remakes them for the normal kernel.
check: $(CHECK_DEBUG) initramfs deb
	@qemu/check.sh

.PHONY: debug-initramfs
debug-initramfs:
	@$(MAKE) --no-print-directory DEBUG=1 initramfs
	@$(MAKE) --no-print-directory DEBUG=1 module-clean

# --- placement benchmark (module-tests/bench/) ------------------------------
# `make bench`: every workload x arm on 2- and 4-node guests + cost of the
# hooks when unused; `make bench QUICK=1`: 2 nodes, 2 workloads (< 10 min);
# REPEAT=N runs every arm N times (results: median and range); BENCH_CONFIGS,
# BENCH_COST and BENCH_KEEP=1 (a full run in parts): see docs/bench.md.
# Results in build/bench/ (results.csv, results.md, locality.png).
.PHONY: bench bench-publish bench-clean
bench: initramfs
	@QUICK=$(QUICK) NODES="$(NODES)" REPEAT=$(REPEAT) BENCH_KEEP=$(BENCH_KEEP) \
		BENCH_CONFIGS="$(BENCH_CONFIGS)" BENCH_COST=$(BENCH_COST) \
		module-tests/bench/bench.sh

# Copy build/bench/results.md into README.md (summary) and docs/bench.md.
bench-publish:
	@module-tests/bench/publish.py $(BUILD)/bench/results.md README.md docs/bench.md

bench-clean:
	rm -rf $(BUILD)/bench $(BUILD)/stock-kernel

# --- housekeeping ----------------------------------------------------------
# The module objects built against KDIR, removed from their source directories.
module-clean:
	@for d in $(MODULE_DIRS); do \
		if [ -d $(KDIR) ] && { [ -f $$d/Kbuild ] || [ -f $$d/Makefile ]; }; then \
			$(MAKE) -s -C $(KDIR) M=$(TOP)/$$d clean; \
		fi; \
	done

clean: module-clean
	rm -rf $(BUILD)/initramfs $(BUILD)/initramfs.cpio $(BUILD)/module-tests $(BUILD)/logs

# Also drops the unpacked kernel tree (the next `make kernel` re-unpacks).
distclean: clean
	rm -rf $(BUILD)
