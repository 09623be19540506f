# SPDX-License-Identifier: GPL-2.0-only
"""Boot one kernel with the payload, follow it, collect its results."""
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

import jr2kernels

from . import channel, expect, initramfs, qemu, summary

REPO = pathlib.Path(__file__).resolve().parents[2]
RESULTS = REPO / "results"
DEFAULT_TIMEOUT_S = 600
DEFAULT_TEST_TIMEOUT_S = 300


# The QEMUs running now, killed when vmtest itself is stopped.
_running = set()
_running_lock = threading.Lock()


def stop_guests_on_signals():
    """SIGTERM/SIGINT/SIGHUP end every QEMU this process started, then the process."""
    def stop(signum, _frame):
        with _running_lock:
            for proc in list(_running):
                proc.kill()
        print(f"vmtest: stopped by signal {signum}: guests killed", file=sys.stderr, flush=True)
        os._exit(128 + signum)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stop)


def say(name, msg):
    print(f"vmtest {name}: {msg}", flush=True)


def run_id():
    """YYYYmmdd-HHMMSS-<short commit>, or RUN= from the environment."""
    if os.environ.get("RUN"):
        return os.environ["RUN"]
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "nogit"
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S-") + commit


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def write_run_json(run_dir, kernels, start, end=None):
    """results/<run-id>/run.json; a second vmtest with the same RUN= adds its kernels."""
    path = run_dir / "run.json"
    data = {}
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
    """Reads the result channel as the guest writes it, for progress lines."""

    def __init__(self, name, path):
        self.name, self.path = name, path
        self.seen = 0
        self.marks = {}
        self.total = None
        self.done = 0

    def poll(self, start):
        try:
            text = self.path.read_text(errors="replace")
        except FileNotFoundError:
            return
        lines = text.splitlines()
        complete = lines if text.endswith("\n") else lines[:-1]
        for line in complete[self.seen:]:
            line = line.rstrip("\r")
            if line.startswith(channel.MARK):
                word, _, rest = line[len(channel.MARK):].partition(" ")
                self.marks.setdefault(word, time.monotonic() - start)
                if word == "booted":
                    say(self.name, f"booted in {self.marks[word]:.1f} s: {rest}")
                elif word == "probe":
                    say(self.name, f"Landlock: {rest}")
                elif word == "suite-begin":
                    self.total = rest.strip()
            elif line.startswith("# selftests: "):
                self.done += 1
                say(self.name, f"tests {self.done}/{self.total}: {line.rsplit(' ', 1)[-1]}")
        self.seen = len(complete)


def boot(kernel, out_dir, mode="suite", cmd="", filter_spec="", extra=(), timeout_s=None,
         test_timeout_s=DEFAULT_TEST_TIMEOUT_S, base=None, suite_name="jr2"):
    """Boots kernel (jr2kernels.Kernel), writes out_dir/{console.log, channel.log,
    suite.tap, check.json, summary.json}; returns the summary dict.  suite_name
    "landlock": the payload's suite is the kernel's own Landlock selftests, whose
    failures are findings about the kernel, not failures of this run."""
    timeout_s = timeout_s or DEFAULT_TIMEOUT_S
    name = kernel.name
    out_dir.mkdir(parents=True, exist_ok=True)
    base = base or initramfs.build_base(initramfs.payload_binaries())
    console, chan = out_dir / "console.log", out_dir / "channel.log"
    # A folder reused (same RUN=) keeps nothing of the boot before.
    for old in ("console.log", "channel.log", "suite.tap", "check.json", "summary.json", "cmd.out"):
        (out_dir / old).unlink(missing_ok=True)
    say(name, f"kernel {kernel.vmlinuz}{' cmdline ' + kernel.cmdline if kernel.cmdline else ''}")
    image = jr2kernels.boot_image(kernel)  # unpacked once per kernel, before the clock
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="jr2-vmtest-") as tmp:
        initrd = initramfs.initrd(pathlib.Path(tmp) / "initrd.gz", base, mode=mode, cmd=cmd,
                                  filter_spec=filter_spec, test_timeout=test_timeout_s,
                                  extra=extra, suite_name=suite_name)
        args = qemu.command(image, initrd, console, chan, kernel.cmdline)
        (out_dir / "qemu.cmd").write_text(" ".join(args) + "\n")
        follow = Follow(name, chan)
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
    ended_at = time.monotonic() - start
    console_text = console.read_text(errors="replace") if console.exists() else ""
    if qemu_out.strip():
        console_text += "\n# qemu: " + qemu_out.strip().replace("\n", "\n# qemu: ") + "\n"
        console.write_text(console_text)
    ch = channel.parse(chan.read_text(errors="replace") if chan.exists() else "")
    (out_dir / "suite.tap").write_text(ch.tap)
    if ch.check_status is not None:
        check = channel.check_json(ch)
        record = dict(check) if check else {"output": ch.check_text}
        record["exit_status"] = ch.check_status
        (out_dir / "check.json").write_text(json.dumps(record, indent=1) + "\n")
    if mode == "cmd":
        (out_dir / "cmd.out").write_text(ch.cmd_output)
    booted = follow.marks.get("booted", ended_at)
    end_mark = follow.marks.get("end", ended_at)
    try:
        table = expect.abi_table()
    except expect.TableError as err:
        table = None
        table_problem = str(err)
    else:
        table_problem = None
    result = summary.summarize(name, kernel.entry, ch, console_text, table, timed_out, timeout_s,
                               {}, base.sha256, proc.returncode) if table else None
    if result is None:
        result = {"kernel": name, "outcome": "error", "problems": [table_problem],
                  "counts": tap_counts_empty()}
    host = qemu.host_failure(proc.returncode, console_text.split("\n# qemu: ")[0],
                             chan.read_text(errors="replace") if chan.exists() else "",
                             qemu_out, timed_out, args)
    if host:
        # Not a guest crash: QEMU itself died before the guest said anything.
        result["outcome"] = "error"
        result["problems"] = [host] + [p for p in result.get("problems", [])
                                       if not p.startswith("no end marker")]
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
    return result


def upstream_findings(result):
    """The kernel's own tests: a failed test is a finding about the kernel
    (kernels/README.md names each), the run fails only on its own problems
    (oops, timeout, crash, a wrong verdict)."""
    result["suite"] = "upstream"
    failed = [t["name"] for t in result.get("tests", []) if t["status"] == "fail"]
    result["kernel_findings"] = failed
    if result["outcome"] == "fail" and failed and not result.get("problems") \
            and not result["counts"].get("error"):
        result["outcome"] = "pass"


def tap_counts_empty():
    return {"pass": 0, "fail": 0, "skip": 0, "error": 0}


def report_line(result):
    c = result["counts"]
    d = result.get("durations", {})
    text = (f"{result['outcome']} (verdict {result.get('verdict_code')}, expected "
            f"{result.get('expected_verdict_code')}; ABI {result.get('abi')}, release "
            f"{result.get('release')}; {c['pass']} pass, {c['fail']} fail, {c['skip']} skip, "
            f"{c['error']} error) in {d.get('total_s', 0):.1f} s")
    return text


def shell(kernel, extra=()):
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
