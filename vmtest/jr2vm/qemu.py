# SPDX-License-Identifier: GPL-2.0-only
"""The QEMU command line of a vmtest guest."""
import os
import shutil

# isa-debug-exit: the guest writes 42 to port 0xf4, QEMU exits (42 << 1) | 1.
GUEST_DONE_STATUS = 85
BASE_CMDLINE = "console=ttyS0 panic=-1 loglevel=5 rdinit=/init"


def accel():
    """KVM where /dev/kvm is usable, else single-threaded TCG (multi-threaded
    TCG oopses newer kernels during static-key patching: KERNELS.md).
    JR2_ACCEL=tcg forces TCG."""
    if os.environ.get("JR2_ACCEL") != "tcg" and os.access("/dev/kvm", os.R_OK | os.W_OK):
        return ["-accel", "kvm", "-cpu", "host"]
    return ["-accel", "tcg,thread=single", "-cpu", "qemu64"]


def command(vmlinuz, initrd, console, channel, cmdline="", memory_mb=1024, interactive=False):
    """console/channel: file paths (interactive: the console is this terminal)."""
    qemu = shutil.which("qemu-system-x86_64") or "qemu-system-x86_64"
    append = f"{BASE_CMDLINE} {cmdline}".strip()
    args = [qemu, "-nodefaults", "-display", "none", "-no-reboot", "-machine", "pc",
            *accel(), "-smp", "1", "-m", str(memory_mb),
            "-kernel", str(vmlinuz), "-initrd", str(initrd), "-append", append,
            "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    args += ["-serial", "mon:stdio" if interactive else f"file:{console}"]
    args += ["-serial", f"file:{channel}"]
    return args
