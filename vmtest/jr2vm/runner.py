# SPDX-License-Identifier: GPL-2.0-only
"""Boot one kernel with the payload, follow it, collect its results."""
import concurrent.futures
import dataclasses
import datetime
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from types import FrameType
from typing import Any

import jr2kernels

from . import channel, expect, initramfs, profiles, qemu, summary
from . import lanes as lanes_of

REPO = pathlib.Path(__file__).resolve().parents[2]
RESULTS = REPO / "results"
DEFAULT_TIMEOUT_S = 600
DEFAULT_TEST_TIMEOUT_S = 300


# The QEMUs running now, killed when vmtest itself is stopped.
_running: set[subprocess.Popen[bytes]] = set()
_running_lock = threading.Lock()


def stop_guests_on_signals() -> None:
    """SIGTERM/SIGINT/SIGHUP end every QEMU this process started, then the process."""
    def stop(signum: int, _frame: FrameType | None) -> None:
        with _running_lock:
            for proc in list(_running):
                proc.kill()
        print(f"vmtest: stopped by signal {signum}: guests killed", file=sys.stderr, flush=True)
        os._exit(128 + signum)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stop)


# False (vmtest/run --quiet): a kernel's boot, probe and binaries go unsaid.
VERBOSE = True


def say(name: str, msg: str) -> None:
    print(f"vmtest {name}: {msg}", flush=True)


def detail(name: str, msg: str) -> None:
    if VERBOSE:
        say(name, msg)


def run_id() -> str:
    """YYYYmmdd-HHMMSS-<short commit>, or RUN= from the environment."""
    if os.environ.get("RUN"):
        return os.environ["RUN"]
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "nogit"
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S-") + commit


def now_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def write_run_json(run_dir: pathlib.Path, kernels: Iterable[str], start: str,
                   end: str | None = None) -> None:
    """results/<run-id>/run.json; a second vmtest with the same RUN= adds its kernels."""
    path = run_dir / "run.json"
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = json.loads(path.read_text())
        except ValueError:
            data = {}
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    asked = list(dict.fromkeys(data.get("kernels", []) + list(kernels)))
    data.update({"run_id": run_dir.name, "start": data.get("start", start), "end": end,
                 "commit": commit, "kernels": asked})
    run_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")


class Follow:
    """Reads the result channel as the guest writes it, for progress lines:
    only what came since the last poll (a whole re-read ten times a second
    was Python's time taken from the guests on a 2-core host)."""

    def __init__(self, name: str, path: pathlib.Path) -> None:
        self.name, self.path = name, path
        self.offset = 0
        self.partial = b""
        self.marks: dict[str, float] = {}
        self.total: str | None = None
        self.done = 0

    def poll(self, start: float) -> None:
        try:
            with self.path.open("rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return
        self.offset += len(data)
        *complete, self.partial = (self.partial + data).split(b"\n")
        for raw in complete:
            line = raw.decode(errors="replace").rstrip("\r")
            if line.startswith(channel.MARK):
                word, _, rest = line[len(channel.MARK):].partition(" ")
                self.marks.setdefault(word, time.monotonic() - start)
                if word == "booted":
                    detail(self.name, f"booted in {self.marks[word]:.1f} s: {rest}")
                elif word == "probe":
                    detail(self.name, f"Landlock: {rest}")
                elif word == "suite-begin":
                    self.total = rest.strip()
            elif line.startswith("# selftests: "):
                self.done += 1
                detail(self.name, f"tests {self.done}/{self.total}: {line.rsplit(' ', 1)[-1]}")


def _guest(name: str, args: list[str], timeout_s: float, start: float,
           follow: Follow) -> tuple[int, str, bool]:
    """Runs one QEMU to its end or the timeout, following its channel;
    returns (exit status, QEMU's own output, timed out)."""
    timed_out = False
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    with _running_lock:
        _running.add(proc)
    try:
        while proc.poll() is None:
            follow.poll(start)
            if time.monotonic() - start > timeout_s:
                timed_out = True
                say(name, f"timeout after {timeout_s} s: stopping QEMU")
                proc.kill()
                break
            time.sleep(0.1)
        qemu_out = proc.communicate()[0].decode(errors="replace")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        with _running_lock:
            _running.discard(proc)
    follow.poll(start)
    return proc.returncode, qemu_out, timed_out


def suite_binaries(base: initramfs.Base, filter_spec: str = "") -> list[str]:
    """The suite binaries of the payload that -T's BIN keeps."""
    only = (filter_spec or "").partition(":")[0]
    return sorted(n for n in base.sha256 if n.endswith("_test") and only in n)


@dataclasses.dataclass
class BootRequest:
    """One boot of a kernel: what the guest runs, and where its files go."""
    kernel: jr2kernels.Kernel
    out_dir: pathlib.Path  # console.log, channel.log, suite.tap, check.json, summary.json
    mode: str = "suite"  # suite | cmd | shell (vmtest/guest/init)
    cmd: str = ""  # the command of mode cmd
    filter_spec: str = ""  # -T BIN[:TEST]
    extra: Sequence[str | pathlib.Path] = ()  # files put in the guest's /jr2/payload
    timeout_s: float = DEFAULT_TIMEOUT_S  # of the whole boot
    test_timeout_s: int = DEFAULT_TEST_TIMEOUT_S  # of one suite binary
    base: initramfs.Base | None = None  # None: built from the tree's payload
    max_abi: int = 0  # the ABI cap of the guest (JR2_MAX_ABI), 0 for none
    # "landlock": the payload's suite is the kernel's own Landlock selftests,
    # whose failures are findings about the kernel, not failures of this run.
    suite_name: str = "jr2"
    # Guests of this kernel booted at once, each running a share of the suite
    # (jr2vm/lanes.py); their logs are put one after the other.
    lanes: int = 1
    # The guests this kernel may boot at once (memory): above `lanes`, a
    # binary that mostly waits gets a guest of its own; 0: none more.
    guests_max: int = 0
    # A container profile (jr2vm/profiles.py): the suite runs inside an OCI
    # runtime in the guest; None: bare, as the guest's root.
    profile: profiles.Profile | None = None
    # The name of its results (out_dir's, summary.json's "kernel"): the
    # kernel's, with "+<profile>" for a container profile.
    label: str = ""


def boot(request: BootRequest) -> dict[str, Any]:
    """Boots the request's kernel, writes its files in request.out_dir;
    returns the summary dict."""
    kernel, out_dir, mode, filter_spec = (request.kernel, request.out_dir, request.mode,
                                          request.filter_spec)
    timeout_s, max_abi, suite_name = request.timeout_s, request.max_abi, request.suite_name
    name = request.label or kernel.name
    out_dir.mkdir(parents=True, exist_ok=True)
    base = request.base or initramfs.build_base(initramfs.payload_binaries())
    shares: list[Sequence[str]] = [()]
    if mode == "suite" and request.lanes > 1:
        binaries = suite_binaries(base, filter_spec)
        timing = lanes_of.last_timing(RESULTS, name, binaries)
        shares = [*lanes_of.plan(binaries, request.lanes, timing, request.guests_max)] or [()]
    # A folder reused (same RUN=) keeps nothing of the boot before.
    for old in ("console.log", "channel.log", "suite.tap", "check.json", "summary.json", "cmd.out"):
        (out_dir / old).unlink(missing_ok=True)
    detail(name, f"kernel {kernel.vmlinuz}{' cmdline ' + kernel.cmdline if kernel.cmdline else ''}"
        + (f"; the suite in {len(shares)} guests at once" if len(shares) > 1 else ""))
    image = jr2kernels.boot_image(kernel)  # unpacked once per kernel, before the clock
    # One guest: its files as named; lanes: a pair of files each, joined after.
    files = [(out_dir / "console.log", out_dir / "channel.log")] if len(shares) == 1 else \
        [(out_dir / f"console.log.lane-{i}", out_dir / f"channel.log.lane-{i}")
         for i in range(1, len(shares) + 1)]
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="jr2-vmtest-") as tmp:
        guests: list[tuple[list[str], Follow]] = []
        for i, (share, (console, chan)) in enumerate(zip(shares, files), 1):
            initrd = initramfs.initrd(pathlib.Path(tmp) / f"initrd-{i}.gz", base, mode=mode,
                                      cmd=request.cmd, filter_spec=filter_spec,
                                      test_timeout=request.test_timeout_s, extra=request.extra,
                                      suite_name=suite_name, lane_bins=share,
                                      profile=request.profile,
                                      cgroup=profiles.cgroup_version(kernel.config))
            args = qemu.command(image, initrd, console, chan, guest_cmdline(kernel, max_abi))
            label = name if len(shares) == 1 else f"{name} lane {i}/{len(shares)}"
            guests.append((args, Follow(label, chan)))
        (out_dir / "qemu.cmd").write_text("".join(" ".join(a) + "\n" for a, _ in guests))
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(guests)) as pool:
            ended = list(pool.map(lambda g: _guest(g[1].name, g[0], timeout_s, start, g[1]),
                                  guests))
    ended_at = time.monotonic() - start
    consoles: list[str] = []
    chans: list[str] = []
    problems: list[str] = []
    for i, ((console, chan), (status, qemu_out, _), (args, _)) in enumerate(
            zip(files, ended, guests), 1):
        console_text = console.read_text(errors="replace") if console.exists() else ""
        chan_text = chan.read_text(errors="replace") if chan.exists() else ""
        if qemu_out.strip():
            console_text += "\n# qemu: " + qemu_out.strip().replace("\n", "\n# qemu: ") + "\n"
        host = qemu.host_failure(status, console_text.split("\n# qemu: ")[0], chan_text,
                                 qemu_out, ended[i - 1][2], args)
        if host:
            problems.append(host if len(shares) == 1 else f"lane {i}: {host}")
        if len(shares) > 1:
            head = f"# vmtest: lane {i} of {len(shares)}: {' '.join(shares[i - 1])}\n"
            console_text, chan_text = head + console_text, head + chan_text
            console.unlink(missing_ok=True)
            chan.unlink(missing_ok=True)
        consoles.append(console_text)
        chans.append(chan_text)
    console_text = "".join(consoles)
    (out_dir / "console.log").write_text(console_text)
    (out_dir / "channel.log").write_text("".join(chans))
    ch = channel.parse(chans[0])
    merge_problems: list[str] = []
    if len(shares) > 1:
        parts = [channel.parse(text) for text in chans]
        ch, merge_problems = lanes_of.merge(parts)
        merge_problems += [f"lane {i} of {len(shares)} ({' '.join(shares[i - 1])}) ended without "
                           f"its end marker, QEMU status {ended[i - 1][0]}"
                           for i, part in enumerate(parts, 1) if not part.ended]
    # A command (make repro, vmtest/run --cmd) runs no suite: its output is
    # cmd.out, and an empty suite.tap would be TAP without a plan (prove fails).
    if mode != "cmd" or ch.tap.strip():
        (out_dir / "suite.tap").write_text(profile_tap(ch.tap, request.profile))
    if ch.check_status is not None:
        check = channel.check_json(ch)
        record = dict(check) if check else {"output": ch.check_text}
        record["exit_status"] = ch.check_status
        (out_dir / "check.json").write_text(json.dumps(record, indent=1) + "\n")
    if mode == "cmd":
        (out_dir / "cmd.out").write_text(ch.cmd_output)
    # The suite's span: from the last guest booted to the last one ended.
    booted = max(g[1].marks.get("booted", ended_at) for g in guests)
    end_mark = max(g[1].marks.get("end", ended_at) for g in guests)
    timed_out = any(t for _, _, t in ended)
    # A lane's QEMU status other than the runner's exit is the kernel's problem.
    statuses = [s for s, _, _ in ended]
    exit_status = next((s for s in statuses if s != qemu.GUEST_DONE_STATUS), statuses[0])
    result: dict[str, Any]
    try:
        table = expect.abi_table()
    except expect.TableError as err:
        result = {"kernel": name, "outcome": "error", "problems": [str(err)],
                  "counts": tap_counts_empty()}
    else:
        result = summary.summarize(summary.Boot(name, kernel.entry, ch, console_text, table,
                                                timed_out, timeout_s, {}, base.sha256,
                                                exit_status, cap=max_abi))
    # The profile the suite ran in, and the Debian packages its data are from.
    result["profile"] = request.profile.name if request.profile else "bare"
    if request.profile:
        result["profile_data"] = request.profile.versions
        result["profile_cgroup"] = profiles.cgroup_version(kernel.config)
        pid1 = pid1_result(ch_text_of(chans))
        if pid1 is not None:
            result["pid1"] = pid1
            if pid1["status"] != "ok":
                result["problems"] = result.get("problems", []) + [
                    f"the harness as PID 1 of the container: {pid1['detail']}"]
                if result["outcome"] == "pass":
                    result["outcome"] = "fail"
    if problems:
        # Not a guest crash: QEMU itself died before the guest said anything.
        result["outcome"] = "error"
        result["problems"] = problems + [p for p in result.get("problems", [])
                                         if not p.startswith("no end marker")]
    if merge_problems:
        result["problems"] = result.get("problems", []) + merge_problems
        if result["outcome"] == "pass":
            result["outcome"] = "fail"
    if len(shares) > 1:
        result["lanes"] = [list(share) for share in shares]
    if mode == "cmd":
        result["cmd_status"] = ch.cmd_status
        if ch.cmd_status != 0 and result["outcome"] == "pass":
            result["outcome"] = "fail"
            result["problems"].append(f"the command exited {ch.cmd_status}")
    if suite_name != "jr2":
        upstream_findings(result)
    result["durations"] = {"boot_s": round(booted, 2), "suite_s": round(end_mark - booted, 2),
                           "collect_s": round(time.monotonic() - start - end_mark, 2),
                           "total_s": round(time.monotonic() - start, 2)}
    (out_dir / "summary.json").write_text(json.dumps(result, indent=1) + "\n")
    # The whole suite timed: the next boot's lanes are planned by these times.
    if mode == "suite" and suite_name == "jr2" and not filter_spec \
            and set(suite_binaries(base)) <= set(result.get("binary_s") or {}):
        lanes_of.keep_timing(name, result)
    return result


def ch_text_of(chans: Sequence[str]) -> str:
    return "".join(chans)


def pid1_result(text: str) -> dict[str, str] | None:
    """The guest's "pid1 ok|fail DETAIL" line (vmtest/guest/init's
    pid1_check, run in a profile after a whole suite), or None."""
    found: dict[str, str] | None = None
    for line in text.splitlines():
        if line.startswith(channel.MARK + "pid1 "):
            status, _, detail = line[len(channel.MARK) + 5:].partition(" ")
            if found is None or found["status"] == "ok":
                found = {"status": status, "detail": detail.strip()}
    return found


def profile_tap(text: str, profile: profiles.Profile | None) -> str:
    """The suite's TAP with the profile it ran in as a comment after its
    version line (results/formats/README.md)."""
    if profile is None:
        return text
    data = ", ".join(f"{p} {v}" for p, v in sorted(profile.versions.items()))
    line = f"# jr2-profile: {profile.name} ({data})\n"
    head, sep, rest = text.partition("\n")
    if head.startswith("TAP version"):
        return head + sep + line + rest
    return line + text


def upstream_findings(result: dict[str, Any]) -> None:
    """The kernel's own tests: a failed test is a finding about the kernel
    (kernels/README.md names each), the run fails only on its own problems
    (oops, timeout, crash, a wrong verdict)."""
    result["suite"] = "upstream"
    failed = [t["name"] for t in result.get("tests", []) if t["status"] == "fail"]
    result["kernel_findings"] = failed
    if result["outcome"] == "fail" and failed and not result.get("problems") \
            and not result["counts"].get("error"):
        result["outcome"] = "pass"


def guest_cmdline(kernel: jr2kernels.Kernel, max_abi: int = 0) -> str:
    """The kernel's own command line, and the cap: the kernel hands an unknown
    KEY=VALUE to /init as an environment variable (vmtest/guest/init)."""
    cap = f"JR2_MAX_ABI={max_abi}" if max_abi else ""
    return " ".join(part for part in (kernel.cmdline, cap) if part)


def tap_counts_empty() -> dict[str, int]:
    return {"pass": 0, "fail": 0, "skip": 0, "error": 0}


def report_line(result: dict[str, Any]) -> str:
    c = result["counts"]
    d = result.get("durations", {})
    cap = f" capped at {result['cap']}" if result.get("cap") else ""
    if result.get("profile", "bare") != "bare":
        cap += f", profile {result['profile']}"
    text = (f"{result['outcome']} (verdict {result.get('verdict_code')}, expected "
            f"{result.get('expected_verdict_code')}; ABI {result.get('abi')}{cap}, release "
            f"{result.get('release')}; {c['pass']} pass, {c['fail']} fail, {c['skip']} skip, "
            f"{c['error']} error) in {d.get('total_s', 0):.1f} s")
    return text


def shell(kernel: jr2kernels.Kernel, extra: Sequence[str | pathlib.Path] = ()) -> int:
    """An interactive guest: its console is this terminal."""
    base = initramfs.build_base(initramfs.payload_binaries())
    with tempfile.TemporaryDirectory(prefix="jr2-vmshell-") as tmp:
        initrd = initramfs.initrd(pathlib.Path(tmp) / "initrd.gz", base, mode="shell",
                                  extra=extra)
        args = qemu.command(jr2kernels.boot_image(kernel), initrd, None,
                            pathlib.Path(tmp) / "channel.log",
                            kernel.cmdline, interactive=True)
        print(f"vmshell {kernel.name}: {kernel.vmlinuz}; leave with 'exit' "
              "(or Ctrl-A x)", file=sys.stderr, flush=True)
        return subprocess.run(args).returncode
