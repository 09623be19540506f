# SPDX-License-Identifier: GPL-2.0-only
"""A container profile's results (vmtest --profile): its folder is
<kernel>+<profile>, and JUnit, KCIDB and the report name the profile and
the Debian versions of its data."""
import json
import pathlib
import shutil
import xml.etree.ElementTree as ET

from conftest import FIXTURES
from jr2results import junit, kcidb, report, run

VERSIONS = {"runc": "1.1.5+ds1-1+deb12u1", "golang-github-containers-common": "0.50.1+ds1-4"}


def profiled(tmp_path: pathlib.Path) -> run.Run:
    """The clean run's 7.3 as if run in the restricted profile."""
    folder = tmp_path / "run"
    folder.mkdir()
    shutil.copy(FIXTURES / "clean" / "run.json", folder / "run.json")
    kernel = folder / "7.3+restricted"
    shutil.copytree(FIXTURES / "clean" / "7.3", kernel)
    summary = json.loads((kernel / "summary.json").read_text())
    summary.update(kernel="7.3+restricted", profile="restricted", profile_data=VERSIONS)
    (kernel / "summary.json").write_text(json.dumps(summary))
    return run.load(folder)


def test_junit_properties_name_the_profile(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "junit.xml"
    junit.write(profiled(tmp_path), path)
    props = {p.get("name"): p.get("value")
             for p in ET.parse(path).getroot().iter("property")}
    assert props["profile"] == "restricted"
    assert props["profile_data:runc"] == VERSIONS["runc"]


def test_kcidb_environment_names_the_profile_and_entry(tmp_path: pathlib.Path) -> None:
    loaded = profiled(tmp_path)
    assert not loaded.defects
    kernel = loaded.kernels[0]
    assert kcidb.entry_name(kernel) == "7.3"
    doc = kcidb.build(loaded, "0.1.0")
    env = doc["tests"][0]["environment"]
    assert env["misc"]["profile"] == "restricted"
    assert env["misc"]["profile_data"] == VERSIONS
    assert "matrix entry 7.3)" in env["comment"]
    assert "container profile 'restricted'" in env["comment"]


def test_report_regime_names_the_profile(tmp_path: pathlib.Path) -> None:
    kernel = profiled(tmp_path).kernels[0]
    assert "in the container profile restricted" in report.regime(kernel.summary)
