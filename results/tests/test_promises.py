# SPDX-License-Identifier: GPL-2.0-only
"""The project owns its promises: docs/PROMISES.md is what every reader reads,
and nothing the project builds, tests or documents reaches ../shared for them."""
import importlib.machinery
import importlib.util
import pathlib
import re
import subprocess
from types import ModuleType

import pytest

from jr2results import promises

REPO = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = re.compile(r"shared/(spec|seed)\b")


def coverage_module() -> ModuleType:
    path = REPO / "selftests" / "coverage"
    loader = importlib.machinery.SourceFileLoader("coverage_check", str(path))
    spec = importlib.util.spec_from_loader("coverage_check", loader)
    assert spec is not None  # a loader is given: a spec is made
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_the_report_reads_the_promises_of_the_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROMISES", raising=False)
    assert promises.find(REPO) == REPO / "docs" / "PROMISES.md"
    groups = promises.load(promises.find(REPO))
    assert [g.letter for g in groups] == list(promises.GROUP_ORDER)
    ids = [p.id for g in groups for p in g.promises]
    assert len(ids) == len(set(ids)) and "R10" in ids and "T3" in ids
    # Every promise has its text, continuation lines included.
    g5 = next(p for g in groups for p in g.promises if p.id == "G5")
    assert "exit status is the verdict" in g5.text


def test_coverage_and_the_report_read_the_same_promises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROMISES", raising=False)
    coverage = coverage_module()
    assert coverage.DEFAULT_PROMISES == REPO / "docs" / "PROMISES.md"
    from_report = [p.id for g in promises.load(promises.find(REPO)) for p in g.promises]
    assert coverage.promise_ids(coverage.DEFAULT_PROMISES) == from_report


def test_a_named_file_wins_and_a_missing_one_is_none(
        monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> None:
    mine = tmp_path / "P.md"
    mine.write_text("## G: g\n- G1 one\n")
    monkeypatch.setenv("PROMISES", str(mine))
    assert promises.find(REPO) == mine
    monkeypatch.delenv("PROMISES")
    assert promises.find(tmp_path) is None


def test_nothing_in_the_tree_reads_the_reference_spec() -> None:
    """The reference texts beside some checkouts (spec/, seed/ of the shared
    folder) are not part of the project: no tracked file may name a path
    into them.  Only optional test data (kernel images, the KCIDB schema,
    the JUnit XSD) may be looked for there, and its absence only narrows
    what runs."""
    files = subprocess.run(["git", "-C", str(REPO), "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split()
    me = pathlib.Path(__file__).resolve().relative_to(REPO).as_posix()
    named = []
    for rel in files:
        if rel == me or not (REPO / rel).is_file():
            continue
        text = (REPO / rel).read_text(errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            if REFERENCE.search(line):
                named.append(f"{rel}:{n}: {line.strip()}")
    assert named == []
