# SPDX-License-Identifier: GPL-2.0
#
# DAMON with a configfs interface: build, test and demo entry points.
#
#   make demo        build, boot UML, monitor a bundled workload, show it
#   make check       kunit + selftests (in UML) + tools tests; totals last
#   make kunit       KUnit suites through the tree's kunit.py (ARCH=um)
#   make uml         the bootable UML kernel with our DAMON built in
#   make selftests   boot that kernel over hostfs and run selftests/*.bats
#   make tools       the userspace tool(s) under tools/
#
# KSRC=/path/to/linux uses that 6.12-compatible tree instead of Debian's
# linux-source-6.12.  Nothing in KSRC (or /usr/src) is ever modified.

KSRC	?=
BUILD	:= $(CURDIR)/build
TREE	:= $(BUILD)/linux
UML_O	:= $(BUILD)/uml
KUNIT_O	:= $(BUILD)/kunit
RESULTS	:= $(BUILD)/results
JOBS	?= $(shell nproc)
UML	:= $(UML_O)/linux

# ccache keeps rebuilds in fresh clones fast; use it when it is there.
CCACHE	:= $(shell command -v ccache 2>/dev/null)
ifneq ($(CCACHE),)
KCC	:= CC="ccache gcc"
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
else
KCC	:=
endif

KMAKE	:= $(MAKE) -C $(TREE) O=$(UML_O) ARCH=um $(KCC) -j$(JOBS)

# Debian packages the build and tests need.
DEB_PKGS := linux-source-6.12 build-essential flex bison bc libelf-dev \
	    libssl-dev python3 bats ccache xz-utils patch procps kmod

.PHONY: all deps tree uml kunit selftests tools tools-test check demo \
	clean distclean FORCE

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

$(UML_O)/.config: scripts/uml.config | tree
	@mkdir -p $(UML_O)
	@echo "  CONFIG  $(UML_O)"
	@$(KMAKE) -s defconfig
	@cd $(UML_O) && $(TREE)/scripts/kconfig/merge_config.sh -m -O $(UML_O) \
		$(UML_O)/.config $(CURDIR)/scripts/uml.config >/dev/null
	@$(KMAKE) -s olddefconfig
	@scripts/check-config.sh $(UML_O)/.config scripts/uml.config

uml: tree $(UML_O)/.config
	@echo "  BUILD   $(UML)"
	@$(KMAKE) -s linux

kunit: tree
	@mkdir -p $(RESULTS)
	@scripts/run-kunit.sh $(TREE) $(KUNIT_O) $(CURDIR)/kunit/.kunitconfig \
		$(JOBS) $(RESULTS)/kunit.counts $(KCC)

# ---------------------------------------------------------------- tests

selftests: uml
	@$(MAKE) -s -C selftests
	@mkdir -p $(RESULTS)
	@scripts/run-selftests.sh $(UML) $(RESULTS)/selftests

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

check: deps
	@rm -f $(RESULTS)/*.counts
	@rc=0; \
	$(MAKE) --no-print-directory kunit || rc=1; \
	$(MAKE) --no-print-directory selftests || rc=1; \
	$(MAKE) --no-print-directory tools-test || rc=1; \
	scripts/totals.sh $(RESULTS) kunit selftests $(if $(HAVE_TOOLS),tools) \
		|| rc=1; \
	exit $$rc

demo: uml tools
	@$(MAKE) -s -C selftests
	@scripts/demo.sh $(UML)

# ---------------------------------------------------------------- cleaning

clean:
	rm -rf $(UML_O) $(KUNIT_O) $(RESULTS)
	-$(MAKE) -s -C selftests clean
	$(if $(HAVE_TOOLS),-$(MAKE) -s -C tools clean)

distclean:
	rm -rf $(BUILD)
