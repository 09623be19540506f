# SPDX-License-Identifier: GPL-2.0-only
"""Lanes: one kernel's suite shared among several guests booted at once.

Under TCG a guest is one busy host thread (-smp 1: multi-threaded TCG oopses
newer kernels), so a single kernel leaves the other cores idle.  With N
lanes, N guests of the same kernel each run a share of the suite binaries
and their results are put back together as one kernel's: one TAP stream in
the kselftest runner's shape, numbered in the order of a single guest, one
summary.  Each binary runs in one guest only; the tests of a binary never
span guests.

The shares are balanced by each binary's guest time in the newest earlier
run of the same kernel that timed them all (results/*/<kernel>/summary.json,
binary_s), else of any kernel, else by count: only the schedule comes from
there, never an outcome.
"""
import json
import pathlib
import re
from collections.abc import Iterable, Sequence

from jr2results.tap import HEADER, OUTER

from . import channel

# The number of an outer result line, renumbered when lanes are joined.
OUTER_NUMBER = re.compile(r"^(not ok|ok) \d+ ")


def auto(cpus: int, jobs: int, binaries: int) -> int:
    """Lanes per kernel when nothing is asked: the host's CPUs shared by the
    kernels booted at a time, at most one lane per binary."""
    return max(1, min(cpus // max(1, jobs), binaries))


def past_times(results_dir: pathlib.Path, kernel: str,
               binaries: Sequence[str]) -> dict[str, float]:
    """{binary: guest seconds} of the newest earlier run of `kernel` that
    timed every one of `binaries`, else of any kernel; else the newest that
    timed the most of them; {} when none timed any."""
    found: list[tuple[bool, float, pathlib.Path]] = []
    for path in results_dir.glob("*/*/summary.json"):
        try:
            found.append((path.parent.name == kernel, path.stat().st_mtime, path))
        except OSError:
            continue
    best: dict[str, float] = {}
    best_count = 0
    for _, _, path in sorted(found, reverse=True):
        try:
            times: dict[str, float] = json.loads(path.read_text()).get("binary_s") or {}
        except (OSError, ValueError):
            continue
        count = sum(1 for b in binaries if b in times)
        if count == len(binaries):
            return times
        if count > best_count:
            best, best_count = times, count
    return best


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
    merged.suite_ended = all(ch.suite_ended for ch in chs)
    merged.ended = all(ch.ended for ch in chs)
    return merged, problems
