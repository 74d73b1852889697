# SPDX-License-Identifier: GPL-2.0
#
# The usermode helper (owned by the helper part).
#
#   build/helper/libbpfilter.a       every helper object except main.o
#   net/bpfilter/bpfilter_umh        main.o + libbpfilter.a + libbpf/libelf/libz, static
#   build/helper-asan/libbpfilter.a  the same library with ASan/UBSan, for tests
#   build/helper-asan/bpfilter_umh   a dynamically linked ASan/UBSan helper, for tests
#
# Helper sources are every net/bpfilter/*.c except the kernel module's own
# files (bpfilter_kern.c, bpfilter_kfunc.c, umh*.c) and BPF objects (*.bpf.c).

HELPER_DIR := net/bpfilter
HELPER_ALL_SRCS := $(wildcard $(HELPER_DIR)/*.c)
HELPER_SRCS := $(filter-out $(HELPER_DIR)/main.c $(HELPER_DIR)/bpfilter_kern.c \
	$(HELPER_DIR)/bpfilter_kfunc.c \
	$(HELPER_DIR)/umh%.c $(HELPER_DIR)/%.bpf.c $(HELPER_DIR)/%.mod.c,$(HELPER_ALL_SRCS))

HELPER_CC ?= gcc
HELPER_CPPFLAGS := -I$(SRCTREE)/include/uapi -I$(SRCTREE)/$(HELPER_DIR) \
	$(shell pkg-config --cflags libbpf 2>/dev/null)
HELPER_CFLAGS := -O2 -g -Wall -Wextra -Werror -std=gnu11 -MMD -MP
HELPER_ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
HELPER_LDLIBS := $(shell pkg-config --static --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz)

HELPER_OBJDIR := $(BUILD)/helper/obj
HELPER_ASAN_OBJDIR := $(BUILD)/helper-asan/obj
HELPER_OBJS := $(patsubst $(HELPER_DIR)/%.c,$(HELPER_OBJDIR)/%.o,$(HELPER_SRCS))
HELPER_ASAN_OBJS := $(patsubst $(HELPER_DIR)/%.c,$(HELPER_ASAN_OBJDIR)/%.o,$(HELPER_SRCS))
HELPER_LIB := $(BUILD)/helper/libbpfilter.a
HELPER_ASAN_LIB := $(BUILD)/helper-asan/libbpfilter.a
HELPER_BIN := $(HELPER_DIR)/bpfilter_umh
HELPER_ASAN_BIN := $(BUILD)/helper-asan/bpfilter_umh

# The whole archive is linked so that optional parts found through weak
# symbols (the BPF backend) are pulled in too.
HELPER_WHOLE = -Wl,--whole-archive $(1) -Wl,--no-whole-archive

helper: $(HELPER_BIN) $(HELPER_LIB) $(HELPER_ASAN_LIB) $(HELPER_ASAN_BIN)

$(HELPER_OBJDIR)/%.o: $(HELPER_DIR)/%.c
	@mkdir -p $(@D)
	$(HELPER_CC) $(HELPER_CPPFLAGS) $(HELPER_CFLAGS) -c -o $@ $<

$(HELPER_ASAN_OBJDIR)/%.o: $(HELPER_DIR)/%.c
	@mkdir -p $(@D)
	$(HELPER_CC) $(HELPER_CPPFLAGS) $(HELPER_CFLAGS) $(HELPER_ASAN_FLAGS) -c -o $@ $<

$(HELPER_LIB): $(HELPER_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(HELPER_ASAN_LIB): $(HELPER_ASAN_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(HELPER_BIN): $(HELPER_OBJDIR)/main.o $(HELPER_LIB)
	$(HELPER_CC) -static -o $@ $(HELPER_OBJDIR)/main.o \
		$(call HELPER_WHOLE,$(HELPER_LIB)) $(HELPER_LDLIBS)

$(HELPER_ASAN_BIN): $(HELPER_ASAN_OBJDIR)/main.o $(HELPER_ASAN_LIB)
	$(HELPER_CC) $(HELPER_ASAN_FLAGS) -o $@ $(HELPER_ASAN_OBJDIR)/main.o \
		$(call HELPER_WHOLE,$(HELPER_ASAN_LIB)) -lbpf -lelf -lz

-include $(HELPER_OBJS:.o=.d) $(HELPER_ASAN_OBJS:.o=.d) \
	$(HELPER_OBJDIR)/main.d $(HELPER_ASAN_OBJDIR)/main.d

helper-clean:
	rm -rf $(BUILD)/helper $(BUILD)/helper-asan $(HELPER_BIN)

.PHONY: helper helper-clean
