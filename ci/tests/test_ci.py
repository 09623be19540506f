# SPDX-License-Identifier: GPL-2.0-only
"""The ci/ scripts, run for real against the fixture runs of results/tests,
with a stand-in for `make` (no QEMU here): the release gate passes a clean
matrix and fails on each injected fault."""
import importlib.machinery
import json
import os
import pathlib
import re
import shutil
import subprocess
import types

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
CI = REPO / "ci"
WORKFLOW = REPO / ".github" / "workflows" / "kernel-matrix.yml"
DEPENDABOT = REPO / ".github" / "dependabot.yml"
FIXTURES = REPO / "results" / "tests" / "fixtures"
FIXTURE_KERNELS = ["5.10", "6.1", "6.1-nolsm", "6.12", "7.3"]
MATRIX = """
[[kernel]]
name = "5.10"
source = "debian"
  [[kernel.deb]]
  package = "linux-image-5.10.0-32-amd64-unsigned"
  sha256 = "53a0ada535b8b35b3ee80ead5ab88036591963941c42dff6881bdb741deebead"
[[kernel]]
name = "6.1"
source = "debian"
  [[kernel.deb]]
  sha256 = "439422e41d2dbb840b60b81e3bf5e5955bfa56b7a8c268aec83c9ff882d421e6"
[[kernel]]
name = "6.1-nolsm"
base = "6.1"
cmdline = "lsm=lockdown,yama"
[[kernel]]
name = "6.12"
source = "debian"
  [[kernel.deb]]
  sha256 = "3b80d047f4d70d5f85d834f370b0e4b1bf689ee958c69018a570319b77f49301"
[[kernel]]
name = "7.3"
source = "debian"
  [[kernel.deb]]
  sha256 = "7e3248d03a84dcdda88c567aa8c4038f2e7795d2dd167b112c56f8901b6f513f"
[[kernel]]
name = "6.2"
source = "kernel.org"
sha256 = ""
"""
# `make` for the scripts: `all` builds nothing, `matrix RUN=x` copies a fixture
# run to $JR2_RESULTS/x (results/x in a clone, as vmtest), then runs $FAKE_AFTER
# (a fault injected after the run).
FAKE_MAKE = """#!/bin/sh
set -eu
results=${JR2_RESULTS:-results}
echo "fake make $*" >> "$results/make.log"
[ "$1" = matrix ] || exit 0
for arg; do case $arg in RUN=*) run=${arg#RUN=} ;; esac; done
cp -r "$FAKE_RUN" "$results/$run"
sh -c "${FAKE_AFTER:-true}"
exit "${FAKE_STATUS:-0}"
"""


@pytest.fixture
def env(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "matrix.toml").write_text(MATRIX)
    (tmp_path / "missing").write_text("# kernel reason\n6.2 no tarball on these machines\n")
    (tmp_path / "make").write_text(FAKE_MAKE)
    (tmp_path / "make").chmod(0o755)
    shutil.copytree(FIXTURES / "bin", tmp_path / "bin")
    return dict(os.environ, JR2_RESULTS=str(tmp_path / "results"),
                JR2_KERNEL_MATRIX=str(tmp_path / "matrix.toml"),
                JR2_RELEASE_MISSING=str(tmp_path / "missing"), MAKE=str(tmp_path / "make"),
                FAKE_RUN=str(FIXTURES / "clean"), TMP=str(tmp_path))


def ci(env, *args):
    return subprocess.run([str(CI / args[0]), *args[1:]], env=env, capture_output=True,
                          text=True, timeout=60)


def gate(env, **extra):
    proc = ci(dict(env, **extra), "release-gate", "--version", "9.9.9", "--run", "r1",
              "--bin-dir", env["TMP"] + "/bin")
    out = pathlib.Path(env["JR2_RESULTS"]) / "release" / "9.9.9"
    text = (out / "gate.txt").read_text() if (out / "gate.txt").exists() else ""
    return proc, text, out


def matrix_kernels(env, monkeypatch, capsys, *args):
    """ci/matrix-kernels run in this process (a subprocess each costs ~0.2 s)."""
    for key in ("JR2_KERNEL_MATRIX", "JR2_RELEASE_MISSING"):
        monkeypatch.setenv(key, env[key])
    monkeypatch.setattr("sys.argv", ["matrix-kernels", *args])
    loader = importlib.machinery.SourceFileLoader("matrix_kernels", str(CI / "matrix-kernels"))
    module = types.ModuleType(loader.name)
    module.__file__ = loader.path
    loader.exec_module(module)
    try:
        module.main()
        status = 0
    except SystemExit as e:
        status = e.code
    out = capsys.readouterr()
    return status, out.out, out.err


def test_matrix_kernels_lists_json_gate_words_and_cache_keys(env, monkeypatch, capsys):
    def run(*args):
        return matrix_kernels(env, monkeypatch, capsys, *args)[1]
    assert run().split() == FIXTURE_KERNELS
    assert json.loads(run("--json")) == FIXTURE_KERNELS
    assert run("--gate").splitlines() == [*FIXTURE_KERNELS, "6.2=no tarball on these machines"]
    key = run("--cache-key", "6.1").strip()
    assert re.fullmatch(r"jr2-kernel-6\.1-[0-9a-f]{32}", key)
    variant = run("--cache-key", "6.1-nolsm").strip()
    assert variant.split("-")[-1] == key.split("-")[-1]  # a variant boots its base's files
    assert run("--cache-key", "6.12").split("-")[-1] != key
    pathlib.Path(env["JR2_KERNEL_MATRIX"]).write_text(MATRIX.replace("439422e4", "00000000"))
    assert run("--cache-key", "6.1").strip() != key


def test_matrix_kernels_names_bad_input(env, monkeypatch, capsys):
    status, _, err = matrix_kernels(env, monkeypatch, capsys, "--cache-key", "9.9")
    assert status == 2 and "kernel '9.9' is not in" in err
    pathlib.Path(env["JR2_RELEASE_MISSING"]).write_text("6.3 typo\n")
    status, _, err = matrix_kernels(env, monkeypatch, capsys)
    assert status == 2 and "kernel '6.3' is not in the matrix" in err


def test_declared_missing_kernels_exist_in_the_real_matrix():
    env = {k: v for k, v in os.environ.items()
           if k not in ("JR2_KERNEL_MATRIX", "JR2_RELEASE_MISSING")}
    proc = ci(env, "matrix-kernels", "--gate")
    assert proc.returncode == 0, proc.stderr
    assert all(line.split("=")[0] for line in proc.stdout.splitlines())


def test_workflow_calls_only_ci_scripts_that_exist():
    text = WORKFLOW.read_text()
    jobs = text.split("\njobs:\n", 1)[1]
    assert re.findall(r"^  (\w+):$", jobs, re.M) == ["plan", "kernel", "report"]
    runs = "\n".join(line for line in text.splitlines() if "run: " in line)
    scripts = set(re.findall(r"\bci/([a-z-]+)", runs))
    assert scripts == {"matrix-kernels", "kernel-job", "report-job"}
    for name in scripts:
        assert os.access(CI / name, os.X_OK), name
    assert "fromJSON(needs.plan.outputs.kernels)" in text
    assert "--cache-key" in text and "upload-artifact" in text


def test_workflow_is_pinned_read_only_and_runs_once_per_change():
    """Every action by a commit's full SHA with its tag beside it, the token
    read-only, one run per change (pull requests on their own event, pushes
    only to main), a newer run of a pull request cancelling the older, and
    the failures annotated from junit.xml."""
    yaml = pytest.importorskip("yaml", reason="python3-yaml is not installed: "
                               "`make test` installs it")
    text = WORKFLOW.read_text()
    flow = yaml.safe_load(text)
    triggers = flow[True]  # YAML 1.1 reads the key `on` as true
    assert triggers["push"] == {"branches": ["main"]}
    assert "pull_request" in triggers
    assert flow["permissions"] == {"contents": "read"}
    assert all("permissions" not in job for job in flow["jobs"].values())
    assert "github.ref" in flow["concurrency"]["group"]
    assert "pull_request" in flow["concurrency"]["cancel-in-progress"]
    uses = re.findall(r"^\s*(?:- )?uses: (\S+)(.*)$", text, re.M)
    assert len(uses) == 9
    for action, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", action), action
        assert re.fullmatch(r" # v\d+\.\d+\.\d+", comment), (action, comment)
    steps = flow["jobs"]["report"]["steps"]
    annotate = [s for s in steps if s.get("uses", "").startswith("mikepenz/action-junit-report@")]
    assert len(annotate) == 1
    assert annotate[0]["with"]["annotate_only"] is True
    assert annotate[0]["with"]["report_paths"] == "results/${{ env.RUN_ID }}/junit.xml"
    assert steps.index(annotate[0]) > [s.get("name") for s in steps].index(
        "JUnit, KCIDB and the matrix report")


def test_dependabot_keeps_the_workflows_actions_current():
    """Dependabot watches the actions of .github/workflows/ (directory "/"
    of the github-actions ecosystem) on a schedule; the workflow is where
    GitHub reads it, no copy elsewhere."""
    yaml = pytest.importorskip("yaml", reason="python3-yaml is not installed: "
                               "`make test` installs it")
    config = yaml.safe_load(DEPENDABOT.read_text())
    assert config["version"] == 2
    actions = [u for u in config["updates"] if u["package-ecosystem"] == "github-actions"]
    assert len(actions) == 1 and actions[0]["directory"] == "/"
    assert actions[0]["schedule"]["interval"] in ("daily", "weekly", "monthly")
    assert not list(CI.glob("**/*.yml")), "a workflow outside .github/workflows/ is not run"
    assert WORKFLOW.is_file()


def test_release_gate_passes_a_clean_matrix(env):
    proc, text, out = gate(env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert text.startswith("release gate for 9.9.9, run r1: PASS")
    assert "note 6.2: not run: no tarball on these machines" in text
    assert sorted(p.name for p in out.iterdir()) == [
        "SHA256SUMS", "gate.txt", "junit.xml", "kcidb.json", "matrix.html", "matrix.md"]
    log = (pathlib.Path(env["JR2_RESULTS"]) / "make.log").read_text().splitlines()
    assert log == ["fake make all", "fake make matrix RUN=r1 KERNELS=" + " ".join(FIXTURE_KERNELS)]


def test_release_gate_fails_a_binary_changed_after_the_run(env):
    proc, text, _ = gate(env, FAKE_AFTER="echo rebuilt >> $TMP/bin/jr2-confine")
    assert proc.returncode == 1
    assert "FAIL 6.12: binary 'jr2-confine' changed after the run" in text
    assert "FAIL binary 'jr2-confine' was rebuilt during the run" in text


def test_release_gate_fails_the_fixture_faults(env):
    proc, text, _ = gate(env, FAKE_RUN=str(FIXTURES / "faults"))
    assert proc.returncode == 1
    assert {line.split(":")[0] for line in text.splitlines() if line.startswith("FAIL ")} == {
        "FAIL 6.12", "FAIL 7.3"}


def test_report_job_names_the_matrix_and_fails_on_a_failed_kernel(env):
    results = pathlib.Path(env["JR2_RESULTS"])
    shutil.copytree(FIXTURES / "clean", results / "ci-1")
    (results / "ci-1" / "run.json").unlink()  # gathered artifacts: no single run.json
    proc = ci(env, "report-job", "ci-1")
    assert proc.returncode == 0, proc.stderr
    meta = json.loads((results / "ci-1" / "run.json").read_text())
    assert meta["kernels"] == FIXTURE_KERNELS and meta["run_id"] == "ci-1"
    assert "| | **5.10** | **6.1** | **6.1-nolsm** | **6.12** | **7.3** |" in proc.stdout
    assert "report-job: kcidb.json checked: " in proc.stdout
    shutil.copytree(FIXTURES / "faults", results / "ci-2")
    shutil.rmtree(results / "ci-2" / "6.1")
    proc = ci(env, "report-job", "ci-2")
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == ["report-job: kernel 6.1: missing",
                                        "report-job: kernel 6.12: fail",
                                        "report-job: kernel 7.3: fail"]


def test_kernel_job_runs_one_kernel_and_writes_its_files(env):
    proc = ci(env, "kernel-job", "6.12", "k1")
    assert proc.returncode == 0, proc.stderr
    run = pathlib.Path(env["JR2_RESULTS"]) / "k1"
    assert (run / "junit.xml").exists() and (run / "kcidb.json").exists()
    log = (pathlib.Path(env["JR2_RESULTS"]) / "make.log").read_text()
    assert log == "fake make matrix RUN=k1 KERNELS=6.12\n"
    proc = ci(env, "kernel-job", "9.9", "k2")
    assert proc.returncode == 2 and "kernel '9.9' is not in kernels/matrix.toml" in proc.stderr


def test_release_gate_fails_when_the_matrix_wrote_nothing(env):
    proc, text, _ = gate(env, FAKE_AFTER="rm -r $JR2_RESULTS/r1", FAKE_STATUS="2")
    assert proc.returncode == 1
    assert text.splitlines() == ["release gate for 9.9.9, run r1: FAIL",
                                 f"FAIL `make matrix` (exit status 2) wrote no "
                                 f"{env['JR2_RESULTS']}/r1: see its output above"]


def test_release_gate_clone_gates_head_and_brings_the_files_back(env):
    proc = ci(env, "release-gate", "--clone", "--version", "9.9.9", "--run", "r2",
              "--bin-dir", env["TMP"] + "/bin")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = pathlib.Path(env["JR2_RESULTS"])
    assert "clone HEAD (" in proc.stdout
    assert (results / "r2" / "run.json").exists()
    text = (results / "release" / "9.9.9" / "gate.txt").read_text()
    assert text.startswith("release gate for 9.9.9, run r2: PASS")
    short = re.search(r"clone HEAD \((\w+)\)", proc.stdout).group(1)  # HEAD may move since
    assert re.search(rf"^note tree: commit {short}\w+, 0 uncommitted change\(s\)$", text, re.M)


def test_release_gate_fails_a_build_that_fails(env, tmp_path):
    failing = tmp_path / "failing-make"
    failing.write_text('#!/bin/sh\n[ "$1" != all ] || { echo "cc: error" >&2; exit 2; }\n')
    failing.chmod(0o755)
    proc, text, _ = gate(env, MAKE=str(failing))
    assert proc.returncode == 1
    lines = text.splitlines()
    assert lines[0] == "release gate for 9.9.9, run r1: FAIL"
    assert lines[1].startswith("FAIL `make all` failed at commit ")
