# SPDX-License-Identifier: GPL-2.0-only
"""The QEMU command line of a vmtest guest, and what QEMU's own death means."""
import pathlib
import shutil
from collections.abc import Sequence

from . import accel as accel_probe

# isa-debug-exit: the guest writes 42 to port 0xf4, QEMU exits (42 << 1) | 1.
GUEST_DONE_STATUS = 85
BASE_CMDLINE = "console=ttyS0 panic=-1 loglevel=5 rdinit=/init"


def accel(image: pathlib.Path | None = None) -> list[str]:
    """-accel, -cpu and -smp of every boot: KVM only where a probe proved
    that it runs a guest (jr2vm/accel.py), else single-threaded TCG.
    JR2_ACCEL=kvm|tcg forces one.  image: the kernel about to be booted,
    which the probe runs under KVM once per machine."""
    return accel_probe.chosen(image).args


# Under TCG on a busy host, the IO-APIC timer check of older kernels (5.10,
# 6.1) sees too few ticks in its short busy-wait and panics ("IO-APIC + timer
# doesn't work!") before the console is up: an artefact of emulation, not of
# the kernel under test, so TCG boots skip that check.
TCG_CMDLINE = "no_timer_check"


def command(vmlinuz: pathlib.Path, initrd: pathlib.Path, console: pathlib.Path | None,
            channel: pathlib.Path, cmdline: str = "", memory_mb: int = 1024,
            interactive: bool = False) -> list[str]:
    """console/channel: file paths (interactive: the console is this terminal)."""
    qemu = shutil.which("qemu-system-x86_64") or "qemu-system-x86_64"
    accel_args = accel(vmlinuz)
    tcg = accel_args[accel_args.index("-accel") + 1].startswith("tcg")
    append = " ".join(filter(None, [BASE_CMDLINE, TCG_CMDLINE if tcg else "", cmdline]))
    args = [qemu, "-nodefaults", "-display", "none", "-no-reboot", "-machine", "pc",
            *accel_args, "-m", str(memory_mb),
            "-kernel", str(vmlinuz), "-initrd", str(initrd), "-append", append,
            "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    args += ["-serial", "mon:stdio" if interactive else f"file:{console}"]
    args += ["-serial", f"file:{channel}"]
    return args


def host_failure(exit_status: int | None, console_text: str, channel_text: str, qemu_stderr: str,
                 timed_out: bool = False, args: Sequence[str] = ()) -> str | None:
    """A QEMU that ended on its own before the guest wrote a byte on either
    serial port failed on this host (KVM, a missing firmware, a bad option),
    not in the guest: the problem, with QEMU's stderr; else None."""
    if timed_out or exit_status is None or exit_status == GUEST_DONE_STATUS:
        return None
    if console_text.strip() or channel_text.strip():
        return None
    said = "; ".join(line.strip() for line in qemu_stderr.splitlines() if line.strip())
    kvm = "-accel" in args and args[list(args).index("-accel") + 1].startswith("kvm")
    fix = ("JR2_ACCEL=tcg (make ACCEL=tcg) boots without KVM" if kvm else
           "check the QEMU install (apt-get install --reinstall qemu-system-x86) and qemu.cmd")
    return (f"host: QEMU {accel_probe.describe_status(exit_status)} before the guest printed "
            f"anything, a problem of this machine's QEMU{' or KVM' if kvm else ''}, not of the "
            f"guest: {said[:600] or 'QEMU said nothing on stderr'} ({fix})")
