# SPDX-License-Identifier: GPL-2.0-only
"""Lanes: one kernel's suite shared among several guests booted at once.

Under TCG a guest is one busy host thread (-smp 1: multi-threaded TCG oopses
newer kernels), so a single kernel leaves the other cores idle.  With N
lanes, N guests of the same kernel each run a share of the suite binaries
and their results are put back together as one kernel's: one TAP stream in
the kselftest runner's shape, numbered in the order of a single guest, one
summary.  Each binary runs in one guest only; the tests of a binary never
span guests.

The shares come from what earlier runs measured of each binary, never from
its name: only the schedule comes from there, never an outcome.  A run that
timed the whole suite keeps each binary's guest time and CPU time, and a
guest's boot time, in the kernel cache (<cache>/times/<kernel>.json, which
CI keeps between runs), else in build/vmtest/times/.  The schedule reads the
newest record of the same kernel that timed every binary (those kept, and
the runs' results/*/<kernel>/summary.json), else of any kernel; with none,
every binary counts the same.  A binary that mostly waits (for deadlines)
runs in a guest of its own where memory allows one more: there its waiting
holds no host core.  The others go longest first to the least loaded lane,
so that the lanes end together.
"""
import dataclasses
import json
import os
import pathlib
import re
from collections.abc import Iterable, Sequence
from typing import Any

import jr2kernels
from jr2results.tap import HEADER, OUTER

from . import channel

BUILD_TIMES = pathlib.Path(__file__).resolve().parents[2] / "build" / "vmtest" / "times"

# The number of an outer result line, renumbered when lanes are joined.
OUTER_NUMBER = re.compile(r"^(not ok|ok) \d+ ")


def auto(cpus: int, jobs: int, binaries: int) -> int:
    """Lanes per kernel when nothing is asked: the host's CPUs shared by the
    kernels booted at a time, at most one lane per binary."""
    return max(1, min(cpus // max(1, jobs), binaries))


@dataclasses.dataclass
class Timing:
    """What an earlier run measured, for the schedule only."""
    wall: dict[str, float] = dataclasses.field(default_factory=dict)  # guest s of each binary
    cpu: dict[str, float] = dataclasses.field(default_factory=dict)  # CPU s of each binary
    boot_s: float | None = None  # from QEMU's start to the guest's booted mark


def times_dirs() -> list[pathlib.Path]:
    """Where the times of the last full run of each kernel are kept: the
    kernel cache, then this tree's build folder."""
    return [jr2kernels.cache_dir() / "times", BUILD_TIMES]


def keep_timing(kernel: str, summary: dict[str, Any],
                dirs: Sequence[pathlib.Path] | None = None) -> pathlib.Path | None:
    """Writes the times of a boot that timed the whole suite as
    <dir>/<kernel>.json in the first of `dirs` that takes it; its path, or
    None where none does (a read-only cache and tree: the results still
    hold them)."""
    record = {key: summary.get(key) for key in ("binary_s", "binary_cpu_s")}
    record["durations"] = {"boot_s": (summary.get("durations") or {}).get("boot_s")}
    for folder in times_dirs() if dirs is None else dirs:
        path = folder / f"{kernel}.json"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.partial")
            tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
            tmp.rename(path)
        except OSError:
            continue
        return path
    return None


def last_timing(results_dir: pathlib.Path, kernel: str, binaries: Sequence[str],
                dirs: Sequence[pathlib.Path] | None = None) -> Timing:
    """The Timing of the newest record of `kernel` that timed every one of
    `binaries`, else of any kernel; else of the newest that timed the most
    of them; Timing() when none timed any.  The records: those kept
    (keep_timing) and the runs' summaries in `results_dir`."""
    found: list[tuple[bool, float, pathlib.Path]] = []
    kept = [(path.stem, path) for folder in (times_dirs() if dirs is None else dirs)
            for path in folder.glob("*.json")]
    runs = [(path.parent.name, path) for path in results_dir.glob("*/*/summary.json")]
    for name, path in kept + runs:
        try:
            found.append((name == kernel, path.stat().st_mtime, path))
        except OSError:
            continue
    best, best_count = Timing(), 0
    for _, _, path in sorted(found, reverse=True):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        timing = Timing(data.get("binary_s") or {}, data.get("binary_cpu_s") or {},
                        (data.get("durations") or {}).get("boot_s"))
        count = sum(1 for b in binaries if b in timing.wall)
        if count == len(binaries):
            return timing
        if count > best_count:
            best, best_count = timing, count
    return best


def plan(binaries: Iterable[str], lanes: int, timing: Timing,
         guests_max: int = 0) -> list[list[str]]:
    """The guests' shares.  With lanes > 1, a binary that waited longer than
    it computed, and longer than a guest takes to boot, runs in a guest of
    its own, as long as guests_max allows one more than `lanes` (the most
    idle first): there its waiting holds no host core, where in a lane it
    holds one.  The others are split() among `lanes`."""
    binaries = list(binaries)
    alone: list[str] = []
    boot_s = timing.boot_s
    if lanes > 1 and boot_s is not None:
        idle = {b: timing.wall[b] - timing.cpu[b] for b in binaries
                if b in timing.wall and b in timing.cpu}
        waiting = [b for b, s in idle.items() if s > max(timing.cpu[b], boot_s)]
        alone = sorted(waiting, key=lambda b: (-idle[b], b))[:max(0, guests_max - lanes)]
    rest = [b for b in binaries if b not in alone]
    return [[b] for b in alone] + split(rest, lanes, timing.wall)


def split(binaries: Iterable[str], lanes: int,
          times: dict[str, float] | None = None) -> list[list[str]]:
    """The binaries in `lanes` shares of about equal time (longest first onto
    the least loaded share); each share in name order; no empty share."""
    past = times or {}
    known = [t for t in past.values() if t > 0]
    unknown = sum(known) / len(known) if known else 1.0
    binaries = list(binaries)
    shares: list[list[str]] = [[] for _ in range(max(1, min(lanes, len(binaries))))]
    load = [0.0] * len(shares)
    for name in sorted(binaries, key=lambda b: (-past.get(b, unknown), b)):
        i = load.index(min(load))
        shares[i].append(name)
        load[i] += past.get(name, unknown)
    return [sorted(share) for share in shares if share]


def _blocks(tap: str) -> tuple[dict[str, list[str]], list[list[str]], list[str]]:
    """{binary: its lines, header to outer result}, the binaries left without
    an outer result (cut off) with their lines, and the lines outside any
    binary but the stream's own version and plan."""
    done: dict[str, list[str]] = {}
    cut: list[list[str]] = []
    stray: list[str] = []
    name: str | None = None
    lines: list[str] = []
    for line in tap.splitlines():
        m = HEADER.match(line)
        if m:
            if name is not None:
                cut.append(lines)
            name, lines = m.group(2), [line]
            continue
        m = OUTER.match(line)
        if m and name is not None and m.group(2) == name:
            done[name] = lines + [line]
            name = None
            continue
        if name is not None:
            lines.append(line)
        elif line.strip() and line != "TAP version 13" and not re.match(r"^1\.\.\d+$", line):
            stray.append(line)
    if name is not None:
        cut.append(lines)
    return done, cut, stray


def merge_tap(taps: Iterable[str], planned: int) -> str:
    """One runner-shaped stream of the lanes' streams: the finished binaries
    in name order, numbered from 1, then what a lane left cut off; planned:
    the binaries the lanes were given."""
    done: dict[str, list[str]] = {}
    cut: list[list[str]] = []
    stray: list[str] = []
    for lane, tap in enumerate(taps, 1):
        d, c, s = _blocks(tap)
        done.update(d)
        cut += c
        stray += [f"# lane {lane}: {line.lstrip('# ')}" for line in s]
    out = ["TAP version 13", f"1..{planned}"] + stray
    for n, name in enumerate(sorted(done), 1):
        lines = done[name]
        out += lines[:-1] + [OUTER_NUMBER.sub(rf"\1 {n} ", lines[-1])]
    for lines in cut:
        out += lines
    return "".join(line + "\n" for line in out)


def merge(chs: list[channel.Channel]) -> tuple[channel.Channel, list[str]]:
    """One Channel of the lanes' Channels, and the problems of their
    disagreement (each guest booted the same kernel: its release, probe and
    check must be the same)."""
    first = chs[0]
    problems: list[str] = []
    for lane, ch in enumerate(chs[1:], 2):
        for what, mine, theirs in (("release", ch.release, first.release),
                                   ("Landlock probe", ch.probe, first.probe),
                                   ("jr2-confine check", channel.check_json(ch),
                                    channel.check_json(first))):
            if mine != theirs:
                problems.append(f"lane {lane} of the same kernel found another {what} than "
                                f"lane 1: {str(mine)[:200]} against {str(theirs)[:200]}")
    merged = channel.Channel(release=first.release, probe=first.probe,
                             check_text=first.check_text, check_status=first.check_status)
    counts = [ch.suite_binaries for ch in chs]
    merged.suite_binaries = sum(n for n in counts if n is not None) if None not in counts else None
    merged.tap = merge_tap([ch.tap for ch in chs], merged.suite_binaries or 0)
    for ch in chs:
        merged.binary_s.update(ch.binary_s)
        merged.binary_cpu_s.update(ch.binary_cpu_s)
    merged.suite_ended = all(ch.suite_ended for ch in chs)
    merged.ended = all(ch.ended for ch in chs)
    return merged, problems
