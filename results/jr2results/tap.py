# SPDX-License-Identifier: GPL-2.0-only
"""Read the suite's TAP: what the kselftest runner writes, or one binary's TAP 13.

A run's `suite.tap` has the kselftest runner's shape (`selftests/run-tests`, the
guest, and `make -C tools/testing/selftests TARGETS=jr2 run_tests` all write it):
one outer plan, each binary's own TAP nested under a `# selftest:` header with
every line prefixed by `# `, and one outer result per binary:

    TAP version 13
    1..2
    # selftests: jr2: protected_dir_test
    # TAP version 13
    # 1..2
    # ok 1 protected_dir.R1_read_denied
    # ok 2 protected_dir.R7_list # SKIP ABI 2 < 3: the runtime refuses this kernel
    ok 1 selftests: jr2: protected_dir_test
    # selftests: jr2: escapes_test
    ...
    not ok 2 selftests: jr2: escapes_test # exit=139

After each nested result, a TAP 13 YAML block may give the test's time
(`duration_ms`, from the test's `#  RUN` line to its result).

`prove` reads it as two results (the nested lines are comments); this module
reads the nested results too.  Each line is classified by tappy (Debian's
python3-tap).  A binary whose plan is not met, that timed out, that has no
outer result, or that exits other than 0 (pass) or 4 (KSFT_SKIP) with no failed
test yields an "error" result: a crash is never a pass.  `# TODO` is TAP's: a
failing TODO test is not a failure (it is reported as a skip naming the TODO).
Test names follow `<group>.<IDs>_<what>`: the promise IDs (PROMISES.md) lead
the test's own name, e.g. `R5_R9_rename_ancestor`.
"""
import dataclasses
import re
from collections.abc import Iterable
from typing import Any

from tap.parser import Parser  # type: ignore[import]  # python3-tap has no type hints

HEADER = re.compile(r"^# selftests: (?:(\S+): )?(\S+)\s*$")
OUTER = re.compile(r"^(not ok|ok) \d+ selftests: (?:\S+: )?(\S+)(.*)$")
EXIT = re.compile(r"\bexit=(-?\d+)")
PROMISE = re.compile(r"^[GROAPET]\d+$")
# The kselftest harness's own banners ("#  RUN  x ...", "#  OK  x", "#  FAIL  x",
# "#  SKIP  why"): not diagnostics of the test.
BANNER = re.compile(r"^(RUN|OK|FAIL|SKIP|XFAIL|XPASS)\s{2,}")
# An assertion of the harness: "file.c:214:test_name:Expected ...".
ASSERTION = re.compile(r"^[\w./+-]+\.[ch]:\d+:")
KSFT_SKIP = 4


@dataclasses.dataclass
class Result:
    binary: str
    name: str  # e.g. protected_dir.R1_read_denied
    status: str  # pass | fail | skip | error
    reason: str = ""
    duration: float | None = None  # seconds, from the TAP's YAML block; None if not given
    output: str = ""  # every diagnostic line the test printed, banners included

    @property
    def message(self) -> str:
        """The first assertion line ("file.c:214:test:Expected ..."), else the
        first diagnostic that is not a banner, else the reason."""
        lines = self.output.splitlines()
        for line in lines:
            if ASSERTION.match(line):
                return line
        for line in lines:
            if line and not BANNER.match(line):
                return line
        return self.reason

    @property
    def group(self) -> str:
        return self.name.split(".", 1)[0] if "." in self.name else self.binary.removesuffix("_test")

    @property
    def test(self) -> str:
        return self.name.split(".", 1)[-1]

    @property
    def promises(self) -> list[str]:
        """The IDs the test's own name starts with: its last part, after a
        fixture variant's name (`escapes.step.R9_symlink`) as without one."""
        ids: list[str] = []
        for part in self.name.rsplit(".", 1)[-1].split("_"):
            if not PROMISE.match(part):
                break
            ids.append(part)
        return ids


def _document(lines: list[str], binary: str) -> tuple[list[Result], int | None, list[str]]:
    """One binary's TAP 13: (results, planned count or None)."""
    results: list[Result] = []
    planned: int | None = None
    diag: list[str] = []
    for line in Parser().parse_text("\n".join(lines) + "\n"):
        if line.category == "plan":
            planned = (planned or 0) + line.expected_tests
        elif line.category == "diagnostic":
            diag.append(line.text[1:].strip())
        elif line.category == "bail":
            results.append(Result(binary, f"{binary or 'tap'}.<bail>", "error",
                                  f"Bail out! {line.reason}".strip()))
        elif line.category == "test":
            name = line.description.removeprefix("-").strip()
            d = line.directive
            if d.skip:
                status, reason = "skip", d.text.removeprefix("SKIP").removeprefix("skip").strip()
            elif d.todo:
                status = "pass" if line.ok else "skip"
                reason = "" if line.ok else f"TODO {d.text[4:].strip()}".strip()
            elif line.ok:
                status, reason = "pass", ""
            else:
                status = "fail"
                reason = "; ".join([d for d in diag if not BANNER.match(d)][-5:])
            block: dict[str, Any] = line.yaml_block if isinstance(line.yaml_block, dict) else {}
            duration = block.get("duration_ms")
            results.append(Result(binary, name, status, reason.strip(),
                                  duration / 1000 if isinstance(duration, (int, float)) else None,
                                  "\n".join(diag)))
            diag = []
    return results, planned, diag


def _close(binary: str, results: list[Result], planned: int | None, trailing: list[str],
           outcome: int | str | None) -> list[Result]:
    """The errors of one binary: short plan, no end, timeout, bad exit; each
    with what the binary printed after its last result."""
    who, seen, output = binary or "tap", len(results), "\n".join(trailing)
    if planned is not None and seen < planned:
        results.append(Result(binary, f"{who}.<crash>", "error",
                              f"{planned - seen} of {planned} planned tests never reported",
                              output=output))
    elif outcome is None:
        results.append(Result(binary, f"{who}.<exit>", "error",
                              "no exit status: the binary never reported its end", output=output))
    elif outcome == "timeout":
        results.append(Result(binary, f"{who}.<timeout>", "error", "the binary timed out",
                              output=output))
    elif outcome not in (0, KSFT_SKIP) and not any(r.status == "fail" for r in results):
        results.append(Result(binary, f"{who}.<exit>", "error",
                              f"exited with status {outcome} and no failed test", output=output))
    return results


def _outer_outcome(ok: bool, rest: str) -> int | str:
    """The exit status an outer result line reports, or "timeout"."""
    if "# TIMEOUT" in rest:
        return "timeout"
    m = EXIT.search(rest)
    if m:
        return int(m.group(1))
    if re.search(r"#\s*SKIP", rest, re.I):
        return KSFT_SKIP
    return 0 if ok else 1


def parse(text: str) -> list[Result]:
    """The Results of a runner-shaped or a bare TAP 13 text."""
    lines = [line.rstrip("\r") for line in text.splitlines()]
    if not any(HEADER.match(line) for line in lines):
        results, planned, trailing = _document(lines, "")
        if results or planned:
            # Bare TAP: no frame, so only the plan can be checked.
            return _close("", results, planned, trailing, 0)
        return results
    results = []
    binary: str | None = None
    inner: list[str] = []
    for line in lines:
        m = HEADER.match(line)
        if m:
            if binary is not None:
                results += _close(binary, *_document(inner, binary), None)
            binary, inner = m.group(2), []
            continue
        m = OUTER.match(line)
        if m and binary is not None and m.group(2) == binary:
            outcome = _outer_outcome(m.group(1) == "ok", m.group(3))
            results += _close(binary, *_document(inner, binary), outcome)
            binary = None
            continue
        if binary is not None and line.startswith("#"):
            inner.append(line[2:] if line.startswith("# ") else line[1:])
    if binary is not None:
        results += _close(binary, *_document(inner, binary), None)
    return results


def finished_binaries(text: str) -> int:
    """How many binaries reached their outer result line."""
    return sum(1 for line in text.splitlines() if OUTER.match(line.rstrip("\r")))


def counts(results: Iterable[Result]) -> dict[str, int]:
    c = {"pass": 0, "fail": 0, "skip": 0, "error": 0}
    for r in results:
        c[r.status] += 1
    return c
