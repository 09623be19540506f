# SPDX-License-Identifier: GPL-2.0-only
"""Lanes: a kernel's suite shared among guests, put back together as one
kernel's results (vmtest/jr2vm/lanes.py), and run-tests running a share."""
import json
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest

from jr2vm import channel, lanes
from jr2results import tap

RUN_TESTS = pathlib.Path(__file__).resolve().parents[2] / "selftests" / "run-tests"
MARK = channel.MARK


def binary_block(n: int, name: str, results: list[str]) -> list[str]:
    """One binary's part of a runner-shaped stream."""
    lines = [f"# selftests: jr2: {name}", "# TAP version 13", f"# 1..{len(results)}"]
    lines += [f"# {r} {i} {name.replace('_test', '')}.t{i}" for i, r in enumerate(results, 1)]
    return lines + [f"{'ok' if all(r == 'ok' for r in results) else 'not ok'} {n} "
                    f"selftests: jr2: {name}"]


def stream(blocks: list[list[str]]) -> str:
    return "\n".join(["TAP version 13", f"1..{len(blocks)}"]
                     + [line for b in blocks for line in b]) + "\n"


def test_split_balances_by_time_and_keeps_every_binary_once() -> None:
    times = {"a_test": 10.0, "b_test": 4.0, "c_test": 3.0, "d_test": 2.0, "e_test": 1.0}
    shares = lanes.split(list(times), 2, times)
    assert sorted(b for s in shares for b in s) == sorted(times)
    loads = sorted(sum(times[b] for b in s) for s in shares)
    assert loads == [10, 10]
    assert all(s == sorted(s) for s in shares)


def test_split_without_times_shares_by_count_and_makes_no_empty_share() -> None:
    shares = lanes.split(["x_test", "y_test", "z_test"], 5)
    assert sorted(len(s) for s in shares) == [1, 1, 1]
    assert lanes.split(["x_test", "y_test", "z_test", "w_test"], 2, {}) \
        == [["w_test", "y_test"], ["x_test", "z_test"]]


def test_auto_is_cpus_per_kernel_at_once_and_at_most_one_per_binary() -> None:
    assert lanes.auto(2, 1, 34) == 2
    assert lanes.auto(2, 2, 34) == 1
    assert lanes.auto(8, 2, 34) == 4
    assert lanes.auto(8, 1, 3) == 3
    assert lanes.auto(1, 4, 34) == 1


def test_last_timing_prefers_the_kernel_record_that_timed_every_binary(
        tmp_path: pathlib.Path) -> None:
    kept = tmp_path / "kept"
    kept.mkdir()

    def run(name: str, kernel: str, times: dict[str, float], age: int) -> None:
        path = tmp_path / "results" / name / kernel / "summary.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps({"binary_s": times, "durations": {"boot_s": 3.0}}))
        os.utime(path, (1000 - age, 1000 - age))
    run("old", "6.12", {"a_test": 1.0, "b_test": 2.0}, 30)
    run("partial", "6.12", {"a_test": 9.0}, 10)  # newer, but one binary (make vmtest T=a)
    run("other", "7.3", {"a_test": 5.0, "b_test": 5.0}, 0)

    def last(kernel: str, binaries: list[str]) -> lanes.Timing:
        return lanes.last_timing(tmp_path / "results", kernel, binaries, [kept])
    assert last("6.12", ["a_test", "b_test"]) == lanes.Timing({"a_test": 1.0, "b_test": 2.0},
                                                               {}, 3.0)
    assert last("6.6", ["a_test", "b_test"]).wall == {"a_test": 5.0, "b_test": 5.0}
    assert last("6.12", ["c_test"]) == lanes.Timing()
    # A kept record (written after a full run) is read like a run's summary,
    # CPU times included; the newest of the kernel's wins.
    summary = {"binary_s": {"a_test": 4.0, "b_test": 4.0}, "binary_cpu_s": {"a_test": 0.5},
               "durations": {"boot_s": 2.5, "suite_s": 9.0}, "outcome": "pass"}
    assert lanes.keep_timing("6.12", summary, [kept]) == kept / "6.12.json"
    assert last("6.12", ["a_test", "b_test"]) == lanes.Timing(
        {"a_test": 4.0, "b_test": 4.0}, {"a_test": 0.5}, 2.5)


def test_keep_timing_goes_to_the_first_folder_that_takes_it(tmp_path: pathlib.Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")  # a file where a folder should be: mkdir fails
    summary = {"binary_s": {"a_test": 1.0}, "binary_cpu_s": {"a_test": 1.0},
               "durations": {"boot_s": 2.0}}
    path = lanes.keep_timing("7.3", summary, [blocked / "times", tmp_path / "build"])
    assert path == tmp_path / "build" / "7.3.json"
    assert json.loads(path.read_text()) == {"binary_s": {"a_test": 1.0},
                                            "binary_cpu_s": {"a_test": 1.0},
                                            "durations": {"boot_s": 2.0}}
    assert lanes.keep_timing("7.3", summary, [blocked / "times"]) is None


# The shape of 7.3's suite under TCG: one binary that mostly waits on
# deadlines (its CPU time a fifth of its guest time), one long and busy.
WALL = {"wait_test": 12.0, "busy_test": 8.0, "a_test": 5.0, "b_test": 3.0, "c_test": 2.0,
        "d_test": 1.0, "e_test": 1.0}
CPU = {"wait_test": 2.5, "busy_test": 7.5, "a_test": 4.5, "b_test": 2.9, "c_test": 1.9,
       "d_test": 0.9, "e_test": 0.9}


def test_a_binary_that_mostly_waits_gets_a_guest_of_its_own() -> None:
    timing = lanes.Timing(WALL, CPU, 3.0)
    shares = lanes.plan(WALL, 2, timing, guests_max=3)
    assert shares[0] == ["wait_test"]
    rest = shares[1:]
    assert len(rest) == 2 and sorted(b for s in rest for b in s) == sorted(set(WALL) - {"wait_test"})
    loads = sorted(sum(WALL[b] for b in s) for s in rest)
    assert loads == [10.0, 10.0]  # the busy binaries end together


def test_no_guest_of_its_own_without_room_cpu_times_or_a_long_wait() -> None:
    by_wall = lanes.split(WALL, 2, WALL)
    # Memory for two guests only, one lane, or no CPU times measured: the
    # balanced lanes, longest first.
    assert lanes.plan(WALL, 2, lanes.Timing(WALL, CPU, 3.0), guests_max=2) == by_wall
    assert lanes.plan(WALL, 1, lanes.Timing(WALL, CPU, 3.0), guests_max=3) == [sorted(WALL)]
    assert lanes.plan(WALL, 2, lanes.Timing(WALL, {}, 3.0), guests_max=3) == by_wall
    assert lanes.plan(WALL, 2, lanes.Timing(WALL, CPU, None), guests_max=3) == by_wall
    # Waiting less than a guest takes to boot, or less than it computes: no.
    assert lanes.plan(WALL, 2, lanes.Timing(WALL, CPU, 10.0), guests_max=3) == by_wall
    busy = dict(CPU, wait_test=6.5)
    assert lanes.plan(WALL, 2, lanes.Timing(WALL, busy, 3.0), guests_max=3) == by_wall


def test_merged_tap_reads_as_one_guests_stream() -> None:
    one = stream([binary_block(1, "a_test", ["ok", "ok"]), binary_block(2, "b_test", ["ok", "not ok"]), binary_block(3, "c_test", ["ok"])])
    merged = lanes.merge_tap([stream([binary_block(1, "c_test", ["ok"]),
                                      binary_block(2, "a_test", ["ok", "ok"])]),
                              stream([binary_block(1, "b_test", ["ok", "not ok"])])], 3)
    assert merged == one
    assert tap.finished_binaries(merged) == 3
    assert [(r.name, r.status) for r in tap.parse(merged)] == \
        [(r.name, r.status) for r in tap.parse(one)]


def test_a_lane_cut_off_leaves_its_binary_without_a_result() -> None:
    cut = binary_block(1, "b_test", ["ok", "ok"])[:-2]  # the guest died mid-binary
    merged = lanes.merge_tap([stream([binary_block(1, "a_test", ["ok"])]),
                              "TAP version 13\n1..2\n" + "\n".join(cut) + "\n"], 3)
    assert merged.splitlines()[1] == "1..3"
    assert tap.finished_binaries(merged) == 1
    statuses = {r.name: r.status for r in tap.parse(merged)}
    assert statuses["a.t1"] == "pass"
    assert "error" in statuses.values()


def channel_text(release: str, abi: int, tap_text: str, binaries: int) -> str:
    check = json.dumps({"verdict": "accepted", "verdict_code": "accepted", "landlock": "ok"})
    return "\n".join([f"{MARK}booted {release}",
                      f'{MARK}probe {{"release": "{release}", "abi": {abi}, "errno": ""}}',
                      f"{MARK}check-begin", check, f"{MARK}check-end 0",
                      f"{MARK}suite-begin {binaries}", tap_text.rstrip("\n"),
                      f"{MARK}binary-time x_test 120", f"{MARK}suite-end", f"{MARK}end"]) + "\n"


def test_merge_keeps_counts_and_flags_lanes_that_disagree() -> None:
    one = channel.parse(channel_text("6.12.1", 6, stream([binary_block(1, "a_test", ["ok"])]), 1))
    two = channel.parse(channel_text("6.12.1", 6, stream([binary_block(1, "b_test", ["ok"])]), 1))
    merged, problems = lanes.merge([one, two])
    assert problems == []
    assert merged.suite_binaries == 2 and merged.ended and merged.suite_ended
    assert tap.finished_binaries(merged.tap) == 2
    other = channel.parse(channel_text("6.12.2", 5, stream([binary_block(1, "b_test", ["ok"])]), 1))
    merged, problems = lanes.merge([one, other])
    assert any("lane 2" in p and "release" in p for p in problems)
    assert any("Landlock probe" in p for p in problems)
    unended = channel.parse(channel_text("6.12.1", 6, "", 1).replace(f"{MARK}end\n", ""))
    assert not lanes.merge([one, unended])[0].ended


def test_run_tests_runs_the_named_binaries_only_in_that_order(tmp_path: pathlib.Path) -> None:
    sh = shutil.which("busybox")
    if not sh:
        pytest.skip("busybox is not installed (apt-get install busybox-static): "
                    "the guest's shell runs run-tests")
    for name in ("a_test", "b_test", "c_test"):
        path = tmp_path / name
        path.write_text("#!/bin/sh\necho 'TAP version 13'\necho '1..1'\necho 'ok 1 t'\n")
        path.chmod(0o755)
    out = subprocess.run([sh, "sh", str(RUN_TESTS), str(tmp_path), "c_test", "a_test"],
                         capture_output=True, text=True, timeout=60, cwd="/")
    assert out.returncode == 0, out.stderr
    assert [line for line in out.stdout.splitlines() if not line.startswith("#")][1:] == \
        ["1..2", "ok 1 selftests: jr2: c_test", "ok 2 selftests: jr2: a_test"]
    missing = subprocess.run([sh, "sh", str(RUN_TESTS), str(tmp_path), "nope_test"],
                             capture_output=True, text=True, timeout=60, cwd="/")
    assert missing.returncode == 2
    assert "no test binary 'nope_test'" in missing.stderr


def test_run_tests_takes_a_folder_relative_to_where_it_is_run() -> None:
    """`make -C selftests run_tests` runs `run-tests build/selftests` from the
    top; each binary runs from its own folder, so the folder must be made
    absolute first (it was not: every binary ended 127).  Outside /tmp, where
    run-tests runs the binaries in place."""
    sh = shutil.which("busybox")
    if not sh:
        pytest.skip("busybox is not installed (apt-get install busybox-static): "
                    "the guest's shell runs run-tests")
    top = pathlib.Path(tempfile.mkdtemp(prefix="jr2-run-tests-", dir="/var/tmp"))
    try:
        (top / "suite").mkdir()
        path = top / "suite" / "a_test"
        path.write_text("#!/bin/sh\necho 'TAP version 13'\necho '1..1'\necho 'ok 1 t'\n")
        path.chmod(0o755)
        out = subprocess.run([sh, "sh", str(RUN_TESTS), "suite"], capture_output=True,
                             text=True, timeout=60, cwd=top)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "ok 1 selftests: jr2: a_test" in out.stdout.splitlines()
    finally:
        shutil.rmtree(top)
