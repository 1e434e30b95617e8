# SPDX-License-Identifier: GPL-2.0
# hwage: MGLRU page aging from hardware page-access counters.
# The kernel tree, builds and logs live in $(HWAGE_CACHE), never here.
# `make help` prints the lines starting with "##" below.

ARCH ?= ppc64le
HWAGE_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/hwage
export HWAGE_CACHE

S := harness

## Usage: make TARGET [ARCH=ppc64le|x86_64] (settings: README, "Settings")
##
##   demo            set up, build, boot ppc64le, show MGLRU aging from counts
##   test            set up, build and test both targets on debug kernels
##                   (lockdep, DEBUG_VM, ...); ends "N passed, N failed"
##   test-full       make test with every test in every boot (t13-t17's long
##                   workload comparisons too; longer than 40 minutes)
##   test-kasan      the same on debug kernels with KASAN (slower)
##   kselftest       the kernel's own selftests (cgroup, mm; guest/kselftest/
##                   list) on the unpatched and the patched debug kernels,
##                   counter aging off and on, side by side (both targets)
##   stress          t21-stress for 10 minutes a target on the debug kernels
##                   (HWAGE_STRESS_SECS sets the time)
##   bench           A/B benchmark: base, hca, hca-s16, hca-refs at 1.2x,
##                   10 boots each, guest time from -icount
##                   (bench/run.sh lists its HWAGE_BENCH_* settings)
##   bench-short     a development run: base and hca, 3 boots each, 1.2x,
##                   both targets (any HWAGE_BENCH_* setting still applies)
##   bench-scale     the scale sweep: base and hca in guests of 1, 2, 4 and
##                   8 GiB (x86_64: 1 and 2), workloads scaled, 3 boots each
##
##   setup           install the missing Debian packages (harness/setup.sh)
##   tree            setup, then apply patches/series to the cache's kernel tree
##   kernel          build one kernel: make kernel ARCH=x86_64 (production;
##                   HWAGE_KERNEL=debug or kasan for make test's flavours)
##   initramfs       build the guest programs and initramfs of ARCH
##   boot            interactive serial console of ARCH (Ctrl-A X quits)
##   emulator        the QEMU counter plugin and its tools (emulator/)
##   bench-emulator  guest slowdown with the plugin, exact and sampled
##   check-series    checkpatch --strict over patches/
##   check-bisect    every patch compiles what it touches: x86_64 with the
##                   feature on and off, ppc64le on (after make test)
##   clean           remove kernel, guest and emulator builds; keeps the
##                   kernel tree, the plugin header, logs and bench results
##   distclean       remove the whole cache: tree, builds, logs, results
##   help            this text

all: test

setup:
	@bash $(S)/setup.sh

tree: setup
	@bash $(S)/prepare-tree.sh

kernel: tree
	@bash $(S)/build-kernel.sh $(ARCH)

initramfs: tree
	@bash $(S)/mkinitramfs.sh $(ARCH)

boot: kernel initramfs
	@bash $(S)/run-guest.sh $(ARCH) shell

test:
	@bash $(S)/test.sh

test-full:
	@HWAGE_TEST_SET=full bash $(S)/test.sh

test-kasan:
	@HWAGE_KERNEL=kasan bash $(S)/test.sh

stress:
	@bash $(S)/stress.sh

kselftest:
	@bash $(S)/kselftest.sh

demo:
	@bash $(S)/demo.sh

emulator: setup
	@$(MAKE) -s -C emulator HWAGE_CACHE=$(HWAGE_CACHE)

bench:
	@bash bench/run.sh

bench-short:
	@HWAGE_BENCH_RUNS=$${HWAGE_BENCH_RUNS:-3} HWAGE_BENCH_CONFIGS="$${HWAGE_BENCH_CONFIGS:-base hca}" \
		HWAGE_BENCH_PRESSURES=$${HWAGE_BENCH_PRESSURES:-1.2} bash bench/run.sh

bench-scale:
	@HWAGE_BENCH_RUNS=$${HWAGE_BENCH_RUNS:-3} HWAGE_BENCH_CONFIGS="$${HWAGE_BENCH_CONFIGS:-base hca}" \
		HWAGE_BENCH_PRESSURES=$${HWAGE_BENCH_PRESSURES:-1.2} \
		HWAGE_BENCH_SCALES="$${HWAGE_BENCH_SCALES:-1 2 4 8}" bash bench/run.sh

bench-emulator: emulator
	@bash emulator/slowdown.sh

check-series: tree
	@bash $(S)/check-series.sh

check-bisect: tree
	@bash $(S)/check-bisect.sh

help:
	@sed -n 's/^## \{0,1\}//p' $(firstword $(MAKEFILE_LIST))
	@echo "  HWAGE_CACHE is $(HWAGE_CACHE)"

clean:
	rm -rf $(HWAGE_CACHE)/build-* $(HWAGE_CACHE)/guest-*
	find $(HWAGE_CACHE)/emulator -mindepth 1 -maxdepth 1 ! -name include -exec rm -rf {} + 2>/dev/null || true
	@echo "kept: the kernel tree $(HWAGE_CACHE)/linux, the QEMU plugin header," \
		"logs in $(HWAGE_CACHE)/logs and benchmark results in $(HWAGE_CACHE)/bench" \
		"(make distclean removes all)"

distclean:
	rm -rf $(HWAGE_CACHE)

.PHONY: all help setup tree kernel initramfs boot test test-full test-kasan stress kselftest demo emulator bench bench-short bench-scale bench-emulator check-series check-bisect clean distclean
