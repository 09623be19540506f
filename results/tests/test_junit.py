# SPDX-License-Identifier: GPL-2.0-only
"""JUnit XML as its readers see it: valid against junit-10.xsd (xmllint, the
schema Jenkins' xUnit plugin applies), read back by junitparser (Debian's
python3-junitparser) with the counts and times the TAP gave, and parsed with
ElementTree for the details."""
import json
import pathlib
import re
import subprocess
import xml.etree.ElementTree as ET

import pytest

from conftest import FIXTURES, KERNELS
from jr2results import junit, run, tap

REPO = pathlib.Path(__file__).resolve().parents[2]


def written(tmp_path: pathlib.Path, name: str) -> ET.Element:
    path = tmp_path / f"{name}.xml"
    junit.write(run.load(FIXTURES / name), path)
    return ET.parse(path).getroot()


def child(element: ET.Element, path: str) -> ET.Element:
    """The element at path, which must be there."""
    found = element.find(path)
    assert found is not None, f"no {path} in <{element.tag}>"
    return found


def attr(element: ET.Element, name: str) -> str:
    """The attribute, which must be set."""
    value = element.get(name)
    assert value is not None, f"<{element.tag}> has no {name}"
    return value


def text(element: ET.Element) -> str:
    assert element.text is not None, f"<{element.tag}> has no text"
    return element.text


def case(root: ET.Element, kernel: str, classname: str, name: str) -> ET.Element:
    suite = root.find(f"testsuite[@name='{kernel}']")
    assert suite is not None, f"no testsuite of {kernel}"
    found = suite.find(f"testcase[@classname='{kernel}.{classname}'][@name='{name}']")
    assert found is not None, f"no testcase {kernel}.{classname} {name}"
    return found


@pytest.mark.parametrize("name", ["clean", "faults"])
def test_validates_against_junit_10_xsd(tmp_path: pathlib.Path,
                                        junit_xsd: pathlib.Path,
                                        name: str) -> None:
    path = tmp_path / f"{name}.xml"
    junit.write(run.load(FIXTURES / name), path)
    res = subprocess.run(["xmllint", "--noout", "--schema", str(junit_xsd), str(path)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "validates" in res.stderr


def test_xsd_refuses_a_skipped_attribute_on_testsuites(
        tmp_path: pathlib.Path, junit_xsd: pathlib.Path) -> None:
    """The control: the old writer's <testsuites skipped=...> is refused."""
    path = tmp_path / "faults.xml"
    junit.write(run.load(FIXTURES / "faults"), path)
    tree = ET.parse(path)
    tree.getroot().set("skipped", "3")
    tree.write(path)
    res = subprocess.run(["xmllint", "--noout", "--schema", str(junit_xsd), str(path)],
                         capture_output=True, text=True)
    assert res.returncode != 0
    assert "The attribute 'skipped' is not allowed" in res.stderr


def test_junitparser_reads_the_counts_and_times_of_the_tap(tmp_path: pathlib.Path) -> None:
    junitparser = pytest.importorskip(
        "junitparser", reason="python3-junitparser is not installed: `make test-results` "
        "installs it")
    path = tmp_path / "faults.xml"
    junit.write(run.load(FIXTURES / "faults"), path)
    xml = junitparser.JUnitXml.fromfile(str(path))
    suites = {s.name: s for s in xml}
    assert list(suites) == KERNELS
    for kernel in KERNELS:
        results = tap.parse((FIXTURES / "faults" / kernel / "suite.tap").read_text())
        counts = tap.counts(results)
        suite = suites[kernel]
        cases = list(suite)
        assert len(cases) == suite.tests == len(results) + 2
        assert suite.skipped == counts["skip"]
        verdict = [c for c in cases if c.name == "verdict"][0]
        assert suite.failures == counts["fail"] + bool(verdict.result)
        health = [c for c in cases if c.name == "health"][0]
        assert suite.errors == counts["error"] + bool(health.result)
        by_name = {(c.classname, c.name): c for c in cases}
        for r in results:
            c = by_name[(f"{kernel}.{r.binary}", r.name)]
            if r.duration is not None:
                assert c.time == pytest.approx(r.duration, abs=0.0005)
            kinds = [type(x).__name__ for x in c.result]
            assert kinds == {"pass": [], "fail": ["Failure"], "skip": ["Skipped"],
                             "error": ["Error"]}[r.status]
    r6 = [c for c in suites["6.12"] if c.name == "protected_dir.R6_truncate_o_trunc"][0]
    assert r6.time == 0.2  # duration_ms 200 in the TAP
    assert r6.result[0].message == ("protected_dir_test.c:214:R6_truncate_o_trunc:Expected "
                                    "EACCES (13) == test_open(file, O_WRONLY | O_TRUNC) (0)")
    assert "protected_dir_test.c:218:R6_truncate_o_trunc:Expected 7 == st.st_size (0)" in \
        r6.result[0].text


def test_every_testcase_has_its_time(tmp_path: pathlib.Path) -> None:
    root = written(tmp_path, "faults")
    for kernel in KERNELS:
        for c in child(root, f"testsuite[@name='{kernel}']").findall("testcase"):
            assert c.get("time") is not None, (kernel, c.get("name"))
    # A crash: the binary's guest time that its reported tests do not account for.
    crash = case(root, "7.3", "escapes_test", "escapes_test.<crash>")
    escapes = [c for c in child(root, "testsuite[@name='7.3']").findall("testcase")
               if c.get("classname") == "7.3.escapes_test" and c is not crash]
    summary = json.loads((FIXTURES / "faults" / "7.3" / "summary.json").read_text())
    assert float(attr(crash, "time")) == pytest.approx(
        summary["binary_s"]["escapes_test"] - sum(float(attr(c, "time")) for c in escapes))
    assert root.get("time") == f"{sum(float(attr(s, 'time')) for s in root):.3f}"


def test_one_testsuite_per_kernel_with_true_counts(tmp_path: pathlib.Path) -> None:
    root = written(tmp_path, "faults")
    assert [s.get("name") for s in root.findall("testsuite")] == KERNELS
    for suite in root.findall("testsuite"):
        cases = suite.findall("testcase")
        assert int(attr(suite, "tests")) == len(cases)
        assert int(attr(suite, "failures")) == len([c for c in cases if c.find("failure") is not None])
        assert int(attr(suite, "errors")) == len([c for c in cases if c.find("error") is not None])
        assert int(attr(suite, "skipped")) == len([c for c in cases if c.find("skipped") is not None])
    totals = {k: sum(int(attr(s, k)) for s in root) for k in ("tests", "failures", "errors")}
    assert totals == {k: int(attr(root, k)) for k in totals}
    assert root.get("skipped") is None


def test_every_tap_result_is_a_testcase(tmp_path: pathlib.Path) -> None:
    root = written(tmp_path, "faults")
    for kernel in KERNELS:
        results = tap.parse((FIXTURES / "faults" / kernel / "suite.tap").read_text())
        suite = child(root, f"testsuite[@name='{kernel}']")
        names = [(c.get("classname"), c.get("name")) for c in suite.findall("testcase")]
        assert names[:-2] == [(f"{kernel}.{r.binary}", r.name) for r in results]
        assert names[-2:] == [(f"{kernel}.kernels/matrix", "verdict"),
                              (f"{kernel}.kernels/matrix", "health")]


def test_failure_message_is_the_first_assertion_and_text_the_output(tmp_path: pathlib.Path) -> None:
    failure = child(case(written(tmp_path, "faults"), "6.12", "protected_dir_test",
                         "protected_dir.R6_truncate_o_trunc"), "failure")
    assert failure.get("message") == (
        "protected_dir_test.c:214:R6_truncate_o_trunc:Expected EACCES (13) == "
        "test_open(file, O_WRONLY | O_TRUNC) (0)")
    assert text(failure).splitlines() == [
        "RUN           protected_dir.R6_truncate_o_trunc ...",
        "protected_dir_test.c:214:R6_truncate_o_trunc:Expected EACCES (13) == "
        "test_open(file, O_WRONLY | O_TRUNC) (0)",
        "protected_dir_test.c:218:R6_truncate_o_trunc:Expected 7 == st.st_size (0)",
        "R6_truncate_o_trunc: Test failed at step #3",
        "FAIL  protected_dir.R6_truncate_o_trunc"]


def test_failure_without_assertion_names_its_first_diagnostic() -> None:
    results = tap.parse("1..1\n#  RUN           g.t ...\n# g.t: child killed by signal 9\n"
                        "#          FAIL  g.t\nnot ok 1 g.t\n")
    assert results[0].message == "g.t: child killed by signal 9"


def test_skip_carries_its_reason(tmp_path: pathlib.Path) -> None:
    skipped = child(case(written(tmp_path, "clean"), "6.1", "protected_dir_test",
                         "protected_dir.R1_read_denied"), "skipped")
    assert skipped.get("message") == "ABI 2 < 3: the runtime refuses this kernel"


def test_oops_and_crash_are_errors(tmp_path: pathlib.Path) -> None:
    root = written(tmp_path, "faults")
    health = child(case(root, "7.3", "kernels/matrix", "health"), "error")
    assert "BUG: kernel NULL pointer dereference" in text(health)
    crash = child(case(root, "7.3", "escapes_test", "escapes_test.<crash>"), "error")
    assert crash.get("message") == "1 of 2 planned tests never reported"
    assert "child killed by signal 11 (SIGSEGV)" in text(crash)


def test_control_characters_of_an_output_stay_xml(
        tmp_path: pathlib.Path, clean_copy: pathlib.Path) -> None:
    tap_path = clean_copy / "clean" / "6.12" / "suite.tap"
    text = tap_path.read_text().replace(
        "# #            OK  protected_dir.R1_read_denied\n# ok 1 protected_dir.R1_read_denied",
        "# # got \x1b[31mred\x1b[0m\x00\n# #          FAIL  protected_dir.R1_read_denied\n"
        "# not ok 1 protected_dir.R1_read_denied")
    tap_path.write_text(text)
    path = tmp_path / "x.xml"
    junit.write(run.load(clean_copy / "clean"), path)
    failure = child(case(ET.parse(path).getroot(), "6.12", "protected_dir_test",
                         "protected_dir.R1_read_denied"), "failure")
    assert failure.get("message") == "got \ufffd[31mred\ufffd[0m\ufffd"


def test_a_kernels_failure_is_annotated_on_its_matrix_entry(tmp_path: pathlib.Path) -> None:
    """vm.health and vm.verdict are about the kernel: read as action-junit-
    report reads them (the classname's last part globbed as **/<it>.*, the
    line the last " <...it...>:<n>" of the text), they point at the
    kernel's entry in kernels/matrix.toml, not at kernels/config/vm.config."""
    root = written(tmp_path, "faults")
    health = case(root, "7.3", "kernels/matrix", "health")
    last = attr(health, "classname").split(".")[-1]
    found = [p.relative_to(REPO) for p in REPO.glob(f"**/{last}.*")
             if "build" not in p.relative_to(REPO).parts]
    assert found == [pathlib.Path("kernels/matrix.toml")]
    lines = re.findall(rf" [^ ]*{re.escape(last)}.*?:(\d+)", text(child(health, "error")))
    entry = (REPO / "kernels" / "matrix.toml").read_text().splitlines()[int(lines[-1]) - 1]
    assert entry == 'name = "7.3"'
    assert junit.matrix_line("7.3-nolsm") != junit.matrix_line("7.3")
    assert junit.matrix_line("no-such-kernel") is None


def test_clean_run_has_no_failure_and_kernel_properties(tmp_path: pathlib.Path) -> None:
    root = written(tmp_path, "clean")
    assert root.get("failures") == "0" and root.get("errors") == "0"
    props = {p.get("name"): p.get("value")
             for p in child(root, "testsuite[@name='6.12']/properties")}
    assert props["release"] == "6.12.117+deb13-amd64" and props["abi"] == "6"
    assert len(props["sha256:jr2-confine"] or "") == 64


@pytest.mark.parametrize("name", ["clean", "faults"])
def test_classname_ends_in_the_binary_whose_source_failed(
        tmp_path: pathlib.Path, name: str) -> None:
    """action-junit-report takes the classname's last part as the file's
    name and looks for `<it>.c:<line>` in the failure's text: that part is
    the binary, whose source is `<binary>.c`, never the fixture's name."""
    root = written(tmp_path, name)
    binaries = {r.binary for k in KERNELS
                for r in tap.parse((FIXTURES / name / k / "suite.tap").read_text())}
    for c in root.iter("testcase"):
        last = attr(c, "classname").rsplit(".", 1)[-1]
        assert last in binaries | {"kernels/matrix"}, c.get("classname")
        failure = c.find("failure")
        if failure is not None and failure.get("message", "").startswith(last):
            assert f"{last}.c:" in attr(failure, "message")
    failed = case(root, "6.12", "protected_dir_test", "protected_dir.R6_truncate_o_trunc")
    if name == "faults":
        last = attr(failed, "classname").rsplit(".", 1)[-1]
        assert re.search(rf"{last}.*?:\d+", text(child(failed, "failure")))
