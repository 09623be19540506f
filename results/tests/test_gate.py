# SPDX-License-Identifier: GPL-2.0-only
"""The release gate passes the clean run and fails on each injected fault."""
import json
import pathlib
import shutil

import pytest

from conftest import FIXTURES, KERNELS
from jr2results import cli, gate, run

MATRIX: dict[str, str | None] = dict.fromkeys(KERNELS)
REQUIRED = ["jr2-confine", "jr2-harness"]


def decide(
        base: pathlib.Path, matrix: dict[str, str | None] = MATRIX,
        before: dict[str, str] | None = None, name: str | pathlib.Path = "clean") -> gate.Decision:
    built = cli.hash_files([base / "bin"])
    return gate.decide(run.load(base / name), matrix, built, before, REQUIRED)


def texts(decision: gate.Decision) -> list[str]:
    return [str(f) for f in decision.findings]


def edit(path: pathlib.Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_clean_run_passes(clean_copy: pathlib.Path) -> None:
    decision = decide(clean_copy)
    assert decision.passed, texts(decision)
    assert decision.notes == []


def test_fixture_faults_fail_on_their_kernels_only(tmp_path: pathlib.Path) -> None:
    shutil.copytree(FIXTURES / "bin", tmp_path / "bin")
    decision = decide(tmp_path, name=FIXTURES / "faults")
    assert not decision.passed
    assert {f.kernel for f in decision.findings} == {"6.12", "7.3"}


def test_a_test_made_to_fail(clean_copy: pathlib.Path) -> None:
    edit(clean_copy / "clean" / "6.12" / "suite.tap", "# ok 3 protected_dir.R6_truncate_o_trunc",
         "# # protected_dir_test.c:214:R6:Expected EACCES (13) == test_truncate(f) (0)\n"
         "# not ok 3 protected_dir.R6_truncate_o_trunc")
    found = texts(decide(clean_copy))
    assert any(f.startswith("6.12: protected_dir.R6_truncate_o_trunc failed: ") and
               "Expected EACCES (13)" in f for f in found), found
    # summary.json still says 0 failed: the gate reads the TAP, and says they differ
    assert any("counts" in f and "differ from suite.tap" in f for f in found)


def test_a_kernel_that_oopses(clean_copy: pathlib.Path) -> None:
    with open(clean_copy / "clean" / "7.3" / "console.log", "a") as log:
        log.write("[   12.345678] Oops: general protection fault, probably for non-canonical "
                  "address 0xdead000000000100: 0000 [#1] SMP NOPTI\n")
    found = texts(decide(clean_copy))
    assert found == ["7.3: console: [   12.345678] Oops: general protection fault, probably "
                     "for non-canonical address 0xdead000000000100: 0000 [#1] SMP NOPTI"]


@pytest.mark.parametrize("line", [
    "[    3.100000] WARNING: CPU: 0 PID: 1 at security/landlock/ruleset.c:120 x+0x1/0x2",
    "[    3.100000] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100",
    "[    3.100000] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [init:1]",
    "[    3.100000] INFO: task init:1 blocked for more than 120 seconds.",
    "[    3.100000] UBSAN: shift-out-of-bounds in security/landlock/fs.c:70:2",
])
def test_every_kind_of_kernel_fault_in_the_console(clean_copy: pathlib.Path, line: str) -> None:
    with open(clean_copy / "clean" / "6.12" / "console.log", "a") as log:
        log.write(line + "\n")
    assert texts(decide(clean_copy)) == [f"6.12: console: {line}"]


def test_a_clean_console_has_no_fault() -> None:
    text = (FIXTURES / "clean" / "7.3" / "console.log").read_text()
    assert gate.console_faults(text) == []
    assert gate.console_faults("landlock: Up and running.\nbugs: none\n") == []


def test_problems_reported_by_vmtest_timeout_and_oops(clean_copy: pathlib.Path) -> None:
    summary = clean_copy / "clean" / "6.1" / "summary.json"
    data = json.loads(summary.read_text())
    data["problems"] = ["timeout: the suite did not end within 300 s"]
    summary.write_text(json.dumps(data))
    assert texts(decide(clean_copy)) == [
        "6.1: problem: timeout: the suite did not end within 300 s"]


def test_a_binary_changed_after_the_run(clean_copy: pathlib.Path) -> None:
    with open(clean_copy / "bin" / "jr2-confine", "ab") as f:
        f.write(b"\x90")
    found = texts(decide(clean_copy))
    assert len(found) == len(KERNELS)
    assert all("binary 'jr2-confine' changed after the run" in f for f in found)


def test_a_binary_rebuilt_during_the_run(clean_copy: pathlib.Path) -> None:
    before = cli.hash_files([clean_copy / "bin"])
    before["jr2-harness"] = "0" * 64
    found = texts(decide(clean_copy, before=before))
    assert found == ["binary 'jr2-harness' was rebuilt during the run: "
                     "the matrix did not test one build"]


def test_a_required_binary_never_tested(clean_copy: pathlib.Path) -> None:
    for kernel in KERNELS:
        summary = clean_copy / "clean" / kernel / "summary.json"
        data = json.loads(summary.read_text())
        del data["binaries_sha256"]["jr2-harness"]
        summary.write_text(json.dumps(data))
    found = texts(decide(clean_copy))
    assert found == [f"{k}: binary 'jr2-harness' was not tested in the VM" for k in KERNELS]


def test_a_kernel_missing(clean_copy: pathlib.Path) -> None:
    shutil.rmtree(clean_copy / "clean" / "6.1-nolsm")
    assert texts(decide(clean_copy)) == [
        "6.1-nolsm: missing from the run, and no reason is declared for it"]
    declared = dict(MATRIX, **{"6.1-nolsm": "kernel.org tarball not cached"})
    decision = decide(clean_copy, declared)
    assert decision.passed
    assert [str(n) for n in decision.notes] == ["6.1-nolsm: not run: kernel.org tarball not cached"]


def test_a_verdict_or_abi_other_than_predicted(clean_copy: pathlib.Path) -> None:
    summary = clean_copy / "clean" / "6.1" / "summary.json"
    data = json.loads(summary.read_text())
    data["verdict"], data["verdict_code"], data["abi"] = "accepted", "accepted", 3
    summary.write_text(json.dumps(data))
    found = texts(decide(clean_copy))
    assert "6.1: verdict 'accepted' where the entry's ABI predicts 'refused (abi_too_old)'" in found
    assert "6.1: kernel reports ABI 3, its matrix entry says 2" in found


def test_skips_must_name_a_reason_the_kernel_abi_supports(clean_copy: pathlib.Path) -> None:
    tap = clean_copy / "clean" / "7.3" / "suite.tap"
    edit(tap, "ok 2 processes.P2_signal_harness_denied",
         "ok 2 processes.P2_signal_harness_denied # SKIP ABI 5 < 6: signal scoping unavailable")
    edit(tap, "ok 1 protected_dir.R1_read_denied", "ok 1 protected_dir.R1_read_denied # SKIP")
    found = [f for f in texts(decide(clean_copy)) if "counts" not in f]
    assert found == [
        "7.3: protected_dir.R1_read_denied skipped without a reason",
        "7.3: processes.P2_signal_harness_denied skipped for 'ABI 5 < 6' on a kernel of ABI 11"]


def test_a_crashed_binary_and_missing_files(clean_copy: pathlib.Path) -> None:
    edit(clean_copy / "clean" / "6.12" / "suite.tap", "ok 3 selftests: jr2: escapes_test\n", "")
    (clean_copy / "clean" / "7.3" / "console.log").unlink()
    found = texts(decide(clean_copy))
    assert any(f.startswith("6.12: escapes_test.<exit> errored: no exit status") for f in found)
    assert "7.3: result files: console.log missing" in found


def test_gate_command_writes_the_release_folder(clean_copy: pathlib.Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = clean_copy / "release" / "0.1.0"
    argv = ["gate", str(clean_copy / "clean"), "--matrix", *KERNELS, "6.2=no tarball here",
            "--bin-dir", str(clean_copy / "bin"), "--require", *REQUIRED,
            "--out", str(out), "--version", "0.1.0"]
    assert cli.main(argv) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "SHA256SUMS", "gate.txt", "junit.xml", "kcidb.json", "matrix.html", "matrix.md"]
    sums = dict(line.split("  ")[::-1] for line in (out / "SHA256SUMS").read_text().splitlines())
    assert sums == cli.hash_files([clean_copy / "bin"])
    gate_txt = (out / "gate.txt").read_text()
    assert gate_txt.startswith("release gate for 0.1.0, run clean: PASS\n")
    assert "note 6.2: not run: no tarball here" in gate_txt
    with open(clean_copy / "bin" / "jr2-confine", "ab") as f:
        f.write(b"changed")
    assert cli.main(argv) == 1
    assert "FAIL 5.10: binary 'jr2-confine' changed after the run" in (out / "gate.txt").read_text()
    assert "PASS" not in capsys.readouterr().out.splitlines()[-2]


def test_gate_command_names_bad_input(tmp_path: pathlib.Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["gate", str(tmp_path / "nope"), "--matrix", "6.1", "--bin-dir",
                     str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"run folder '{tmp_path / 'nope'}' does not exist" in err


def test_a_test_that_reports_on_some_kernels_only(clean_copy: pathlib.Path) -> None:
    edit(clean_copy / "clean" / "6.12" / "suite.tap", "# ok 4 processes.helper_reaps_children\n", "")
    found = [f for f in texts(decide(clean_copy)) if "counts" not in f]
    assert "6.12: processes.helper_reaps_children never reported (it did on 5.10)" in found
    assert any(f.startswith("6.12: processes_test.<crash> errored: 1 of 4") for f in found)
