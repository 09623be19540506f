# SPDX-License-Identifier: GPL-2.0-only
"""KCIDB v5.3 JSON of a run, for submission to KernelCI's database.

What is tested is jr2's runtime; the kernel is the environment it runs in.
So: one checkout (this repository at the run's commit), one build (the
static runtime the VMs ran, its SHA256s in `misc`), and per kernel a root
test `jr2` (the highest status of that kernel), `jr2.vm.verdict`,
`jr2.vm.health`, one per suite binary at `jr2.<group>` (its guest time as
duration) and one test per suite test at `jr2.<group>.<test>`, each
with an `environment` naming the kernel.  IDs are `jr2:<run>:<kernel>:...`.
"""
import re

from . import gate, tap

ORIGIN = "jr2"
MAJOR, MINOR = 5, 3
STATUS = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP", "error": "ERROR"}
PRIORITY = ["FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"]  # the schema's order
EXCERPT_MAX = 16384
PATH_PART = re.compile(r"[^a-zA-Z0-9_-]+")
SHA1 = re.compile(r"^[0-9a-f]{40}$")


def path_of(*parts):
    """A KCIDB path: dot-separated parts of [a-zA-Z0-9_-]."""
    return ".".join(PATH_PART.sub("_", p).strip("_") or "_" for p in parts)


def summary_status(statuses):
    """The highest-priority status, as the schema defines it."""
    return min(statuses, key=PRIORITY.index) if statuses else "MISS"


def _excerpt(text):
    text = text.replace("\0", "")
    return text[-EXCERPT_MAX:]


def landlock_text(summary):
    """"ABI 6", "Landlock ENOSYS", ...: never a Python None in the text."""
    abi, landlock = summary.get("abi"), summary.get("landlock")
    if landlock in (None, ""):
        return f"ABI {abi}" if abi is not None else "Landlock not probed"
    if landlock == "ok":
        return f"ABI {abi}" if abi is not None else "Landlock ok, ABI unknown"
    return f"Landlock {landlock}"


def _environment(kernel):
    s = kernel.summary
    desc = landlock_text(s)
    misc = {k: s[k] for k in ("kernel", "release", "entry_abi", "abi", "errata", "landlock",
                              "expected_verdict", "expected_verdict_code", "verdict",
                              "verdict_code") if s.get(k) is not None}
    misc.setdefault("kernel", kernel.name)
    return {"comment": f"Linux {s.get('release') or '?'} (matrix entry {kernel.name}), "
                       f"{desc}, under QEMU",
            "misc": misc}


def _test(build_id, test_id, path, status, environment, **extra):
    test = {"build_id": build_id, "id": test_id, "origin": ORIGIN, "path": path,
            "status": status, "environment": environment}
    test.update({k: v for k, v in extra.items() if v not in (None, "", {})})
    return test


def kernel_tests(kernel, build_id, run_id, start_time=None):
    env = _environment(kernel)
    base = f"{ORIGIN}:{run_id}:{kernel.name}"
    tests, seen = [], set()
    durations = {t.get("name"): t.get("duration_s") for t in kernel.summary.get("tests", [])}
    for r in kernel.results:
        test_id = f"{base}:{r.name}"
        n = 2
        while test_id in seen:  # a name twice in one TAP stays two tests
            test_id, n = f"{base}:{r.name}#{n}", n + 1
        seen.add(test_id)
        misc = {"binary": r.binary, "promises": r.promises}
        if r.status == "skip":
            misc["skip_reason"] = r.reason
        duration = r.duration if r.duration is not None else durations.get(r.name)
        excerpt = None
        if r.status == "fail":
            excerpt = r.output or r.reason
        elif r.status == "error":
            excerpt = "\n".join(x for x in (r.reason, r.output) if x)
        tests.append(_test(build_id, test_id, path_of(ORIGIN, r.group, r.test),
                           STATUS[r.status], env, duration=duration,
                           comment=r.reason if r.status == "skip" else None,
                           log_excerpt=_excerpt(excerpt) if excerpt else None,
                           start_time=start_time, misc=misc))
    # One node per suite binary: its status is its tests', its duration the guest's time.
    for binary, seconds in kernel.summary.get("binary_s", {}).items():
        statuses = [STATUS[r.status] for r in kernel.results if r.binary == binary]
        group = binary.removesuffix("_test")
        tests.append(_test(build_id, f"{base}:{binary}", path_of(ORIGIN, group),
                           summary_status(statuses), env, duration=seconds,
                           start_time=start_time, comment=f"{binary}: {len(statuses)} tests"))
    verdict = gate.verdict_findings(kernel)
    tests.append(_test(build_id, f"{base}:vm.verdict", path_of(ORIGIN, "vm", "verdict"),
                       "FAIL" if verdict else "PASS", env,
                       log_excerpt=_excerpt("\n".join(verdict)), start_time=start_time))
    health = gate.health_findings(kernel)
    tests.append(_test(build_id, f"{base}:vm.health", path_of(ORIGIN, "vm", "health"),
                       "ERROR" if health else "PASS", env,
                       log_excerpt=_excerpt("\n".join(health)),
                       duration=kernel.durations.get("total_s"), start_time=start_time))
    statuses = [t["status"] for t in tests]
    if not kernel.results:
        statuses.append("MISS")  # the suite never reported: the harness failed
    tests.insert(0, _test(build_id, base, ORIGIN, summary_status(statuses), env,
                          duration=kernel.durations.get("suite_s"), start_time=start_time,
                          comment=f"jr2 conformance suite on {kernel.name}",
                          misc={"counts": kernel.summary.get("counts", {}),
                                "outcome": kernel.summary.get("outcome", "")}))
    return tests


def upstream_tests(kernel, build_id, run_id, start_time=None):
    """The kernel's own Landlock selftests, under the path landlock_upstream."""
    env = _environment(kernel)
    base = f"{ORIGIN}:{run_id}:{kernel.name}:upstream"
    tests, seen = [], set()
    for r in kernel.results:
        test_id = f"{base}:{r.binary}.{r.name}"
        n = 2
        while test_id in seen:
            test_id, n = f"{base}:{r.binary}.{r.name}#{n}", n + 1
        seen.add(test_id)
        excerpt = (r.output or r.reason) if r.status in ("fail", "error") else None
        tests.append(_test(build_id, test_id,
                           path_of("landlock_upstream", r.binary.removesuffix("_test"),
                                   *r.name.split(".")),
                           STATUS[r.status], env, duration=r.duration,
                           comment=r.reason if r.status == "skip" else None,
                           log_excerpt=_excerpt(excerpt) if excerpt else None,
                           start_time=start_time, misc={"binary": r.binary}))
    tests.insert(0, _test(build_id, base, "landlock_upstream",
                          summary_status([t["status"] for t in tests] or ["MISS"]), env,
                          duration=kernel.durations.get("suite_s"), start_time=start_time,
                          comment=f"the kernel's own Landlock selftests on {kernel.name}",
                          misc={"counts": tap.counts(kernel.results),
                                "findings": kernel.summary.get("kernel_findings", [])}))
    return tests


def build(run, version=""):
    meta = run.meta
    commit = str(meta.get("commit", ""))
    checkout_id = f"{ORIGIN}:{commit or run.id}"
    checkout = {"id": checkout_id, "origin": ORIGIN, "tree_name": "jr2-landlock",
                "comment": f"jr2-landlock {version or ''} run {run.id}".replace("  ", " "),
                "valid": True}
    if SHA1.match(commit):
        checkout["git_commit_hash"] = commit
    start = meta.get("start")
    if start:
        checkout["start_time"] = start
    binaries = {}
    for kernel in run.kernels:
        for name, digest in kernel.binaries.items():
            binaries.setdefault(name, digest)
    build_id = f"{ORIGIN}:{run.id}:runtime"
    runtime = {"id": build_id, "checkout_id": checkout_id, "origin": ORIGIN,
               "architecture": "x86_64", "config_name": "static",
               "comment": "jr2 runtime and conformance suite, linked statically for the VMs",
               "status": "PASS" if binaries else "MISS",
               "misc": {"binaries_sha256": binaries}}
    if start:
        runtime["start_time"] = start
    tests = []
    for kernel in run.kernels:
        tests += kernel_tests(kernel, build_id, run.id, start)
        if kernel.upstream is not None and not kernel.upstream.skipped:
            tests += upstream_tests(kernel.upstream, build_id, run.id, start)
    return {"version": {"major": MAJOR, "minor": MINOR}, "checkouts": [checkout],
            "builds": [runtime], "tests": tests}
