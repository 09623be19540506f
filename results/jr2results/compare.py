# SPDX-License-Identifier: GPL-2.0-only
"""What changed between two runs: a test, a kernel, an outcome.

Either side is a run folder (results/<run-id>) or one kernel's folder in a
run (results/<run-id>/6.1): two runs are compared kernel by kernel, two
kernel folders with each other (the same suite on two kernels, for a bug
report that says where a behaviour changes).
"""
import dataclasses
import pathlib

from . import run as run_mod, tap


@dataclasses.dataclass
class Change:
    kernel: str
    subject: str  # a test name, or what of the kernel changed
    before: str
    after: str


def _outcome(result: tap.Result | None) -> str:
    if result is None:
        return "absent"
    if result.status == "pass":
        return "pass"
    return f"{result.status} ({result.reason})" if result.reason else result.status


def kernel_changes(a: run_mod.Kernel, b: run_mod.Kernel, label: str) -> list[Change]:
    changes: list[Change] = []
    for key, name in (("verdict", "verdict"), ("verdict_code", "verdict code"), ("abi", "ABI"),
                      ("outcome", "outcome"), ("release", "release")):
        before, after = a.summary.get(key), b.summary.get(key)
        if before != after:
            changes.append(Change(label, name, str(before), str(after)))
    for problem in a.problems:
        if problem not in b.problems:
            changes.append(Change(label, "problem", problem, "gone"))
    for problem in b.problems:
        if problem not in a.problems:
            changes.append(Change(label, "problem", "none", problem))
    first = {r.name: r for r in a.results}
    second = {r.name: r for r in b.results}
    names = list(first) + [n for n in second if n not in first]
    for name in names:
        before, after = _outcome(first.get(name)), _outcome(second.get(name))
        if before != after:
            changes.append(Change(label, name, before, after))
    return changes


def compare(path_a: pathlib.Path, path_b: pathlib.Path) -> tuple[list[Change], str]:
    """The changes from A to B, and a one-line description of what was compared."""
    a_is_kernel = (path_a / "summary.json").exists() or (path_a / "suite.tap").exists()
    b_is_kernel = (path_b / "summary.json").exists() or (path_b / "suite.tap").exists()
    if a_is_kernel != b_is_kernel:
        raise ValueError(f"compare a run with a run, or a kernel folder with a kernel folder: "
                         f"'{path_a}' and '{path_b}' are one of each")
    if a_is_kernel:
        ka, kb = run_mod.load_kernel(path_a), run_mod.load_kernel(path_b)
        label = ka.name if ka.name == kb.name else f"{ka.name}->{kb.name}"
        return kernel_changes(ka, kb, label), f"kernel {path_a} -> kernel {path_b}"
    a, b = run_mod.load(path_a), run_mod.load(path_b)
    changes: list[Change] = []
    for k in a.kernels:
        other = b.kernel(k.name)
        if other is None:
            changes.append(Change(k.name, "kernel", "run", "absent"))
        else:
            changes += kernel_changes(k, other, k.name)
    for k in b.kernels:
        if a.kernel(k.name) is None:
            changes.append(Change(k.name, "kernel", "absent", "run"))
    return changes, f"run {a.id} -> run {b.id}"


def text(changes: list[Change], what: str) -> str:
    if not changes:
        return f"{what}: no change\n"
    width = max(len(c.kernel) for c in changes)
    lines = [f"{what}: {len(changes)} change(s)"]
    lines += [f"{c.kernel:<{width}}  {c.subject}: {c.before} -> {c.after}" for c in changes]
    return "\n".join(lines) + "\n"
