# SPDX-License-Identifier: GPL-2.0-only
"""KVM or TCG: proven by running a guest, never assumed from /dev/kvm.

A /dev/kvm that opens is not a KVM that runs a guest: nested hosts without
the CPU features QEMU needs abort it at the first vCPU reset (`failed to
set MSR 0x10a`, an assertion, SIGABRT), and emulating hosts (kvm-pvm) run
real-mode code but stop a kernel with `KVM internal error`.  So KVM is
chosen only after two guests ran under it with the exact -accel/-cpu of the
boots: a 16-byte firmware that must write one byte to the serial port, and
the kernel about to be booted, which must get through its whole
initialisation to the panic of a machine without a root file system.

The decision is made once per machine and cached (build/vmtest/accel.json,
keyed by the boot id, the QEMU binary and /dev/kvm), so a run, and the runs
after it until a reboot, probe only once.  JR2_ACCEL=kvm|tcg forces one
(make's ACCEL=); a forced kvm that the probe refutes is an error naming the
cause.  Where KVM is refused, one line says why: `vmtest: /dev/kvm is
present but cannot run a guest (<cause>): using TCG`.
"""
import dataclasses
import errno
import fcntl
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

REPO = pathlib.Path(__file__).resolve().parents[2]
KVM_DEVICE = "/dev/kvm"
# KVM_GET_API_VERSION (_IO(0xAE, 0)); every KVM since 2.6.22 answers 12.
KVM_GET_API_VERSION = 0xAE00
KVM_API_VERSION = 12

# Multi-threaded TCG oopses newer kernels during static-key patching: one
# thread, one vCPU, a plain CPU with RDRAND (QEMU serves it from the host's
# getrandom): the guest's random pool is ready at boot, where a jitter-entropy
# wait blocked the first getrandom(2), the harness's, for about a second.
TCG_ARGS = ["-accel", "tcg,thread=single", "-cpu", "qemu64,+rdrand", "-smp", "1"]
KVM_ARGS = ["-accel", "kvm", "-cpu", "host", "-smp", "1"]

FIRMWARE_TIMEOUT_S = 5.0
KERNEL_TIMEOUT_S = 10.0
# The end of a kernel's initialisation when it has no root file system:
# every driver, the clock, the scheduler and the memory manager ran.
KERNEL_REACHED_ROOT = re.compile(
    r"Kernel panic - not syncing: (VFS: Unable to mount root|No working init found"
    r"|Requested init \S+ failed)")
# What QEMU prints when KVM gives up on the guest (QEMU then pauses it).
KVM_STOPPED = re.compile(r"KVM internal error[^\n]*|kvm run failed[^\n]*|"
                         r"failed to set MSR[^\n]*|Assertion[^\n]*failed[^\n]*")
SERIAL_MARK = b"K"
FIRMWARE_EXIT = 85  # isa-debug-exit: the firmware writes 42 to port 0xf4


class AccelError(Exception):
    """A forced or impossible choice: the message names the cause and the fix."""


@dataclasses.dataclass
class Choice:
    name: str          # "kvm" or "tcg"
    args: list[str]    # QEMU arguments: -accel, -cpu, -smp
    reason: str        # why, in a phrase (the cause when KVM was refused)
    line: str = ""    # the one line to print, or "" when there is nothing to say


def firmware() -> bytes:
    """A 64 KiB BIOS image: at the reset vector (real mode, F000:FFF0) it
    writes 'K' to COM1 (0x3f8) and 42 to isa-debug-exit (0xf4), then halts."""
    code = bytes([
        0xBA, 0xF8, 0x03,  # mov dx, 0x3f8
        0xB0, SERIAL_MARK[0],  # mov al, 'K'
        0xEE,  # out dx, al
        0xBA, 0xF4, 0x00,  # mov dx, 0xf4
        0xB0, 0x2A,  # mov al, 42
        0xEE,  # out dx, al
        0xF4,  # hlt
        0xEB, 0xFD,  # jmp back to hlt
    ])
    image = bytearray(b"\xf4" * 65536)
    image[-16:-16 + len(code)] = code
    return bytes(image)


def qemu_binary() -> str:
    return shutil.which("qemu-system-x86_64") or "qemu-system-x86_64"


def device_problem(path: str = KVM_DEVICE) -> str | None:
    """None when `path` opens read-write and answers KVM_GET_API_VERSION with
    12; else what is wrong, as a phrase."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError as err:
        return f"open: {errno.errorcode.get(err.errno, err.errno)}"
    try:
        version = fcntl.ioctl(fd, KVM_GET_API_VERSION)
    except OSError as err:
        return f"KVM_GET_API_VERSION: {errno.errorcode.get(err.errno, err.errno)}"
    finally:
        os.close(fd)
    if version != KVM_API_VERSION:
        return f"KVM API version {version}, QEMU needs {KVM_API_VERSION}"
    return None


def describe_status(status: int | None) -> str:
    if status is None:
        return "still running"
    if status < 0:
        try:
            import signal
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit status {status}"


def last_words(text: str, limit: int = 2) -> str:
    """The lines of QEMU's stderr that say what went wrong, in one phrase."""
    found = KVM_STOPPED.findall(text)
    lines = found or [line.strip() for line in text.splitlines() if line.strip()]
    words = "; ".join(line.strip() for line in lines[:limit])
    return words[:300]


def run_guest(args: list[str], serial: pathlib.Path, timeout_s: float,
              done: Callable[[bytes, int | None], bool]) -> tuple[bool, str]:
    """Runs QEMU with args (its first serial port is the file `serial`);
    returns (ok, cause).  done(serial bytes, exit status or None) says
    whether the guest reached its goal; QEMU is stopped once it has, or
    once its stderr shows that KVM gave up on the guest."""
    with tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=err, stderr=err)
        except OSError as exc:
            return False, f"cannot start {args[0]}: {exc.strerror}"
        start, ok, cause = time.monotonic(), False, ""
        try:
            while True:
                status = proc.poll()
                data = serial.read_bytes() if serial.exists() else b""
                if done(data, status):
                    ok = True
                    break
                err.seek(0)
                stderr = err.read().decode(errors="replace")
                if KVM_STOPPED.search(stderr):
                    cause = last_words(stderr)
                    break
                if status is not None:
                    cause = (f"QEMU {describe_status(status)}"
                             + (f": {last_words(stderr)}" if stderr.strip() else "")
                             + ("" if data else ", no serial byte from the guest"))
                    break
                if time.monotonic() - start > timeout_s:
                    cause = (f"no {'serial byte' if not data else 'end of kernel start'} "
                             f"within {timeout_s:.0f} s")
                    break
                time.sleep(0.05)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
    return ok, cause


def probe_kvm(image: pathlib.Path | None = None, qemu: str | None = None,
              kvm_args: list[str] = KVM_ARGS) -> tuple[bool, str]:
    """(ok, cause): KVM runs the firmware guest, then `image` (a kernel) up
    to the end of its initialisation."""
    qemu = qemu or qemu_binary()
    base = [qemu, "-nodefaults", "-display", "none", "-no-reboot", "-machine", "pc",
            *kvm_args, "-m", "256"]
    with tempfile.TemporaryDirectory(prefix="jr2-accel-") as tmp_name:
        tmp = pathlib.Path(tmp_name)
        (tmp / "bios.bin").write_bytes(firmware())
        serial = tmp / "firmware.serial"
        ok, cause = run_guest(
            base + ["-bios", str(tmp / "bios.bin"), "-serial", f"file:{serial}",
                    "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"],
            serial, FIRMWARE_TIMEOUT_S,
            lambda data, status: SERIAL_MARK in data and status == FIRMWARE_EXIT)
        if not ok:
            return False, cause
        if image is None:
            return True, "a firmware guest ran"
        serial = tmp / "kernel.serial"
        ok, cause = run_guest(
            base + ["-kernel", str(image), "-append", "console=ttyS0 loglevel=1 panic=-1",
                    "-serial", f"file:{serial}"],
            serial, KERNEL_TIMEOUT_S,
            lambda data, status: bool(KERNEL_REACHED_ROOT.search(data.decode(errors="replace"))))
        if not ok:
            return False, f"kernel {pathlib.Path(image).name}: {cause}"
        return True, f"a firmware guest and kernel {pathlib.Path(image).name} ran"


def cache_path() -> pathlib.Path:
    return pathlib.Path(os.environ.get("JR2_ACCEL_CACHE") or REPO / "build" / "vmtest" / "accel.json")


def machine_key(qemu: str) -> dict[str, Any]:
    """What the decision depends on: this boot of this machine, the QEMU
    binary, the KVM device."""
    try:
        boot_id = pathlib.Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        boot_id = ""
    key: dict[str, Any] = {"boot_id": boot_id, "qemu": qemu}
    try:
        st = os.stat(qemu)
        key["qemu_mtime_ns"], key["qemu_size"] = st.st_mtime_ns, st.st_size
    except OSError:
        pass
    try:
        st = os.stat(KVM_DEVICE)
        key["kvm_rdev"], key["kvm_mode"] = st.st_rdev, st.st_mode
    except OSError:
        key["kvm_rdev"] = None
    return key


def read_cache(key: dict[str, Any]) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads(cache_path().read_text())
    except (OSError, ValueError):
        return None
    if data.get("key") != key or data.get("kvm") not in (True, False):
        return None
    return data


def write_cache(key: dict[str, Any], kvm_ok: bool, cause: str) -> None:
    path = cache_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"key": key, "kvm": kvm_ok, "cause": cause}, indent=1) + "\n")
        tmp.replace(path)
    except OSError:
        pass  # a read-only tree probes again next time


def kvm_verdict(image: pathlib.Path | None, qemu: str) -> tuple[bool, str, bool]:
    """(ok, cause, cached): the probe's result for this machine."""
    key = machine_key(qemu)
    cached = read_cache(key)
    if cached is not None:
        return cached["kvm"], cached["cause"], True
    ok, cause = probe_kvm(image, qemu)
    # A probe without a kernel proves less: cache only a refusal then.
    if image is not None or not ok:
        write_cache(key, ok, cause)
    return ok, cause, False


def choose(image: pathlib.Path | None = None, env: Mapping[str, str] | None = None,
           qemu: str | None = None) -> Choice:
    """The Choice for this machine; image: the kernel about to be booted."""
    env = os.environ if env is None else env
    forced = env.get("JR2_ACCEL", "").strip().lower()
    if forced not in ("", "auto", "kvm", "tcg"):
        raise AccelError(f"JR2_ACCEL='{env.get('JR2_ACCEL')}' is not kvm, tcg or auto: "
                         "set JR2_ACCEL=kvm|tcg (make ACCEL=kvm|tcg) or unset it")
    if forced == "tcg":
        return Choice("tcg", list(TCG_ARGS), "forced by JR2_ACCEL=tcg")
    qemu = qemu or qemu_binary()
    problem = device_problem(KVM_DEVICE) if os.path.exists(KVM_DEVICE) else None
    if not os.path.exists(KVM_DEVICE) or problem:
        cause = problem and f"{KVM_DEVICE}: {problem}" or f"no {KVM_DEVICE}"
        if forced == "kvm":
            raise AccelError(f"JR2_ACCEL=kvm but KVM is unusable ({cause}): load the kvm "
                             "module and give access to /dev/kvm, or unset JR2_ACCEL for TCG")
        if problem:
            return Choice("tcg", list(TCG_ARGS), cause,
                          f"vmtest: {KVM_DEVICE} is present but cannot run a guest ({problem}): "
                          "using TCG")
        return Choice("tcg", list(TCG_ARGS), cause, f"vmtest: no {KVM_DEVICE}: using TCG")
    ok, cause, cached = kvm_verdict(image, qemu)
    where = f" (probed earlier this boot; delete {cache_path()} to probe again)" if cached else ""
    if ok:
        return Choice("kvm", list(KVM_ARGS), cause,
                      f"vmtest: KVM proven ({cause}){where}: using KVM")
    if forced == "kvm":
        raise AccelError(f"JR2_ACCEL=kvm but {KVM_DEVICE} cannot run a guest ({cause}){where}: "
                         "unset JR2_ACCEL (or ACCEL=) to boot with TCG")
    return Choice("tcg", list(TCG_ARGS), cause,
                  f"vmtest: {KVM_DEVICE} is present but cannot run a guest ({cause}): using TCG")


_lock = threading.Lock()
_chosen: Choice | None = None


def chosen(image: pathlib.Path | None = None) -> Choice:
    """choose(), once per process; its line printed once, on stderr."""
    global _chosen
    with _lock:
        if _chosen is None:
            _chosen = choose(image)
            if _chosen.line:
                print(_chosen.line, file=sys.stderr, flush=True)
        return _chosen


def forget() -> None:
    """For tests: the next chosen() decides again."""
    global _chosen
    with _lock:
        _chosen = None
