# SPDX-License-Identifier: GPL-2.0-only
"""Fixtures: two synthetic runs (results/tests/fixtures/{clean,faults}) and
the binaries they name.  `clean` is what a good matrix gives: refused
kernels refused by design, every test passed or skipped with a reason.
`faults` adds a failing test on 6.12, an oops and a crashed binary on 7.3."""
import pathlib
import shutil
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
FIXTURES = HERE / "fixtures"
KERNELS = ["5.10", "6.1", "6.1-nolsm", "6.12", "7.3"]


@pytest.fixture
def clean_copy(tmp_path):
    """A writable copy of the clean run and of its binaries."""
    shutil.copytree(FIXTURES / "clean", tmp_path / "clean")
    shutil.copytree(FIXTURES / "bin", tmp_path / "bin")
    return tmp_path
