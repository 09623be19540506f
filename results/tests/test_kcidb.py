# SPDX-License-Identifier: GPL-2.0-only
"""KCIDB v5.3: our output obeys the schema's rules, and the checker of those
rules rejects what the schema rejects."""
import copy

import pytest

from conftest import FIXTURES, KERNELS
from jr2results import kcidb, kcidb_schema, run


@pytest.fixture(scope="module")
def faults():
    return kcidb.build(run.load(FIXTURES / "faults"), "0.1.0")


def test_output_is_valid_v5_3(faults):
    assert faults["version"] == {"major": 5, "minor": 3}
    assert kcidb_schema.validate(faults) == []
    assert kcidb_schema.validate(kcidb.build(run.load(FIXTURES / "clean"))) == []


def test_ids_origin_paths_and_links(faults):
    build_id = faults["builds"][0]["id"]
    assert faults["builds"][0]["checkout_id"] == faults["checkouts"][0]["id"]
    for test in faults["tests"]:
        assert test["id"].startswith("jr2:") and test["origin"] == "jr2"
        assert test["build_id"] == build_id
        assert test["path"] == "jr2" or test["path"].startswith("jr2.")
    by_id = {t["id"]: t for t in faults["tests"]}
    r6 = by_id["jr2:faults:6.12:protected_dir.R6_truncate_o_trunc"]
    assert r6["path"] == "jr2.protected_dir.R6_truncate_o_trunc"
    assert r6["status"] == "FAIL" and "Expected EACCES (13)" in r6["log_excerpt"]
    assert r6["misc"]["promises"] == ["R6"]


def test_environment_names_the_kernel(faults):
    for test in faults["tests"]:
        kernel = test["id"].split(":")[2]
        assert kernel in KERNELS
        assert test["environment"]["misc"]["kernel"] == kernel
        assert f"matrix entry {kernel}" in test["environment"]["comment"]


def test_statuses_follow_the_results(faults):
    by_id = {t["id"]: t for t in faults["tests"]}
    skip = by_id["jr2:faults:6.1:protected_dir.R1_read_denied"]
    assert skip["status"] == "SKIP"
    assert skip["comment"] == "ABI 2 < 3: the runtime refuses this kernel"
    assert by_id["jr2:faults:7.3:escapes_test.<crash>"]["status"] == "ERROR"
    assert by_id["jr2:faults:7.3:escapes_test.<crash>"]["path"] == "jr2.escapes_test.crash"
    assert by_id["jr2:faults:7.3:vm.health"]["status"] == "ERROR"
    roots = {t["id"]: t["status"] for t in faults["tests"] if t["path"] == "jr2"}
    assert roots == {"jr2:faults:5.10": "PASS", "jr2:faults:6.1": "PASS",
                     "jr2:faults:6.1-nolsm": "PASS", "jr2:faults:6.12": "FAIL",
                     "jr2:faults:7.3": "ERROR"}
    assert by_id["jr2:faults:6.12"]["duration"] == 9.8
    binary = by_id["jr2:faults:6.12:protected_dir_test"]
    assert (binary["path"], binary["status"], binary["duration"]) == ("jr2.protected_dir", "FAIL", 0.7)
    assert by_id["jr2:faults:7.3:escapes_test"]["status"] == "ERROR"
    assert by_id["jr2:faults:6.1:escapes_test"]["status"] == "SKIP"


def test_a_kernel_without_tap_is_missed(clean_copy):
    (clean_copy / "clean" / "6.12" / "suite.tap").unlink()
    data = kcidb.build(run.load(clean_copy / "clean"))
    assert kcidb_schema.validate(data) == []
    root = next(t for t in data["tests"] if t["id"] == "jr2:clean:6.12")
    assert root["status"] == "ERROR"  # vm.health: suite.tap missing outranks MISS
    assert kcidb.summary_status(["PASS", "SKIP", "MISS"]) == "MISS"
    assert kcidb.summary_status(["SKIP", "DONE"]) == "DONE"


def mutations():
    """(what, change) pairs that the v5.3 schema rejects."""
    def t(d):
        return d["tests"][1]
    return [
        ("unknown status", lambda d: t(d).update(status="BROKEN")),
        ("no build_id", lambda d: t(d).pop("build_id")),
        ("id without origin", lambda d: t(d).update(id="faults-6.12-R1")),
        ("upper-case origin", lambda d: t(d).update(origin="JR2")),
        ("null property", lambda d: t(d).update(comment=None)),
        ("unknown property", lambda d: t(d).update(kernel="6.12")),
        ("path with a space", lambda d: t(d).update(path="jr2.protected dir.R1")),
        ("path with an empty part", lambda d: t(d).update(path="jr2..R1")),
        ("duration as text", lambda d: t(d).update(duration="9.8")),
        ("duration as boolean", lambda d: t(d).update(duration=True)),
        ("date without offset", lambda d: t(d).update(start_time="2026-11-30T12:00:00")),
        ("excerpt too long", lambda d: t(d).update(log_excerpt="x" * 16385)),
        ("NUL in a comment", lambda d: t(d).update(comment="a\0b")),
        ("environment extra key", lambda d: t(d)["environment"].update(kernel="6.12")),
        ("minor 4", lambda d: d["version"].update(minor=4)),
        ("major 4", lambda d: d["version"].update(major=4)),
        ("no version", lambda d: d.pop("version")),
        ("top-level extra", lambda d: d.update(runs=[])),
        ("build without checkout_id", lambda d: d["builds"][0].pop("checkout_id")),
        ("build architecture", lambda d: d["builds"][0].update(architecture="x86-64")),
        ("checkout commit hash", lambda d: d["checkouts"][0].update(git_commit_hash="abc")),
        ("dangling build_id", lambda d: t(d).update(build_id="jr2:elsewhere")),
        ("duplicate test id", lambda d: d["tests"].append(copy.deepcopy(t(d)))),
    ]


@pytest.mark.parametrize("what,change", mutations(), ids=[m[0] for m in mutations()])
def test_checker_rejects_what_the_schema_rejects(faults, what, change):
    data = copy.deepcopy(faults)
    change(data)
    assert kcidb_schema.validate(data), f"accepted: {what}"


def test_checker_accepts_minimal_and_optional_forms():
    assert kcidb_schema.validate({"version": {"major": 5}}) == []
    data = {"version": {"major": 5, "minor": 0},
            "checkouts": [{"id": "x:1", "origin": "x", "patchset_hash": ""}],
            "builds": [{"id": "x:b", "origin": "x", "checkout_id": "x:1", "status": "DONE"}],
            "tests": [{"id": "x:t", "origin": "x", "build_id": "x:b", "path": "",
                       "number": {"value": 1.5, "unit": "s", "prefix": "metric"},
                       "start_time": "2020-08-14T23:08:06.967000+00:00"}]}
    assert kcidb_schema.validate(data) == []
