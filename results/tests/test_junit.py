# SPDX-License-Identifier: GPL-2.0-only
"""JUnit XML, parsed back with ElementTree."""
import xml.etree.ElementTree as ET

from conftest import FIXTURES, KERNELS
from jr2results import junit, run, tap


def written(tmp_path, name):
    path = tmp_path / f"{name}.xml"
    junit.write(run.load(FIXTURES / name), path)
    return ET.parse(path).getroot()


def case(root, kernel, classname, name):
    suite = root.find(f"testsuite[@name='{kernel}']")
    return suite.find(f"testcase[@classname='{kernel}.{classname}'][@name='{name}']")


def test_one_testsuite_per_kernel_with_true_counts(tmp_path):
    root = written(tmp_path, "faults")
    assert [s.get("name") for s in root.findall("testsuite")] == KERNELS
    for suite in root.findall("testsuite"):
        cases = suite.findall("testcase")
        assert int(suite.get("tests")) == len(cases)
        assert int(suite.get("failures")) == sum(c.find("failure") is not None for c in cases)
        assert int(suite.get("errors")) == sum(c.find("error") is not None for c in cases)
        assert int(suite.get("skipped")) == sum(c.find("skipped") is not None for c in cases)
    totals = {k: sum(int(s.get(k)) for s in root) for k in ("tests", "failures", "errors")}
    assert totals == {k: int(root.get(k)) for k in totals}


def test_every_tap_result_is_a_testcase(tmp_path):
    root = written(tmp_path, "faults")
    for kernel in KERNELS:
        results = tap.parse((FIXTURES / "faults" / kernel / "suite.tap").read_text())
        suite = root.find(f"testsuite[@name='{kernel}']")
        names = [(c.get("classname"), c.get("name")) for c in suite.findall("testcase")]
        assert names[:-2] == [(f"{kernel}.{r.group}", r.test) for r in results]
        assert names[-2:] == [(f"{kernel}.vm", "verdict"), (f"{kernel}.vm", "health")]


def test_failure_carries_the_diagnostics(tmp_path):
    failure = case(written(tmp_path, "faults"), "6.12", "protected_dir",
                   "R6_truncate_o_trunc").find("failure")
    assert failure is not None
    assert "Expected EACCES (13) == test_open(file, O_WRONLY | O_TRUNC) (0)" in failure.text


def test_skip_carries_its_reason(tmp_path):
    skipped = case(written(tmp_path, "clean"), "6.1", "protected_dir",
                   "R1_read_denied").find("skipped")
    assert skipped.get("message") == "ABI 2 < 3: the runtime refuses this kernel"


def test_oops_and_crash_are_errors(tmp_path):
    root = written(tmp_path, "faults")
    health = case(root, "7.3", "vm", "health").find("error")
    assert "BUG: kernel NULL pointer dereference" in health.text
    crash = case(root, "7.3", "escapes_test", "<crash>").find("error")
    assert crash.get("message") == "1 of 2 planned tests never reported"


def test_clean_run_has_no_failure_and_kernel_properties(tmp_path):
    root = written(tmp_path, "clean")
    assert root.get("failures") == "0" and root.get("errors") == "0"
    props = {p.get("name"): p.get("value")
             for p in root.find("testsuite[@name='6.12']/properties")}
    assert props["release"] == "6.12.117+deb13-amd64" and props["abi"] == "6"
    assert len(props["sha256:jr2-confine"]) == 64
