# SPDX-License-Identifier: GPL-2.0
#
# bpfilter: top-level build. Each part owns one fragment under mk/:
#   mk/helper.mk     the static usermode helper (net/bpfilter/bpfilter_umh)
#   mk/module.mk     bpfilter.ko for every installed Debian kernel, install, deb
#   mk/selftests.mk  host selftests, ABI differential test, fuzzer
#   mk/shim.mk       host daemon + LD_PRELOAD shim: stock iptables against the helper
#   mk/vm.mk         QEMU kernels, initramfs, VM selftests, demo
#
# `make` builds; `make check` runs every test; `make demo` runs the main job
# (both through scripts/run.sh, which bash can run before make is installed).

SRCTREE := $(CURDIR)
BUILD ?= $(SRCTREE)/build

all: helper modules

include mk/helper.mk
include mk/module.mk
include mk/selftests.mk
include mk/shim.mk
include mk/vm.mk
-include mk/bench.mk

setup:
	bash scripts/setup.sh

# The whole test suite; prints "N passed, N failed" last.
check:
	bash scripts/run.sh check

demo:
	bash scripts/run.sh demo

clean: helper-clean module-clean selftests-clean
	rm -rf $(BUILD)

.PHONY: all setup check demo clean
