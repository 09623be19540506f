# SPDX-License-Identifier: GPL-2.0-only
"""The kernel's own Landlock selftests beside ours (vmtest SUITE=upstream):
<kernel>/upstream/ is read, shown in its own report section, and written to
JUnit and KCIDB; its failures are findings about the kernel."""
import json
import pathlib
import xml.etree.ElementTree as ET

from jr2results import junit, kcidb, kcidb_check, promises, report, run

OWN_TAP = """TAP version 13
1..2
# selftests: landlock: base_test
# TAP version 13
# 1..2
# ok 1 global.inconsistent_attr
# ok 2 global.abi_version
ok 1 selftests: landlock: base_test
# selftests: landlock: fs_test
# TAP version 13
# 1..2
# # fs_test.c:123:topology_changes_with_net_only:Expected 0 (0) == mount(...) (-1)
# not ok 1 layout1.topology_changes_with_net_only
# ok 2 layout1.no_restriction
not ok 2 selftests: landlock: fs_test # exit=1
"""


def kernel(loaded: run.Run, name: str) -> run.Kernel:
    """The run's kernel of that name, which it must hold."""
    found = loaded.kernel(name)
    assert found is not None, f"no kernel {name} in run {loaded.id}"
    return found


def add_upstream(root: pathlib.Path) -> None:
    own = root / "clean" / "6.12" / "upstream"
    own.mkdir()
    (own / "suite.tap").write_text(OWN_TAP)
    (own / "console.log").write_text("[    0.0] Linux version 6.12\n")
    summary = json.loads((root / "clean" / "6.12" / "summary.json").read_text())
    summary.update(suite="upstream", outcome="pass",
                   kernel_findings=["layout1.topology_changes_with_net_only"])
    (own / "summary.json").write_text(json.dumps(summary))
    skipped = root / "clean" / "5.10" / "upstream"
    skipped.mkdir()
    (skipped / "summary.json").write_text(json.dumps(
        {"kernel": "5.10", "suite": "upstream", "outcome": "skip", "problems": [],
         "skip_reason": "5.10 boots without Landlock (ENOSYS)"}))


def test_the_run_reads_each_kernels_own_tests(clean_copy: pathlib.Path) -> None:
    add_upstream(clean_copy)
    loaded = run.load(clean_copy / "clean")
    own = kernel(loaded, "6.12").upstream
    assert own is not None
    assert [(r.binary, r.name, r.status) for r in own.results] == [
        ("base_test", "global.inconsistent_attr", "pass"),
        ("base_test", "global.abi_version", "pass"),
        ("fs_test", "layout1.topology_changes_with_net_only", "fail"),
        ("fs_test", "layout1.no_restriction", "pass")]
    assert own.defects == []
    skipped = kernel(loaded, "5.10").upstream
    assert skipped is not None and skipped.skipped
    assert kernel(loaded, "6.1").upstream is None


def test_the_report_shows_them_in_their_own_section(clean_copy: pathlib.Path) -> None:
    add_upstream(clean_copy)
    matrix = report.build(run.load(clean_copy / "clean"), [])
    md = report.markdown(matrix)
    assert "## The kernel's own Landlock selftests" in md
    assert "layout1.topology_changes_with_net_only" in md
    assert "5.10 boots without Landlock (ENOSYS)" in md
    page = report.html_page(matrix)
    assert 'href="6.12/upstream/suite.tap"' in page
    # A finding of the kernel's own tests is no failed cell of jr2's matrix.
    assert 'data-state="fail"' not in page


def test_junit_and_kcidb_carry_them(clean_copy: pathlib.Path, tmp_path: pathlib.Path) -> None:
    add_upstream(clean_copy)
    loaded = run.load(clean_copy / "clean")
    junit.write(loaded, tmp_path / "j.xml")
    suites = {s.get("name"): s for s in ET.parse(tmp_path / "j.xml").getroot()}
    own = suites["6.12 (its own Landlock selftests)"]
    assert own.get("tests") == "4" and own.get("failures") == "1"
    data = kcidb.build(loaded)
    paths = {t["path"]: t["status"] for t in data["tests"]}
    assert paths["kselftest.landlock.landlock_fs_test_layout1_topology_changes_with_net_only"] == "FAIL"
    assert paths["kselftest.landlock.landlock_fs_test"] == "FAIL"
    assert paths["kselftest.landlock"] == "FAIL"
    assert kcidb_check.link_errors(json.loads(json.dumps(data))) == []


def test_the_report_without_them_has_no_such_section(clean_copy: pathlib.Path) -> None:
    matrix = report.build(run.load(clean_copy / "clean"), promises.parse(""))
    assert "own Landlock selftests" not in report.markdown(matrix)
