# SPDX-License-Identifier: GPL-2.0-only
"""The gate's verdict names every kernel it ran, with its outcome and ABI
(the seed's kernels are seen there), besides those it could not run."""
import pathlib

from conftest import FIXTURES, KERNELS
from jr2results import cli, gate, run


def test_the_verdict_lists_each_kernel_run_with_outcome_and_abi(clean_copy: pathlib.Path) -> None:
    loaded = run.load(clean_copy / "clean")
    decision = gate.decide(loaded, dict.fromkeys(KERNELS), cli.hash_files([clean_copy / "bin"]))
    assert [r.kernel for r in decision.ran] == [k.name for k in loaded.kernels]
    for r, k in zip(decision.ran, loaded.kernels):
        landlock = k.summary.get("landlock")
        want = f"ABI {k.abi}" if landlock == "ok" else landlock
        assert str(r) == f"{k.name}: {k.summary['outcome']}, {want}, verdict {k.verdict_text}"
    assert FIXTURES.exists()
