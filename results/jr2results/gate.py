# SPDX-License-Identifier: GPL-2.0-only
"""The release gate's decision: a pure function of a run and what was built.

`decide()` reads nothing and runs nothing: the caller (ci/release-gate)
loads the run, hashes the binaries and names the matrix; the tests feed it
fixtures.  Every reason to refuse a release is one finding, naming the
kernel, the thing and the value.  Nothing is expected to fail: an outcome
that differs between kernels is expected from the kernel's ABI only (a skip
that names the ABI it lacks), never from a list of test names.
"""
import dataclasses
import re
from collections.abc import Iterable

from . import run as run_mod

# Kernel log lines that make a run an error whatever the tests said.  A
# timestamp `[    1.234567] ` may lead; the words are the kernel's own.
CONSOLE_FAULT = re.compile(
    r"^(?:\[\s*\d+\.\d+\]\s*)?(?:.*\b)?("
    r"Oops(?::| -)|BUG:|WARNING: CPU:|WARNING: at |Kernel panic|general protection fault"
    r"|Unable to handle kernel|UBSAN:|KASAN:|kernel BUG at|INFO: task .* blocked for more than"
    r"|rcu: INFO: rcu_\w+ (?:self-)?detected stalls?|Call Trace:)")
# A skip that names the ABI it lacks: `ABI 5 < 6: signal scoping unavailable`.
SKIP_ABI = re.compile(r"\bABI (\d+) < (\d+)\b")


@dataclasses.dataclass
class Finding:
    kernel: str  # "" when it concerns the run as a whole
    text: str

    def __str__(self) -> str:
        return f"{self.kernel}: {self.text}" if self.kernel else self.text


@dataclasses.dataclass
class Decision:
    findings: list[Finding]  # each one refuses the release
    notes: list[Finding]  # said, but does not refuse (a declared missing kernel)
    ran: list[Finding] = dataclasses.field(default_factory=list)  # each kernel run, its outcome

    @property
    def passed(self) -> bool:
        return not self.findings


def console_faults(text: str, limit: int = 5) -> list[str]:
    """The first `limit` lines of a console log that show a kernel fault."""
    hits: list[str] = []
    for line in text.splitlines():
        line = line.rstrip("\r")
        if CONSOLE_FAULT.match(line):
            hits.append(line.strip())
            if len(hits) == limit:
                break
    return hits


def verdict_findings(kernel: run_mod.Kernel) -> list[str]:
    """The verdict and the ABI against what the matrix entry predicts."""
    s = kernel.summary
    found: list[str] = []
    if not s.get("verdict"):
        found.append("no verdict from `jr2-confine check` in the guest")
    elif (s.get("verdict"), s.get("verdict_code")) != (s.get("expected_verdict"),
                                                        s.get("expected_verdict_code")):
        found.append(f"verdict '{kernel.verdict_text}' where the entry's ABI predicts "
                     f"'{kernel.expected_verdict_text}'")
    entry = s.get("entry_abi")
    # An entry's ABI is a number, or the errno of a kernel without it (ENOSYS, EOPNOTSUPP).
    got = s.get("landlock") if isinstance(entry, str) else s.get("abi")
    if entry is not None and got != entry:
        found.append(f"kernel reports {'no ABI' if got is None else f'ABI {got}'}, "
                     f"its matrix entry says {entry}")
    return found


def health_findings(kernel: run_mod.Kernel) -> list[str]:
    """Result files missing, and every oops, WARNING, panic or timeout."""
    found = [f"result files: {d}" for d in kernel.defects]
    found += [f"problem: {p}" for p in kernel.problems]
    found += [f"console: {line}" for line in console_faults(kernel.console)
              if not any(line in p for p in kernel.problems)]
    return found


def test_findings(kernel: run_mod.Kernel) -> list[str]:
    """Every test whose outcome is not what the kernel's ABI allows."""
    found: list[str] = []
    if not kernel.results:
        found.append("no test result in suite.tap")
    abi = kernel.abi
    for r in kernel.results:
        if r.status in ("fail", "error"):
            found.append(f"{r.name} {r.status}ed: {r.reason or 'no diagnostics'}")
        elif r.status == "skip" and not r.reason:
            found.append(f"{r.name} skipped without a reason")
        elif r.status == "skip":
            m = SKIP_ABI.search(r.reason)
            if m and isinstance(abi, int) and abi > 0 and not kernel.refused and (
                    int(m.group(1)) != abi or abi >= int(m.group(2))):
                found.append(f"{r.name} skipped for '{m.group(0)}' on a kernel of ABI {abi}")
    counted = kernel.summary.get("counts")
    if counted is not None:
        parsed = {"pass": 0, "fail": 0, "skip": 0, "error": 0}
        for r in kernel.results:
            parsed[r.status] += 1
        if {k: counted.get(k, 0) for k in parsed} != parsed:
            found.append(f"summary.json counts {counted} differ from suite.tap {parsed}")
    return found


def binary_findings(kernel: run_mod.Kernel, built: dict[str, str]) -> list[str]:
    """The binaries the guest ran against the ones on the host after the run."""
    tested = kernel.binaries
    if not tested:
        return ["summary.json names no binaries_sha256: what was tested is unknown"]
    found: list[str] = []
    for name, digest in sorted(tested.items()):
        if name not in built:
            found.append(f"binary '{name}' tested in the VM is not among the built binaries")
        elif built[name] != digest:
            found.append(f"binary '{name}' changed after the run: the VM ran sha256 "
                         f"{digest[:16]}..., the build now holds {built[name][:16]}...")
    return found


def decide(run: run_mod.Run, matrix: dict[str, str | None], built: dict[str, str],
           built_before: dict[str, str] | None = None, required: Iterable[str] = ()) -> Decision:
    """Whether `run` may stand for a release.

    matrix: {kernel name: None, or the declared reason it may be missing}
    built: {binary name: sha256} hashed after the run
    built_before: the same, hashed before the run (None: not known)
    required: binary names that every kernel must have tested
    """
    findings: list[Finding] = []
    notes: list[Finding] = []
    ran: list[Finding] = []
    for defect in run.defects:
        findings.append(Finding("", f"run: {defect}"))
    tested = set(required).union(*(k.binaries for k in run.kernels))
    if built_before is not None:
        for name in sorted(tested & (set(built_before) | set(built))):
            if built_before.get(name) != built.get(name):
                findings.append(Finding("", f"binary '{name}' was rebuilt during the run: "
                                            "the matrix did not test one build"))
    present = {k.name for k in run.kernels}
    for name, reason in matrix.items():
        if name in present:
            continue
        if reason:
            notes.append(Finding(name, f"not run: {reason}"))
        else:
            findings.append(Finding(name, "missing from the run, and no reason is declared "
                                          "for it"))
    # The same suite runs on every kernel: a test reports everywhere, if only as a skip.
    suite: dict[str, str] = {}
    for kernel in run.kernels:
        for r in kernel.results:
            suite.setdefault(r.name, kernel.name)
    for kernel in run.kernels:
        if kernel.name not in matrix:
            notes.append(Finding(kernel.name, "run, though not in the release matrix"))
        lines = verdict_findings(kernel) + health_findings(kernel) + test_findings(kernel)
        names = {r.name for r in kernel.results}
        lines += [f"{name} never reported (it did on {where})" for name, where in suite.items()
                  if name not in names and not name.endswith(">")]
        lines += binary_findings(kernel, built)
        lines += [f"binary '{b}' was not tested in the VM" for b in required
                  if kernel.binaries and b not in kernel.binaries]
        outcome = kernel.summary.get("outcome")
        landlock = kernel.summary.get("landlock")
        ran.append(Finding(kernel.name, f"{outcome}, "
                                        f"{'ABI ' + str(kernel.abi) if landlock == 'ok' else landlock}, "
                                        f"verdict {kernel.verdict_text or 'none'}"))
        if outcome != "pass" and not lines:
            lines.append(f"summary.json outcome is '{outcome}'")
        findings += [Finding(kernel.name, line) for line in lines]
    return Decision(findings, notes, ran)
