# SPDX-License-Identifier: GPL-2.0-only
# jr2-trace: denials.bpf.c -> .bpf.o -> .skel.h -> a static loader, as
# libbpf-bootstrap chains them.  The kernel's types come from
# kernel_types.h (the members the program reads, relocated by CO-RE at
# load), never from a kernel's BTF: the object is the same whatever kernel
# the build machine runs.

TRACE_DIR := runtime/trace
TRACE_OUT := $(BUILD)/trace
TRACE_DEBS := clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libzstd-dev
BPF_CLANG ?= clang
# -ffile-prefix-map: the object's BTF and DWARF name the sources relative
# to the tree, not the folder it was built in (the skeleton embeds them).
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
	-ffile-prefix-map=$(CURDIR)=. -I$(TRACE_OUT) -I$(TRACE_DIR)
TRACE_CFLAGS := $(CFLAGS) -I$(TRACE_OUT) -I$(TRACE_DIR)
# libbpf.a and what it needs, all static so it runs in a busybox initramfs.
TRACE_LIBS := -l:libbpf.a -lelf -lz -lzstd

BINS += $(BIN)/jr2-trace
MANS += $(TRACE_DIR)/jr2-trace.1
TEST_BINS += $(TRACE_OUT)/format_test
TEST_STEPS += trace-unit

.PHONY: trace test-trace-unit
trace: $(BIN)/jr2-trace

$(TRACE_OUT)/debs.stamp:
	@mkdir -p $(@D)
	scripts/need-debs $(TRACE_DEBS)
	@touch $@

$(TRACE_OUT)/denials.bpf.o: $(TRACE_DIR)/denials.bpf.c $(TRACE_DIR)/denials.h \
		$(TRACE_DIR)/kernel_types.h $(TRACE_DIR)/build.mk \
		| $(TRACE_OUT)/debs.stamp
	$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@

$(TRACE_OUT)/denials.skel.h: $(TRACE_OUT)/denials.bpf.o
	bpftool gen skeleton $< name denials_bpf > $@.tmp && mv $@.tmp $@

$(OBJ)/trace/%.o: $(TRACE_DIR)/%.c $(wildcard $(TRACE_DIR)/*.h) \
		$(TRACE_OUT)/denials.skel.h runtime/abi.h runtime/json.h
	@mkdir -p $(@D)
	$(CC) $(TRACE_CFLAGS) -c -o $@ $<

TRACE_SRCS := $(addprefix $(TRACE_DIR)/,jr2-trace.c attach.c probe.c \
	report.c audit.c format.c)
TRACE_OBJS := $(TRACE_SRCS:$(TRACE_DIR)/%.c=$(OBJ)/trace/%.o)
LAYER_PAIRS += $(foreach s,$(TRACE_SRCS),$(s)=$(s:$(TRACE_DIR)/%.c=$(OBJ)/trace/%.o))

$(BIN)/jr2-trace: $(TRACE_OBJS) $(OBJ)/libjr2.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS_PROGRAM) -o $@ $^ $(TRACE_LIBS)

$(TRACE_OUT)/format_test: $(TRACE_DIR)/format_test.c $(OBJ)/trace/format.o \
		$(OBJ)/runtime/json.o \
		$(KSFT_INC)/kselftest_harness.h
	$(CC) $(TRACE_CFLAGS) -isystem $(KSFT_INC) -o $@ $< $(OBJ)/trace/format.o \
		$(OBJ)/runtime/json.o

# kernel_types.h's members against the BTF of this machine's kernel and of
# the kernels in the cache that keep their vmlinux (TRACE_TYPES_BTF names
# others).
TRACE_TYPES_BTF ?= /sys/kernel/btf/vmlinux \
	$(wildcard $(or $(JR2_KERNEL_CACHE),/var/cache/jr2-kernels)/*/vmlinux)

test-trace-unit: $(TRACE_OUT)/format_test $(BIN)/jr2-trace
	@mkdir -p $(TEST_RESULTS)
	$(TRACE_OUT)/format_test | tee $(TEST_RESULTS)/trace-unit.tap
	$(TRACE_DIR)/cli_test.sh $(BIN)/jr2-trace | tee -a $(TEST_RESULTS)/trace-unit.tap
	$(TRACE_DIR)/check-core-sizes $(TRACE_OUT)/denials.bpf.o $(TRACE_TYPES_BTF) \
		| tee -a $(TEST_RESULTS)/trace-unit.tap

# The benchmark runs in a VM: the host refuses tracing programs.
TRACE_BENCH_KERNEL ?= 6.18
BENCH_STEPS += trace
TEST_BINS += $(TRACE_OUT)/trace-bench
.PHONY: bench-trace

$(TRACE_OUT)/trace-bench: $(TRACE_DIR)/trace-bench.c $(OBJ)/libjr2.a
	$(CC) $(CFLAGS) $(LDFLAGS_STATIC) -o $@ $^

bench-trace: $(BIN)/jr2-trace $(TRACE_OUT)/trace-bench vmtest-deps
	@mkdir -p $(BUILD)/bench
	$(PYTHON) vmtest/run --kernel $(TRACE_BENCH_KERNEL) --timeout 1200 \
		--payload $(TRACE_OUT)/trace-bench --payload $(TRACE_DIR)/bench.sh \
		--cmd 'sh bench.sh' | tee $(BUILD)/bench/trace.txt
