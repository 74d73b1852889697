# SPDX-License-Identifier: GPL-2.0
#
# Host selftests (owned by the helper part).
#
#   build/selftests/test_X       every tools/testing/selftests/bpfilter/test_X.c, linked
#                                with every lib/*.c and build/helper/libbpfilter.a
#   build/selftests-asan/test_X  the same with ASan/UBSan, against the ASan library
#   build/fuzz/fuzz_blob         libFuzzer target for the blob parser and the code
#                                generator (clang); seeds: fuzz_seeds.py, run by 30-fuzz.sh
#
# The kselftest harness headers are extracted into build/kselftest first.

SELFTEST_DIR := tools/testing/selftests/bpfilter
SELFTEST_SRCS := $(wildcard $(SELFTEST_DIR)/test_*.c)
SELFTEST_LIB_SRCS := $(wildcard $(SELFTEST_DIR)/lib/*.c)
SELFTEST_LIB_HDRS := $(wildcard $(SELFTEST_DIR)/lib/*.h)
SELFTESTS := $(patsubst $(SELFTEST_DIR)/%.c,$(BUILD)/selftests/%,$(SELFTEST_SRCS))
SELFTESTS_ASAN := $(patsubst $(SELFTEST_DIR)/%.c,$(BUILD)/selftests-asan/%,$(SELFTEST_SRCS))
KSFT_HARNESS := $(BUILD)/kselftest/kselftest_harness.h

SELFTEST_CPPFLAGS := -I$(BUILD)/kselftest -I$(SRCTREE)/$(HELPER_DIR) -I$(SRCTREE)/include/uapi \
	-I$(SRCTREE)/$(SELFTEST_DIR)/lib -DBPFILTER_SRCTREE='"$(SRCTREE)"'
# The harness itself trips -Wunused-parameter and friends: keep the rest strict.
SELFTEST_CFLAGS := -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare -std=gnu11 -pthread
SELFTEST_LDLIBS := -lbpf -lelf -lz -lmnl -pthread

FUZZ_CC ?= clang
FUZZ_BIN := $(BUILD)/fuzz/fuzz_blob
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined -std=gnu11 -Wall -Wextra -Werror

selftests: $(SELFTESTS) $(SELFTESTS_ASAN) $(FUZZ_BIN)

$(KSFT_HARNESS):
	bash scripts/kselftest-harness.sh $(BUILD)/kselftest

$(BUILD)/selftests/%: $(SELFTEST_DIR)/%.c $(SELFTEST_LIB_SRCS) $(SELFTEST_LIB_HDRS) \
		$(HELPER_LIB) $(KSFT_HARNESS) $(wildcard $(HELPER_DIR)/*.h)
	@mkdir -p $(@D)
	$(HELPER_CC) $(SELFTEST_CPPFLAGS) $(SELFTEST_CFLAGS) -o $@ $< $(SELFTEST_LIB_SRCS) \
		$(call HELPER_WHOLE,$(HELPER_LIB)) $(SELFTEST_LDLIBS)

$(BUILD)/selftests-asan/%: $(SELFTEST_DIR)/%.c $(SELFTEST_LIB_SRCS) $(SELFTEST_LIB_HDRS) \
		$(HELPER_ASAN_LIB) $(KSFT_HARNESS) $(wildcard $(HELPER_DIR)/*.h)
	@mkdir -p $(@D)
	$(HELPER_CC) $(SELFTEST_CPPFLAGS) $(SELFTEST_CFLAGS) $(HELPER_ASAN_FLAGS) -o $@ $< \
		$(SELFTEST_LIB_SRCS) $(call HELPER_WHOLE,$(HELPER_ASAN_LIB)) $(SELFTEST_LDLIBS)

# libFuzzer needs clang-built objects, so the helper sources are compiled in directly.
$(FUZZ_BIN): $(SELFTEST_DIR)/fuzz_blob.c $(HELPER_SRCS) $(wildcard $(HELPER_DIR)/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(HELPER_CPPFLAGS) $(FUZZ_FLAGS) -o $@ $< $(HELPER_SRCS) -lbpf -lelf -lz

# The long campaign, not in make check: fuzz_blob for FUZZ_SOAK_SECONDS
# (default an hour) from the seed corpus, with libFuzzer's figures.
fuzz-soak: $(FUZZ_BIN)
	BPFILTER_FUZZ_SECONDS=$(or $(FUZZ_SOAK_SECONDS),3600) bash scripts/suites.d/30-fuzz.sh

selftests-clean:
	rm -rf $(BUILD)/selftests $(BUILD)/selftests-asan $(BUILD)/fuzz

.PHONY: selftests selftests-clean fuzz-soak
