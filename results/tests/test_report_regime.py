# SPDX-License-Identifier: GPL-2.0-only
"""The report's kernel columns show the ABI regime, from what the guest found."""
from jr2results import report

SCOPED = {"scope_signal": "enforced", "scope_abstract_unix": "enforced"}
UNSCOPED = {"scope_signal": "unavailable", "scope_abstract_unix": "unavailable"}


def test_the_regime_of_each_kind_of_kernel() -> None:
    assert report.regime({"landlock": "ENOSYS"}) == "Landlock ENOSYS"
    assert report.regime({"landlock": "ok", "abi": 2, "verdict_code": "abi_too_old",
                          "features": UNSCOPED}) == "ABI 2: refused (abi_too_old)"
    assert report.regime({"landlock": "ok", "abi": 5, "verdict_code": "accepted",
                          "features": UNSCOPED, "yama_ptrace_scope": 1}) == (
        "ABI 5: signals and abstract sockets unscoped (G6); Yama ptrace_scope 1")
    assert report.regime({"landlock": "ok", "abi": 11, "cap": 5, "verdict_code": "accepted",
                          "features": UNSCOPED, "yama_ptrace_scope": 0}) == (
        "ABI 11 capped at 5: signals and abstract sockets unscoped (G6); Yama ptrace_scope 0")
    assert report.regime({"landlock": "ok", "abi": 7, "verdict_code": "accepted",
                          "features": SCOPED, "yama_ptrace_scope": None}) == (
        "ABI 7: signals and abstract sockets scoped")


def test_an_older_summary_without_features_still_shows_its_abi() -> None:
    assert report.regime({"landlock": "ok", "abi": 6, "verdict_code": "accepted"}) == "ABI 6"
