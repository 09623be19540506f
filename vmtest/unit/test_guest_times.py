# SPDX-License-Identifier: GPL-2.0-only
"""The per-test times: selftests/run-tests' `timed` filter (run here by
busybox sh, as in the guest) adds each test's time after its result, and the
one TAP parser reads it back."""
import pathlib
import re
import shutil
import subprocess

import pytest

from jr2vm import summary  # noqa: F401  (puts results/ on sys.path)
from jr2results import tap

RUN_TESTS = pathlib.Path(__file__).resolve().parents[2] / "selftests" / "run-tests"


def timed_function():
    text = RUN_TESTS.read_text()
    m = re.search(r"^timed\(\) \{\n.*?^\}\n", text, re.S | re.M)
    assert m, "selftests/run-tests defines no timed()"
    return m.group(0)


def test_each_result_gets_the_time_from_its_run_line():
    busybox = shutil.which("busybox")
    if not busybox:
        pytest.skip("busybox is not installed (apt-get install busybox-static): "
                    "the guest's shell runs this filter")
    # A binary's output as the kselftest harness flushes it: the RUN line, then
    # (the test's time later) its result; the last line has no newline.
    producer = ("echo 'TAP version 13'; echo '1..2'; echo '#  RUN           g.slow ...'; "
                "sleep 0.5; echo '#            OK  g.slow'; echo 'ok 1 g.slow'; "
                "echo '#  RUN           g.fast ...'; printf 'not ok 2 g.fast # bad'")
    script = f"{timed_function()}\n{{ {producer}; }} | timed\n"
    out = subprocess.run([busybox, "sh", "-c", script], capture_output=True, text=True,
                         check=True, timeout=30).stdout
    assert out.splitlines()[4:8] == ["ok 1 g.slow", "  ---", out.splitlines()[6], "  ..."]
    results = tap.parse(out)
    assert [(r.name, r.status) for r in results] == [("g.slow", "pass"), ("g.fast", "fail")]
    # Centiseconds of /proc/uptime: the 0.5 s sleep shows whole; no upper
    # bound (a loaded machine may be slow), the quick test a time all the same.
    assert results[0].duration >= 0.49
    assert results[1].duration is not None and results[1].duration >= 0
