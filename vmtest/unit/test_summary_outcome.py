# SPDX-License-Identifier: GPL-2.0-only
"""summary.json: the outcome is pass only when everything agrees."""
from typing import Any

import pytest

import jr2kernels
from jr2vm import channel, summary
from test_guest_io import CHANNEL

TABLE = {"required": 3, "newest_known": 11,
         "abis": {n: {"abi": n, "verdict": "accepted" if n >= 3 else "refused"} for n in range(1, 12)}}
ENTRY = jr2kernels.Entry("7.3", "debian", 11, "accepted")


def outcome(text: str = CHANNEL, entry: jr2kernels.Entry | None = ENTRY, console: str = "",
            timed_out: bool = False, status: int | None = 85) -> dict[str, Any]:
    return summary.summarize(summary.Boot("7.3", entry, channel.parse(text), console, TABLE,
                                          timed_out, 600, {}, {}, status))


def test_all_agreeing_is_a_pass() -> None:
    result = outcome()
    assert result["outcome"] == "pass", result["problems"]
    assert result["counts"] == {"pass": 1, "fail": 0, "skip": 0, "error": 0}
    assert (result["abi"], result["errata"], result["entry_abi"]) == (11, 15, 11)
    assert result["tests"][0]["promises"] == ["R1"]


def test_another_abi_than_the_entry_fails_loudly() -> None:
    result = outcome(entry=jr2kernels.Entry("7.3", "debian", 10, "accepted"))
    assert result["outcome"] == "fail"
    assert any(p.startswith("ABI mismatch") for p in result["problems"])


def test_a_verdict_other_than_expected_fails() -> None:
    text = CHANNEL.replace('"verdict": "accepted", "verdict_code": "accepted"',
                           '"verdict": "refused", "verdict_code": "abi_too_old"')
    assert outcome(text)["outcome"] == "fail"


def test_a_failed_test_fails() -> None:
    assert outcome(CHANNEL.replace("ok 1 a.R1_read", "not ok 1 a.R1_read"))["outcome"] == "fail"


def test_an_oops_on_the_console_is_an_error_even_with_a_clean_suite() -> None:
    result = outcome(console="[ 2.0] BUG: unable to handle page fault\n")
    assert result["outcome"] == "error" and result["problems"] == [
        "console: [ 2.0] BUG: unable to handle page fault"]


@pytest.mark.parametrize("cut", ["# jr2-vm: end", "# jr2-vm: check-begin"])
def test_no_end_marker_is_an_error_never_a_pass(cut: str) -> None:
    result = outcome(CHANNEL.split(cut)[0], status=0)
    assert result["outcome"] == "error"
    assert any("no end marker" in p for p in result["problems"])


def test_a_timeout_is_an_error() -> None:
    result = outcome(timed_out=True)
    assert result["outcome"] == "error" and any(p.startswith("timeout") for p in result["problems"])


def test_a_users_kernel_gets_its_expectation_from_the_abi_it_reports() -> None:
    result = outcome(entry=None)
    assert result["outcome"] == "pass" and result["entry_abi"] is None
    assert result["expected_verdict_code"] == "accepted"


def test_a_suite_binary_that_never_finished_is_a_problem() -> None:
    text = CHANNEL.replace("# jr2-vm: suite-begin 1", "# jr2-vm: suite-begin 2")
    assert outcome(text)["outcome"] == "fail"
