# SPDX-License-Identifier: GPL-2.0-only
# The Harness image (Containerfile): its tree built and its harness started
# as PID 1 in `make test` (test-image says how, and when podman is used).
TEST_STEPS += harness-image
.PHONY: test-harness-image

test-harness-image: $(BINS)
	@mkdir -p $(TEST_RESULTS)
	examples/harness-image/test-image | tee $(TEST_RESULTS)/harness-image.tap
