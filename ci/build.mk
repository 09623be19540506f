# SPDX-License-Identifier: GPL-2.0-only
# ci/: the CI matrix's entry points and the release gate, the same scripts
# that .github/workflows/kernel-matrix.yml calls.
#   make release-gate                       HEAD built once, the whole matrix run, decided (ci/release-gate)
#   make ci-kernel KERNEL=<name> RUN=<id>   one job of the CI matrix (ci/kernel-job)
#   make ci-report RUN=<id>                 the CI's final report job (ci/report-job)

TEST_STEPS += ci

.PHONY: release-gate ci-kernel ci-report test-ci

# The commit is gated (in a clone of HEAD); every shipped program must be
# among the binaries the VMs ran.
release-gate:
	ci/release-gate --clone --version $(VERSION) $(foreach b,$(notdir $(BINS)),--require $(b))

ci-kernel:
	ci/kernel-job "$(KERNEL)" "$(RUN)"

ci-report:
	ci/report-job "$(RUN)"

test-ci:
	@mkdir -p $(TEST_RESULTS)
	$(PYTHON) -m pytest -q -p no:cacheprovider ci/tests --junitxml=$(TEST_RESULTS)/ci.xml
