# SPDX-License-Identifier: GPL-2.0-only
"""Fixtures: two synthetic runs (results/tests/fixtures/{clean,faults}) and
the binaries they name.  `clean` is what a good matrix gives: refused
kernels refused by design, every test passed or skipped with a reason.
`faults` adds a failing test on 6.12, an oops and a crashed binary on 7.3.

The real schemas the writers are checked against are test data beside the
checkout (../shared/kcidb/, ../shared/junit/; `make test` passes them as
$JR2_KCIDB_SCHEMA and $JR2_JUNIT_XSD): the tests that need them skip, and
say so, where they are absent.  CI always has them."""
import os
import pathlib
import shutil

import pytest

HERE = pathlib.Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
KERNELS = ["5.10", "6.1", "6.1-nolsm", "6.12", "7.3"]


@pytest.fixture
def clean_copy(tmp_path: pathlib.Path) -> pathlib.Path:
    """A writable copy of the clean run and of its binaries."""
    shutil.copytree(FIXTURES / "clean", tmp_path / "clean")
    shutil.copytree(FIXTURES / "bin", tmp_path / "bin")
    return tmp_path


@pytest.fixture(scope="session")
def kcidb_schema_path() -> pathlib.Path:
    """kcidb-io's v5.3 JSON schema, and python3-jsonschema to read it."""
    from jr2results import kcidb_check
    path = kcidb_check.find_schema()
    if path is None or not path.is_file():
        pytest.skip("the KCIDB v5.3 schema is absent (../shared/kcidb/kcidb-v5.3.schema.json, "
                    "or name it with JR2_KCIDB_SCHEMA): CI has it")
    pytest.importorskip("jsonschema", reason="python3-jsonschema is not installed: "
                        "`make test-results` installs it")
    return path


@pytest.fixture(scope="session")
def junit_xsd() -> pathlib.Path:
    """junit-10.xsd (Jenkins' xUnit plugin), and xmllint to apply it."""
    named = os.environ.get("JR2_JUNIT_XSD")
    path = pathlib.Path(named) if named else HERE.parents[2] / ".." / "shared" / "junit" / "junit-10.xsd"
    if not path.is_file():
        pytest.skip(f"the JUnit XSD is absent ({path}; name it with JR2_JUNIT_XSD): CI has it")
    if not shutil.which("xmllint"):
        pytest.skip("xmllint is not installed: apt-get install libxml2-utils "
                    "(`make test-results` installs it)")
    return path.resolve()
