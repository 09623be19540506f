# SPDX-License-Identifier: GPL-2.0-only
# The confiner: libjr2.a (linked by the harness and the suite too),
# jr2-confine, the test tool jr2-try, the unit and end-to-end tests, benches.

JR2_LIB_SRCS := runtime/abi.c runtime/ruleset.c runtime/policy.c \
	runtime/config.c runtime/plan.c runtime/fswalk.c runtime/compile.c \
	runtime/links.c runtime/confine.c runtime/confine_step.c runtime/step_descriptors.c \
	runtime/json.c \
	runtime/step_syscall_filter.c runtime/step_kernel_helpers.c runtime/die.c
JR2_LIB_OBJS := $(JR2_LIB_SRCS:runtime/%.c=$(OBJ)/runtime/%.o)
JR2_HDRS := $(wildcard runtime/*.h)

BINS += $(BIN)/jr2-confine
MANS += runtime/jr2-confine.1
LAYER_PAIRS += $(foreach s,$(JR2_LIB_SRCS) runtime/jr2-confine.c,\
	$(s)=$(s:runtime/%.c=$(OBJ)/runtime/%.o))

$(OBJ)/runtime/%.o: runtime/%.c $(JR2_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

# The confiner with its seam's calls (policy.h), for the test binaries that
# define jr2_confine_seam(): named before libjr2.a, it replaces its confine.o.
CONFINE_SEAM_OBJ := $(OBJ)/runtime/confine_seamed.o
$(CONFINE_SEAM_OBJ): runtime/confine.c $(JR2_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DJR2_CONFINE_SEAM -c -o $@ $<

$(OBJ)/libjr2.a: $(JR2_LIB_OBJS)
	@mkdir -p $(@D)
	ar rcs $@.tmp $^ && mv $@.tmp $@

$(BIN)/jr2-confine: $(OBJ)/runtime/jr2-confine.o $(OBJ)/libjr2.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS_PROGRAM) -o $@ $^

# jr2-try: the tests' one helper program, its verbs by subject in try_*.c.
# Static and non-PIE: a marker has the same address in every run (vm-read).
TRY_SRCS := runtime/tests/try.c $(sort $(wildcard runtime/tests/try_*.c))
TEST_BINS += $(BIN)/jr2-try
$(BIN)/jr2-try: $(TRY_SRCS) $(wildcard runtime/tests/try*.h) $(JR2_HDRS) \
		$(OBJ)/libjr2.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS_STATIC) -o $@ $(TRY_SRCS) $(OBJ)/libjr2.a

# Tests: kselftest harness binaries; the harness's macros trip
# -Wunused-parameter, relaxed for test code only.
RUNTIME_TEST_SRCS := $(sort $(wildcard runtime/tests/*_test.c))
RUNTIME_TEST_BINS := $(RUNTIME_TEST_SRCS:runtime/tests/%.c=$(BUILD)/runtime-tests/%)
RUNTIME_TEST_CFLAGS := -isystem $(KSFT_INC) -Iruntime/tests -Iselftests \
	-Wno-unused-parameter
TEST_BINS += $(RUNTIME_TEST_BINS)
TEST_STEPS += runtime-unit runtime-e2e

$(BUILD)/runtime-tests/%_test: runtime/tests/%_test.c runtime/tests/helpers.h \
		selftests/ksft_skip.h \
		$(KSFT_INC)/kselftest_harness.h $(OBJ)/libjr2.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(RUNTIME_TEST_CFLAGS) $(LDFLAGS_STATIC) -o $@ $< \
		$(filter %.o,$^) $(OBJ)/libjr2.a
$(BUILD)/runtime-tests/compile_test: $(CONFINE_SEAM_OBJ)

# Each binary's TAP in turn; the step fails when one of them does.
RUNTIME_UNIT_BINS := $(filter-out %/e2e_test,$(RUNTIME_TEST_BINS))
.PHONY: test-runtime-unit test-runtime-e2e
test-runtime-unit: $(RUNTIME_UNIT_BINS)
	@mkdir -p $(TEST_RESULTS)
	@status=0; for t in $^; do $$t || status=1; done \
		> $(TEST_RESULTS)/runtime-unit.tap 2>&1; \
	cat $(TEST_RESULTS)/runtime-unit.tap; exit $$status

test-runtime-e2e: $(BUILD)/runtime-tests/e2e_test $(BIN)/jr2-confine \
		$(BIN)/jr2-try
	@mkdir -p $(TEST_RESULTS)
	@status=0; $< > $(TEST_RESULTS)/runtime-e2e.tap 2>&1 || status=1; \
	cat $(TEST_RESULTS)/runtime-e2e.tap; exit $$status

# Benchmarks: ratios and figures measured in the same run.
BENCH_STEPS += confine-compile confine-open confine-filter
$(BUILD)/runtime-bench/confine-bench: runtime/bench/confine_bench.c \
		$(OBJ)/libjr2.a $(JR2_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS_STATIC) -o $@ $< $(OBJ)/libjr2.a

.PHONY: bench-confine-compile bench-confine-open bench-confine-filter
bench-confine-compile: $(BUILD)/runtime-bench/confine-bench
	$< compile
bench-confine-open: $(BUILD)/runtime-bench/confine-bench
	$< open
bench-confine-filter: $(BUILD)/runtime-bench/confine-bench
	$< filter

# The census of system calls (docs/SYSCALLS.md): every call of the kernel's
# tables has a row, a row a test, and the filter's header is the census's.
TEST_STEPS += syscall-census
.PHONY: test-syscall-census
test-syscall-census:
	@mkdir -p $(TEST_RESULTS)
	@status=0; scripts/syscall-census --check > $(TEST_RESULTS)/syscall-census.tap \
		|| status=1; cat $(TEST_RESULTS)/syscall-census.tap; exit $$status
