# SPDX-License-Identifier: GPL-2.0-only
# examples/kubernetes: the Harness pods and the node preflight, checked in
# `make test` against the Kubernetes API's schema by the npm package
# kubernetes-models (validate.mjs; the versions pinned in package-lock.json),
# with the files of tests/ as the checks' negative controls.
TEST_STEPS += k8s-manifests
K8S_VALIDATE := $(BUILD)/k8s-validate
K8S_MANIFESTS := $(wildcard examples/kubernetes/*.yaml)
K8S_REFUSED := $(wildcard examples/kubernetes/tests/*.yaml)
.PHONY: test-k8s-manifests

# npm ci from the registry once per lock file; node and npm from Debian
# where the machine has none.
$(K8S_VALIDATE)/node_modules/.jr2-lock: examples/kubernetes/package.json \
		examples/kubernetes/package-lock.json
	@command -v node >/dev/null && command -v npm >/dev/null || scripts/need-debs nodejs npm
	@mkdir -p $(K8S_VALIDATE)
	@cp examples/kubernetes/package.json examples/kubernetes/package-lock.json $(K8S_VALIDATE)/
	@cd $(K8S_VALIDATE) && npm ci --no-audit --no-fund --loglevel=error >/dev/null \
		|| { echo "k8s-manifests: npm ci failed in $(K8S_VALIDATE): the npm registry must be reachable" >&2; exit 1; }
	@touch $@

test-k8s-manifests: $(K8S_VALIDATE)/node_modules/.jr2-lock
	@mkdir -p $(TEST_RESULTS)
	@cp examples/kubernetes/validate.mjs $(K8S_VALIDATE)/
	@status=0; node $(K8S_VALIDATE)/validate.mjs $(K8S_MANIFESTS) --expect-invalid $(K8S_REFUSED) \
		> $(TEST_RESULTS)/k8s-manifests.tap || status=1; \
	cat $(TEST_RESULTS)/k8s-manifests.tap; exit $$status
