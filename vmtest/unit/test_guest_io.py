# SPDX-License-Identifier: GPL-2.0-only
"""The initramfs writer and the reading of what the guest wrote."""
import gzip
import pathlib
import subprocess

import pytest

from jr2vm import channel, cpio, initramfs

CHANNEL = """\
# jr2-vm: booted 7.3.4+deb13-amd64\r
# jr2-vm: probe {"release": "7.3.4+deb13-amd64", "abi": 11, "errno": "", "errata": 15}
# jr2-vm: check-begin
{"landlock": "ok", "verdict": "accepted", "verdict_code": "accepted"}
# check stderr: a warning
# jr2-vm: check-end 0
# jr2-vm: suite-begin 1
TAP version 13
1..1
# selftests: jr2: a_test
# TAP version 13
# 1..1
# ok 1 a.R1_read
# jr2-vm: binary-time a_test 123
# jr2-vm: binary-cpu a_test 45
ok 1 selftests: jr2: a_test
# jr2-vm: suite-end
# jr2-vm: end
"""


def test_cpio_archive_reads_back_with_gnu_cpio(tmp_path: pathlib.Path) -> None:
    archive = cpio.Archive()
    archive.file("jr2/bin/tool", b"#!/bin/sh\necho hi\n", 0o755)
    archive.file("odd", b"12345")  # a size that needs padding
    archive.symlink("bin/sh", "busybox")
    archive.char_device("dev/console", 5, 1)
    (tmp_path / "a.cpio").write_bytes(gzip.decompress(archive.gzipped()))
    listing = subprocess.run(["cpio", "-itv", "--quiet", "-F", str(tmp_path / "a.cpio")],
                             capture_output=True, text=True, check=True).stdout
    lines = {line.split()[-1] if "->" not in line else line.split()[-3]: line
             for line in listing.splitlines()}
    assert lines["jr2/bin/tool"].startswith("-rwxr-xr-x")
    assert lines["dev/console"].startswith("crw-------") and "5," in lines["dev/console"]
    assert lines["bin/sh"].startswith("l") and lines["bin/sh"].endswith("-> busybox")
    assert {"jr2", "jr2/bin", "bin", "odd"} <= set(lines)
    subprocess.run(["cpio", "-id", "--quiet", "-F", str(tmp_path / "a.cpio")], cwd=tmp_path,
                   check=True)
    assert (tmp_path / "odd").read_bytes() == b"12345"


def test_cpio_is_the_same_bytes_for_the_same_input() -> None:
    def make() -> bytes:
        archive = cpio.Archive()
        archive.file("x", b"y")
        return archive.gzipped()
    assert make() == make()


def test_run_part_quotes_the_command() -> None:
    data = gzip.decompress(initramfs.run_part("cmd", cmd="echo 'a b' $HOME", filter_spec="bin:t1"))
    assert b"CMD='echo '\"'\"'a b'\"'\"' $HOME'\n" in data
    assert b"FILTER_BIN=bin\n" in data and b"FILTER_TEST=t1\n" in data


def test_static_and_dynamic_executables_are_told_apart(tmp_path: pathlib.Path) -> None:
    assert initramfs.is_static_elf(initramfs.BUSYBOX.read_bytes())
    assert not initramfs.is_static_elf(pathlib.Path("/usr/bin/python3.11").read_bytes())
    assert not initramfs.is_static_elf(b"#!/bin/sh\n")
    assert not initramfs.is_static_elf(initramfs.BUSYBOX.read_bytes()[:100])
    with pytest.raises(initramfs.PayloadError, match="not a static executable"):
        initramfs.check_static({"jr2/bin/python": pathlib.Path("/usr/bin/python3.11")})


def test_channel_parts() -> None:
    ch = channel.parse(CHANNEL)
    assert ch.release == "7.3.4+deb13-amd64" and ch.probe is not None and ch.probe["abi"] == 11
    check = channel.check_json(ch)
    assert check is not None and check["verdict"] == "accepted" and ch.check_status == 0
    assert ch.suite_binaries == 1 and ch.suite_ended and ch.ended
    assert ch.tap.startswith("TAP version 13\n1..1\n# selftests: jr2: a_test\n")
    assert "# ok 1 a.R1_read\n" in ch.tap and ch.tap.endswith("ok 1 selftests: jr2: a_test\n")
    assert "check stderr" not in ch.tap and "binary-" not in ch.tap
    assert ch.binary_s == {"a_test": 1.23} and ch.binary_cpu_s == {"a_test": 0.45}


def test_a_channel_cut_off_has_no_end() -> None:
    ch = channel.parse(CHANNEL.split("ok 1 selftests:")[0])
    assert not ch.ended and not ch.suite_ended and "ok 1" in ch.tap


@pytest.mark.parametrize("line", [
    "[    3.1] WARNING: CPU: 0 PID: 1 at kernel/static_call.c:12 foo+0x1/0x2",
    "[    3.1] BUG: kernel NULL pointer dereference, address: 0000000000000000",
    "[    3.1] Oops: 0002 [#1] PREEMPT SMP NOPTI",
    "[    3.1] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100",
    "watchdog: BUG: soft lockup - CPU#0 stuck for 22s!",
    "[    3.1] ------------[ cut here ]------------",
])
def test_console_problems_are_found(line: str) -> None:
    assert channel.console_problems(f"[    0.0] Linux version 7.3\n{line}\n") == [line]


def test_a_clean_console_has_no_problem() -> None:
    text = ("[    0.000000] Kernel command line: console=ttyS0 panic=-1 loglevel=5\n"
            "[    0.5] landlock: Up and running.\n[    1.0] Run /init as init process\n")
    assert channel.console_problems(text) == []


def test_the_channel_is_followed_as_it_grows(tmp_path: pathlib.Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """vmtest's progress reads each poll only what the guest wrote since the
    last; a line is taken when its newline has come, whatever the chunks."""
    from jr2vm import runner

    path = tmp_path / "channel.log"
    follow = runner.Follow("7.3", path)
    follow.poll(0)  # not written yet
    data = CHANNEL.encode()
    cut = data.index(b"selftests: jr2: a_test") + 5
    path.write_bytes(data[:cut])
    follow.poll(0)
    assert "booted" in follow.marks and follow.total == "1" and follow.done == 0
    for at in range(cut, len(data), 7):
        with path.open("ab") as f:
            f.write(data[at:at + 7])
        follow.poll(0)
    assert path.read_bytes() == data
    assert follow.done == 1
    assert set(follow.marks) >= {"booted", "probe", "check-begin", "suite-begin", "end"}
    out = capsys.readouterr().out
    assert out.count("tests 1/1: a_test") == 1 and out.count("booted in") == 1
