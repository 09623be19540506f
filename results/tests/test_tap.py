# SPDX-License-Identifier: GPL-2.0-only
"""The shared TAP reader: the kselftest runner's shape and plain TAP 13; a
crash or a missing end is never a pass."""
import pathlib
import shutil
import subprocess

import pytest

from jr2results import tap

RUNNER = """TAP version 13
1..2
# selftests: jr2: protected_dir_test
# TAP version 13
# 1..3
# # Starting 3 tests from 1 test cases.
# ok 1 protected_dir.R1_read_denied
# # protected_dir_test.c:40:R6_truncate:Expected EACCES (13) == test_truncate(path) (0)
# not ok 2 protected_dir.R6_truncate
# ok 3 protected_dir.R5_R9_rename_ancestor # SKIP ABI 2 < 3: the runtime refuses this kernel
# # FAILED: 2 / 3 tests passed.
not ok 1 selftests: jr2: protected_dir_test # exit=1
# selftests: jr2: gating_test
# TAP version 13
# 1..1
# ok 1 gating.G1_refuse_enosys # SKIP Landlock present
ok 2 selftests: jr2: gating_test # SKIP
"""


def test_runner_shape_results_statuses_reasons_and_promises() -> None:
    results = tap.parse(RUNNER)
    assert [(r.binary, r.name, r.status) for r in results] == [
        ("protected_dir_test", "protected_dir.R1_read_denied", "pass"),
        ("protected_dir_test", "protected_dir.R6_truncate", "fail"),
        ("protected_dir_test", "protected_dir.R5_R9_rename_ancestor", "skip"),
        ("gating_test", "gating.G1_refuse_enosys", "skip")]
    assert "Expected EACCES (13)" in results[1].reason
    assert results[2].reason == "ABI 2 < 3: the runtime refuses this kernel"
    assert results[2].promises == ["R5", "R9"]
    assert results[2].group == "protected_dir"
    assert tap.counts(results) == {"pass": 1, "fail": 1, "skip": 2, "error": 0}
    assert tap.finished_binaries(RUNNER) == 2


def test_a_fixture_variant_names_its_promises_after_the_variant() -> None:
    """kselftest's FIXTURE_VARIANT names a test fixture.variant.test: the IDs
    are read from the test's own part (909 of 1191 tests on 7.3 were reported
    as naming no promise when the variant was read as the first ID)."""
    text = RUNNER.replace("protected_dir.R5_R9_rename_ancestor",
                          "escapes.step.R5_R9_rename_ancestor")
    result = tap.parse(text)[2]
    assert result.name == "escapes.step.R5_R9_rename_ancestor"
    assert result.promises == ["R5", "R9"]
    assert (result.group, result.test) == ("escapes", "step.R5_R9_rename_ancestor")


def test_the_kernels_own_runner_header_names_its_target() -> None:
    """`make -C tools/testing/selftests TARGETS=landlock run_tests` writes the
    same shape with its own target name."""
    text = RUNNER.replace("jr2: ", "landlock: ")
    assert [r.status for r in tap.parse(text)] == ["pass", "fail", "skip", "skip"]


@pytest.mark.skipif(not shutil.which("prove"), reason="prove (perl) is not installed")
def test_prove_accepts_the_runner_shape(tmp_path: pathlib.Path) -> None:
    passing = RUNNER.replace("not ok 1 selftests: jr2: protected_dir_test # exit=1",
                             "ok 1 selftests: jr2: protected_dir_test")
    script = tmp_path / "suite.sh"
    script.write_text("#!/bin/sh\ncat <<'EOF'\n" + passing + "EOF\n")
    script.chmod(0o755)
    run = subprocess.run(["prove", "-e", "", str(script)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Result: PASS" in run.stdout


def test_short_plan_is_an_error() -> None:
    text = ("TAP version 13\n1..1\n# selftests: jr2: escapes_test\n# 1..2\n# ok 1 escapes.R9_a\n"
            "not ok 1 selftests: jr2: escapes_test # exit=139\n")
    results = tap.parse(text)
    assert results[-1].status == "error"
    assert results[-1].reason == "1 of 2 planned tests never reported"


def test_a_binary_without_its_outer_result_is_an_error_even_with_a_full_plan() -> None:
    results = tap.parse("TAP version 13\n1..1\n# selftests: jr2: x_test\n# 1..1\n# ok 1 x.G1_a\n")
    assert [r.status for r in results] == ["pass", "error"]
    assert "never reported its end" in results[-1].reason
    assert tap.finished_binaries("# selftests: jr2: x_test\n# 1..1\n# ok 1 x.G1_a\n") == 0


def test_timeout_and_nonzero_exit_without_a_failed_test_are_errors() -> None:
    head = "TAP version 13\n1..1\n# selftests: jr2: x_test\n# 1..1\n# ok 1 x.G1_a\n"
    assert tap.parse(head + "not ok 1 selftests: jr2: x_test # exit=1\n")[-1].status == "error"
    timed = tap.parse(head + "not ok 1 selftests: jr2: x_test # TIMEOUT 300 seconds\n")
    assert timed[-1].status == "error" and timed[-1].reason == "the binary timed out"
    skipped = ("TAP version 13\n1..1\n# selftests: jr2: x_test\n# 1..1\n# ok 1 x.G1_a # SKIP why\n"
               "ok 1 selftests: jr2: x_test # SKIP\n")
    assert [r.status for r in tap.parse(skipped)] == ["skip"]


def test_bare_tap_short_plan_is_an_error() -> None:
    results = tap.parse("TAP version 13\n1..3\nok 1 a.R1_x\nnot ok 2 a.R2_y\n")
    assert [r.status for r in results] == ["pass", "fail", "error"]
    assert results[-1].name == "tap.<crash>"
    assert [r.status for r in tap.parse("1..1\nok 1 a.R1_x\n")] == ["pass"]


def test_directives_as_tap_says() -> None:
    """A failing TODO is not a failure; comments and dashes are not directives."""
    text = ("TAP version 13\n1..5\nok 1 coverage.G1 # 3 tests\nok 2 - a.R1_dash\n"
            "not ok 3 a.R2_x # TODO later\nok 4 a.R3_y #skip no ABI 6\nok 5 a.R4_z # TODO done\n")
    results = tap.parse(text)
    assert [(r.name, r.status, r.reason) for r in results] == [
        ("coverage.G1", "pass", ""), ("a.R1_dash", "pass", ""), ("a.R2_x", "skip", "TODO later"),
        ("a.R3_y", "skip", "no ABI 6"), ("a.R4_z", "pass", "")]
