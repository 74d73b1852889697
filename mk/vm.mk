# SPDX-License-Identifier: GPL-2.0
#
# The QEMU test VMs (scripts/vm/): Debian cloud kernels, a busybox initramfs
# with iptables-legacy, bpfilter.ko and the VM selftests.
#
#   make vm-bins                 the selftests' static C helpers
#   make vm-initramfs            kernel + initramfs for every VM kernel
#   make vm-test KVER=... [BACKEND=bpfilter|ip_tables] [VM_TESTS="test_basic"] [NOBPF=1]
#   make vm-demo                 the demo VM (6.12)
#
# The VM kernels are the releases of the installed
# /usr/src/linux-headers-*-cloud-amd64, the ones bpfilter.ko is built for.

VM_DIR := $(BUILD)/vm
VM_BIN := $(VM_DIR)/bin
VM_SRC := tools/testing/selftests/bpfilter/vm
VM_KVERS := $(shell bash scripts/vm/fetch-kernel.sh 2>/dev/null)
VM_CFLAGS := -O2 -g -Wall -Wextra -Werror -std=gnu11 -static

$(VM_BIN)/%: $(VM_SRC)/%.c
	@mkdir -p $(@D)
	$(CC) $(VM_CFLAGS) -o $@ $<

$(VM_BIN)/tcp_flags $(VM_BIN)/flow_probe: $(VM_SRC)/inet_csum.h

# A 32-bit caller, freestanding so that no 32-bit libc is needed.
$(VM_BIN)/ipt_probe32: $(VM_SRC)/ipt_probe32.c
	@mkdir -p $(@D)
	$(CC) -m32 -nostdlib -static -ffreestanding -fno-pic -fno-stack-protector \
		-O2 -Wall -Wextra -Werror -o $@ $<

# The NFLOG listener uses libmnl, which Debian ships as a shared library
# only: linked dynamically, mkinitramfs.sh copies libmnl.so.0 with it.
$(VM_BIN)/nflog_listen: $(VM_SRC)/nflog_listen.c
	@mkdir -p $(@D)
	$(CC) $(filter-out -static,$(VM_CFLAGS)) -o $@ $< -lmnl

vm-bins: $(VM_BIN)/dropuid $(VM_BIN)/ipt_probe $(VM_BIN)/ipt_probe32 $(VM_BIN)/tcp_flags $(VM_BIN)/flow_probe \
	$(VM_BIN)/nflog_listen $(VM_BIN)/sig_storm $(VM_BIN)/sockopt_fuzz

vm-initramfs: vm-bins
	@for k in $(VM_KVERS); do \
		bash scripts/vm/fetch-kernel.sh $$k >/dev/null && \
		bash scripts/vm/mkinitramfs.sh $$k $(VM_DIR)/$$k/initrd.gz || exit 1; \
	done

vm-test: vm-bins
	@test -n "$(KVER)" || { echo "vm-test: set KVER= (one of: $(VM_KVERS))"; exit 1; }
	bash scripts/vm/fetch-kernel.sh $(KVER) >/dev/null
	bash scripts/vm/mkinitramfs.sh $(KVER) $(VM_DIR)/$(KVER)/initrd.gz >/dev/null
	BACKEND=$(or $(BACKEND),bpfilter) VM_TESTS="$(VM_TESTS)" bash scripts/vm/run.sh $(KVER) tests

vm-demo: vm-bins
	bash scripts/demo.sh

vm-clean:
	rm -rf $(VM_DIR)

.PHONY: vm-bins vm-initramfs vm-test vm-demo vm-clean
