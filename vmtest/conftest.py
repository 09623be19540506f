# SPDX-License-Identifier: GPL-2.0-only
"""pytest vmtest: options of the matrix driver (test_kernels.py)."""
import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("vmtest")
    group.addoption("--kernel", action="append", default=[], metavar="NAME|PATH",
                    help="boot only these matrix entries or bzImage paths (repeatable)")
    group.addoption("--vm-filter", default="", metavar="BIN[:TEST]",
                    help="run only the suite binaries whose name holds BIN (and TEST of them)")
    group.addoption("--vm-timeout", type=float, default=600, metavar="S",
                    help="hard limit of one boot (default 600 s)")
