# SPDX-License-Identifier: GPL-2.0-only
"""pytest vmtest: one test per kernel of the matrix (ids: the kernel names).

Each boots the kernel under QEMU with the suite (vmtest/run does the same) and
passes only when the summary's outcome is pass: the verdict of `jr2-confine
check` is the one the entry's ABI gives through the ABI table, the kernel
reports the entry's ABI, no suite test fails, and the console shows no oops.
Results: results/<run-id>/<kernel>/ ($RUN names the run).
"""
import pathlib
from collections.abc import Iterator

import pytest

import jr2kernels
from jr2vm import initramfs, runner


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "kernel_name" in metafunc.fixturenames:
        names = metafunc.config.getoption("kernel") or [e.name for e in jr2kernels.load_matrix()]
        metafunc.parametrize("kernel_name", names, ids=names)


@pytest.fixture(scope="session")
def run_dir() -> Iterator[pathlib.Path]:
    path = runner.RESULTS / runner.run_id()
    start = runner.now_iso()
    runner.write_run_json(path, [], start)
    yield path
    runner.write_run_json(path, [], start, runner.now_iso())


@pytest.fixture(scope="session")
def base() -> initramfs.Base:
    return initramfs.build_base(initramfs.payload_binaries())


def test_kernel(kernel_name: str, run_dir: pathlib.Path, base: initramfs.Base,
                request: pytest.FixtureRequest) -> None:
    entries = jr2kernels.load_matrix()
    if "/" not in kernel_name:
        entry = jr2kernels.find(entries, kernel_name)
        if entry.built and not jr2kernels.cached(entry):
            pytest.skip(f"not reachable here: {jr2kernels.build_hint(entry)}")
    kernel = jr2kernels.resolve(kernel_name, entries)
    runner.write_run_json(run_dir, [kernel.name], runner.now_iso())
    result = runner.boot(runner.BootRequest(kernel, run_dir / kernel.name, base=base,
                                            filter_spec=request.config.getoption("vm_filter"),
                                            timeout_s=request.config.getoption("vm_timeout")))
    bad = [f"{t['status']}: {t['name']}: {t['reason']}" for t in result.get("tests", [])
           if t["status"] in ("fail", "error")]
    assert result["outcome"] == "pass", "\n".join(
        [runner.report_line(result), *result.get("problems", []), *bad,
         f"see {run_dir / kernel.name}"])
