# SPDX-License-Identifier: GPL-2.0-only
"""Parse the suite's TAP: the kselftest harness output of each binary.

A run's `suite.tap` is the output of several binaries, each framed by the
guest runner (or `make -C selftests run_tests`):

    # selftest: protected_dir_test
    TAP version 13
    1..12
    ok 1 protected_dir.R1_read_denied
    ok 2 protected_dir.R7_list # SKIP ABI 2 < 3: the runtime refuses this kernel
    # selftest-exit: protected_dir_test 0

After a result line, a TAP 13 YAML block may give the test's guest time
(vmtest's guest writes one, measured from the test's RUN line):

    ok 1 protected_dir.R1_read_denied
      ---
      duration_ms: 120
      ...

A binary whose plan is not met, or that ends with a status other than 0
(pass) or 4 (KSFT_SKIP: all skipped), yields an "error" result: a crash is
never a pass.  Test names follow `<group>.<IDs>_<what>`: the promise IDs
(PROMISES.md) lead the test's own name, e.g. `R5_R9_rename_ancestor`.
"""
import dataclasses
import re

RESULT = re.compile(r"^(not ok|ok) (\d+)(?: -)? (\S+)(.*)$")
# A directive ends a result line: `# SKIP reason`; any other `# text` is a comment.
DIRECTIVE = re.compile(r"#\s*(SKIP|XFAIL|TODO)\b\s*(.*)$", re.I)
PLAN = re.compile(r"^1\.\.(\d+)")
BEGIN = re.compile(r"^# selftest: (\S+)")
END = re.compile(r"^# selftest-exit: (\S+) (-?\d+)")
PROMISE = re.compile(r"^[GROAPET]\d+$")
YAML_START, YAML_END = re.compile(r"^\s+---\s*$"), re.compile(r"^\s+\.\.\.\s*$")
DURATION = re.compile(r"^\s+duration_ms:\s*([0-9]+(?:\.[0-9]+)?)\s*$")
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
    duration: float = None  # seconds, from the TAP's YAML block; None if not given
    output: str = ""  # every diagnostic line the test printed, banners included

    @property
    def message(self):
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
    def group(self):
        return self.name.split(".", 1)[0] if "." in self.name else self.binary.removesuffix("_test")

    @property
    def test(self):
        return self.name.split(".", 1)[-1]

    @property
    def promises(self):
        ids = []
        for part in self.test.split("_"):
            if not PROMISE.match(part):
                break
            ids.append(part)
        return ids


def parse(text):
    """Returns the list of Results of a framed or a bare TAP text."""
    results, binary, planned, seen, diag = [], "", 0, 0, []

    def close(status):
        nonlocal planned, seen
        if binary or planned or seen:
            who = binary or "tap"  # bare TAP names no binary
            if seen < planned:
                results.append(Result(binary, f"{who}.<crash>", "error",
                                      f"{planned - seen} of {planned} planned tests never reported",
                                      output="\n".join(diag)))
            elif status is None:
                results.append(Result(binary, f"{who}.<exit>", "error",
                                      "no exit status: the binary never reported its end",
                                      output="\n".join(diag)))
            elif status not in (0, KSFT_SKIP) and not any(
                    r.binary == binary and r.status == "fail" for r in results):
                results.append(Result(binary, f"{who}.<exit>", "error",
                                      f"exited with status {status} and no failed test",
                                      output="\n".join(diag)))
        planned = seen = 0

    ended, yaml = True, False
    for line in text.splitlines():
        line = line.rstrip("\r")
        if yaml:
            m = DURATION.match(line)
            if m and results:
                results[-1].duration = float(m.group(1)) / 1000
            yaml = not YAML_END.match(line)
            continue
        if YAML_START.match(line):
            yaml = bool(results)
            continue
        m = BEGIN.match(line)
        if m:
            if not ended:
                close(None)
            binary, ended, diag = m.group(1), False, []
            continue
        m = END.match(line)
        if m:
            close(int(m.group(2)))
            ended = True
            continue
        m = PLAN.match(line)
        if m:
            planned += int(m.group(1))
            continue
        m = RESULT.match(line)
        if m:
            seen += 1
            d = DIRECTIVE.search(m.group(4))
            directive = d.group(1).upper() if d else ""
            if directive == "SKIP":
                status, reason = "skip", d.group(2)
            elif m.group(1) == "ok":
                status, reason = "pass", ""
            else:
                status = "fail"
                reason = "; ".join([d for d in diag if not BANNER.match(d)][-5:])
            results.append(Result(binary, m.group(3), status, reason.strip(),
                                  output="\n".join(diag)))
            diag = []
            continue
        if line.startswith("# "):
            diag.append(line[2:].strip())
    if not ended:
        close(None)
    elif planned or seen:  # bare TAP: no frame, so only the plan can be checked
        close(0)
    return results


def counts(results):
    c = {"pass": 0, "fail": 0, "skip": 0, "error": 0}
    for r in results:
        c[r.status] += 1
    return c
