# SPDX-License-Identifier: GPL-2.0-only
"""Mistakes in a vmtest or test command are refused in one line naming the
value and the fix, in well under 10 s, before any kernel is fetched, any
QEMU started or anything written under results/."""
import importlib.machinery
import importlib.util
import os
import pathlib
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from types import ModuleType

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
RUN = REPO / "vmtest" / "run"
PYTHON = "/usr/bin/python3"
# A stand-in QEMU that only says it was started.
QEMU = '#!/bin/sh\necho "$*" >> "$QEMU_LOG"\nexit 1\n'


@pytest.fixture(scope="module")
def run_module() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("vmtest_run", str(RUN))
    spec = importlib.util.spec_from_loader("vmtest_run", loader)
    assert spec is not None  # a loader is given: a spec is made
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


class Host:
    """vmtest/run as a user starts it: a stand-in QEMU first on PATH, a
    kernel file that is no kernel, private caches and a run id of its own."""

    def __init__(self, tmp: pathlib.Path) -> None:
        self.bin = tmp / "bin"
        self.bin.mkdir()
        (self.bin / "qemu-system-x86_64").write_text(QEMU)
        (self.bin / "qemu-system-x86_64").chmod(0o755)
        self.qemu_log = tmp / "qemu.log"
        self.kernel = tmp / "bzImage"
        self.kernel.write_bytes(b"not a kernel")
        self.run_id = f"unit-refusal-{uuid.uuid4().hex[:12]}"
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("JR2_MAX_ABI", "JR2_LANES", "RUN", "MAKEFLAGS", "MFLAGS",
                                 "MAKELEVEL")}
        self.env.update(PATH=f"{self.bin}:/usr/bin:/bin", QEMU_LOG=str(self.qemu_log),
                        JR2_KERNEL_CACHE=str(tmp / "kernels"),
                        JR2_ACCEL_CACHE=str(tmp / "accel.json"), JR2_ACCEL="tcg")

    @property
    def results(self) -> pathlib.Path:
        return REPO / "results" / self.run_id

    def run(self, *args: str, prefix: tuple[str, ...] = ()) -> tuple[int, list[str], float]:
        """(exit status, lines of standard error, seconds) of vmtest/run."""
        start = time.monotonic()
        proc = subprocess.run([*prefix, PYTHON, str(RUN), "--kernel", str(self.kernel),
                               "--run-id", self.run_id, *args],
                              capture_output=True, text=True, env=self.env, timeout=60)
        return proc.returncode, proc.stderr.splitlines(), time.monotonic() - start

    def nothing_done(self) -> None:
        assert not self.results.exists(), f"{self.results} was written"
        assert not self.qemu_log.exists(), f"QEMU was started: {self.qemu_log.read_text()}"


@pytest.fixture
def host(tmp_path: pathlib.Path) -> Iterator[Host]:
    h = Host(tmp_path)
    yield h
    shutil.rmtree(h.results, ignore_errors=True)


@pytest.mark.parametrize("args, status, words", [
    (("-T", "nosuch_test"), 2, ["'nosuch_test'", "names no suite binary", "give part of"]),
    (("-T", "nosuch_test:some_test"), 2, ["'nosuch_test:some_test'", "names no suite binary"]),
    (("--lanes", "0"), 2, ["'0'", "give 1 or more"]),
    (("--lanes", "two"), 2, ["'two'", "give 1 or more"]),
    (("--max-abi", "three"), 2, ["'three'", "give a number from 1 to"]),
])
def test_a_mistake_is_one_line_and_nothing_done(host: Host, args: tuple[str, ...], status: int,
                                                words: list[str]) -> None:
    got, err, seconds = host.run(*args)
    assert (got, len(err)) == (status, 1), err
    assert err[0].startswith("vmtest/run: ") and all(w in err[0] for w in words), err
    assert seconds < 10
    host.nothing_done()


def test_no_qemu_names_the_package_not_kvm(host: Host) -> None:
    (host.bin / "qemu-system-x86_64").unlink()
    host.env["PATH"] = str(host.bin)  # /usr/bin has QEMU on a vmtest machine
    got, err, seconds = host.run()
    assert (got, len(err)) == (1, 1), err
    assert "qemu-system-x86_64 is not on PATH" in err[0], err
    assert "apt-get install qemu-system-x86" in err[0] and "KVM" not in err[0], err
    assert seconds < 10
    host.nothing_done()


def test_a_tree_this_user_cannot_write_is_one_line(host: Host) -> None:
    if os.getuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv(1) to run vmtest/run as another user (nobody)")
    if (REPO / "results").stat().st_uid == 65534:
        pytest.skip("results/ belongs to nobody: no user here to be refused")
    host.qemu_log = pathlib.Path("/nonexistent-qemu-log")  # nobody cannot write a log
    prefix = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--")
    got, err, seconds = host.run("-T", "abi_test", prefix=prefix)
    assert (got, len(err)) == (1, 1), err
    assert "cannot write" in err[0] and "this is uid 65534" in err[0], err
    assert "chown" in err[0] and "Traceback" not in err[0], err
    assert seconds < 10
    host.nothing_done()


def test_the_checks_let_good_values_through(run_module: ModuleType) -> None:
    """Controls: what a user may give passes each check."""
    binaries = ["abi_test", "protected_dir_test"]
    run_module.check_filter("abi", binaries)
    run_module.check_filter("protected_dir_test:R6_truncate_o_trunc", binaries)
    run_module.check_lanes("")
    run_module.check_lanes("3")
    with pytest.raises(ValueError, match="'nosuch' names no suite binary"):
        run_module.check_filter("nosuch", binaries)
    with pytest.raises(ValueError, match="no suite binary in .* to choose from: build"):
        run_module.check_filter("abi", [])


def make(*args: str, env: dict[str, str]) -> tuple[int, list[str], float]:
    start = time.monotonic()
    proc = subprocess.run(["make", "--no-print-directory", "-n", *args], cwd=REPO,
                          capture_output=True, text=True, env=env, timeout=120)
    return proc.returncode, proc.stderr.splitlines(), time.monotonic() - start


@pytest.mark.parametrize("value", ["three", "12", "0", "3 4", "+3"])
def test_make_refuses_an_abi_cap_before_it_builds(host: Host, tmp_path: pathlib.Path,
                                                  value: str) -> None:
    """make test ABI=three: one line from make itself, before a build or a
    step (dry run, with the steps' results in a folder of this test)."""
    got, err, seconds = make("test", f"ABI={value}", f"TEST_RESULTS={tmp_path}/r", env=host.env)
    assert (got, len(err)) == (2, 1), err
    assert f"ABI='{value}' is not an ABI: give a number from 1 to" in err[0], err
    assert seconds < 10
    assert not (tmp_path / "r").exists()
    env = dict(host.env, JR2_MAX_ABI=value)
    got, err, _ = make("deps", env=env)
    assert (got, len(err)) == (2, 1), err
    assert f"JR2_MAX_ABI='{value}' is not an ABI" in err[0], err


def test_make_takes_a_good_abi_cap(host: Host) -> None:
    """The control: ABI=3 and no ABI at all pass the same check."""
    for args in (("deps", "ABI=3"), ("deps",)):
        got, err, _ = make(*args, env=host.env)
        assert got == 0, err
