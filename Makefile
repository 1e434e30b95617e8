# SPDX-License-Identifier: GPL-2.0
# hwage: MGLRU page aging from hardware page-access counters.
# The kernel tree, builds and logs live in $(HWAGE_CACHE), never here.
#
#   make demo                  set up, build, boot ppc64le, show MGLRU at work
#   make test                  set up, build and test both targets
#   make kernel ARCH=x86_64    build one kernel (ARCH: ppc64le, x86_64)
#   make initramfs ARCH=...    build the guest programs and initramfs
#   make boot ARCH=...         interactive serial console (Ctrl-A X quits)
#   make check-series          checkpatch --strict over patches/
#   make emulator              the QEMU counter plugin (emulator/)
#   make bench                 A/B benchmark: base, hca, hca-noref, unconstrained
#                              (bench/run.sh lists its HWAGE_BENCH_* settings)
#   make bench-emulator        guest slowdown with the plugin, exact and sampled
#   make clean                 remove builds and guest images from the cache
#   make distclean             remove the whole cache (kernel tree included)

ARCH ?= ppc64le
HWAGE_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/hwage
export HWAGE_CACHE

S := harness

all: test

setup:
	@bash $(S)/setup.sh

tree: setup
	@bash $(S)/prepare-tree.sh

kernel: tree
	@bash $(S)/build-kernel.sh $(ARCH)

initramfs: setup
	@bash $(S)/mkinitramfs.sh $(ARCH)

boot: kernel initramfs
	@bash $(S)/run-guest.sh $(ARCH) shell

test:
	@bash $(S)/test.sh

demo:
	@bash $(S)/demo.sh

emulator: setup
	@$(MAKE) -s -C emulator HWAGE_CACHE=$(HWAGE_CACHE)

bench:
	@bash bench/run.sh

bench-emulator: emulator
	@bash emulator/slowdown.sh

check-series: tree
	@bash $(S)/check-series.sh

clean:
	rm -rf $(HWAGE_CACHE)/build-* $(HWAGE_CACHE)/guest-*

distclean:
	rm -rf $(HWAGE_CACHE)

.PHONY: all setup tree kernel initramfs boot test demo emulator bench bench-emulator check-series clean distclean
