# SPDX-License-Identifier: GPL-2.0-only
"""JUnit XML of a run: one <testsuite> per kernel, one <testcase> per test.

A skipped test carries its reason, a failed one the diagnostics the harness
printed before `not ok`, a crashed binary an <error>.  Two more testcases per
kernel, `vm.verdict` and `vm.health`, carry what is not a test of the suite
but must fail a CI job all the same: a verdict other than the entry's ABI
predicts, an oops/WARNING/timeout in the console, a result file missing.
"""
import xml.etree.ElementTree as ET

from . import gate


def _case(suite, classname, name, status, reason, seconds=None):
    case = ET.SubElement(suite, "testcase", classname=classname, name=name)
    if seconds is not None:
        case.set("time", f"{seconds:.3f}")
    if status == "skip":
        ET.SubElement(case, "skipped", message=reason or "skipped without a reason")
    elif status == "fail":
        first = reason.split("; ")[0] if reason else "failed (no diagnostics printed)"
        ET.SubElement(case, "failure", message=first, type="fail").text = reason
    elif status == "error":
        ET.SubElement(case, "error", message=reason or "error", type="error").text = reason
    return status


def _properties(suite, kernel):
    props = ET.SubElement(suite, "properties")
    for key in ("kernel", "release", "entry_abi", "abi", "errata", "landlock",
                "expected_verdict", "expected_verdict_code", "verdict", "verdict_code",
                "outcome"):
        if kernel.summary.get(key) is not None:
            ET.SubElement(props, "property", name=key, value=str(kernel.summary[key]))
    for name, digest in sorted(kernel.binaries.items()):
        ET.SubElement(props, "property", name=f"sha256:{name}", value=digest)


def kernel_suite(kernel, run_id):
    suite = ET.Element("testsuite", name=kernel.name)
    _properties(suite, kernel)
    durations = {t.get("name"): t.get("duration_s") for t in kernel.summary.get("tests", [])}
    statuses = []
    for r in kernel.results:
        statuses.append(_case(suite, f"{kernel.name}.{r.group}", r.test, r.status,
                              r.reason, durations.get(r.name)))
    verdict = gate.verdict_findings(kernel)
    statuses.append(_case(suite, f"{kernel.name}.vm", "verdict",
                          "fail" if verdict else "pass", "; ".join(verdict)))
    health = gate.health_findings(kernel)
    statuses.append(_case(suite, f"{kernel.name}.vm", "health",
                          "error" if health else "pass", "; ".join(health),
                          kernel.durations.get("total_s")))
    suite.set("tests", str(len(statuses)))
    for attr, status in (("failures", "fail"), ("errors", "error"), ("skipped", "skip")):
        suite.set(attr, str(statuses.count(status)))
    if "suite_s" in kernel.durations:
        suite.set("time", f"{kernel.durations['suite_s']:.3f}")
    suite.set("id", f"{run_id}/{kernel.name}")
    return suite


def build(run):
    root = ET.Element("testsuites", name=f"jr2 run {run.id}")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for kernel in run.kernels:
        suite = kernel_suite(kernel, run.id)
        root.append(suite)
        for key in totals:
            totals[key] += int(suite.get(key))
    for key, value in totals.items():
        root.set(key, str(value))
    return ET.ElementTree(root)


def write(run, path):
    tree = build(run)
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)
