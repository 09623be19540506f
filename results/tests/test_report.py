# SPDX-License-Identifier: GPL-2.0-only
"""The matrix report: the cells say what the tests did, on every kernel."""
import html
import html.parser
import pathlib
import re

from conftest import FIXTURES, KERNELS
from jr2results import promises, report, run

SPEC = """# The promises
## G: gating on the kernel
- G1 No Landlock in the kernel (`ENOSYS`): refuse to confine;
  say the kernel lacks Landlock.
- G2 Landlock built but not enabled at boot (`EOPNOTSUPP`): refuse.
- G3 ABI 1 or 2: refuse.
- G5 A preflight check.
## R: the protected dir
- R1 No file in it can be opened for reading (`EACCES`).
- R6 (ABI 3+) No file in it can be truncated.
- R8 The Custodian's socket in it can be connected to.
"""


def matrix(name: str) -> report.Matrix:
    return report.build(run.load(FIXTURES / name), promises.parse(SPEC))


def cells(m: report.Matrix) -> dict[tuple[str, str], report.Cell]:
    return {(k, row.key): row.cells[k] for s in m.sections for row in s.rows for k in row.cells}


def test_promises_parse_groups_ids_and_continuations() -> None:
    groups = promises.parse(SPEC)
    assert [(g.letter, g.title) for g in groups] == [("G", "gating on the kernel"),
                                                     ("R", "the protected dir")]
    assert [p.id for p in groups[0].promises] == ["G1", "G2", "G3", "G5"]
    assert groups[0].promises[0].text.endswith("refuse to confine; say the kernel lacks Landlock.")
    assert sorted(["R10", "G2", "R9", "G10"], key=promises.order_key) == ["G2", "G10", "R9", "R10"]


def test_cells_say_pass_fail_skip_refused_untested() -> None:
    c = cells(matrix("faults"))
    assert c["6.12", "R6"].state == "fail"
    assert any("Expected EACCES (13)" in d for d in c["6.12", "R6"].detail)
    assert c["7.3", "R6"].state == "pass"
    assert c["6.1", "R1"].state == "refused" and "abi_too_old" in c["6.1", "R1"].text
    assert c["5.10", "R1"].state == "refused"
    assert c["5.10", "G1"].state == "pass"  # the refusal itself is tested, and passes
    assert c["6.12", "G1"].state == "skip"
    assert c["6.12", "G1"].text == "Landlock present: ENOSYS needs a kernel without it"
    assert c["7.3", "R8"].state == "untested"
    # escapes_test crashed on 7.3 before R9_R10_proc_fd_link: R10 is not "untested"
    assert c["7.3", "R10"].state == "fail"
    assert c["7.3", "R10"].detail == [
        "error escapes.R9_R10_proc_fd_link: never reported: escapes_test ended early"]
    assert c["7.3", "vm.health"].state == "fail" and c["6.12", "vm.health"].state == "pass"
    assert all(c[k, "vm.verdict"].state == "pass" for k in KERNELS)


def test_rows_for_ids_and_tests_outside_the_spec() -> None:
    m = matrix("faults")
    titles = [s.title for s in m.sections]
    assert titles[:3] == ["Kernel", "G: gating on the kernel", "R: the protected dir"]
    extra = next(s for s in m.sections if s.title == "Promise IDs not in PROMISES.md")
    assert [r.key for r in extra.rows] == ["R2", "R7", "R9", "R10", "P1", "P2", "P5"]
    orphans = next(s for s in m.sections if s.title == "Tests that name no promise")
    keys = [r.key for r in orphans.rows]
    assert keys == ["escapes_test.<crash>", "processes.helper_reaps_children"]
    assert orphans.rows[0].cells["7.3"].state == "fail"
    assert orphans.rows[0].cells["6.12"].state == "untested"


def test_markdown_has_every_kernel_row_and_the_failure_diagnostics() -> None:
    text = report.markdown(matrix("faults"))
    lines = text.splitlines()
    assert lines[:5] == [
        "# jr2 conformance matrix, run faults", "",
        "commit 1af34182fc02, from 2026-11-30T12:00:00Z to 2026-11-30T12:03:10Z", "",
        "| | " + " | ".join(f"**{k}**" for k in KERNELS) + " |"]
    assert ("| tests | 2 pass, 0 fail, 12 skip | 2 pass, 0 fail, 12 skip | 2 pass, 0 fail, 12 skip "
            "| 10 pass, 1 fail, 3 skip | 10 pass, 1 fail, 3 skip |") in text  # 7.3: a crash
    table = [line for line in lines if line.startswith("|")]
    assert all(len(re.split(r"(?<!\\)\|", line[1:-1])) == len(KERNELS) + 1 for line in table)
    r6 = next(line for line in table if line.startswith("| R6 "))
    assert r6.split(" | ")[1:] == ["refused", "refused", "refused", "**FAIL** [6]", "pass |"]
    assert any(line.startswith("[6] 6.12 R6: fail protected_dir.R6_truncate_o_trunc")
               for line in lines)


class Cells(html.parser.HTMLParser):
    """The data-* attributes of every matrix cell, every link (href), every
    reference that would fetch something (src, link, a URL with a scheme),
    and every id."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: dict[tuple[str, str], str] = {}
        self.external: list[str] = []
        self.tags: list[str] = []
        self.links: list[str] = []
        self.ids: set[str] = set()
        # (kernel, row) -> href of the link in that cell
        self.cell_links: dict[tuple[str, str], str] = {}
        self._cell: tuple[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {name: value or "" for name, value in attrs}  # a bare attribute: ""
        self.tags.append(tag)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "td" and "data-state" in a:
            self.cells[a["data-kernel"], a["data-row"]] = a["data-state"]
            self._cell = (a["data-kernel"], a["data-row"])
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
            if self._cell:
                self.cell_links[self._cell] = a["href"]
            if re.match(r"^[a-z][a-z0-9+.-]*:|^/", a["href"]):
                self.external.append(a["href"])
        if "src" in a or tag == "link":
            self.external.append(a.get("src") or a.get("href") or f"<{tag}>")

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._cell = None


def test_html_fetches_nothing_and_its_cells_match_the_model() -> None:
    m = matrix("faults")
    page = report.html_page(m)
    parser = Cells()
    parser.feed(page)
    assert parser.external == [] and "script" not in parser.tags
    expected = {key: cell.state for key, cell in cells(m).items()}
    assert parser.cells == expected
    assert len(expected) == len(KERNELS) * sum(len(s.rows) for s in m.sections)


def test_html_links_each_kernels_files_and_each_failures_output() -> None:
    m = matrix("faults")
    parser = Cells()
    parser.feed(report.html_page(m))
    for k in KERNELS:
        for f in ("console.log", "suite.tap", "summary.json", "check.json"):
            assert f"{k}/{f}" in parser.links
            assert (FIXTURES / "faults" / k / f).is_file()
    failed = {key for key, cell in cells(m).items() if cell.state == "fail"}
    assert len(failed) >= 5
    assert set(parser.cell_links) == failed  # a link in every failed cell, and only there
    for key, href in parser.cell_links.items():
        assert href == "#" + report.anchor("out", *key) and href[1:] in parser.ids
    page = report.html_page(m)
    section = page[page.index('id="out-6.12-R6"'):]
    section = section[:section.index("</section>")]
    assert "Expected 7 == st.st_size (0)" in section  # the test's whole output
    assert 'href="6.12/suite.tap"' in section
    crash = page[page.index('id="out-7.3-escapes_test._crash_"'):]
    assert "child killed by signal 11 (SIGSEGV)" in crash[:crash.index("</section>")]


def test_html_says_a_missing_file_instead_of_linking_it(clean_copy: pathlib.Path) -> None:
    (clean_copy / "clean" / "6.12" / "check.json").unlink()
    page = report.html_page(report.build(run.load(clean_copy / "clean"), promises.parse(SPEC)))
    assert "check.json missing" in page and 'href="6.12/check.json"' not in page
    assert 'href="7.3/check.json"' in page


def test_html_links_reach_the_run_from_another_folder(tmp_path: pathlib.Path) -> None:
    from jr2results import cli
    out = tmp_path / "elsewhere"
    cli.write_outputs(run.load(FIXTURES / "faults"), out)
    parser = Cells()
    parser.feed((out / "matrix.html").read_text())
    files = [h for h in parser.links if not h.startswith("#")]
    assert len(files) >= 4 * len(KERNELS)
    assert all((out / h).resolve().is_file() for h in files), files


def test_promise_texts_render_inline_code() -> None:
    page = report.html_page(matrix("faults"))
    assert "(<code>ENOSYS</code>): refuse to confine" in page
    assert "(<code>EACCES</code>)" in page
    rows = re.findall(r'<th class="promise">.*?</th>', page)
    assert rows and not any("`" in r for r in rows)


def test_header_and_promise_column_are_sticky() -> None:
    css = report.CSS
    assert re.search(r"thead th\{[^}]*position:sticky;top:0", css)
    assert re.search(r"th\.promise\{[^}]*position:sticky;left:0", css)
    assert re.search(r"thead th:first-child\{left:0", css)


def test_html_escapes_what_it_shows(clean_copy: pathlib.Path) -> None:
    tap = clean_copy / "clean" / "6.12" / "suite.tap"
    tap.write_text(tap.read_text().replace(
        "# ok 1 protected_dir.R1_read_denied",
        "# # <script>alert(1)</script>\n# not ok 1 protected_dir.R1_read_denied", 1))
    page = report.html_page(report.build(run.load(clean_copy / "clean"), promises.parse(SPEC)))
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_html_opens_with_what_failed() -> None:
    """Kernel, promise, test and links, before the legend and the table."""
    m = matrix("faults")
    page = report.html_page(m)
    assert page.index('id="verdict"') < page.index('class="legend"') < page.index('id="matrix"')
    summary = page[page.index('<table id="failed"'):]
    summary = summary[:summary.index("</table>")]
    failed = {key for key, cell in cells(m).items() if cell.state == "fail"}
    for kernel, row in failed:
        assert f'data-kernel="{kernel}" data-row="{html.escape(row)}"' in summary
        assert f'href="#{report.anchor("out", kernel, row)}"' in summary
    r6 = summary[summary.index('data-kernel="6.12" data-row="R6"'):]
    assert "<code>protected_dir.R6_truncate_o_trunc</code>" in r6[:r6.index("</tr>")]
    assert 'href="6.12/suite.tap"' in r6[:r6.index("</tr>")]
    clean = report.html_page(matrix("clean"))
    assert 'id="failed"' not in clean and "Nothing failed on 5 kernel(s)." in clean
