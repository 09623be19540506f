# SPDX-License-Identifier: GPL-2.0-only
"""Read a run folder (results/formats/README.md) into one object.

A run is `results/<run-id>/` with `run.json` and one folder per kernel
holding `suite.tap`, `summary.json`, `console.log` and `check.json`.  The
TAP is parsed with the one parser (tap.py); `summary.json` carries what the
host learned about the kernel.  A file that is missing or unreadable is not
fatal here: it becomes a line in `Kernel.defects`, which every writer shows
and the release gate refuses.
"""
import dataclasses
import json
import pathlib
from typing import Any

from . import tap

SUMMARY_KEYS = ("kernel", "verdict", "expected_verdict", "outcome")
# `jr2-confine check` verdicts (runtime/abi.c): every other one is a refusal
# (no_landlock, not_enabled, abi_too_old, probe_failed).
ACCEPTED = ("accepted",)


@dataclasses.dataclass
class Kernel:
    name: str
    path: pathlib.Path
    summary: dict[str, Any]
    results: list[tap.Result]  # in TAP order
    console: str
    defects: list[str]  # what is wrong with the files themselves, one line each
    upstream: "Kernel | None" = None  # the kernel's own Landlock selftests (<kernel>/upstream/)

    @property
    def abi(self) -> int | None:
        return self.summary.get("abi")

    @property
    def verdict(self) -> str:
        return self.summary.get("verdict") or ""

    @property
    def refused(self) -> bool:
        """The runtime refused this kernel (G1-G3): no confinement to test."""
        return bool(self.verdict) and self.verdict not in ACCEPTED

    @property
    def verdict_text(self) -> str:
        """`refused (abi_too_old)`: the verdict and, when vmtest gave it, its code."""
        code = self.summary.get("verdict_code")
        return f"{self.verdict} ({code})" if code and code != self.verdict else self.verdict

    @property
    def expected_verdict_text(self) -> str:
        s = self.summary
        code, verdict = s.get("expected_verdict_code"), s.get("expected_verdict") or ""
        return f"{verdict} ({code})" if code and code != verdict else verdict

    @property
    def refused_by_design(self) -> bool:
        """Refused, and the entry's ABI says it must be, for the same reason."""
        return self.refused and self.verdict_text == self.expected_verdict_text

    @property
    def problems(self) -> list[str]:
        return list(self.summary.get("problems", []))

    @property
    def durations(self) -> dict[str, float]:
        return self.summary.get("durations", {})

    @property
    def binaries(self) -> dict[str, str]:
        return dict(self.summary.get("binaries_sha256", {}))

    @property
    def skipped(self) -> bool:
        """The kernel's own tests were not run here; summary.json says why."""
        return self.summary.get("outcome") == "skip"


@dataclasses.dataclass
class Run:
    id: str
    path: pathlib.Path
    meta: dict[str, Any]  # run.json
    kernels: list[Kernel]  # in the order run.json asked for them
    defects: list[str]

    def kernel(self, name: str) -> Kernel | None:
        return next((k for k in self.kernels if k.name == name), None)


def _read_json(path: pathlib.Path, defects: list[str]) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        defects.append(f"{path.name} missing")
        return {}
    except (OSError, ValueError) as e:
        defects.append(f"{path.name} unreadable: {e}")
        return {}
    if not isinstance(data, dict):
        defects.append(f"{path.name} is not a JSON object")
        return {}
    return data


def load_kernel(folder: str | pathlib.Path, name: str | None = None) -> Kernel:
    path = pathlib.Path(folder)
    name = name or path.name
    defects: list[str] = []
    summary = _read_json(path / "summary.json", defects)
    if summary.get("suite") == "upstream" and summary.get("outcome") == "skip":
        return Kernel(name, path, summary, [], "", defects)
    for key in SUMMARY_KEYS:
        if summary and key not in summary:
            defects.append(f"summary.json lacks '{key}'")
    try:
        results = tap.parse((path / "suite.tap").read_text(errors="replace"))
    except FileNotFoundError:
        defects.append("suite.tap missing")
        results = []
    try:
        console = (path / "console.log").read_text(errors="replace")
    except FileNotFoundError:
        defects.append("console.log missing")
        console = ""
    if summary.get("kernel", name) != name:
        defects.append(f"summary.json names kernel '{summary['kernel']}' in folder '{path.name}'")
    kernel = Kernel(name, path, summary, results, console, defects)
    if (path / "upstream" / "summary.json").exists():
        kernel.upstream = load_kernel(path / "upstream", name)
    return kernel


def load(folder: str | pathlib.Path) -> Run:
    """Loads the run at `path`; raises FileNotFoundError when it is no run."""
    path = pathlib.Path(folder)
    if not path.is_dir():
        raise FileNotFoundError(f"run folder '{path}' does not exist")
    defects: list[str] = []
    meta = _read_json(path / "run.json", defects)
    folders = {p.name: p for p in path.iterdir() if (p / "summary.json").exists()
               or (p / "suite.tap").exists()}
    asked = [str(k) for k in meta.get("kernels", [])]
    order = [k for k in asked if k in folders] + sorted(k for k in folders if k not in asked)
    kernels = [load_kernel(folders[name]) for name in order]
    if not kernels:
        defects.append(f"no kernel folder (with summary.json or suite.tap) in '{path}'")
    return Run(path.name, path, meta, kernels, defects)
