# SPDX-License-Identifier: GPL-2.0-only
"""KVM or TCG is decided by running a guest: with a stand-in QEMU that fails
the ways real ones fail on hosts whose /dev/kvm opens but cannot run a guest."""
import os
import pathlib
import subprocess
import time
from collections.abc import Iterator

import pytest

from jr2vm import accel, qemu

# The stand-in: the way the real QEMU failed on the host (MSR 0x10a,
# an assertion, SIGABRT), on this one (KVM internal error, then a paused
# guest), silently, or a host where KVM works.  It logs each call.
STANDIN = r"""#!/bin/sh
echo "$*" >> "$STANDIN_LOG"
accel= serial= kind=
while [ $# -gt 0 ]; do
	case $1 in
	-accel) accel=$2; shift ;;
	-serial) [ -n "$serial" ] || serial=${2#file:}; shift ;;
	-bios) kind=firmware; shift ;;
	-kernel) kind=kernel; shift ;;
	esac
	shift
done
if [ "${accel%%,*}" = kvm ]; then
	case $STANDIN_MODE in
	abort)
		echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x2000000e1" >&2
		echo "qemu-system-x86_64: ../../target/i386/kvm/kvm.c:3390: kvm_buf_set_msrs: Assertion \`ret == cpu->kvm_msr_buf->nmsrs' failed." >&2
		kill -ABRT $$ ;;
	stall)
		if [ "$kind" = kernel ]; then
			echo "KVM internal error. Suberror: 1" >&2
			echo "emulation failure" >&2
			exec sleep 30
		fi ;;
	silent)
		[ "$kind" = firmware ] || exec sleep 30 ;;
	esac
fi
if [ "$kind" = firmware ]; then
	printf K > "$serial"
	exit 85
fi
printf '[    0.5] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)\n' > "$serial"
exit 0
"""


class Host:
    """The stand-in's machine: its kernel, and what its QEMU was asked."""

    def __init__(self, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch,
                 log: pathlib.Path) -> None:
        self.kernel = tmp_path / "vmlinux"
        self.cache = tmp_path / "accel.json"
        self.monkeypatch, self.log = monkeypatch, log

    def mode(self, name: str) -> None:
        self.monkeypatch.setenv("STANDIN_MODE", name)

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines()


@pytest.fixture
def host(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Host]:
    """A host with this stand-in QEMU first on PATH and a /dev/kvm that opens."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    standin = bindir / "qemu-system-x86_64"
    standin.write_text(STANDIN)
    standin.chmod(0o755)
    log = tmp_path / "qemu.log"
    log.write_text("")
    kvm = tmp_path / "kvm"
    kvm.write_text("")
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    monkeypatch.setenv("STANDIN_LOG", str(log))
    monkeypatch.setenv("JR2_ACCEL_CACHE", str(tmp_path / "accel.json"))
    monkeypatch.delenv("JR2_ACCEL", raising=False)
    monkeypatch.setattr(accel, "KVM_DEVICE", str(kvm))
    monkeypatch.setattr(accel, "device_problem", lambda path: None)
    accel.forget()
    machine = Host(tmp_path, monkeypatch, log)
    machine.kernel.write_bytes(b"not really a kernel")
    yield machine
    accel.forget()


def test_kvm_that_aborts_qemu_falls_back_to_tcg_with_one_line(host: Host) -> None:
    host.mode("abort")
    start = time.monotonic()
    choice = accel.choose(host.kernel)
    assert time.monotonic() - start < accel.FIRMWARE_TIMEOUT_S
    assert choice.name == "tcg"
    assert choice.args == ["-accel", "tcg,thread=single", "-cpu", "qemu64,+rdrand", "-smp", "1"]
    assert choice.line.startswith(f"vmtest: {accel.KVM_DEVICE} is present but cannot run a guest (")
    assert choice.line.endswith("): using TCG") and "\n" not in choice.line
    assert "failed to set MSR 0x10a" in choice.line and "Assertion" in choice.line
    # The firmware guest already failed: the kernel was not tried.
    assert len(host.calls()) == 1 and "-bios" in host.calls()[0]


def test_forced_kvm_that_cannot_run_a_guest_is_an_error_naming_the_cause(
        host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    host.mode("abort")
    monkeypatch.setenv("JR2_ACCEL", "kvm")
    with pytest.raises(accel.AccelError, match=r"JR2_ACCEL=kvm but .*failed to set MSR 0x10a.*"
                                               r"unset JR2_ACCEL"):
        accel.choose(host.kernel)


def test_kvm_that_stops_the_kernel_is_refused_without_waiting(host: Host) -> None:
    """This machine: the firmware runs, the kernel meets `KVM internal error`
    and QEMU pauses it: the probe reads stderr and stops at once."""
    host.mode("stall")
    start = time.monotonic()
    choice = accel.choose(host.kernel)
    assert time.monotonic() - start < accel.KERNEL_TIMEOUT_S
    assert choice.name == "tcg" and "KVM internal error" in choice.line
    assert len(host.calls()) == 2 and "-kernel" in host.calls()[1]
    assert "-accel kvm -cpu host" in host.calls()[1]


def test_kvm_whose_kernel_never_finishes_starting_is_refused(
        host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    host.mode("silent")
    monkeypatch.setattr(accel, "KERNEL_TIMEOUT_S", 1.0)
    choice = accel.choose(host.kernel)
    assert choice.name == "tcg"
    assert "no serial byte within 1 s" in choice.reason


def test_working_kvm_is_proven_then_cached_for_the_machine(host: Host) -> None:
    host.mode("good")
    choice = accel.choose(host.kernel)
    assert choice.name == "kvm", choice.line
    assert choice.args == ["-accel", "kvm", "-cpu", "host", "-smp", "1"]
    assert len(host.calls()) == 2  # the firmware, then the kernel
    assert accel.choose(host.kernel).name == "kvm"
    assert len(host.calls()) == 2  # the second decision is the cached one
    # Another QEMU binary (or a reboot, or another /dev/kvm) probes again.
    key = accel.machine_key(accel.qemu_binary())
    cached = accel.read_cache(key)
    assert cached is not None and cached["kvm"] is True
    assert accel.read_cache(dict(key, boot_id="another boot")) is None


def test_a_refusal_is_cached_too(host: Host) -> None:
    host.mode("abort")
    assert accel.choose(host.kernel).name == "tcg"
    host.mode("good")
    assert accel.choose(host.kernel).name == "tcg"
    assert len(host.calls()) == 1


def test_forced_tcg_runs_no_probe(host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    host.mode("good")
    monkeypatch.setenv("JR2_ACCEL", "tcg")
    choice = accel.choose(host.kernel)
    assert choice.name == "tcg" and choice.line == ""
    assert host.calls() == []


def test_forced_kvm_that_works(host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    host.mode("good")
    monkeypatch.setenv("JR2_ACCEL", "kvm")
    assert accel.choose(host.kernel).name == "kvm"


def test_an_unknown_accel_is_refused(host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JR2_ACCEL", "hvf")
    with pytest.raises(accel.AccelError, match="JR2_ACCEL='hvf' is not kvm, tcg or auto"):
        accel.choose(host.kernel)


def test_no_dev_kvm_is_tcg_without_a_probe(host: Host,
                                           monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: pathlib.Path) -> None:
    host.mode("good")
    monkeypatch.setattr(accel, "KVM_DEVICE", str(tmp_path / "absent"))
    choice = accel.choose(host.kernel)
    assert choice.name == "tcg" and choice.line == f"vmtest: no {tmp_path / 'absent'}: using TCG"
    assert host.calls() == []
    monkeypatch.setenv("JR2_ACCEL", "kvm")
    with pytest.raises(accel.AccelError, match="JR2_ACCEL=kvm but KVM is unusable"):
        accel.choose(host.kernel)


def test_a_device_that_is_not_kvm_is_named() -> None:
    assert accel.device_problem("/dev/null") == "KVM_GET_API_VERSION: ENOTTY"
    assert accel.device_problem("/nonexistent/kvm") == "open: ENOENT"


def test_the_command_line_carries_the_choice(host: Host) -> None:
    host.mode("abort")
    args = qemu.command(host.kernel, pathlib.Path("initrd"), pathlib.Path("console"),
                       pathlib.Path("channel"))
    assert args[args.index("-accel") + 1] == "tcg,thread=single"
    assert args[args.index("-cpu") + 1] == "qemu64,+rdrand" and args[args.index("-smp") + 1] == "1"
    assert args.count("-smp") == 1
    assert "no_timer_check" in args[args.index("-append") + 1].split()


def test_kvm_boots_keep_the_timer_check(host: Host) -> None:
    host.mode("good")
    args = qemu.command(host.kernel, pathlib.Path("initrd"), pathlib.Path("console"),
                       pathlib.Path("channel"), "lsm=yama")
    assert args[args.index("-accel") + 1] == "kvm"
    append = args[args.index("-append") + 1]
    assert "no_timer_check" not in append and append.endswith(" lsm=yama")


def test_qemu_dying_before_the_guest_speaks_is_a_host_problem(
        host: Host, tmp_path: pathlib.Path) -> None:
    host.mode("abort")
    proc = subprocess.run(["qemu-system-x86_64", "-accel", "kvm", "-kernel", "k",
                           "-serial", f"file:{tmp_path / 'console'}"], capture_output=True, text=True)
    assert proc.returncode == -6
    problem = qemu.host_failure(proc.returncode, "", "", proc.stderr, args=["-accel", "kvm"])
    assert problem is not None
    assert problem.startswith("host: QEMU killed by SIGABRT before the guest printed anything")
    assert "not of the guest" in problem and "failed to set MSR 0x10a" in problem
    assert "JR2_ACCEL=tcg" in problem
    assert "JR2_ACCEL" not in (qemu.host_failure(1, "", "", "x", args=["-accel", "tcg,thread=single"])
                               or "")
    # A guest that spoke, then died, is the guest's problem; a guest that
    # ended as the runner asks, or was stopped by the timeout, is no host problem.
    assert qemu.host_failure(-6, "[    0.0] Linux version 6.1\n", "", proc.stderr) is None
    assert qemu.host_failure(1, "", "# jr2-vm: booted 6.1\n", "") is None
    assert qemu.host_failure(qemu.GUEST_DONE_STATUS, "", "", "") is None
    assert qemu.host_failure(-9, "", "", "", timed_out=True) is None
    assert "QEMU said nothing on stderr" in (qemu.host_failure(1, "", "", "") or "")


def test_the_firmware_writes_its_byte_at_the_reset_vector() -> None:
    image = accel.firmware()
    assert len(image) == 65536  # QEMU's pc wants a multiple of 64 KiB
    reset = image[-16:]
    assert reset[:3] == bytes([0xBA, 0xF8, 0x03]) and reset[4:5] == accel.SERIAL_MARK
