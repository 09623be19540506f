# SPDX-License-Identifier: GPL-2.0-only
"""KCIDB v5.3, checked as KCIDB checks it: kcidb-io's own schema through
Debian's python3-jsonschema (draft 7, a strict date-time checker), then the
project's stricter layer (links and ids, kcidb_check.LINK_RULES).

The schema is test data beside the checkout (../shared/kcidb/, or
$JR2_KCIDB_SCHEMA): where it is absent, the tests that need it skip and say
so; CI always has it.  The mutation corpus, fixtures/kcidb/mutations.json,
holds bad (and a few good) variants of fixtures/kcidb/base.json: each names
what the real schema does with it ("refuse" or "accept") and the stricter
layer's extra refusals by rule; the writer's check must agree exactly."""
import copy
import json
import pathlib
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import FIXTURES, HERE, KERNELS
from jr2results import kcidb, kcidb_check, run, tap

CORPUS = FIXTURES / "kcidb"


@pytest.fixture(scope="module")
def schema(kcidb_schema_path: pathlib.Path) -> dict[str, Any]:
    return kcidb_check.load_schema(kcidb_schema_path)


@pytest.fixture(scope="module")
def faults() -> dict[str, Any]:
    return kcidb.build(run.load(FIXTURES / "faults"), "0.1.0")


def texts(value: Any) -> Iterator[str]:
    """Every string inside a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from texts(v)
    elif isinstance(value, list):
        for v in value:
            yield from texts(v)


def test_fresh_documents_pass_the_real_schema(
        schema: dict[str, Any], faults: dict[str, Any]) -> None:
    """What the writer makes of both fixture runs, through the JSON text."""
    assert faults["version"] == {"major": 5, "minor": 3}
    for data in (faults, kcidb.build(run.load(FIXTURES / "clean"))):
        data = json.loads(json.dumps(data))
        assert kcidb_check.schema_errors(data, schema) == []
        assert kcidb_check.check(data, schema) == []


def test_writer_refuses_what_the_checker_refuses(clean_copy: pathlib.Path,
                                                 schema: dict[str, Any],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """`jr2-results write` runs the check: a document it breaks is not written."""
    from jr2results import cli
    monkeypatch.setattr(kcidb, "ORIGIN", "JR2")  # an origin the schema refuses
    with pytest.raises(cli.UsageError, match=r"breaks schema v5.3: .*'JR2' does not match"):
        cli.write_outputs(run.load(clean_copy / "clean"), clean_copy / "out",
                          schema_path=kcidb_check.find_schema())
    assert not (clean_copy / "out" / "kcidb.json").exists()


def test_no_python_none_in_the_text(clean_copy: pathlib.Path, schema: dict[str, Any]) -> None:
    """A kernel whose probe said nothing: the summary holds nulls."""
    path = clean_copy / "clean" / "6.12" / "summary.json"
    summary = json.loads(path.read_text())
    summary.update(landlock=None, abi=None, release=None, errata=None, verdict=None,
                   verdict_code=None)
    path.write_text(json.dumps(summary))
    data = kcidb.build(run.load(clean_copy / "clean"), "")
    assert kcidb_check.check(data, schema) == []
    bad = [t for t in texts(data) if re.search(r"\bNone\b", t)]
    assert bad == []
    env = next(t for t in data["tests"] if t["id"] == "jr2:clean:6.12")["environment"]
    assert env["comment"] == "Linux ? (matrix entry 6.12), Landlock not probed, under QEMU"


def test_ids_origin_paths_and_links(faults: dict[str, Any]) -> None:
    build_id = faults["builds"][0]["id"]
    assert faults["builds"][0]["checkout_id"] == faults["checkouts"][0]["id"]
    for test in faults["tests"]:
        assert test["id"].startswith("jr2:") and test["origin"] == "jr2"
        assert test["build_id"] == build_id
        assert test["path"].split(".")[0] in ("jr2", "kselftest")
    by_id = {t["id"]: t for t in faults["tests"]}
    r6 = by_id["jr2:faults:6.12:protected_dir.R6_truncate_o_trunc"]
    assert r6["path"] == "kselftest.jr2.jr2_protected_dir_test_protected_dir_R6_truncate_o_trunc"
    assert r6["status"] == "FAIL" and "Expected EACCES (13)" in r6["log_excerpt"]
    assert "Expected 7 == st.st_size (0)" in r6["log_excerpt"]  # the whole output
    assert r6["duration"] == 0.2  # the guest's time: duration_ms 200 in the TAP
    assert r6["misc"]["promises"] == ["R6"]


def test_environment_names_the_kernel(faults: dict[str, Any]) -> None:
    for test in faults["tests"]:
        kernel = test["id"].split(":")[2]
        assert kernel in KERNELS
        assert test["environment"]["misc"]["kernel"] == kernel
        assert f"matrix entry {kernel}" in test["environment"]["comment"]


def test_statuses_follow_the_results(faults: dict[str, Any]) -> None:
    by_id = {t["id"]: t for t in faults["tests"]}
    skip = by_id["jr2:faults:6.1:protected_dir.R1_read_denied"]
    assert skip["status"] == "SKIP"
    assert skip["comment"] == "ABI 2 < 3: the runtime refuses this kernel"
    assert by_id["jr2:faults:7.3:escapes_test.<crash>"]["status"] == "ERROR"
    assert by_id["jr2:faults:7.3:escapes_test.<crash>"]["path"] == (
        "kselftest.jr2.jr2_escapes_test_escapes_test_crash")
    assert "SIGSEGV" in by_id["jr2:faults:7.3:escapes_test.<crash>"]["log_excerpt"]
    assert by_id["jr2:faults:7.3:vm.health"]["status"] == "ERROR"
    roots = {t["id"]: t["status"] for t in faults["tests"] if t["path"] == "jr2"}
    assert roots == {"jr2:faults:5.10": "PASS", "jr2:faults:6.1": "PASS",
                     "jr2:faults:6.1-nolsm": "PASS", "jr2:faults:6.12": "FAIL",
                     "jr2:faults:7.3": "ERROR"}
    assert by_id["jr2:faults:6.12"]["duration"] == 9.8
    binary = by_id["jr2:faults:6.12:protected_dir_test"]
    assert (binary["path"], binary["status"], binary["duration"]) == (
        "kselftest.jr2.jr2_protected_dir_test", "FAIL", 0.7)
    assert by_id["jr2:faults:7.3:escapes_test"]["status"] == "ERROR"
    assert by_id["jr2:faults:6.1:escapes_test"]["status"] == "SKIP"


def test_a_kernel_without_tap_is_missed(clean_copy: pathlib.Path, schema: dict[str, Any]) -> None:
    (clean_copy / "clean" / "6.12" / "suite.tap").unlink()
    data = kcidb.build(run.load(clean_copy / "clean"))
    assert kcidb_check.check(data, schema) == []
    root = next(t for t in data["tests"] if t["id"] == "jr2:clean:6.12")
    assert root["status"] == "ERROR"  # vm.health: suite.tap missing outranks MISS
    assert kcidb.summary_status(["PASS", "SKIP", "MISS"]) == "MISS"
    assert kcidb.summary_status(["SKIP", "DONE"]) == "DONE"


def mutated(m: dict[str, Any]) -> Any:
    data = json.loads((CORPUS / "base.json").read_text())
    for op in m["ops"]:
        *parents, last = op[1]
        node: Any = data
        for key in parents:
            node = node[key]
        if op[0] == "set":
            node[last] = copy.deepcopy(op[2])
        elif op[0] == "set-repeat":
            node[last] = op[2][0] * op[2][1]
        elif op[0] == "del":
            del node[last]
        elif op[0] == "append":
            source: Any = data
            for key in op[2]:
                source = source[key]
            node[last].append(copy.deepcopy(source))
        else:
            raise ValueError(f"mutation '{m['name']}': unknown op {op[0]!r}")
    return data


MUTATIONS = json.loads((CORPUS / "mutations.json").read_text())


def test_corpus_base_is_good_and_names_only_known_rules(schema: dict[str, Any]) -> None:
    assert kcidb_check.check(json.loads((CORPUS / "base.json").read_text()), schema) == []
    assert len(MUTATIONS) == len({m["name"] for m in MUTATIONS}) >= 40
    assert {r for m in MUTATIONS for r in m["stricter"]} == set(kcidb_check.LINK_RULES)
    assert sum(m["schema"] == "refuse" for m in MUTATIONS) >= 30


@pytest.mark.parametrize("m", MUTATIONS, ids=[m["name"] for m in MUTATIONS])
def test_check_refuses_exactly_where_the_schema_does(
        schema: dict[str, Any], m: dict[str, Any]) -> None:
    data = mutated(m)
    real = kcidb_check.schema_errors(data, schema)
    assert ("refuse" if real else "accept") == m["schema"], real
    rules = sorted({rule for rule, _ in kcidb_check.link_errors(data)})
    assert rules == sorted(m["stricter"])
    refused = bool(kcidb_check.check(data, schema))
    assert refused == (m["schema"] == "refuse" or bool(m["stricter"]))


def test_date_time_checker_is_strict() -> None:
    good = ["2026-11-30T12:00:00Z", "2026-11-30t12:00:00.5+01:00", "2024-02-29T00:00:00-23:59",
            "2016-12-31T23:59:60Z"]
    bad = ["2026-13-45T12:00:00Z", "2025-02-29T00:00:00Z", "2026-11-30T12:00:00",
           "2026-11-30 12:00:00Z", "2026-11-30T12:60:00Z", "2026-11-30T12:00:61Z",
           "2026-11-30T12:00:00+24:00", "26-11-30T12:00:00Z", "2026-11-30T12:00Z"]
    assert [t for t in good if not kcidb_check.is_date_time(t)] == []
    assert [t for t in bad if kcidb_check.is_date_time(t)] == []


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(HERE.parent / "jr2-results"), *args],
                          capture_output=True, text=True, env=env)


def test_check_kcidb_command(schema: dict[str, Any], tmp_path: pathlib.Path,
                             faults: dict[str, Any]) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(faults))
    data = copy.deepcopy(faults)
    data["tests"][0]["start_time"] = "2026-13-45T00:00:00Z"
    data["tests"].append(copy.deepcopy(data["tests"][1]))
    bad.write_text(json.dumps(data))
    path = str(kcidb_check.find_schema())
    ok = cli("check-kcidb", str(good), "--kcidb-schema", path)
    assert (ok.returncode, ok.stdout.splitlines()[-1]) == (
        0, f"{good}: valid KCIDB v5.3 (schema, then links)")
    no = cli("check-kcidb", str(bad), "--kcidb-schema", path)
    assert no.returncode == 1
    assert "$.tests[0].start_time: '2026-13-45T00:00:00Z' is not a 'date-time'" in no.stdout
    assert "(duplicate-id)" in no.stdout


def test_check_kcidb_without_schema_says_what_to_do(
        tmp_path: pathlib.Path, faults: dict[str, Any]) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(faults))
    res = cli("check-kcidb", str(good), "--kcidb-schema", str(tmp_path / "absent.json"))
    assert res.returncode == 2
    assert "cannot read the KCIDB schema" in res.stderr and "JR2_KCIDB_SCHEMA" in res.stderr


@pytest.mark.parametrize("checkouts", ["runtime", "kernel"])
@pytest.mark.parametrize("name", ["clean", "faults"])
def test_every_inner_node_of_the_path_tree_is_a_test(schema: dict[str, Any], name: str,
                                                     checkouts: str) -> None:
    """KernelCI's tree views show a node only where a test is: every parent
    path of a test is a test of its build and environment."""
    data = json.loads(json.dumps(kcidb.build(run.load(FIXTURES / name), checkouts=checkouts)))
    assert kcidb_check.parent_errors(data) == []
    assert kcidb_check.check(data, schema) == []
    for kernel in KERNELS:
        paths = {t["path"] for t in data["tests"] if t["id"].split(":")[2] == kernel}
        assert {"jr2", "jr2.vm", "kselftest", "kselftest.jr2",
                "kselftest.jr2.jr2_protected_dir_test"} <= paths


def test_paths_are_kernelcis_kselftest_paths() -> None:
    """As KernelCI names kselftest results: kselftest.<collection>.<case>, the
    case "<collection>_<binary>_<test>" with each run of other characters
    than [A-Za-z0-9_-] one "_" (KernelCI's own, e.g. kselftest.landlock.
    landlock_net_test_protocol_no_sandbox_with_ipv4_mptcp_bind)."""
    def result(collection: str, binary: str, name: str) -> str:
        return kcidb.test_path(collection, tap.Result(binary, name, "pass"))

    assert result("landlock", "net_test", "protocol.no_sandbox_with_ipv4_mptcp.bind") == (
        "kselftest.landlock.landlock_net_test_protocol_no_sandbox_with_ipv4_mptcp_bind")
    assert kcidb.kselftest_path("landlock", "fs_test") == "kselftest.landlock.landlock_fs_test"
    assert kcidb.kselftest_path("landlock") == "kselftest.landlock"
    assert result("jr2", "scoped_signal_test", "sig.P1_kill_harness") == (
        "kselftest.jr2.jr2_scoped_signal_test_sig_P1_kill_harness")
    assert result("jr2", "escapes_test", "escapes_test.<crash>") == (
        "kselftest.jr2.jr2_escapes_test_escapes_test_crash")
    # Their slugify: "[N]" goes, "_-" becomes "_", one "_" off each end.
    assert kcidb.kselftest_case("fs_test: a.b[12] -x ") == "fs_test_a_b_x"
    tests = kcidb.with_parents(
        [{"path": "jr2.scoped_signal.sig.P1_a", "status": "PASS"},
         {"path": "jr2.scoped_signal.sig.P2_b", "status": "FAIL"}], "jr2",
        lambda path, status, n: {"path": path, "status": status, "n": n})
    assert tests[2:] == [{"path": "jr2.scoped_signal", "status": "FAIL", "n": 2},
                         {"path": "jr2.scoped_signal.sig", "status": "FAIL", "n": 2}]


def test_kernel_as_checkout_and_build(schema: dict[str, Any]) -> None:
    """checkouts="kernel": each kernel its own checkout and build, found by
    KernelCI's per-kernel views; the runtime named in the root test."""
    data = kcidb.build(run.load(FIXTURES / "faults"), checkouts="kernel")
    checkouts = {c["misc"]["kernel"]: c for c in data["checkouts"]}
    builds = {b["checkout_id"]: b for b in data["builds"]}
    assert sorted(checkouts) == sorted(KERNELS)
    c61 = checkouts["6.1"]
    assert c61["tree_name"] == "debian-bookworm"
    assert c61["misc"]["debian_version"] and c61["misc"]["package"].startswith("linux-image-6.1")
    # Debian's kernels: the repository their source package names (Vcs-Git)
    # at the version's DEP-14 tag; a backport's "~" is written "_".
    tag = f"debian/{c61['misc']['debian_version']}"
    assert (c61["git_repository_url"], c61["git_commit_name"], c61["git_commit_tags"]) == (
        "https://salsa.debian.org/kernel-team/linux.git", tag, [tag])
    assert c61["misc"]["source_package"] == "linux"
    c73 = checkouts["7.3"]
    assert c73["git_commit_name"] == "debian/7.3.4-1_bpo13+1"
    assert c73["misc"]["source_package"] == "linux-signed-amd64"
    assert builds[c61["id"]]["config_name"] == "config-6.1.0-50-amd64"
    nolsm = builds[checkouts["7.3-nolsm"]["id"]] if "7.3-nolsm" in checkouts else None
    assert nolsm is None or "lsm=" in nolsm.get("command", "")
    for t in data["tests"]:
        kernel = t["id"].split(":")[2]
        assert builds[checkouts[kernel]["id"]]["id"] == t["build_id"]
    root = next(t for t in data["tests"] if t["id"] == "jr2:faults:6.12")
    assert len(root["misc"]["jr2_commit"]) == 40 and root["misc"]["jr2_binaries_sha256"]
    assert kcidb_check.check(json.loads(json.dumps(data)), schema) == []


def test_log_url_where_a_log_is(clean_copy: pathlib.Path) -> None:
    (clean_copy / "clean" / "6.1" / "console.log").unlink()
    loaded = run.load(clean_copy / "clean")
    data = kcidb.build(loaded, log_base="https://ci.example/runs/r1/")
    by_id = {t["id"]: t for t in data["tests"]}
    assert by_id["jr2:clean:6.12:protected_dir.R1_read_denied"]["log_url"] == \
        "https://ci.example/runs/r1/6.12/suite.tap"
    assert by_id["jr2:clean:6.12"]["log_url"] == "https://ci.example/runs/r1/6.12/console.log"
    assert by_id["jr2:clean:6.12:vm.health"]["log_url"].endswith("/6.12/console.log")
    assert "log_url" not in by_id["jr2:clean:6.1"]  # no console.log: no link
    local = kcidb.build(loaded)
    url = next(t for t in local["tests"] if t["id"] == "jr2:clean:6.12")["log_url"]
    assert url == (clean_copy / "clean" / "6.12" / "console.log").resolve().as_uri()
