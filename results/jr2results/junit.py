# SPDX-License-Identifier: GPL-2.0-only
"""JUnit XML of a run: one <testsuite> per kernel, one <testcase> per test.

Valid against junit-10.xsd (the schema Jenkins' xUnit plugin applies): the
<testsuites> element carries name, tests, failures, errors and time only.
Each testcase has its `time`: the guest's time of the test (TAP 13
`duration_ms`, written by vmtest's guest), where the run recorded it.  A
skipped test carries its reason; a failed one the first assertion line
("file.c:214:test:Expected ...") as `message` and the test's whole output
as text; a crashed binary an <error> with what it printed.  Two more
testcases per kernel, `vm.verdict` and `vm.health`, carry what is not a test
of the suite but must fail a CI job all the same: a verdict other than the
entry's ABI predicts, an oops/WARNING/timeout in the console, a result file
missing.  `vm.verdict` reads the run's files: its time is 0.

A testcase's classname ends in its binary's name (`6.1.protected_dir_test`)
and its name is the test's whole name, fixture and test
(`protected_dir.R1_read_denied`): readers that link a failure to its source
(action-junit-report) take the classname's last part as the file's name and
find `protected_dir_test.c:214` in the failure's text.  `vm.verdict` and
`vm.health` are about the kernel: their classname ends in `kernels/matrix`
and their text names the kernel's entry, ` kernels/matrix.toml:<line>`, so
that such a reader annotates the entry (it globs `**/<last part>.*`; a
last part `vm` found kernels/config/vm.config).
"""
import pathlib
import re
import xml.etree.ElementTree as ET

from . import gate, run as run_mod, tap

# XML 1.0 refuses these characters even as references: a test's output may hold them.
_BAD_XML = dict.fromkeys([c for c in range(0x20) if c not in (0x9, 0xA, 0xD)]
                         + [0xFFFE, 0xFFFF], "\ufffd")


def _xml_text(text: str) -> str:
    return text.translate(_BAD_XML)


def _case(suite: ET.Element, classname: str, name: str, status: str, reason: str,
          seconds: float | None = None, message: str | None = None, output: str = "") -> str:
    case = ET.SubElement(suite, "testcase", classname=classname, name=name)
    if seconds is not None:
        case.set("time", f"{seconds:.3f}")
    if status == "skip":
        ET.SubElement(case, "skipped", message=_xml_text(reason or "skipped without a reason"))
    elif status == "fail":
        message = message or reason or "failed (no diagnostics printed)"
        ET.SubElement(case, "failure", message=_xml_text(message), type="fail").text = \
            _xml_text(output or reason)
    elif status == "error":
        text = output if reason and reason in output else "\n".join(x for x in (reason, output) if x)
        ET.SubElement(case, "error", message=_xml_text(reason or "error"),
                      type="error").text = _xml_text(text)
    return status


MATRIX = pathlib.Path(__file__).resolve().parents[2] / "kernels" / "matrix.toml"
# The file vm.verdict and vm.health are about, as the classname's last part.
MATRIX_CLASS = "kernels/matrix"


def matrix_line(kernel: str, path: pathlib.Path = MATRIX) -> int | None:
    """The line of kernels/matrix.toml that names this entry, None where none does."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return None
    wanted = re.compile(rf'^\s*name\s*=\s*"{re.escape(kernel)}"\s*$')
    return next((n for n, line in enumerate(lines, 1) if wanted.match(line)), None)


def _entry_note(kernel: str) -> str:
    line = matrix_line(kernel)
    return f"the kernel's entry: kernels/matrix.toml:{line}" if line else ""


def _properties(suite: ET.Element, kernel: run_mod.Kernel) -> None:
    props = ET.SubElement(suite, "properties")
    for key in ("kernel", "release", "entry_abi", "abi", "errata", "landlock",
                "expected_verdict", "expected_verdict_code", "verdict", "verdict_code",
                "outcome", "profile"):
        if kernel.summary.get(key) is not None:
            ET.SubElement(props, "property", name=key, value=_xml_text(str(kernel.summary[key])))
    for package, version in sorted((kernel.summary.get("profile_data") or {}).items()):
        ET.SubElement(props, "property", name=f"profile_data:{package}", value=version)
    for name, digest in sorted(kernel.binaries.items()):
        ET.SubElement(props, "property", name=f"sha256:{name}", value=digest)


def _unreported_time(kernel: run_mod.Kernel, crash: tap.Result, binary_s: dict[str, float],
                     durations: dict[str, float | None]) -> float | None:
    """A crashed binary's `<crash>` (or `<exit>`): the guest time of the
    binary that its timed tests do not account for, where both are known."""
    total = binary_s.get(crash.binary)
    timed = [r.duration if r.duration is not None else durations.get(r.name)
             for r in kernel.results if r.binary == crash.binary and r is not crash]
    known = [t for t in timed if t is not None]
    if total is None or len(known) != len(timed):
        return None
    return max(0.0, total - sum(known))


def _totals(suite: ET.Element, statuses: list[str], kernel: run_mod.Kernel,
            suite_id: str) -> ET.Element:
    """The suite's counts of its cases' statuses, its time and its id."""
    suite.set("tests", str(len(statuses)))
    for attr, status in (("failures", "fail"), ("errors", "error"), ("skipped", "skip")):
        suite.set(attr, str(statuses.count(status)))
    if kernel.durations.get("suite_s") is not None:
        suite.set("time", f"{kernel.durations['suite_s']:.3f}")
    suite.set("id", suite_id)
    return suite


def kernel_suite(kernel: run_mod.Kernel, run_id: str) -> ET.Element:
    suite = ET.Element("testsuite", name=kernel.name)
    _properties(suite, kernel)
    durations = {t.get("name"): t.get("duration_s") for t in kernel.summary.get("tests", [])}
    statuses: list[str] = []
    binary_s = kernel.summary.get("binary_s") or {}
    for r in kernel.results:
        seconds = r.duration if r.duration is not None else durations.get(r.name)
        if seconds is None and r.name.endswith(">"):
            seconds = _unreported_time(kernel, r, binary_s, durations)
        statuses.append(_case(suite, f"{kernel.name}.{r.binary}", r.name, r.status,
                              r.reason, seconds, r.message, r.output))
    note = _entry_note(kernel.name)
    verdict = gate.verdict_findings(kernel)
    statuses.append(_case(suite, f"{kernel.name}.{MATRIX_CLASS}", "verdict",
                          "fail" if verdict else "pass", "; ".join(verdict), 0.0,
                          output="\n".join(x for x in [*verdict, note] if x)))
    health = gate.health_findings(kernel)
    statuses.append(_case(suite, f"{kernel.name}.{MATRIX_CLASS}", "health",
                          "error" if health else "pass", health[0] if health else "",
                          kernel.durations.get("total_s"),
                          output="\n".join(x for x in [*health, note] if x)))
    return _totals(suite, statuses, kernel, f"{run_id}/{kernel.name}")


def upstream_suite(kernel: run_mod.Kernel, run_id: str) -> ET.Element:
    """The kernel's own Landlock selftests, as they reported."""
    suite = ET.Element("testsuite", name=f"{kernel.name} (its own Landlock selftests)")
    _properties(suite, kernel)
    statuses = [_case(suite, f"{kernel.name}.landlock.{r.binary}",
                      r.name, r.status, r.reason, r.duration, r.message, r.output)
                for r in kernel.results]
    return _totals(suite, statuses, kernel, f"{run_id}/{kernel.name}/upstream")


def build(run: run_mod.Run) -> ET.ElementTree:
    """<testsuites name tests failures errors time>: the XSD allows no more
    (the skips are counted on each <testsuite>)."""
    root = ET.Element("testsuites", name=f"jr2 run {run.id}")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    seconds = 0.0
    suites: list[ET.Element] = []
    for kernel in run.kernels:
        suites.append(kernel_suite(kernel, run.id))
        if kernel.upstream is not None and not kernel.upstream.skipped:
            suites.append(upstream_suite(kernel.upstream, run.id))
    for suite in suites:
        root.append(suite)
        for key in totals:
            totals[key] += int(suite.get(key, 0))
        seconds += float(suite.get("time", 0))
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", f"{seconds:.3f}")
    return ET.ElementTree(root)


def write(run: run_mod.Run, path: pathlib.Path) -> None:
    tree = build(run)
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)
