# SPDX-License-Identifier: GPL-2.0-only
"""scripts/need-debs waits for another apt or dpkg that holds a lock: one
line naming its pid and command, a bounded wait, then a failure naming it.
A sandbox: stand-in dpkg-query (every package missing) and apt-get (logs)
first on PATH, the lock a file of the test's own (JR2_NEED_DEBS_LOCKS)."""
import os
import pathlib
import subprocess
import time
from collections.abc import Iterator

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
NEED_DEBS = REPO / "scripts" / "need-debs"
DPKG_QUERY = "#!/bin/sh\nexit 1\n"
APT_GET = '#!/bin/sh\necho "apt-get $*" >> "$APT_LOG"\n'


class Sandbox:
    def __init__(self, tmp: pathlib.Path) -> None:
        bindir = tmp / "bin"
        bindir.mkdir()
        for name, text in (("dpkg-query", DPKG_QUERY), ("apt-get", APT_GET)):
            (bindir / name).write_text(text)
            (bindir / name).chmod(0o755)
        self.lock = tmp / "lock-frontend"
        self.lock.write_text("")
        self.apt_log = tmp / "apt.log"
        self.env = dict(os.environ, PATH=f"{bindir}:/usr/bin:/bin", APT_LOG=str(self.apt_log),
                        JR2_NEED_DEBS_LOCKS=f"{tmp}/absent {self.lock}")
        self.env.pop("JR2_NEED_DEBS", None)
        self.env.pop("NEED_DEBS", None)

    def hold(self, seconds: float, posix: bool = False) -> subprocess.Popen[bytes]:
        """flock(1) holding the lock for some seconds, the lock taken on return;
        posix: an fcntl lock (F_SETLK), the kind apt-get and dpkg take."""
        child = subprocess.Popen(
            ["/usr/bin/python3", "-c", "import fcntl, sys, time; f = open(sys.argv[1], 'w'); "
             "fcntl.lockf(f, fcntl.LOCK_EX); time.sleep(float(sys.argv[2]))",
             str(self.lock), str(seconds)] if posix else
            ["flock", str(self.lock), "sleep", str(seconds)])
        for _ in range(200):
            if str(self.lock.stat().st_ino) in pathlib.Path("/proc/locks").read_text():
                return child
            time.sleep(0.01)
        raise AssertionError("flock never took the lock")

    def need(self, wait: str) -> tuple[int, list[str], float]:
        start = time.monotonic()
        proc = subprocess.run([str(NEED_DEBS), "jr2-unit-pkg"], capture_output=True, text=True,
                              env=dict(self.env, JR2_NEED_DEBS_WAIT=wait), timeout=60)
        return proc.returncode, proc.stderr.splitlines(), time.monotonic() - start


@pytest.fixture
def sandbox(tmp_path: pathlib.Path) -> Iterator[Sandbox]:
    if os.getuid() != 0:
        pytest.skip("need-debs waits only as root (others get the apt-get line at once)")
    yield Sandbox(tmp_path)


def test_a_held_lock_is_named_then_waited_for_within_the_bound(sandbox: Sandbox) -> None:
    child = sandbox.hold(30)
    try:
        status, err, seconds = sandbox.need("2")
    finally:
        child.kill()
        child.wait()
    assert status == 1, err
    assert len(err) == 2, err
    assert err[0] == (f"need-debs: waiting up to 2 s for pid {child.pid} (flock {sandbox.lock} "
                      f"sleep 30), which holds {sandbox.lock}, before installing jr2-unit-pkg")
    assert err[1].startswith(f"need-debs: pid {child.pid} (flock {sandbox.lock} sleep 30) still "
                             f"holds {sandbox.lock} after 2 s: let it finish"), err
    assert 2 <= seconds < 10
    assert not sandbox.apt_log.exists(), "apt-get ran while the lock was held"


def test_a_lock_let_go_within_the_bound_lets_apt_run(sandbox: Sandbox) -> None:
    """The control: the holder ends after a second, apt-get then runs, with
    apt's own wait for its lock set to the same bound."""
    child = sandbox.hold(1)
    try:
        status, err, seconds = sandbox.need("20")
    finally:
        child.wait()
    assert status == 0, err
    assert err[0].startswith(f"need-debs: waiting up to 20 s for pid {child.pid} "), err
    assert err[-1] == "need-debs: installing jr2-unit-pkg"
    assert seconds < 10
    assert sandbox.apt_log.read_text().splitlines()[0] == (
        "apt-get install -o DPkg::Lock::Timeout=20 -y -q --no-install-recommends jr2-unit-pkg")


def test_no_lock_held_no_wait(sandbox: Sandbox) -> None:
    status, err, seconds = sandbox.need("20")
    assert (status, err) == (0, ["need-debs: installing jr2-unit-pkg"])
    assert seconds < 5


def test_an_fcntl_lock_as_apt_takes_it_is_waited_for(sandbox: Sandbox) -> None:
    child = sandbox.hold(30, posix=True)
    try:
        status, err, _ = sandbox.need("1")
    finally:
        child.kill()
        child.wait()
    assert (status, len(err)) == (1, 2), err
    assert f"for pid {child.pid} (/usr/bin/python3 -c import fcntl" in err[0], err
    assert not sandbox.apt_log.exists()


def test_a_wait_that_is_not_a_number_is_refused(sandbox: Sandbox) -> None:
    status, err, _ = sandbox.need("ten")
    assert (status, len(err)) == (2, 1), err
    assert "JR2_NEED_DEBS_WAIT='ten' is not a number of seconds" in err[0]
