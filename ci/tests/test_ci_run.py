# SPDX-License-Identifier: GPL-2.0-only
""".ci/run runs the README's two commands in the README's order, then the CI
matrix, every one even after a failure, and ends with the closing line
(scripts/ci-summary), here with a stand-in `make` that leaves results."""
import os
import pathlib
import shutil
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "results" / "tests" / "fixtures"

# The stand-in: logs its arguments and leaves what the real target leaves.
MAKE = r"""#!/bin/sh
echo "$*" >> "$MAKE_LOG"
target=$1 run=
for a in "$@"; do case $a in RUN=*) run=${a#RUN=} ;; esac; done
case $target in
vmtest | vmtest-ci)
	mkdir -p "results/$run"
	cp -r "$FIXTURE_RUN"/. "results/$run/" ;;
test)
	mkdir -p build/test-results
	printf 'TAP version 13\n1..2\nok 1 a.one\nok 2 a.two\n' > build/test-results/unit.tap
	echo "$TEST_STATUS" > build/test-results/unit.status
	exit "$TEST_STATUS" ;;
esac
exit 0
"""


def tree(tmp_path):
    root = tmp_path / "clone"
    (root / ".ci").mkdir(parents=True)
    shutil.copy(REPO / ".ci" / "run", root / ".ci" / "run")
    (root / "scripts").mkdir()
    for name in ("ci-summary", "test-summary"):
        shutil.copy(REPO / "scripts" / name, root / "scripts" / name)
    shutil.copytree(REPO / "results" / "jr2results", root / "results" / "jr2results")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "make").write_text(MAKE)
    (bindir / "make").chmod(0o755)
    return root, bindir


def ci_run(tmp_path, fixture="clean", test_status=0):
    root, bindir = tree(tmp_path)
    log = tmp_path / "make.log"
    env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}", MAKE_LOG=str(log),
               FIXTURE_RUN=str(FIXTURES / fixture), TEST_STATUS=str(test_status))
    proc = subprocess.run([str(root / ".ci" / "run")], env=env, capture_output=True, text=True)
    return proc, [line.split()[0] for line in log.read_text().splitlines()]


def test_the_readme_order_then_the_matrix_and_a_closing_line(tmp_path):
    proc, targets = ci_run(tmp_path)
    assert targets == ["vmtest", "test", "vmtest-ci"]
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The clean fixture: 28 passed, 42 skipped per run; make test's 2.
    assert lines[-1] == "58 passed, 0 failed, 84 skipped"
    assert lines[-4:-1] == [
        "ci: make vmtest: 28 passed, 0 failed, 42 skipped (exit status 0)",
        "ci: make test: 2 passed, 0 failed, 0 skipped (exit status 0)",
        "ci: make vmtest-ci: 28 passed, 0 failed, 42 skipped (exit status 0)"]


def test_a_failure_does_not_stop_the_others_and_is_counted(tmp_path):
    proc, targets = ci_run(tmp_path, fixture="faults", test_status=2)
    assert targets == ["vmtest", "test", "vmtest-ci"]
    assert proc.returncode == 1
    last = proc.stdout.splitlines()[-1]
    passed, failed = int(last.split()[0]), int(last.split()[2])
    assert last.endswith("skipped") and failed == 2 + 1 + 2 and passed == 26 + 2 + 26
    assert "FAIL make test: unit: exited with status 2 though every result passed" in proc.stdout


def test_a_stage_without_results_fails(tmp_path):
    proc = subprocess.run([str(REPO / "scripts" / "ci-summary"), "make vmtest", "0",
                           str(tmp_path / "absent")], capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1] == "0 passed, 1 failed, 0 skipped"
