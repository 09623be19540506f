# SPDX-License-Identifier: GPL-2.0-only
"""The per-test times: selftests/run-tests' `timed` filter (run here by
busybox sh and its awk, as in the guest) nests a binary's TAP behind "# " and
adds each test's time after its result, and the one TAP parser reads it back."""
import pathlib
import re
import shutil
import subprocess

import pytest

from jr2results import tap

RUN_TESTS = pathlib.Path(__file__).resolve().parents[2] / "selftests" / "run-tests"


def timed_function() -> str:
    text = RUN_TESTS.read_text()
    m = re.search(r"^timed\(\) \{\n.*?^\}\n", text, re.S | re.M)
    assert m, "selftests/run-tests defines no timed()"
    return m.group(0)


# The guest runs the filter with busybox's awk, `make test` with the host's.
@pytest.mark.parametrize("awk", ["busybox", "host"])
def test_each_result_gets_the_time_from_its_run_line(awk: str, tmp_path: pathlib.Path) -> None:
    busybox = shutil.which("busybox")
    if not busybox:
        pytest.skip("busybox is not installed (apt-get install busybox-static): "
                    "the guest's shell runs this filter")
    host_awk = shutil.which("awk")
    if awk == "host" and not host_awk:
        pytest.skip("no awk on PATH (apt-get install mawk): make test runs this filter")
    (tmp_path / "awk").symlink_to(busybox if awk == "busybox" or not host_awk else host_awk)
    if awk == "busybox":
        (tmp_path / "sleep").symlink_to(busybox)
    # A binary's output as the kselftest harness flushes it: the RUN line, then
    # (the test's time later) its result; the last line has no newline.
    producer = ("echo 'TAP version 13'; echo '1..2'; echo '#  RUN           g.slow ...'; "
                "sleep 0.5; echo '#            OK  g.slow'; echo 'ok 1 g.slow'; "
                "echo '#  RUN           g.fast ...'; printf 'not ok 2 g.fast # bad'")
    script = f"{timed_function()}\n{{ {producer}; }} | timed\n"
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin"}
    out = subprocess.run([busybox, "sh", "-c", script], capture_output=True, text=True,
                         check=True, timeout=30, env=env).stdout
    lines = out.splitlines()
    assert lines[4:8] == ["# ok 1 g.slow", "#   ---", lines[6], "#   ..."]
    assert all(line.startswith("# ") for line in lines)
    # The runner's shape: the binary's TAP nested, read back unnested.
    results = tap.parse("\n".join(line[2:] for line in lines) + "\n")
    assert [(r.name, r.status) for r in results] == [("g.slow", "pass"), ("g.fast", "fail")]
    # Centiseconds of /proc/uptime, read as each line reaches the filter: the
    # 0.5 s sleep shows (a loaded machine may read the RUN line late, so the
    # bound is well below it, and far above the 0 a time not taken from the
    # RUN line would give); no upper bound; the quick test a time all the same.
    assert results[0].duration is not None and results[0].duration >= 0.3
    assert results[1].duration is not None and results[1].duration >= 0
