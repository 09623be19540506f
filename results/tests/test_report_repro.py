# SPDX-License-Identifier: GPL-2.0-only
"""The report's reproducer section: the table vmtest/repro left in the run
(results/<run>/repro.json) is shown as its own section, escaped."""
import json
import pathlib

from jr2results import promises, report, run

SPEC = "# The promises\n## R: the protected dir\n- R1 No file in it can be opened.\n"
REPRO = {"repro": "read-standins.c", "confine": "harness",
         "expect": "exit 1, denial open EACCES",
         "header": ["kernel", "ABI", "exit", "denials", "differs from newest", "expect"],
         "rows": [["6.1", "2", "refused by jr2 (check: abi_too_old)", "0", "yes", "refused"],
                  ["7.3", "11", "1", "1 (open /run/jr2/a|b <x> EACCES)", "(newest)", "pass"]]}


def build(path: pathlib.Path) -> report.Matrix:
    return report.build(run.load(path), promises.parse(SPEC))


def test_a_run_with_a_reproducer_shows_its_table(clean_copy: pathlib.Path) -> None:
    path = clean_copy / "clean"
    (path / "repro.json").write_text(json.dumps(REPRO))
    m = build(path)
    md = report.markdown(m)
    assert ("## Reproducer read-standins.c (CONFINE=harness, expect: exit 1, denial open "
            "EACCES)") in md
    assert "| 6.1 | 2 | refused by jr2 (check: abi_too_old) | 0 | yes | refused |" in md
    assert "| 7.3 | 11 | 1 | 1 (open /run/jr2/a\\|b <x> EACCES) | (newest) | pass |" in md
    page = report.html_page(m)
    assert '<table id="repro">' in page
    assert "<td>1 (open /run/jr2/a|b &lt;x&gt; EACCES)</td>" in page


def test_a_run_without_one_has_no_such_section(clean_copy: pathlib.Path) -> None:
    path = clean_copy / "clean"
    assert "Reproducer" not in report.markdown(build(path))
    (path / "repro.json").write_text("{not json")
    assert "Reproducer" not in report.markdown(build(path))
