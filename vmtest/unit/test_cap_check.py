# SPDX-License-Identifier: GPL-2.0-only
"""kernels/cap-check: a difference the kernel config explains (a skip naming
CONFIG_..., set differently in the two configs) is reported apart from the
ABI's, and only ABI differences fail the check."""
import importlib.machinery
import importlib.util
import json
import pathlib
from types import ModuleType

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "kernels" / "cap-check"
P7 = "harness_channel.P7_client_gets_its_own_programs_status_only"
SKIP_WHY = ("/proc/sys/kernel/ns_last_pid: ENOENT (a kernel without "
            "CONFIG_CHECKPOINT_RESTORE): the pid of a new program cannot be chosen")


@pytest.fixture(scope="module")
def cap_check() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("cap_check", str(SCRIPT))
    spec = importlib.util.spec_from_loader("cap_check", loader)
    assert spec is not None  # a loader is given: a spec is made
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def boot(folder: pathlib.Path, abi: int, tests: list[tuple[str, str, str]]) -> None:
    folder.mkdir(parents=True)
    (folder / "summary.json").write_text(json.dumps({
        "cap": abi, "outcome": "pass",
        "tests": [{"name": n, "status": s, "reason": r} for n, s, r in tests]}))


def test_config_read_both_ways(tmp_path: pathlib.Path, cap_check: ModuleType) -> None:
    path = tmp_path / "config"
    path.write_text("CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=\"x\"\n# a comment\n")
    assert cap_check.read_config(path) == {"CONFIG_A": "y", "CONFIG_B": "n", "CONFIG_C": '"x"'}
    assert cap_check.read_config(tmp_path / "none") is None


def test_a_cause_needs_the_option_named_and_the_configs_apart(cap_check: ModuleType) -> None:
    skip, ok = ("skip", SKIP_WHY), ("pass", "")
    set_on_new = ({"CONFIG_X": "y"}, {"CONFIG_X": "y", "CONFIG_CHECKPOINT_RESTORE": "y"})
    assert cap_check.config_cause(skip, ok, set_on_new) == [("CONFIG_CHECKPOINT_RESTORE", "n", "y")]
    # Both configs agree: the option does not explain it.
    same = ({"CONFIG_CHECKPOINT_RESTORE": "y"}, {"CONFIG_CHECKPOINT_RESTORE": "y"})
    assert cap_check.config_cause(skip, ok, same) == []
    # No option named, or a config missing: nothing confirms it.
    assert cap_check.config_cause(("fail", "EPERM"), ok, set_on_new) == []
    assert cap_check.config_cause(skip, ok, (None, set_on_new[1])) == []


@pytest.mark.parametrize("abi_difference, status", [(False, 0), (True, 1)])
def test_config_differences_listed_apart(tmp_path: pathlib.Path, cap_check: ModuleType,
                                         monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str],
                                         abi_difference: bool, status: int) -> None:
    configs: dict[str, dict[str, str]] = {"old": {}, "new": {"CONFIG_CHECKPOINT_RESTORE": "y"}}
    monkeypatch.setattr(cap_check, "kernel_config", configs.get)
    run = tmp_path / "run"
    boot(run / "old", 5, [(P7, "skip", SKIP_WHY), ("abi.G4_x", "pass", "")])
    boot(run / "new", 5, [(P7, "pass", ""),
                          ("abi.G4_x", "fail" if abi_difference else "pass", "")])
    assert cap_check.main(["--pair", "old:new@5", "--compare", str(run)]) == status
    out = capsys.readouterr().out
    assert (f"differ by kernel config (CONFIG_CHECKPOINT_RESTORE old n, new y): suite {P7}"
            in out)
    assert (f"cap check: 2 tests, {int(abi_difference)} differ by ABI, 1 by kernel config "
            "(CONFIG_CHECKPOINT_RESTORE)") in out
    assert ("differ by ABI: suite abi.G4_x" in out) == abi_difference
