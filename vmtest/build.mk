# SPDX-License-Identifier: GPL-2.0-only
# vmtest: boot kernels of the matrix under QEMU with the static runtime and
# suite in an initramfs (vmtest/README.md).
#   make vmtest [KERNEL=<name|path>] [T=<BIN[:TEST]>] [RUN=<id>] [PROFILE=bare|container|restricted]
#   make vmshell [KERNEL=<name|path>]
#   make matrix [KERNELS="a b"] [RUN=<id>] [PROFILES="bare container restricted"]
#                                              every reachable entry, two at a time
#   make vmtest-ci                             the kernels CI boots, then make repro-ci
#   make vmtest KERNEL=7.3 ABI=5               the guest capped at ABI 5
#   make cap-check                             capped new kernels against old ones
#   make vmtest-repeat [KERNEL=..] [N=20]      N boots in a row must agree
#   make vmprofile [KERNEL=..] [T=..]          where the guest's time goes in the suite
#   ACCEL=kvm|tcg on any of them forces the accelerator (JR2_ACCEL); unset,
#   KVM is used only where a probe ran a guest with it (jr2vm/accel.py).
# The QEMU runs stay out of `make test`: its step is the Python's unit tests.

VMTEST_PROBE := $(BUILD)/vmtest/jr2-vmprobe
VMTEST_EXIT := $(BUILD)/vmtest/jr2-vm-exit
VMTEST_PROFILER := $(BUILD)/vmtest/jr2-vmprofile
VMTEST_RUN := $(PYTHON) vmtest/run
# 6.6, 6.8 and 6.11 (ABI 3, 4 and 5: signals and abstract sockets unscoped)
# and 5.15 (ABI 1, refused, no BTF) when their images can be had (cached, or
# prebuilt in JR2_KERNEL_IMAGES): about 70 s each under TCG, two at a time.
# 6.12-cloud (no /dev/port: the guest's own way out) and 6.12-rt (another
# preemption model): 44 s and 83 s under TCG at a load of 6 to 8.
VMTEST_CI_KERNELS = 5.10 6.1 6.12 6.12-cloud 6.12-rt 7.3 7.3-nolsm \
	$(shell $(PYTHON) kernels/fetch --available 6.6 6.8 6.11 5.15 2>/dev/null)
# zstd: unpacking the vmlinux of ZSTD kernels (6.12 on) for PVH boots.
VMTEST_DEBS := qemu-system-x86 busybox-static zstd

TEST_BINS += $(VMTEST_PROBE) $(VMTEST_EXIT) $(VMTEST_PROFILER)

ifneq ($(ACCEL),)
export JR2_ACCEL := $(ACCEL)
endif
TEST_STEPS += vmtest-unit
BENCH_STEPS += vmtest

# The payload: the shipped runtime, the suite and the programs the suite
# runs (SUITE_TOOLS: jr2-try), not all of `all`, so that a part being
# written elsewhere in the tree does not stop a boot.  Every target that
# boots builds it first: a fresh clone's first command may be any of them.
VMTEST_PAYLOAD = $(BINS) $(SUITE_TOOLS) $(SELFTESTS_BINS) $(VMTEST_PROBE) $(VMTEST_EXIT)

.PHONY: cap-check vmtest vmshell matrix vmtest-ci vmtest-repeat vmtest-deps test-vmtest-unit bench-vmtest

$(VMTEST_PROBE): vmtest/guest/vmprobe.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS_STATIC)

# `make vmprofile`: the suite (or T=) under a sampling profile in the guest.
$(VMTEST_PROFILER): vmtest/guest/vmprofile.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS_STATIC)

.PHONY: vmprofile
vmprofile: deps vmtest-deps $(VMTEST_PAYLOAD) $(VMTEST_PROFILER)
	$(VMTEST_RUN) $(if $(KERNEL),--kernel '$(KERNEL)') --timeout 1800 \
		--payload $(VMTEST_PROFILER) --cmd './jr2-vmprofile -n 40 -o /tmp/profile -- \
		run-tests $(if $(T),-b "$(firstword $(subst :, ,$(T)))" $(if $(word 2,$(subst :, ,$(T))),-t "$(word 2,$(subst :, ,$(T)))")) \
		/jr2/selftests >/dev/null 2>&1; cat /tmp/profile'

# What ends the guest: /init's last command, the bench's bare boot's /init.
$(VMTEST_EXIT): vmtest/guest/vm-exit.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS_STATIC)

# PROFILE=container|restricted (PROFILES= of make matrix): the suite inside
# Debian's runc in the guest, its config.json from `runc spec` and the data
# of podman/CRI-O's golang-github-containers-common (vmtest/jr2vm/profiles.py).
VMTEST_PROFILES = $(foreach p,$(or $(PROFILES),$(PROFILE)),--profile '$(p)')
VMTEST_PROFILE_DEBS := runc golang-github-containers-common

vmtest-deps:
	@scripts/need-debs $(VMTEST_DEBS) $(KERNELS_DEBS) $(if $(filter upstream,$(SUITE)),libcap-dev rsync) \
		$(if $(filter-out bare,$(PROFILE) $(PROFILES)),$(VMTEST_PROFILE_DEBS))

# A run's id, fixed once per make so that the report is written for it.
VMTEST_RUN_ID := $(or $(RUN),$(shell date -u +%Y%m%d-%H%M%S)-$(shell git rev-parse --short HEAD 2>/dev/null || echo nogit))

# Boots, then writes JUnit, KCIDB and the matrix report of the run (even of a
# failed one: that is when they are read; not when nothing booted, e.g. a
# refused JR2_ACCEL); the boots' status is make's.
define vmtest_then_report
	status=0; $(VMTEST_RUN) $(1) --run-id '$(VMTEST_RUN_ID)' || status=$$?; \
	if [ -d results/$(VMTEST_RUN_ID) ]; then \
		$(PYTHON) $(JR2_RESULTS) write results/$(VMTEST_RUN_ID) --version $(VERSION) \
			|| status=$$((status ? status : 1)); \
		echo "vmtest: results, JUnit, KCIDB and the report in results/$(VMTEST_RUN_ID)/"; \
	fi; \
	exit $$status
endef

# LANES=N: guests per kernel, each a share of the suite (vmtest/run --lanes).
VMTEST_LANES = $(if $(LANES),--lanes '$(LANES)')

# SUITE=upstream: the kernel's own Landlock selftests too (vmtest/jr2vm/upstream.py).
VMTEST_SUITE = $(if $(SUITE),--suite '$(SUITE)')

# ABI=N: the guest runs capped at ABI N (JR2_MAX_ABI), the verdict expected
# is then that of min(the kernel's ABI, N).
vmtest: deps vmtest-deps $(VMTEST_PAYLOAD)
	@$(call vmtest_then_report,$(if $(KERNEL),--kernel '$(KERNEL)') $(if $(T),-T '$(T)') \
		$(if $(ABI),--max-abi '$(ABI)') $(VMTEST_LANES) $(VMTEST_SUITE) $(VMTEST_PROFILES))

vmshell: deps vmtest-deps $(VMTEST_PAYLOAD)
	$(VMTEST_RUN) --shell $(if $(KERNEL),--kernel '$(KERNEL)')

matrix: deps vmtest-deps $(VMTEST_PAYLOAD)
	@$(call vmtest_then_report,--jobs 2 $(if $(KERNELS),$(foreach k,$(KERNELS),--kernel '$(k)'),--all) \
		$(if $(T),-T '$(T)') $(VMTEST_LANES) $(VMTEST_SUITE) $(VMTEST_PROFILES))

# Then the check of repro-ci into the same run (its table joins the run's report).
vmtest-ci: deps vmtest-deps $(VMTEST_PAYLOAD) $(OBJ)/libjr2.a $(OBJ)/libjr2harness.a
	@status=0; ($(call vmtest_then_report,--jobs 2 $(foreach k,$(VMTEST_CI_KERNELS),--kernel '$(k)'))) \
		|| status=$$?; \
	$(REPRO_CI_THEN_REPORT)

# Does the cap tell the truth?  6.11 and 7.3 capped at ABI 5, 6.6 and 7.3 at
# ABI 3, compared test by test (kernels/cap-check; kernels/README.md).
cap-check: deps vmtest-deps $(VMTEST_PAYLOAD)
	$(PYTHON) kernels/cap-check $(if $(T),-T '$(T)') $(if $(RUN),--run-id '$(RUN)')

vmtest-repeat: deps vmtest-deps $(VMTEST_PAYLOAD)
	$(PYTHON) vmtest/repeat -n $(or $(N),20) $(if $(T),-T '$(T)') $(if $(RUN),--run-id '$(RUN)') \
		'$(or $(KERNEL),7.3)'

# cpio: the unit tests read the initramfs back with GNU cpio; busybox-static:
# they tell a static executable (the guest's busybox) from a dynamic one.
test-vmtest-unit:
	@scripts/need-debs cpio python3-pytest busybox-static
	@mkdir -p $(TEST_RESULTS)
	$(PYTHON) -m pytest -q -p no:cacheprovider vmtest/unit \
		--junitxml=$(TEST_RESULTS)/vmtest-unit.xml

# BENCH_KERNELS="a b": the kernels to measure (default: every Debian entry);
# BENCH_N: boots of each kind per kernel, the medians shown (default 3);
# BENCH_MATRIX=1: then the matrix of the same kernels, two at a time.
bench-vmtest: deps vmtest-deps $(VMTEST_PAYLOAD)
	$(PYTHON) vmtest/bench -n $(or $(BENCH_N),3) $(if $(BENCH_MATRIX),--matrix) \
		$(VMTEST_LANES) $(BENCH_KERNELS)

# Reproducers of bug reports (vmtest/repro --help, vmtest/README.md REPRODUCERS):
#   make repro REPRO=<file.c|script|folder> [KERNEL=<name|path>] [CONFINE=none|confine|harness] [ARGS=..]
#   make repro-matrix REPRO=... [KERNELS="a b"] [CONFINE=..] [ARGS=..]   every kernel, two at a time
#   make repro-ci                               the CI check: a known denial on one kernel
# Exit status: 1 when the reproducer's `expect:` fails on some kernel (vmtest/repro).
REPRO_CI_KERNEL := 6.12
REPRO_RUN = $(PYTHON) vmtest/repro --cc '$(CC)' --run-id '$(VMTEST_RUN_ID)' \
	--confine '$(or $(CONFINE),harness)' $(if $(ARGS),--args '$(ARGS)')
REPRO_DEPS = deps vmtest-deps $(BINS) $(VMTEST_PROBE) $(VMTEST_EXIT) $(OBJ)/libjr2.a $(OBJ)/libjr2harness.a

.PHONY: repro repro-matrix repro-ci repro-need

repro-need:
	@if [ -z '$(REPRO)' ]; then echo 'repro: no REPRO=: name the reproducer, e.g.' \
		'make repro REPRO=vmtest/examples/read-standins.c KERNEL=6.12' >&2; exit 2; fi

repro: repro-need $(REPRO_DEPS)
	@$(REPRO_RUN) $(if $(KERNEL),--kernel '$(KERNEL)') -- '$(REPRO)'

repro-matrix: repro-need $(REPRO_DEPS)
	@status=0; $(REPRO_RUN) --jobs 2 $(if $(KERNELS),$(foreach k,$(KERNELS),--kernel '$(k)'),--all) \
		-- '$(REPRO)' || status=$$?; \
	$(PYTHON) $(JR2_RESULTS) write results/$(VMTEST_RUN_ID) --version $(VERSION) >/dev/null \
		|| status=$$((status ? status : 1)); \
	echo "repro-matrix: the table in results/$(VMTEST_RUN_ID)/repro.md and matrix.md"; exit $$status

# The example's expectation (exit 1, an EACCES denial of its open) must hold
# as jr2 runs it; then the run's report, with the table.
REPRO_CI_THEN_REPORT = $(PYTHON) vmtest/repro --cc '$(CC)' --run-id '$(VMTEST_RUN_ID)' \
		--kernel $(REPRO_CI_KERNEL) -- vmtest/examples/read-standins.c || status=$$((status ? status : 1)); \
	$(PYTHON) $(JR2_RESULTS) write results/$(VMTEST_RUN_ID) --version $(VERSION) >/dev/null \
		|| status=$$((status ? status : 1)); exit $$status

repro-ci: $(REPRO_DEPS)
	@status=0; $(REPRO_CI_THEN_REPORT)
