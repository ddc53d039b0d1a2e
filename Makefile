# SPDX-License-Identifier: GPL-2.0
#
# DAMON with a configfs interface: build, test and demo entry points.
#
#   make demo        build, boot UML, monitor a bundled workload, show it
#   make check       kunit + selftests (UML and x86_64) + patches-check
#                    + tools tests + make shell's test; totals last
#   make kunit       KUnit suites in the debug UML kernel (kunit.py exec)
#   make uml         the bootable UML kernel with our DAMON built in
#   make selftests   boot that kernel over hostfs and run selftests/*.bats
#   make x86         an x86_64 kernel with our DAMON, for QEMU (TCG)
#   make check-x86   boot it under QEMU and run selftests/*.bats there
#   make tools       the userspace tool(s) under tools/
#   make shell       a root shell in the booted kernel (PLATFORM=x86: QEMU)
#   make patches     our DAMON as a git am-able series against 6.12
#                    (build/patches); make patches-check applies and
#                    builds it
#
# Two flavours of the UML kernel: normal (build/uml) and debug (lockdep,
# KASAN, kmemleak, ...: scripts/uml-debug.config over scripts/uml.config,
# built in build/uml-debug; selftest results in build/results/debug/).
# By default uml, selftests and check use both: every suite on the normal
# kernel, the hardening suites (DEBUG_SUITES: the smoke test, the fuzzer
# and the races) on the debug kernel too.
# DEBUG=0: the normal kernel only; DEBUG=1: every suite on the debug
# kernel only; DEBUG=both: every suite on both.
#
# The x86_64 kernel (build/x86, scripts/x86.config over allnoconfig) adds
# what UML lacks: transparent huge pages and realistic fault costs.  The
# suites of X86_SUITES run on it as well (results in build/results/x86/),
# every suite under make check-x86; X86=0 leaves it out of selftests and
# check.
#
# KSRC=/path/to/linux uses that 6.12-compatible tree instead of Debian's
# linux-source-6.12.  Nothing in KSRC (or /usr/src) is ever modified.

KSRC	?=
BUILD	:= $(CURDIR)/build
TREE	:= $(BUILD)/linux
UML_O	:= $(BUILD)/uml
RESULTS	:= $(BUILD)/results
JOBS	?= $(shell nproc)
UML	:= $(UML_O)/linux
UML_DBG_O := $(BUILD)/uml-debug
UML_DBG	:= $(UML_DBG_O)/linux
X86_O	:= $(BUILD)/x86
X86_IMG	:= $(X86_O)/arch/x86/boot/bzImage
X86	?= 1

# The kernel flavours that uml, selftests and check work on, and which
# suites run on the debug kernel (empty: all).  By default every suite runs
# on the normal kernel and the hardening suites (the fuzzer, the races) run
# again on the debug kernel: the debug kernel runs the suites 3-4 times
# slower (measured), too slow for all of them within CI's 40 minutes.
DEBUG	?=
DEBUG_SUITES ?= 00-smoke 60-fuzz 70-races 71-races-pids-memory
ifeq ($(DEBUG),)
FLAVOURS := normal debug
else ifeq ($(DEBUG),0)
FLAVOURS := normal
DEBUG_SUITES :=
else ifeq ($(DEBUG),1)
FLAVOURS := debug
DEBUG_SUITES :=
else ifeq ($(DEBUG),both)
FLAVOURS := normal debug
DEBUG_SUITES :=
else
$(error DEBUG must be empty, 0, 1 or both, not "$(DEBUG)")
endif
# The results stage (see scripts/totals.sh) of each flavour's selftests.
ST_STAGE_normal	:= selftests
ST_STAGE_debug	:= debug/selftests
ST_STAGE_x86	:= x86/selftests

# ccache keeps rebuilds in fresh clones fast; use it when it is there.
# Expanded when a recipe runs, not when make starts: on a new machine make
# deps installs ccache first, and a kernel built once without it would be
# built again in full by the next make (kbuild rebuilds what a changed CC
# line compiled).
KCC	= $(if $(shell command -v ccache 2>/dev/null),CC="ccache gcc")
export CCACHE_BASEDIR := $(CURDIR)
# Depend mode: on a miss ccache runs only the compiler and takes the
# headers from its -MMD file, where the default mode runs the preprocessor
# once more to hash its output.  Measured on an empty cache (x86_64 mm/,
# fs/ and kernel/, 441 files, -j2): 174-178 s without ccache, 273 s with
# it by default, 211-250 s in depend mode; a second build hits as before.
export CCACHE_DEPEND := 1
export CCACHE_NOHASHDIR := 1

KMAKE = $(MAKE) -C $(TREE) O=$(UML_O) ARCH=um $(KCC) -j$(JOBS)
KMAKE_DBG = $(MAKE) -C $(TREE) O=$(UML_DBG_O) ARCH=um $(KCC) -j$(JOBS)
KMAKE_X86 = $(MAKE) -C $(TREE) O=$(X86_O) ARCH=x86_64 $(KCC) -j$(JOBS)

# Debian packages the build and tests need.
DEB_PKGS := linux-source-6.12 build-essential flex bison bc libelf-dev \
	    libssl-dev python3 bats ccache xz-utils patch procps kmod \
	    qemu-system-x86 zlib1g-dev file git python3-docutils \
	    bash-builtins

.PHONY: all deps tree uml uml-normal uml-debug x86 kunit selftests \
	selftests-normal selftests-debug selftests-x86 check-x86 tools \
	tools-test check demo shell shell-test clean distclean FORCE

all: uml tools

# ---------------------------------------------------------------- set-up

deps: $(BUILD)/.deps
$(BUILD)/.deps:
	@scripts/install-deps.sh $(if $(KSRC),$(filter-out linux-source-6.12,$(DEB_PKGS)),$(DEB_PKGS))
	@mkdir -p $(BUILD) && touch $@

# Refreshes the mm/damon links every time; extracts and patches only once.
tree: deps
	@scripts/prepare-tree.sh $(TREE) $(KSRC)

# ---------------------------------------------------------------- kernels

# kconfig KMAKE,OUT,TREE,BASE,FRAGMENTS[,CHECKED]: OUT/.config from the
# BASE configuration (defconfig, allnoconfig) with FRAGMENTS merged over it
# in order, then checked: every option of the CHECKED fragments (default:
# all of them) must have survived.
define kconfig
	@mkdir -p $(2)
	@echo "  CONFIG  $(2)"
	@$(1) -s $(4)
	@cd $(2) && $(3)/scripts/kconfig/merge_config.sh -m -O $(2) \
		$(2)/.config $(addprefix $(CURDIR)/,$(5)) >/dev/null
	@$(1) -s olddefconfig
	@scripts/check-config.sh $(2)/.config $(or $(6),$(5))
endef

# UML kernels start from allnoconfig, as the x86_64 one does: only what
# scripts/uml.config asks for is built.
UML_BASE := allnoconfig

$(UML_O)/.config: scripts/uml.config | tree
	$(call kconfig,$(KMAKE),$(UML_O),$(TREE),$(UML_BASE),$^)

# The debug flavour: the same tree, its own output directory.
$(UML_DBG_O)/.config: scripts/uml.config scripts/uml-debug.config | tree
	$(call kconfig,$(KMAKE_DBG),$(UML_DBG_O),$(TREE),$(UML_BASE),$^)

# x86_64 for QEMU: allnoconfig and what booting, 9p root, the selftests
# and DAMON need (builds in minutes, where a defconfig took 21).
$(X86_O)/.config: scripts/x86.config | tree
	$(call kconfig,$(KMAKE_X86),$(X86_O),$(TREE),allnoconfig,$^)

uml: $(addprefix uml-,$(FLAVOURS))

uml-normal: tree $(UML_O)/.config
	@echo "  BUILD   $(UML)"
	@$(KMAKE) -s linux

uml-debug: tree $(UML_DBG_O)/.config
	@echo "  BUILD   $(UML_DBG)"
	@$(KMAKE_DBG) -s linux

x86: tree $(X86_O)/.config
	@echo "  BUILD   $(X86_IMG)"
	@$(KMAKE_X86) -s bzImage

# The KUnit suites run in the debug UML kernel (lockdep, KASAN, UBSAN,
# list debugging), which builds them in: no kernel of their own.
kunit: uml-debug
	@mkdir -p $(RESULTS)
	@scripts/run-kunit.sh $(TREE) $(UML_DBG_O) $(RESULTS)/kunit.counts

# ---------------------------------------------------------------- tests

# The selftest stages: each UML flavour, then x86_64 unless X86=0.
ST_RUNS	:= $(FLAVOURS) $(if $(filter 0,$(X86)),,x86)

# Every stage runs even if an earlier one fails.
selftests:
	@rc=0; for f in $(ST_RUNS); do \
		$(MAKE) --no-print-directory selftests-$$f || rc=1; \
	done; exit $$rc

# The 90-damo suite runs tools/out/damo.
selftests-normal: uml-normal tools
	@$(MAKE) -s -C selftests
	@mkdir -p $(RESULTS)
	@scripts/run-selftests.sh $(UML) $(RESULTS)/$(ST_STAGE_normal)

# The debug kernel runs everything several times slower.
selftests-debug: uml-debug tools
	@$(MAKE) -s -C selftests
	@mkdir -p $(RESULTS)/debug
	@ST_TIMEOUT=$${ST_TIMEOUT:-7200} ST_TEST_TIMEOUT=$${ST_TEST_TIMEOUT:-900} \
		scripts/run-selftests.sh $(UML_DBG) $(RESULTS)/$(ST_STAGE_debug) \
		$(DEBUG_SUITES)

# The suites under QEMU (TCG) on the x86_64 kernel: X86_SUITES (empty:
# all).  TCG runs bash about twice as slow as UML does (measured: all
# suites 1177 s on two machines, against ~600 s in UML), so make check
# runs there the suites that exercise what UML cannot: the smoke test,
# monitoring (PMD Accessed bits of THPs, real faults), physical memory
# (two NUMA nodes: migration), DAMOS (THP actions, swap) and damo, and of
# those only the tests tagged x86 (X86_TAGS; "# bats test_tags=x86"): the
# ones whose outcome depends on the machine (page tables, THP, NUMA, RAM
# layout, swap, PSI, timing).  The rest test platform-independent code,
# which the normal and debug UML kernels cover.  make check-x86 runs every
# test of every suite.
X86_SUITES ?= 00-smoke 50-monitoring 55-paddr 80-damos 85-self-tuning 90-damo
X86_TAGS ?= x86

selftests-x86: x86 tools
	@$(MAKE) -s -C selftests
	@mkdir -p $(RESULTS)/x86
	@ST_TIMEOUT=$${ST_TIMEOUT:-3600} ST_TEST_TIMEOUT=$${ST_TEST_TIMEOUT:-600} \
		ST_TAGS=$(X86_TAGS) \
		scripts/run-selftests.sh $(X86_IMG) $(RESULTS)/$(ST_STAGE_x86) \
		$(X86_SUITES)

check-x86: deps
	@rm -f $(RESULTS)/$(ST_STAGE_x86).counts
	@rc=0; $(MAKE) --no-print-directory selftests-x86 X86_SUITES= X86_TAGS= || rc=1; \
	scripts/totals.sh $(RESULTS) $(ST_STAGE_x86) || rc=1; exit $$rc

# tools/ gets its first program with the damo issue; until then there is
# nothing to build or test there.
HAVE_TOOLS := $(wildcard tools/Makefile)

tools:
ifneq ($(HAVE_TOOLS),)
	@$(MAKE) -s -C tools
endif

tools-test: tools
ifneq ($(HAVE_TOOLS),)
	@mkdir -p $(RESULTS)
	@$(MAKE) -s -C tools test RESULTS=$(RESULTS)/tools.counts
endif

# Each stage's wall time is printed before the totals (CI's budget is
# 45 minutes on 2 cores, on a machine that may be brand new).  The stages
# run one after another: the x86_64 suites were tried in the background
# beside the UML ones, and the whole took longer (the UML suites already
# keep both cores busy, two machines side by side).  So would the x86_64
# kernel's build beside them, even in the idle scheduling class: the UML
# suites leave only 14 % of the 2 cores idle, and beside a SCHED_IDLE
# build that got a third of the CPU they ran 1.35x slower (measured
# 2026-12-07).  That saves about 2 of 30 minutes on a brand-new machine,
# at the price of timing tests running slower than they were tuned for.
check: deps
	@mkdir -p $(RESULTS)
	@rm -f $(RESULTS)/*.counts $(RESULTS)/*/*.counts
	@rc=0; times=; \
	stage() { local t0=$$(date +%s) r=0; \
		$(MAKE) --no-print-directory $$1 || r=1; \
		times="$$times $$1 $$(( $$(date +%s) - t0 ))s,"; return $$r; }; \
	stage kunit || rc=1; \
	for f in $(ST_RUNS); do stage selftests-$$f || rc=1; done; \
	stage patches-check || rc=1; \
	stage tools-test || rc=1; \
	stage shell-test || rc=1; \
	echo "stage times:$${times%,}"; \
	scripts/totals.sh $(RESULTS) kunit \
		$(foreach f,$(ST_RUNS),$(ST_STAGE_$(f))) patches \
		$(if $(HAVE_TOOLS),tools) shell || rc=1; \
	exit $$rc

demo: uml-normal tools
	@$(MAKE) -s -C selftests
	@scripts/demo.sh $(UML)

# make shell: a root shell in the UML kernel (DEBUG=1: the debug one), or
# with PLATFORM=x86 in the x86_64 kernel under QEMU (scripts/shell.sh).
# Builds report on stderr: with commands on stdin, stdout is the shell's.
PLATFORM ?= uml
SHELL_BUILD_uml	:= uml-$(firstword $(FLAVOURS))
SHELL_BUILD_x86	:= x86
SHELL_KERNEL_uml := $(if $(filter debug,$(firstword $(FLAVOURS))),$(UML_DBG),$(UML))
SHELL_KERNEL_x86 := $(X86_IMG)

shell:
	@[ -n "$(SHELL_BUILD_$(PLATFORM))" ] || \
		{ echo "PLATFORM must be uml or x86, not '$(PLATFORM)'" >&2; exit 2; }
	@$(MAKE) --no-print-directory $(SHELL_BUILD_$(PLATFORM)) tools >&2
	@$(MAKE) -s -C selftests >&2
	@scripts/shell.sh $(SHELL_KERNEL_$(PLATFORM))

# The test of make shell, a stage of check: commands on stdin (UML, and
# x86_64 unless X86=0), and the interactive shell on a pseudo-terminal.
shell-test:
	@mkdir -p $(RESULTS)
	@scripts/shell-test.sh $(RESULTS)/shell.counts $(if $(filter 0,$(X86)),,x86)

# ---------------------------------------------------------------- patches

# make patches: our DAMON as a patch series against the pristine 6.12 tree
# in build/patches (README, series, *.patch), for git am or patch -p1:
# the UML fix, mm/damon, mm/damon/tests, include/linux/damon.h, kunit and
# kselftest configuration, the tracepoints, the documentation.
# scripts/make-patches.sh makes it from what prepare-tree.sh lays into the
# build's tree, so it cannot differ from what we build and test.
#
# make patches-check: the series on a fresh extract of the directories it
# touches with git am and with patch -p1, the result compared with the
# build's tree, its documentation parsed, and the UML kernel built from
# the patched tree with scripts/uml.config, as uml-normal
# (scripts/patches-check.sh; counts in $(RESULTS)/patches.counts).  The patched tree and its output directory
# sit at the same relative place as build/linux and build/uml (../linux
# from the output directory): ccache, which rewrites paths below
# CCACHE_BASEDIR to relative ones, then finds the normal build's objects.
PATCHES	:= $(BUILD)/patches
PC	:= $(BUILD)/patches-check
PC_TREE	:= $(PC)/linux
PC_O	:= $(PC)/uml
KMAKE_PC = $(MAKE) -C $(PC_TREE) O=$(PC_O) ARCH=um $(KCC) -j$(JOBS)

.PHONY: patches patches-check patches-check-uml

# Made again only when one of its sources changed (the directories, "/."
# and not their bare names, which are also targets: files added or
# removed).
PATCHES_SRCS := kernel/. kunit/. $(wildcard kernel/* kernel/include/* \
	kernel/include/trace/* kunit/* kunit/.kunitconfig) \
	scripts/patches/. $(wildcard scripts/patches/*.patch) configfs-layout.md \
	scripts/make-patches.sh scripts/series-docs.py scripts/md2rst.py \
	scripts/prepare-tree.sh scripts/extract-tree.sh

patches: $(PATCHES)/series
$(PATCHES)/series: $(PATCHES_SRCS) | deps
	@scripts/make-patches.sh $(PATCHES) $(BUILD)/patches-work $(KSRC)

patches-check: patches tree
	@mkdir -p $(RESULTS)
	@PC_BUILD="$(MAKE) --no-print-directory patches-check-uml" \
		scripts/patches-check.sh $(PATCHES) $(PC) \
		$(RESULTS)/patches.counts $(TREE) $(KSRC)

# The UML kernel of the tree that patches-check patched.
patches-check-uml:
	$(call kconfig,$(KMAKE_PC),$(PC_O),$(PC_TREE),$(UML_BASE),scripts/uml.config)
	@echo "  BUILD   $(PC_O)/linux"
	@$(KMAKE_PC) -s linux

# ---------------------------------------------------------------- cleaning

clean:
	rm -rf $(UML_O) $(UML_DBG_O) $(X86_O) $(BUILD)/kunit $(RESULTS)
	-$(MAKE) -s -C selftests clean
	$(if $(HAVE_TOOLS),-$(MAKE) -s -C tools clean)
	rm -rf $(PC) $(PC)-logs $(BUILD)/patches-work

distclean:
	rm -rf $(BUILD)

# ---------------------------------------------------------------- bench

# make bench: overhead, accuracy and DAMOS effect of our DAMON side by side
# with upstream DAMON (sysfs) built from a pristine copy of the same tree
# (build/upstream/linux, same UML patches) in build/upstream/uml.  Not a
# test: nothing here is part of check.  See bench/README.md.
# The tree and output directory sit at the same relative place as ours
# (../linux from the output directory), so that ccache, which rewrites
# paths below CCACHE_BASEDIR to relative ones, finds our kernel's objects
# for every file DAMON's configuration does not change.
UP_TREE	:= $(BUILD)/upstream/linux
UP_O	:= $(BUILD)/upstream/uml
UP_UML	:= $(UP_O)/linux
KMAKE_UP = $(MAKE) -C $(UP_TREE) O=$(UP_O) ARCH=um $(KCC) -j$(JOBS)

.PHONY: bench uml-upstream x86-upstream upstream-tree bench-workloads

# The pristine tree: upstream's own mm/damon, our UML patches.
upstream-tree: deps
	@LINK_DAMON=0 scripts/prepare-tree.sh $(UP_TREE) $(KSRC)

$(UP_O)/.config: scripts/uml.config bench/uml-upstream.config | upstream-tree
	$(call kconfig,$(KMAKE_UP),$(UP_O),$(UP_TREE),$(UML_BASE),$^,bench/uml-upstream.config)

uml-upstream: upstream-tree $(UP_O)/.config
	@echo "  BUILD   $(UP_UML)"
	@$(KMAKE_UP) -s linux

# The same for x86_64 (QEMU): scripts/x86.config, then upstream's sysfs
# interface instead of ours.
UP_X86_O := $(BUILD)/upstream/x86
UP_X86_IMG := $(UP_X86_O)/arch/x86/boot/bzImage
KMAKE_UP_X86 = $(MAKE) -C $(UP_TREE) O=$(UP_X86_O) ARCH=x86_64 $(KCC) -j$(JOBS)

$(UP_X86_O)/.config: scripts/x86.config bench/x86-upstream.config | upstream-tree
	$(call kconfig,$(KMAKE_UP_X86),$(UP_X86_O),$(UP_TREE),allnoconfig,$^,\
		bench/x86-upstream.config)

x86-upstream: upstream-tree $(UP_X86_O)/.config
	@echo "  BUILD   $(UP_X86_IMG)"
	@$(KMAKE_UP_X86) -s bzImage

bench-workloads:
	@$(MAKE) -s -C bench/workloads

# make bench-profile: where the kdamond's time goes, on x86_64, for both
# DAMONs: the same kernels with the function profiler added
# (bench/x86-profile.config) in their own output directories, and only the
# bench's profile phase (bench/README.md, "Where the time goes").
X86_PROF_O := $(BUILD)/x86-prof
UP_X86_PROF_O := $(BUILD)/upstream/x86-prof
KMAKE_X86_PROF = $(MAKE) -C $(TREE) O=$(X86_PROF_O) ARCH=x86_64 $(KCC) -j$(JOBS)
KMAKE_UP_X86_PROF = $(MAKE) -C $(UP_TREE) O=$(UP_X86_PROF_O) ARCH=x86_64 $(KCC) -j$(JOBS)

$(X86_PROF_O)/.config: scripts/x86.config bench/x86-profile.config | tree
	$(call kconfig,$(KMAKE_X86_PROF),$(X86_PROF_O),$(TREE),allnoconfig,$^,\
		bench/x86-profile.config)

$(UP_X86_PROF_O)/.config: scripts/x86.config bench/x86-upstream.config \
		bench/x86-profile.config | upstream-tree
	$(call kconfig,$(KMAKE_UP_X86_PROF),$(UP_X86_PROF_O),$(UP_TREE),\
		allnoconfig,$^,bench/x86-upstream.config bench/x86-profile.config)

.PHONY: x86-prof x86-upstream-prof bench-profile
x86-prof: tree $(X86_PROF_O)/.config
	@$(KMAKE_X86_PROF) -s bzImage

x86-upstream-prof: upstream-tree $(UP_X86_PROF_O)/.config
	@$(KMAKE_UP_X86_PROF) -s bzImage

bench-profile: x86-prof x86-upstream-prof bench-workloads
	@BENCH_PHASES=$${BENCH_PHASES:-profile} BENCH_SIZES=$${BENCH_SIZES:-16:1024} \
		bench/platforms.sh $(BUILD)/bench-profile x86 \
		$(X86_PROF_O)/arch/x86/boot/bzImage \
		$(UP_X86_PROF_O)/arch/x86/boot/bzImage

# Both platforms by default, side by side (bench/platforms.sh);
# BENCH_PLATFORMS=uml or x86 for one.  x86_64 goes beyond UML's sizes (a
# 512 MiB workload crashes UML) with 2 GiB.
BENCH_PLATFORMS ?= uml x86
BENCH_DEPS_uml := uml-normal uml-upstream
BENCH_DEPS_x86 := x86 x86-upstream
BENCH_ARGS_uml := uml $(UML) $(UP_UML)
BENCH_ARGS_x86 := x86 $(X86_IMG) $(UP_X86_IMG)

bench: $(foreach p,$(BENCH_PLATFORMS),$(BENCH_DEPS_$(p))) bench-workloads tools
	@bench/platforms.sh $(BUILD)/bench \
		$(foreach p,$(BENCH_PLATFORMS),$(BENCH_ARGS_$(p)))
