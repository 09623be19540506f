# SPDX-License-Identifier: GPL-2.0-only
"""jr2-results as a command: what `make report`, `make compare` and CI call."""
import json
import os
import pathlib

import pytest

from conftest import FIXTURES
from jr2results import cli


def test_write_makes_the_four_files_and_prints_the_matrix(
        tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["write", str(FIXTURES / "faults"), "--out", str(tmp_path), "--print"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "junit.xml", "kcidb.json", "matrix.html", "matrix.md"]
    out = capsys.readouterr().out
    assert out.splitlines()[1] == "# jr2 conformance matrix, run faults"


def test_check_kcidb_passes_ours_and_names_what_is_wrong(
        tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str],
        kcidb_schema_path: pathlib.Path) -> None:
    cli.main(["write", str(FIXTURES / "clean"), "--out", str(tmp_path)])
    path = tmp_path / "kcidb.json"
    assert cli.main(["check-kcidb", str(path), "--kcidb-schema", str(kcidb_schema_path)]) == 0
    data = json.loads(path.read_text())
    data["tests"][0]["status"] = "OK"
    path.write_text(json.dumps(data))
    capsys.readouterr()
    assert cli.main(["check-kcidb", str(path), "--kcidb-schema", str(kcidb_schema_path)]) == 1
    assert "$.tests[0].status: 'OK' is not one of" in capsys.readouterr().out


def test_newest_run_is_the_one_whose_run_json_changed_last(tmp_path: pathlib.Path) -> None:
    for name, when in (("b", 100), ("a", 200)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "run.json").write_text("{}")
        os.utime(tmp_path / name / "run.json", (when, when))
    assert cli.newest_run(tmp_path) == tmp_path / "a"


def test_bad_folders_are_named(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["compare", str(tmp_path / "x"), str(FIXTURES / "clean")]) == 2
    assert f"'{tmp_path / 'x'}' is not a folder" in capsys.readouterr().err
    assert cli.main(["write", str(tmp_path / "none")]) == 2
    assert "does not exist" in capsys.readouterr().err
