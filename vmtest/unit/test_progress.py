# SPDX-License-Identifier: GPL-2.0-only
"""make matrix's progress: `kernel N of M` and the time left by the last
run's times (vmtest/jr2vm/progress.py)."""
import json
import pathlib

from jr2vm import progress


def summary(root: pathlib.Path, run: str, kernel: str, total: float) -> pathlib.Path:
    path = root / run / kernel / "summary.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"kernel": kernel, "durations": {"total_s": total}}))
    return path


def test_last_totals_takes_the_newest_earlier_run(tmp_path: pathlib.Path) -> None:
    import os
    old = summary(tmp_path, "r1", "6.1", 100.0)
    os.utime(old, (1, 1))
    summary(tmp_path, "r2", "6.1", 80.0)
    summary(tmp_path, "r2", "7.3", 200.0)
    summary(tmp_path, "now", "7.3", 1.0)  # the run in progress: not a past time
    assert progress.last_totals(tmp_path, ["6.1", "7.3", "5.10"], skip_run="now") == \
        {"6.1": 80.0, "7.3": 200.0}


def test_counts_kernels_and_shares_the_time_left_among_the_jobs() -> None:
    now = [0.0]
    p = progress.Progress(["a", "b", "c", "d"], 2, {"a": 100, "b": 100, "c": 60},
                          clock=lambda: now[0])
    assert p.expected["d"] == 260 / 3  # never timed: the mean of the others
    assert p.start("a") == "kernel 1 of 4; about 2.9 min left (by the last run's times)"
    p.start("b")
    now[0] = 40.0
    # a and b have 60 s each left, c and d all of theirs, on 2 at a time
    assert p.left() == (60 + 60 + 60 + 260 / 3) / 2
    now[0] = 100.0
    assert p.end("a").startswith("1 of 4 kernels done in 1.7 min; about")
    p.start("c")
    p.start("d")
    for k in "bc":
        p.end(k)
    assert p.end("d") == "4 of 4 kernels done in 1.7 min"


def test_no_estimate_without_past_times() -> None:
    p = progress.Progress(["a", "b"], 1, {})
    assert p.start("a") == "kernel 1 of 2" and p.left() is None
