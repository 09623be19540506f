# SPDX-License-Identifier: GPL-2.0-only
# jr2-harness: the harness, its spawner and its clients (runtime/harness/*.c:
# what ships, and nothing else); in tests/, the unit tests of its pure code
# (request parser, SHA-256 from libsodium, environment), a libFuzzer target
# of the parser (`make fuzz`, kept out of `make test`) and the benchmarks.

HARNESS_PURE_SRCS := runtime/harness/request.c runtime/harness/digest.c \
	runtime/harness/env.c runtime/harness/spawner_msg.c \
	runtime/harness/lookup.c
# serve's parts, sharing struct harness (serve.h); serve.c is the loop.
HARNESS_SERVE_SRCS := runtime/harness/serve.c runtime/harness/trust.c \
	runtime/harness/reexec.c \
	runtime/harness/sockets.c runtime/harness/start.c \
	runtime/harness/status.c runtime/harness/conns.c \
	runtime/harness/children.c runtime/harness/cancel.c \
	runtime/harness/harness_process.c runtime/harness/guard.c \
	runtime/harness/procfs.c runtime/harness/undo.c
HARNESS_SRCS := $(HARNESS_PURE_SRCS) runtime/harness/channel.c \
	runtime/harness/standins.c runtime/harness/spawner.c \
	runtime/harness/log.c runtime/harness/client.c \
	runtime/harness/file_tools.c \
	runtime/harness/leftovers.c $(HARNESS_SERVE_SRCS)
HARNESS_OBJS := $(HARNESS_SRCS:runtime/harness/%.c=$(OBJ)/harness/%.o)
HARNESS_PURE_OBJS := $(HARNESS_PURE_SRCS:runtime/harness/%.c=$(OBJ)/harness/%.o)
# Every header of the runtime too: the harness includes the step's and the
# library's (a changed struct there must rebuild the harness).
HARNESS_HDRS := $(wildcard runtime/harness/*.h) $(wildcard runtime/*.h)
HARNESS_UNIT := $(BUILD)/harness/unit_test
HARNESS_FUZZ := $(BUILD)/harness/fuzz_request
HARNESS_BENCH := $(BUILD)/harness/bench_spawn
HARNESS_START_BENCH := $(BUILD)/harness/bench_start
FUZZ_SECONDS ?= 600
# SHA-256 and constant-time compares: libsodium, static as the rest.
HARNESS_LIBS := -l:libsodium.a
HARNESS_DEBS_STAMP := $(OBJ)/harness/debs.stamp

BINS += $(BIN)/jr2-harness
LAYER_PAIRS += $(foreach s,$(HARNESS_SRCS) runtime/harness/main.c,\
	$(s)=$(s:runtime/harness/%.c=$(OBJ)/harness/%.o))
MANS += runtime/harness/jr2-harness.1
# Shipped: the module alone (its tests and bench stay in the source).
NODE_MODULES += runtime/harness/node/jr2-harness.mjs
TEST_BINS += $(HARNESS_UNIT) $(HARNESS_BENCH) $(HARNESS_START_BENCH)
TEST_STEPS += harness-unit
BENCH_STEPS += harness harness-start

.PHONY: test-harness-unit bench-harness bench-harness-start fuzz

$(HARNESS_DEBS_STAMP):
	@mkdir -p $(@D)
	scripts/need-debs libsodium-dev
	@touch $@

$(OBJ)/harness/%.o: runtime/harness/%.c $(HARNESS_HDRS) | $(HARNESS_DEBS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iruntime/harness -c -o $@ $<

$(BIN)/jr2-harness: $(OBJ)/harness/main.o $(HARNESS_OBJS) $(OBJ)/libjr2.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS_PROGRAM) -o $@ $^ $(HARNESS_LIBS)

# The pure code reads the config's policy lines with the library's code.
$(HARNESS_UNIT): runtime/harness/tests/unit_test.c $(HARNESS_PURE_OBJS) \
		$(OBJ)/libjr2.a $(HARNESS_HDRS) $(KSFT_INC)/kselftest_harness.h \
		| $(HARNESS_DEBS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iruntime/harness -isystem $(KSFT_INC) \
		$(LDFLAGS_STATIC) -o $@ $< $(HARNESS_PURE_OBJS) $(OBJ)/libjr2.a \
		$(HARNESS_LIBS)

test-harness-unit: $(HARNESS_UNIT)
	@mkdir -p $(TEST_RESULTS)
	$(HARNESS_UNIT) | tee $(TEST_RESULTS)/harness-unit.tap

# libFuzzer needs clang's runtime (Debian: libclang-rt-14-dev on bookworm).
# It runs the harness's own intake (channel.c) with descriptors attached.
$(HARNESS_FUZZ): runtime/harness/tests/fuzz_request.c runtime/harness/request.c \
		runtime/harness/channel.c $(HARNESS_HDRS) $(OBJ)/libjr2.a
	@scripts/need-debs clang-14 libclang-rt-14-dev
	@mkdir -p $(@D)
	clang-14 -std=gnu11 -g -O1 -Wall -Wextra -Werror -D_GNU_SOURCE \
		-fsanitize=fuzzer,address,undefined -Iruntime -Iruntime/harness \
		-o $@ runtime/harness/tests/fuzz_request.c runtime/harness/request.c \
		runtime/harness/channel.c $(OBJ)/libjr2.a

# Seeds: one valid request of each op; new inputs go to the build folder.
fuzz: $(HARNESS_FUZZ)
	@mkdir -p $(BUILD)/harness/fuzz-corpus
	printf '\003JR2H1\nop 4:exec\nbearer 3:abc\ncwd 5:/work\nsecret 8:GH_TOKEN\narg 7:/bin/sh\narg 4:a\nb \n' \
		> $(BUILD)/harness/fuzz-corpus/seed-exec
	printf '\000JR2H1\nop 6:status\nbearer 3:abc\njson 1:1\n' \
		> $(BUILD)/harness/fuzz-corpus/seed-status
	printf '\021JR2H1\nop 5:spawn\nid 1:7\narg 9:/bin/true\nenv 3:A=1\n' \
		> $(BUILD)/harness/fuzz-corpus/seed-spawn
	printf '\000JR2H1\nop 6:signal\nbearer 3:abc\nid 2:12\nsignal 2:15\n' \
		> $(BUILD)/harness/fuzz-corpus/seed-signal
	printf '\00049\nJR2H1\nop 6:attach\ntoken 32:0123456789abcdef0123456789abcdef\nfd 1:1\n' \
		> $(BUILD)/harness/fuzz-corpus/seed-attach
	printf '\020' > $(BUILD)/harness/fuzz-corpus/seed-empty-16-fds
	$(HARNESS_FUZZ) -max_total_time=$(FUZZ_SECONDS) -max_len=70000 \
		$(BUILD)/harness/fuzz-corpus

$(HARNESS_BENCH): runtime/harness/tests/bench_spawn.c runtime/harness/tests/bench_root.c \
		$(OBJ)/harness/channel.o \
		$(OBJ)/harness/request.o $(OBJ)/libjr2.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iruntime/harness $(LDFLAGS_STATIC) -o $@ $^

BENCH_SPAWNS ?= 400
# The spawn, then what the seccomp filter of the confinement step adds to it.
bench-harness: $(HARNESS_BENCH) $(BIN)/jr2-harness $(BIN)/jr2-confine \
		$(BUILD)/runtime-bench/confine-bench
	@scripts/need-debs bubblewrap
	$(HARNESS_BENCH) --harness $(BIN)/jr2-harness \
		--confine $(BIN)/jr2-confine -n $(BENCH_SPAWNS)
	$(BUILD)/runtime-bench/confine-bench filter

$(HARNESS_START_BENCH): runtime/harness/tests/bench_start.c \
		runtime/harness/tests/bench_root.c $(OBJ)/libjr2.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iruntime/harness $(LDFLAGS_STATIC) -o $@ $^

BENCH_STARTS ?= 100
# A start of `serve` to its start line and to a ready spawner, and its CPU
# time, against fork+exec; HARNESS_OLD=PATH adds a second build, alternated.
bench-harness-start: $(HARNESS_START_BENCH) $(BIN)/jr2-harness
	$(HARNESS_START_BENCH) --harness $(BIN)/jr2-harness \
		$(if $(HARNESS_OLD),--old $(HARNESS_OLD)) -n $(BENCH_STARTS)

# The harness groups of the suite (their rule is selftests/build.mk's) also
# depend on their shared header and on the programs they drive.
HARNESS_SUITE := domains environment custodian fd_hygiene ptrace_proc \
	harness_channel harness_trust harness_stop harness_cancel \
	scoped_signal scoped_abstract
# They alone link the control channel's framing, for their raw requests (R8).
HARNESS_SUITE_BINS := $(foreach t,$(HARNESS_SUITE),$(BUILD)/selftests/$(t)_test)
$(HARNESS_SUITE_BINS): selftests/harness_helpers.h $(OBJ)/libjr2harness.a
# Its request.o reports with the library's jr2_fail(): libjr2.a after it.
$(HARNESS_SUITE_BINS): SELFTESTS_LIBS += $(OBJ)/libjr2harness.a $(OBJ)/libjr2.a

$(OBJ)/libjr2harness.a: $(OBJ)/harness/channel.o $(OBJ)/harness/request.o
	rm -f $@ && ar rcs $@ $^

# The Node module (runtime/harness/node): `node --test` against a real
# harness, and its benchmark.  Node 18 or later (Debian 12's nodejs is 18;
# CI has Node 20 at /usr/bin/node); none: the step says so and skips.
NODE ?= node
HARNESS_NODE_MIN := 18
TEST_STEPS += harness-node
BENCH_STEPS += node
.PHONY: test-harness-node bench-node

# Prints why Node cannot run here, or nothing.
HARNESS_NODE_WHY = v=$$($(NODE) -p 'process.versions.node.split(".")[0]' \
	2>/dev/null) || v=; if [ -z "$$v" ]; then echo "no '$(NODE)' (Node.js \
	$(HARNESS_NODE_MIN) or later: apt-get install nodejs, or NODE=PATH)"; \
	elif [ "$$v" -lt $(HARNESS_NODE_MIN) ]; then echo "'$(NODE)' is Node.js \
	$$v, older than $(HARNESS_NODE_MIN) (node --test); give NODE=PATH"; fi

test-harness-node: $(BIN)/jr2-harness
	@mkdir -p $(TEST_RESULTS)
	@why=$$($(HARNESS_NODE_WHY)); if [ -n "$$why" ]; then \
		printf 'TAP version 13\n1..1\nok 1 - harness-node # SKIP %s\n' "$$why" \
			| tee $(TEST_RESULTS)/harness-node.tap; exit 0; fi; \
	JR2_BIN_DIR=$(abspath $(BIN)) $(NODE) --test --test-reporter=tap \
		runtime/harness/node/test/ > $(TEST_RESULTS)/harness-node.tap; \
	status=$$?; cat $(TEST_RESULTS)/harness-node.tap; exit $$status

BENCH_NODE_SPAWNS ?= 400
# N confined /bin/true from Node against N child_process.spawn of it.
bench-node: $(BIN)/jr2-harness
	@why=$$($(HARNESS_NODE_WHY)); if [ -n "$$why" ]; then \
		echo "bench-node: $$why" >&2; exit 1; fi
	$(NODE) runtime/harness/node/bench.mjs $(BIN)/jr2-harness \
		$(BENCH_NODE_SPAWNS)
