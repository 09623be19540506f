# SPDX-License-Identifier: GPL-2.0-only
"""The shared TAP parser: a crash or a missing end is never a pass."""
from jr2results import tap

FRAMED = """# selftest: protected_dir_test
TAP version 13
1..3
ok 1 protected_dir.R1_read_denied
# protected_dir_test.c:40:R6_truncate:Expected EACCES (13) == test_truncate(path) (0)
not ok 2 protected_dir.R6_truncate
ok 3 protected_dir.R5_R9_rename_ancestor # SKIP ABI 2 < 3: the runtime refuses this kernel
# selftest-exit: protected_dir_test 1
"""


def test_framed_results_statuses_reasons_and_promises():
    results = tap.parse(FRAMED)
    assert [(r.name, r.status) for r in results] == [
        ("protected_dir.R1_read_denied", "pass"), ("protected_dir.R6_truncate", "fail"),
        ("protected_dir.R5_R9_rename_ancestor", "skip")]
    assert "Expected EACCES (13)" in results[1].reason
    assert results[2].reason == "ABI 2 < 3: the runtime refuses this kernel"
    assert results[2].promises == ["R5", "R9"]
    assert results[2].group == "protected_dir"
    assert tap.counts(results) == {"pass": 1, "fail": 1, "skip": 1, "error": 0}


def test_short_plan_in_a_frame_is_an_error():
    text = "# selftest: escapes_test\n1..2\nok 1 escapes.R9_a\n# selftest-exit: escapes_test 139\n"
    results = tap.parse(text)
    assert results[-1].status == "error"
    assert results[-1].reason == "1 of 2 planned tests never reported"


def test_frame_without_end_is_an_error_even_with_a_full_plan():
    results = tap.parse("# selftest: x_test\n1..1\nok 1 x.G1_a\n")
    assert [r.status for r in results] == ["pass", "error"]
    assert "never reported its end" in results[-1].reason


def test_nonzero_exit_without_a_failed_test_is_an_error():
    text = "# selftest: x_test\n1..1\nok 1 x.G1_a\n# selftest-exit: x_test 1\n"
    assert tap.parse(text)[-1].status == "error"
    skipped = "# selftest: x_test\n1..1\nok 1 x.G1_a # SKIP why\n# selftest-exit: x_test 4\n"
    assert [r.status for r in tap.parse(skipped)] == ["skip"]


def test_bare_tap_short_plan_is_an_error():
    results = tap.parse("TAP version 13\n1..3\nok 1 a.R1_x\nnot ok 2 a.R2_y\n")
    assert [r.status for r in results] == ["pass", "fail", "error"]
    assert results[-1].name == "tap.<crash>"
    assert [r.status for r in tap.parse("1..1\nok 1 a.R1_x\n")] == ["pass"]


def test_comments_and_dashes_after_the_name_are_not_directives():
    text = ("TAP version 13\n1..4\nok 1 coverage.G1 # 3 tests\nok 2 - a.R1_dash\n"
            "not ok 3 a.R2_x # TODO later\nok 4 a.R3_y #skip no ABI 6\n")
    results = tap.parse(text)
    assert [(r.name, r.status, r.reason) for r in results] == [
        ("coverage.G1", "pass", ""), ("a.R1_dash", "pass", ""), ("a.R2_x", "fail", ""),
        ("a.R3_y", "skip", "no ABI 6")]
