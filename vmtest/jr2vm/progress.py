# SPDX-License-Identifier: GPL-2.0-only
"""Where a run of several kernels is: `kernel N of M` as each starts, and
after each ends how many are done and an estimate of the time left, from
each kernel's time in the newest earlier run that has it (summary.json's
durations.total_s), shared among the kernels booted at a time.  A kernel
never timed before counts as the mean of those that were; with none, no
estimate is given rather than a guess."""
import json
import threading
import pathlib
import time
from collections.abc import Callable, Iterable


def last_totals(results_dir: pathlib.Path, names: Iterable[str],
                skip_run: str | None = None) -> dict[str, float]:
    """{kernel: total seconds} of the newest earlier run of each kernel."""
    found: dict[str, float] = {}
    paths: list[tuple[float, str, pathlib.Path]] = []
    for name in names:
        for path in results_dir.glob(f"*/{name}/summary.json"):
            if path.parent.parent.name == skip_run:
                continue
            try:
                paths.append((path.stat().st_mtime, name, path))
            except OSError:
                continue
    for _, name, path in sorted(paths, reverse=True):
        if name in found:
            continue
        try:
            total = (json.loads(path.read_text()).get("durations") or {}).get("total_s")
        except (OSError, ValueError):
            continue
        if isinstance(total, (int, float)) and total > 0:
            found[name] = float(total)
    return found


def minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 90 else f"{seconds:.0f} s"


class Progress:
    def __init__(self, names: Iterable[str], jobs: int, past: dict[str, float],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.names, self.jobs, self.clock = list(names), max(1, jobs), clock
        known = [past[n] for n in self.names if n in past]
        mean = sum(known) / len(known) if known else None
        self.expected = {n: past.get(n, mean) for n in self.names}
        self.started: dict[str, float] = {}
        self.done: set[str] = set()
        self.lock = threading.Lock()
        self.t0 = clock()

    def left(self) -> float | None:
        """Seconds left by the last run's times, or None without them."""
        now, work = self.clock(), 0.0
        for name in self.names:
            if name in self.done:
                continue
            expected = self.expected[name]
            if expected is None:
                return None
            work += max(0.0, expected - (now - self.started[name])) \
                if name in self.started else expected
        return work / min(self.jobs, max(1, len(self.names) - len(self.done)))

    def _eta(self) -> str:
        left = self.left()
        return f"; about {minutes(left)} left (by the last run's times)" \
            if left is not None and len(self.done) < len(self.names) else ""

    def start(self, name: str) -> str:
        with self.lock:
            self.started[name] = self.clock()
            return f"kernel {len(self.started)} of {len(self.names)}{self._eta()}"

    def end(self, name: str) -> str:
        with self.lock:
            self.done.add(name)
            return (f"{len(self.done)} of {len(self.names)} kernels done in "
                    f"{minutes(self.clock() - self.t0)}{self._eta()}")
