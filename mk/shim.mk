# SPDX-License-Identifier: GPL-2.0
# owned by engineer B: the LD_PRELOAD shim and bpfilter-hostd, which let
# stock iptables-legacy talk to a bpfilter helper on a host without the
# module (tools/testing/selftests/bpfilter/shim/, README there).
#
#   make shim   -> build/shim/bpfilter_shim.so, build/shim/bpfilter-hostd

# Also usable alone: make -f mk/shim.mk shim
SRCTREE ?= $(CURDIR)
BUILD ?= $(SRCTREE)/build

SHIM_SRC := $(SRCTREE)/tools/testing/selftests/bpfilter/shim
SHIM_LIB := $(SRCTREE)/tools/testing/selftests/bpfilter/lib
SHIM_OUT := $(BUILD)/shim
SHIM_CFLAGS := -O2 -g -Wall -Wextra -Werror -std=gnu11 \
	-I$(SRCTREE)/include/uapi -I$(SHIM_LIB)

shim: $(SHIM_OUT)/bpfilter_shim.so $(SHIM_OUT)/bpfilter-hostd

$(SHIM_OUT)/bpfilter_shim.so: $(SHIM_SRC)/bpfilter_shim.c $(SHIM_LIB)/shim_record.h \
		$(SHIM_LIB)/ipt_sockopt.h $(SRCTREE)/include/uapi/linux/bpfilter.h
	@mkdir -p $(dir $@)
	$(CC) $(SHIM_CFLAGS) -fPIC -shared -o $@ $< -ldl

$(SHIM_OUT)/bpfilter-hostd: $(SHIM_SRC)/hostd_main.c $(SHIM_LIB)/hostd.c \
		$(SHIM_LIB)/mbox_driver.c $(SHIM_LIB)/hostd.h $(SHIM_LIB)/mbox_driver.h \
		$(SRCTREE)/include/uapi/linux/bpfilter.h
	@mkdir -p $(dir $@)
	$(CC) $(SHIM_CFLAGS) -o $@ $(SHIM_SRC)/hostd_main.c $(SHIM_LIB)/hostd.c \
		$(SHIM_LIB)/mbox_driver.c

shim-clean:
	rm -rf $(SHIM_OUT)

.PHONY: shim shim-clean

# A stand-in helper answering from the real ip_tables and ip6_tables (tests
# the tests): BPFILTER_HELPER=build/shim/kernel-proxy build/selftests/test_abi_diff
# (or test_abi_diff6)
$(SHIM_OUT)/kernel-proxy: $(SRCTREE)/tools/testing/selftests/bpfilter/abi/kernel_proxy.c \
		$(SHIM_LIB)/ipt_sockopt.h $(SRCTREE)/include/uapi/linux/bpfilter.h
	@mkdir -p $(dir $@)
	$(CC) $(SHIM_CFLAGS) -o $@ $<

shim: $(SHIM_OUT)/kernel-proxy
