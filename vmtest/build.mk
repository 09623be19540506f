# SPDX-License-Identifier: GPL-2.0-only
# vmtest: boot kernels of the matrix under QEMU with the static runtime and
# suite in an initramfs (vmtest/README.md).
#   make vmtest [KERNEL=<name|path>] [T=<BIN[:TEST]>] [RUN=<id>]
#   make vmshell [KERNEL=<name|path>]
#   make matrix [KERNELS="a b"] [RUN=<id>]     every reachable entry, two at a time
#   make vmtest-ci                             the kernels CI boots
#   make vmtest KERNEL=7.3 ABI=5               the guest capped at ABI 5
#   make cap-check                             capped new kernels against old ones
#   make vmtest-repeat [KERNEL=..] [N=20]      N boots in a row must agree
# The QEMU runs stay out of `make test`: its step is the Python's unit tests.

VMTEST_PROBE := $(BUILD)/vmtest/jr2-vmprobe
VMTEST_RUN := $(PYTHON) vmtest/run
# 6.6 and 6.11 (ABI 3 and 5: signals and abstract sockets unscoped) when
# their images can be had (cached, or prebuilt in JR2_KERNEL_IMAGES): about
# 70 s each under TCG, two at a time.
VMTEST_CI_KERNELS = 5.10 6.1 6.12 7.3 7.3-nolsm \
	$(shell $(PYTHON) kernels/fetch --available 6.6 6.11 2>/dev/null)
# zstd: unpacking the vmlinux of ZSTD kernels (6.12 on) for PVH boots.
VMTEST_DEBS := qemu-system-x86 busybox-static zstd

TEST_BINS += $(VMTEST_PROBE)
TEST_STEPS += vmtest-unit
BENCH_STEPS += vmtest

# The payload: the shipped runtime and the suite (not all of `all`, so that a
# part being written elsewhere in the tree does not stop a boot).
VMTEST_PAYLOAD = $(BINS) $(SELFTESTS_BINS) $(VMTEST_PROBE)

.PHONY: cap-check vmtest vmshell matrix vmtest-ci vmtest-repeat vmtest-deps test-vmtest-unit bench-vmtest

$(VMTEST_PROBE): vmtest/guest/vmprobe.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS_STATIC)

vmtest-deps:
	@scripts/need-debs $(VMTEST_DEBS) $(KERNELS_DEBS)

# A run's id, fixed once per make so that the report is written for it.
VMTEST_RUN_ID := $(or $(RUN),$(shell date -u +%Y%m%d-%H%M%S)-$(shell git rev-parse --short HEAD 2>/dev/null || echo nogit))

# Boots, then writes JUnit, KCIDB and the matrix report of the run (even of a
# failed one: that is when they are read); the boots' status is make's.
define vmtest_then_report
	status=0; $(VMTEST_RUN) $(1) --run-id '$(VMTEST_RUN_ID)' || status=$$?; \
	$(PYTHON) $(JR2_RESULTS) write results/$(VMTEST_RUN_ID) --version $(VERSION) \
		|| status=$$((status ? status : 1)); \
	echo "vmtest: results, JUnit, KCIDB and the report in results/$(VMTEST_RUN_ID)/"; \
	exit $$status
endef

# ABI=N: the guest runs capped at ABI N (JR2_MAX_ABI), the verdict expected
# is then that of min(the kernel's ABI, N).
vmtest: deps vmtest-deps $(VMTEST_PAYLOAD)
	@$(call vmtest_then_report,$(if $(KERNEL),--kernel '$(KERNEL)') $(if $(T),-T '$(T)') \
		$(if $(ABI),--max-abi '$(ABI)'))

vmshell: deps vmtest-deps $(VMTEST_PAYLOAD)
	$(VMTEST_RUN) --shell $(if $(KERNEL),--kernel '$(KERNEL)')

matrix: deps vmtest-deps $(VMTEST_PAYLOAD)
	@$(call vmtest_then_report,--jobs 2 $(if $(KERNELS),$(foreach k,$(KERNELS),--kernel '$(k)'),--all) \
		$(if $(T),-T '$(T)'))

vmtest-ci: deps vmtest-deps $(VMTEST_PAYLOAD)
	@$(call vmtest_then_report,--jobs 2 $(foreach k,$(VMTEST_CI_KERNELS),--kernel '$(k)'))

# Does the cap tell the truth?  6.11 and 7.3 capped at ABI 5, 6.6 and 7.3 at
# ABI 3, compared test by test (kernels/cap-check; kernels/README.md).
cap-check: deps vmtest-deps $(VMTEST_PAYLOAD)
	$(PYTHON) kernels/cap-check $(if $(T),-T '$(T)') $(if $(RUN),--run-id '$(RUN)')

vmtest-repeat: deps vmtest-deps $(VMTEST_PAYLOAD)
	$(PYTHON) vmtest/repeat -n $(or $(N),20) $(if $(T),-T '$(T)') $(if $(RUN),--run-id '$(RUN)') \
		'$(or $(KERNEL),7.3)'

# cpio: the unit tests read the initramfs back with GNU cpio.
test-vmtest-unit:
	@scripts/need-debs cpio python3-pytest
	@mkdir -p $(TEST_RESULTS)
	$(PYTHON) -m pytest -q -p no:cacheprovider vmtest/unit \
		--junitxml=$(TEST_RESULTS)/vmtest-unit.xml

# BENCH_KERNELS="a b": the kernels to measure (default: every Debian entry).
bench-vmtest: deps vmtest-deps $(VMTEST_PAYLOAD)
	$(PYTHON) vmtest/bench $(BENCH_KERNELS)
