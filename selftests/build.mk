# SPDX-License-Identifier: GPL-2.0-only
# The conformance suite: one static binary per selftests/*_test.c (whoever
# writes the file), linked with the confiner library and the kselftest
# harness, so the same binaries run here and in every VM's initramfs.
# Other fragments may add libraries a test needs: SELFTESTS_LIBS += ...

SELFTESTS_SRCS := $(sort $(wildcard selftests/*_test.c))
SELFTESTS_BINS := $(patsubst selftests/%.c,$(BUILD)/selftests/%,$(SELFTESTS_SRCS))
SELFTESTS_LIBS += $(OBJ)/libjr2.a
# -isystem: the harness headers are not ours to warn about.
SELFTESTS_CFLAGS := -isystem $(KSFT_INC) -Iselftests -I$(BUILD)
# The promises the suite proves: the project's own (docs/PROMISES.md).
PROMISES ?= docs/PROMISES.md
# Programs the suite's tests run besides the shipped ones (fx_tool()).
SUITE_TOOLS := $(BIN)/jr2-try

TEST_BINS += $(SELFTESTS_BINS)
TEST_STEPS += selftests coverage

.PHONY: selftests test-selftests test-coverage

selftests: $(SELFTESTS_BINS)

# Libraries come from the recipe (expanded when it runs), so fragments
# included after this one can still add theirs.
$(BUILD)/selftests/%_test: selftests/%_test.c $(wildcard selftests/*.h) \
		$(KSFT_INC)/kselftest_harness.h $(OBJ)/libjr2.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SELFTESTS_CFLAGS) -o $@ $< $(SELFTESTS_LIBS) \
		$(LDFLAGS_STATIC)

# The tests run the shipped programs too (jr2-confine, jr2-harness, ...).
test-selftests: $(SELFTESTS_BINS) $(BINS) $(SUITE_TOOLS)
	@mkdir -p $(TEST_RESULTS)
	selftests/run-tests $(BUILD)/selftests | tee $(TEST_RESULTS)/selftests.tap

test-coverage:
	@mkdir -p $(TEST_RESULTS)
	PROMISES=$(PROMISES) $(PYTHON) selftests/coverage selftests \
		| tee $(TEST_RESULTS)/coverage.tap
