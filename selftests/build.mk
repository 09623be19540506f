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

.PHONY: selftests test-selftests test-coverage ksft-runtime

selftests: $(SELFTESTS_BINS)

# Libraries come from the recipe (expanded when it runs), so fragments
# included after this one can still add theirs.
$(BUILD)/selftests/%_test: selftests/%_test.c $(wildcard selftests/*.h) \
		runtime/tests/try_shared.h \
		$(KSFT_INC)/kselftest_harness.h $(OBJ)/libjr2.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SELFTESTS_CFLAGS) -o $@ $< $(filter %.o,$^) \
		$(SELFTESTS_LIBS) $(LDFLAGS_STATIC)
$(BUILD)/selftests/race_test: $(CONFINE_SEAM_OBJ)

# The runtime the suite links and runs, for selftests/Makefile in a kernel
# tree (JR2_BUILD there): the libraries, the shipped programs and jr2-try.
ksft-runtime: deps $(OBJ)/libjr2.a $(OBJ)/libjr2harness.a $(CONFINE_SEAM_OBJ) \
	$(BINS) $(SUITE_TOOLS)

# The suite as a kselftest target, the way a kernel developer runs it: copied
# into tools/testing/selftests/jr2 of Debian's 6.1 frame (scripts/ksft-frame),
# built there by lib.mk and run by the kernel's runner; its TAP (the runner's
# shape) must be read by `prove`.  The tree lives under /var/tmp: the fixtures
# mount over /tmp and /mnt.  It reuses this tree's runtime (JR2_BUILD).
KSFT_FRAME := $(BUILD)/ksft-frame
test-selftests: ksft-runtime
	@scripts/need-debs perl rsync
	@scripts/ksft-frame $(KSFT_FRAME)
	@mkdir -p $(TEST_RESULTS)
	@tree=$$(mktemp -d /var/tmp/jr2-ksft.XXXXXX); trap 'rm -rf "$$tree"' EXIT; \
	cp -r $(KSFT_FRAME)/tools "$$tree/"; \
	target=$$tree/tools/testing/selftests/jr2; mkdir "$$target"; \
	cp $$(git ls-files selftests 2>/dev/null || ls -d selftests/*) "$$target/"; \
	mkdir "$$tree/out"; \
	ksft() { env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS $(MAKE) --no-print-directory \
		-C "$$target" JR2=$(CURDIR) JR2_BUILD=$(abspath $(BUILD)) OUTPUT="$$tree/out" "$$@"; }; \
	ksft all >&2; \
	status=0; ksft -s run_tests > $(TEST_RESULTS)/selftests.tap || status=$$?; \
	cat $(TEST_RESULTS)/selftests.tap; \
	prove -e cat $(TEST_RESULTS)/selftests.tap > $(TEST_RESULTS)/selftests.prove 2>&1 \
		|| { echo "prove refused the suite's TAP:"; cat $(TEST_RESULTS)/selftests.prove; status=1; }; \
	exit $$status

test-coverage:
	@mkdir -p $(TEST_RESULTS)
	PROMISES=$(PROMISES) $(PYTHON) selftests/coverage selftests \
		| tee $(TEST_RESULTS)/coverage.tap

# The load tests at their full size, alone (`make test` runs them full too;
# the vmtest guest sets JR2_STRESS=small).  STRESS_BINS: the binaries that
# hold load tests.
STRESS_BINS := $(BUILD)/selftests/domains_test \
	$(BUILD)/selftests/harness_channel_test
.PHONY: stress
stress: all
	@status=0; for bin in $(STRESS_BINS); do \
		JR2_STRESS=full JR2_BIN_DIR=$(abspath $(BIN)) $$bin || status=1; \
	done; exit $$status
