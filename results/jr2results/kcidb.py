# SPDX-License-Identifier: GPL-2.0-only
"""KCIDB v5.3 JSON of a run, for submission to KernelCI's database.

By default what is tested is jr2's runtime and the kernel is the
environment it runs in: one checkout (this repository at the run's
commit), one build (the static runtime the VMs ran, its SHA256s in
`misc`).  With checkouts="kernel" each kernel is its own checkout and
build instead (its release as git_commit_name, its Debian package and
version, its config's name), the runtime's commit and SHA256s in the
root test's misc: KernelCI's views of a kernel then find the suite's
results on it.

Per kernel the tests form a tree with every inner node present: a root
test `jr2` (the highest status of that kernel), `jr2.vm`, `jr2.vm.verdict`,
`jr2.vm.health`, and the suite's results named as KernelCI names kselftest
results (kselftest_path): `kselftest`, `kselftest.jr2` (the suite), one
node per suite binary at `kselftest.jr2.jr2_<binary>` (its guest time as
duration) and one test per suite test at `kselftest.jr2.jr2_<binary>_<test>`;
the kernel's own Landlock selftests the same way under `kselftest.landlock`
(`kselftest.landlock.landlock_fs_test_layout1_...`, as KernelCI reports
them).  Each test has an `environment` naming the kernel.  A test's log_url
is the kernel's suite.tap, a node's of the machine (root, vm.*) its
console.log, where the run has them.  IDs are `jr2:<run>:<kernel>:...`.
"""
import pathlib
import re
import tomllib
from collections.abc import Callable
from typing import Any

from . import gate, run as run_mod, tap

Json = dict[str, Any]

ORIGIN = "jr2"
# KernelCI's kselftest paths: kselftest.<collection>.<case>; the collections
# of the project's suite (selftests/run-tests: "selftests: jr2: <binary>") and
# of the kernel's own Landlock selftests.
KSELFTEST = "kselftest"
SUITE_COLLECTION = "jr2"
UPSTREAM_COLLECTION = "landlock"
MAJOR, MINOR = 5, 3
STATUS = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP", "error": "ERROR"}
PRIORITY = ["FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"]  # the schema's order
EXCERPT_MAX = 16384
PATH_PART = re.compile(r"[^a-zA-Z0-9_-]+")
SHA1 = re.compile(r"^[0-9a-f]{40}$")


def path_of(*parts: str) -> str:
    """A KCIDB path: dot-separated parts of [a-zA-Z0-9_-]."""
    return ".".join(PATH_PART.sub("_", p).strip("_") or "_" for p in parts)


def kselftest_case(text: str) -> str:
    """A name as KernelCI's kselftest jobs make it of a TAP line (Linaro
    test-definitions' kselftest parse-output.py, slugify): "[N]" dropped,
    each run of characters outside [A-Za-z0-9_-] one "_", one "_" off
    either end, "_-" made "_"."""
    text = PATH_PART.sub("_", re.sub(r"\[\d{1,5}\]", "", text))
    return re.sub(r"(^_|_$)", "", text).replace("_-", "_")


def kselftest_path(collection: str, binary: str = "", name: str = "") -> str:
    """KernelCI's path of a kselftest result: kselftest.<collection> for the
    collection, kselftest.<collection>.<collection>_<binary> for a binary
    ("selftests: landlock: fs_test"), and .<collection>_<binary>_<test> for
    one of its tests (kselftest.landlock.landlock_fs_test_layout1_inval),
    flat under the collection as KernelCI reports them."""
    if not binary:
        return f"{KSELFTEST}.{collection}"
    case = kselftest_case(f"{collection}: {binary}")
    if name:
        case = f"{case}_{kselftest_case(name)}"
    return f"{KSELFTEST}.{collection}.{case or '_'}"


def test_path(collection: str, result: tap.Result) -> str:
    """The path of one TAP result of a suite binary (kselftest_path)."""
    return kselftest_path(collection, result.binary or "tap", result.name)


def with_parents(tests: list[Json], root: str,
                 make: Callable[[str, str, int], Json], every_root: bool = False) -> list[Json]:
    """Adds the inner nodes of the path tree below `root` that no test is,
    each with the highest status of the tests under it: make(path, status,
    count) builds one.  every_root: those of the other trees too (the
    kselftest paths beside `root`)."""
    have = {t["path"] for t in tests}
    under: dict[str, list[str]] = {}
    for t in tests:
        parts = t["path"].split(".")
        for i in range(len(parts) - 1, 0, -1):
            under.setdefault(".".join(parts[:i]), []).append(t["status"])
    for path in sorted(under):
        if path != root and path not in have and (every_root or path.startswith(root + ".")):
            tests.append(make(path, summary_status(under[path]), len(under[path])))
    return tests


def summary_status(statuses: list[str]) -> str:
    """The highest-priority status, as the schema defines it."""
    return min(statuses, key=PRIORITY.index) if statuses else "MISS"


def _excerpt(text: str) -> str:
    text = text.replace("\0", "")
    return text[-EXCERPT_MAX:]


def landlock_text(summary: Json) -> str:
    """"ABI 6", "Landlock ENOSYS", ...: never a Python None in the text."""
    abi, landlock = summary.get("abi"), summary.get("landlock")
    if landlock in (None, ""):
        return f"ABI {abi}" if abi is not None else "Landlock not probed"
    if landlock == "ok":
        return f"ABI {abi}" if abi is not None else "Landlock ok, ABI unknown"
    return f"Landlock {landlock}"


def _environment(kernel: run_mod.Kernel) -> Json:
    s = kernel.summary
    desc = landlock_text(s)
    misc = {k: s[k] for k in ("kernel", "release", "entry_abi", "abi", "errata", "landlock",
                              "expected_verdict", "expected_verdict_code", "verdict",
                              "verdict_code", "profile", "profile_data") if s.get(k) is not None}
    misc.setdefault("kernel", kernel.name)
    profile = s.get("profile", "bare")
    where = "" if profile == "bare" else f", in the container profile '{profile}'"
    return {"comment": f"Linux {s.get('release') or '?'} (matrix entry {entry_name(kernel)}), "
                       f"{desc}, under QEMU{where}",
            "misc": misc}


def entry_name(kernel: run_mod.Kernel) -> str:
    """The matrix entry of a kernel's results: its folder's name less the
    "+<profile>" of a container profile (vmtest --profile)."""
    profile = kernel.summary.get("profile", "bare")
    suffix = f"+{profile}"
    if profile != "bare" and kernel.name.endswith(suffix):
        return kernel.name[:-len(suffix)]
    return kernel.name


def _test(build_id: str, test_id: str, path: str, status: str, environment: Json,
          **extra: Any) -> Json:
    test = {"build_id": build_id, "id": test_id, "origin": ORIGIN, "path": path,
            "status": status, "environment": environment}
    test.update({k: v for k, v in extra.items() if v not in (None, "", {})})
    return test


def _log_url(kernel: run_mod.Kernel, name: str, log_base: str | None) -> str | None:
    """The URL of the kernel folder's file `name`, None where it is absent:
    log_base/<kernel>/<name>, else a file: URL of the file itself."""
    path = kernel.path / name
    if not path.is_file():
        return None
    if log_base:
        return f"{log_base.rstrip('/')}/{kernel.path.name}/{name}"
    return path.resolve().as_uri()


def kernel_tests(kernel: run_mod.Kernel, build_id: str, run_id: str, start_time: str | None = None,
                 log_base: str | None = None, root_misc: Json | None = None) -> list[Json]:
    env = _environment(kernel)
    tap_url = _log_url(kernel, "suite.tap", log_base)
    console_url = _log_url(kernel, "console.log", log_base)
    base = f"{ORIGIN}:{run_id}:{kernel.name}"
    tests: list[Json] = []
    seen: set[str] = set()
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
        tests.append(_test(build_id, test_id, test_path(SUITE_COLLECTION, r),
                           STATUS[r.status], env, duration=duration,
                           comment=r.reason if r.status == "skip" else None,
                           log_excerpt=_excerpt(excerpt) if excerpt else None,
                           log_url=tap_url, start_time=start_time, misc=misc))
    # One node per suite binary: its status is its tests', its duration the guest's time.
    for binary, seconds in kernel.summary.get("binary_s", {}).items():
        statuses = [STATUS[r.status] for r in kernel.results if r.binary == binary]
        tests.append(_test(build_id, f"{base}:{binary}",
                           kselftest_path(SUITE_COLLECTION, binary),
                           summary_status(statuses), env, duration=seconds, log_url=tap_url,
                           start_time=start_time, comment=f"{binary}: {len(statuses)} tests"))
    verdict = gate.verdict_findings(kernel)
    tests.append(_test(build_id, f"{base}:vm.verdict", path_of(ORIGIN, "vm", "verdict"),
                       "FAIL" if verdict else "PASS", env, log_url=console_url,
                       log_excerpt=_excerpt("\n".join(verdict)), start_time=start_time))
    health = gate.health_findings(kernel)
    tests.append(_test(build_id, f"{base}:vm.health", path_of(ORIGIN, "vm", "health"),
                       "ERROR" if health else "PASS", env, log_url=console_url,
                       log_excerpt=_excerpt("\n".join(health)),
                       duration=kernel.durations.get("total_s"), start_time=start_time))
    with_parents(tests, ORIGIN, lambda path, status, n: _test(
        build_id, f"{base}:{path}", path, status, env, start_time=start_time,
        log_url=console_url if path == f"{ORIGIN}.vm" else tap_url,
        comment=f"{path.removeprefix(ORIGIN + '.')}: {n} tests"), every_root=True)
    statuses = [t["status"] for t in tests]
    if not kernel.results:
        statuses.append("MISS")  # the suite never reported: the harness failed
    tests.insert(0, _test(build_id, base, ORIGIN, summary_status(statuses), env,
                          duration=kernel.durations.get("suite_s"), start_time=start_time,
                          log_url=console_url,
                          comment=f"jr2 conformance suite on {kernel.name}",
                          misc={"counts": kernel.summary.get("counts", {}),
                                "outcome": kernel.summary.get("outcome", ""),
                                **(root_misc or {})}))
    return tests


def upstream_tests(kernel: run_mod.Kernel, build_id: str, run_id: str,
                   start_time: str | None = None, log_base: str | None = None) -> list[Json]:
    """The kernel's own Landlock selftests, at KernelCI's paths of them
    (kselftest.landlock.landlock_<binary>_<test>)."""
    env = _environment(kernel)
    tap_url = _log_url(kernel, "suite.tap", log_base)
    base = f"{ORIGIN}:{run_id}:{kernel.name}:upstream"
    tests: list[Json] = []
    seen: set[str] = set()
    for r in kernel.results:
        test_id = f"{base}:{r.binary}.{r.name}"
        n = 2
        while test_id in seen:
            test_id, n = f"{base}:{r.binary}.{r.name}#{n}", n + 1
        seen.add(test_id)
        excerpt = (r.output or r.reason) if r.status in ("fail", "error") else None
        tests.append(_test(build_id, test_id, test_path(UPSTREAM_COLLECTION, r),
                           STATUS[r.status], env, duration=r.duration,
                           comment=r.reason if r.status == "skip" else None,
                           log_excerpt=_excerpt(excerpt) if excerpt else None,
                           log_url=tap_url, start_time=start_time, misc={"binary": r.binary}))
    # One node per binary, beside its tests, as KernelCI has "selftests: landlock: fs_test".
    for binary in sorted({r.binary for r in kernel.results if r.binary}):
        statuses = [STATUS[r.status] for r in kernel.results if r.binary == binary]
        tests.append(_test(build_id, f"{base}:{binary}", kselftest_path(UPSTREAM_COLLECTION, binary),
                           summary_status(statuses), env, log_url=tap_url, start_time=start_time,
                           comment=f"{binary}: {len(statuses)} tests"))
    root = kselftest_path(UPSTREAM_COLLECTION)
    tests.insert(0, _test(build_id, base, root,
                          summary_status([t["status"] for t in tests] or ["MISS"]), env,
                          duration=kernel.durations.get("suite_s"), start_time=start_time,
                          comment=f"the kernel's own Landlock selftests on {kernel.name}",
                          misc={"counts": tap.counts(kernel.results),
                                "findings": kernel.summary.get("kernel_findings", [])}))
    with_parents(tests, root, lambda path, status, n: _test(
        build_id, f"{base}:{path}", path, status, env, start_time=start_time, log_url=tap_url,
        comment=f"{path}: {n} tests"), every_root=True)
    return tests


MATRIX = pathlib.Path(__file__).resolve().parents[2] / "kernels" / "matrix.toml"
STABLE_GIT = "https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git"
TARBALL = re.compile(r"/linux-(\d+\.\d+(?:\.\d+)?)\.tar\.\w+$")


def matrix_entries(path: str | pathlib.Path = MATRIX) -> dict[str, Json]:
    """{name: entry} of kernels/matrix.toml, a variant (`base`) with its
    base's files; {} where the file is absent."""
    try:
        kernels = tomllib.loads(pathlib.Path(path).read_text()).get("kernel", [])
    except FileNotFoundError:
        return {}
    entries = {k["name"]: k for k in kernels if "name" in k}
    return {name: {**entries.get(e.get("base"), {}), **e} for name, e in entries.items()}


def kernel_checkout(kernel: run_mod.Kernel, run_id: str, entry: Json,
                    start: str | None = None) -> tuple[Json, Json]:
    """The kernel as what was checked out and built: (checkout, build)."""
    s = kernel.summary
    release = s.get("release") or kernel.name
    debs = entry.get("deb") or []
    image = next((d for d in debs if d.get("vmlinuz")), debs[0] if debs else {})
    config = next((d["config"] for d in debs if d.get("config")), None)
    base = f"{ORIGIN}:{run_id}:{kernel.name}"
    misc = {"kernel": kernel.name, "release": release, "source": entry.get("source", "path")}
    checkout: Json = {"id": f"{base}:checkout", "origin": ORIGIN, "git_commit_name": release,
                "valid": True}
    if entry.get("source") == "debian":
        checkout["tree_name"] = f"debian-{entry.get('suite', 'unknown')}"
        misc.update(package=image.get("package"), debian_version=image.get("version"),
                    source_package=image.get("source"))
        what = f"Debian {image.get('package')} {image.get('version')}"
        if image.get("vcs_git") and image.get("version"):
            # The packaging repository its source package names (Vcs-Git),
            # at the version's tag as DEP-14 writes it (the kernel team's
            # tags: debian/6.12.117-1, "~" as "_", ":" as "%").
            tag = "debian/" + image["version"].replace("~", "_").replace(":", "%")
            checkout.update(git_repository_url=image["vcs_git"], git_commit_name=tag,
                            git_commit_tags=[tag])
    elif tarball := TARBALL.search(entry.get("url", "")):
        version = tarball.group(1)
        checkout.update(tree_name="stable", git_repository_url=STABLE_GIT,
                        git_commit_name=f"v{version}")
        misc.update(tarball=entry["url"])
        what = f"kernel.org linux-{version}, built by kernels/build-kernel"
    else:
        what = "a kernel image named by path"
    checkout["comment"] = f"Linux {release} ({what}), matrix entry {kernel.name}"
    checkout["misc"] = {k: v for k, v in misc.items() if v is not None}
    build: Json = {"id": f"{base}:kernel", "checkout_id": checkout["id"], "origin": ORIGIN,
             "architecture": "x86_64", "status": "PASS",
             "comment": f"Linux {release}, as booted under QEMU", "misc": checkout["misc"]}
    if config:
        build["config_name"] = pathlib.PurePosixPath(config).name
    if entry.get("cmdline"):
        build["command"] = f"kernel command line: {entry['cmdline']}"
    if start:
        checkout["start_time"] = build["start_time"] = start
    return checkout, build


def build(
        run: run_mod.Run, version: str = "", checkouts: str = "runtime",
        log_base: str | None = None, matrix: dict[str, Json] | None = None) -> Json:
    """The document.  checkouts: "runtime" (this repository is the checkout,
    its runtime the build) or "kernel" (each kernel is checkout and build);
    log_base: the URL the run folder is published at (log_url), else file:
    URLs of the files."""
    meta = run.meta
    commit = str(meta.get("commit", ""))
    checkout_id = f"{ORIGIN}:{commit or run.id}"
    checkout: Json = {"id": checkout_id, "origin": ORIGIN, "tree_name": "jr2-landlock",
                "comment": f"jr2-landlock {version or ''} run {run.id}".replace("  ", " "),
                "valid": True}
    if SHA1.match(commit):
        checkout["git_commit_hash"] = commit
    start = meta.get("start")
    if start:
        checkout["start_time"] = start
    binaries: dict[str, str] = {}
    for kernel in run.kernels:
        for name, digest in kernel.binaries.items():
            binaries.setdefault(name, digest)
    build_id = f"{ORIGIN}:{run.id}:runtime"
    runtime: Json = {"id": build_id, "checkout_id": checkout_id, "origin": ORIGIN,
               "architecture": "x86_64", "config_name": "static",
               "comment": "jr2 runtime and conformance suite, linked statically for the VMs",
               "status": "PASS" if binaries else "MISS",
               "misc": {"binaries_sha256": binaries}}
    if start:
        runtime["start_time"] = start
    if checkouts not in ("runtime", "kernel"):
        raise ValueError(f"checkouts '{checkouts}': give runtime or kernel")
    checkout_list, build_list = [checkout], [runtime]
    tests: list[Json] = []
    root_misc = None
    entries: dict[str, Json] = {}
    if checkouts == "kernel":
        checkout_list, build_list = [], []
        entries = matrix_entries() if matrix is None else matrix
        root_misc = {"jr2_commit": commit, "jr2_binaries_sha256": binaries}
    for kernel in run.kernels:
        kernel_build = build_id
        if checkouts == "kernel":
            kco, kbuild = kernel_checkout(kernel, run.id, entries.get(entry_name(kernel), {}), start)
            checkout_list.append(kco)
            build_list.append(kbuild)
            kernel_build = kbuild["id"]
        tests += kernel_tests(kernel, kernel_build, run.id, start, log_base, root_misc)
        if kernel.upstream is not None and not kernel.upstream.skipped:
            tests += upstream_tests(kernel.upstream, kernel_build, run.id, start, log_base)
    return {"version": {"major": MAJOR, "minor": MINOR}, "checkouts": checkout_list,
            "builds": build_list, "tests": tests}
