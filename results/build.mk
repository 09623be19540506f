# SPDX-License-Identifier: GPL-2.0-only
# results/: JUnit, KCIDB and the matrix report of a run; make compare.
#   make report [RUN=<run-id>]        junit.xml, kcidb.json, matrix.md, matrix.html of a run
#                                     (default: the newest), in its folder
#   make compare A=<run> B=<run>      what changed (a run id, or results/<run>/<kernel>)
#   make test-report-browser          the HTML page in headless Chromium (installs chromium);
#                                     a step of `make test`

JR2_RESULTS := results/jr2-results
run_dir = $(if $(wildcard $(1)/.),$(1),results/$(1))

TEST_STEPS += results report-browser

.PHONY: report compare test-results test-report-browser

report:
	@$(PYTHON) $(JR2_RESULTS) write $(if $(RUN),$(call run_dir,$(RUN))) --version $(VERSION) --print

compare:
	@if [ -z "$(A)" ] || [ -z "$(B)" ]; then \
		echo "compare: name both runs: make compare A=<run-id> B=<run-id> (or A=results/<run>/<kernel>)" >&2; exit 2; fi
	@$(PYTHON) $(JR2_RESULTS) compare $(call run_dir,$(A)) $(call run_dir,$(B))

# The real schemas the writers are checked against: test data beside the
# checkout (the tests that need them skip, and say so, where they are absent).
KCIDB_SCHEMA ?= ../shared/kcidb/kcidb-v5.3.schema.json
JUNIT_XSD ?= ../shared/junit/junit-10.xsd
RESULTS_DEBS := python3-jsonschema python3-junitparser libxml2-utils
RESULTS_TEST_ENV := JR2_KCIDB_SCHEMA=$(abspath $(KCIDB_SCHEMA)) JR2_JUNIT_XSD=$(abspath $(JUNIT_XSD))

test-results:
	@scripts/need-debs $(RESULTS_DEBS)
	@mkdir -p $(TEST_RESULTS)
	$(RESULTS_TEST_ENV) $(PYTHON) -m pytest -q -p no:cacheprovider -rs results/tests \
		--ignore=results/tests/report_browser_check.py --junitxml=$(TEST_RESULTS)/results.xml

# Installs Debian's chromium (~350 MB, once).  Writes a 16-kernel run's page and
# its screenshots to $(BUILD)/report-browser/, JUnit to $(TEST_RESULTS)/report-browser.xml.
test-report-browser:
	@scripts/need-debs chromium
	@mkdir -p $(TEST_RESULTS)
	$(RESULTS_TEST_ENV) REPORT_BROWSER_OUT=$(BUILD)/report-browser $(PYTHON) -m pytest -q -p no:cacheprovider \
		results/tests/report_browser_check.py --junitxml=$(TEST_RESULTS)/report-browser.xml

# jr2-results write checks kcidb.json against the real KCIDB schema where it
# is (CI has ../shared/kcidb/) with Debian's python3-jsonschema, and says in
# its line which check ran: every target that writes a run's report installs
# it (the booting ones through vmtest-deps).
.PHONY: results-deps
results-deps:
	@scripts/need-debs python3-jsonschema
vmtest-deps report ci-report: results-deps
