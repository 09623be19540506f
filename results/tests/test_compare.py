# SPDX-License-Identifier: GPL-2.0-only
"""make compare: what changed, test by test and kernel by kernel."""
import pathlib

import pytest

from conftest import FIXTURES
from jr2results import compare


def test_runs_differ_in_exactly_the_injected_faults() -> None:
    changes, what = compare.compare(FIXTURES / "clean", FIXTURES / "faults")
    assert what == "run clean -> run faults"
    got = [(c.kernel, c.subject, c.before.split(" (")[0], c.after.split(" (")[0])
           for c in changes]
    assert got == [
        ("6.12", "outcome", "pass", "fail"),
        ("6.12", "protected_dir.R6_truncate_o_trunc", "pass", "fail"),
        ("7.3", "outcome", "pass", "fail"),
        ("7.3", "problem", "none",
         "console: [    5.104211] BUG: kernel NULL pointer dereference, address: 0000000000000008"),
        ("7.3", "escapes.R9_R10_proc_fd_link", "pass", "absent"),
        ("7.3", "escapes_test.<crash>", "absent", "error"),
    ]
    assert compare.compare(FIXTURES / "clean", FIXTURES / "clean")[0] == []
    assert compare.text([], "run a -> run b") == "run a -> run b: no change\n"


def test_a_kernel_gone_from_a_run(clean_copy: pathlib.Path) -> None:
    import shutil
    shutil.rmtree(clean_copy / "clean" / "6.1-nolsm")
    changes, _ = compare.compare(FIXTURES / "clean", clean_copy / "clean")
    assert [(c.kernel, c.subject, c.before, c.after) for c in changes] == [
        ("6.1-nolsm", "kernel", "run", "absent")]


def test_two_kernels_of_one_run() -> None:
    changes, _ = compare.compare(FIXTURES / "clean" / "6.1", FIXTURES / "clean" / "6.12")
    by_subject = {c.subject: c for c in changes}
    assert (by_subject["verdict"].before, by_subject["verdict"].after) == ("refused", "accepted")
    assert by_subject["verdict code"].before == "abi_too_old"
    assert by_subject["protected_dir.R6_truncate_o_trunc"].after == "pass"
    assert all(c.kernel == "6.1->6.12" for c in changes)


def test_a_run_against_a_kernel_is_refused() -> None:
    with pytest.raises(ValueError, match="one of each"):
        compare.compare(FIXTURES / "clean", FIXTURES / "clean" / "6.1")
