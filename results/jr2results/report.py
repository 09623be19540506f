# SPDX-License-Identifier: GPL-2.0-only
"""The matrix report: kernels as columns, promise groups and promises as rows.

Each cell says what the tests of that promise did on that kernel: pass,
fail, skipped (with the reason), refused by design (the runtime refuses the
kernel, as the entry's ABI predicts), or untested (no test names the
promise).  The page opens with what failed: one row per failed test (or
finding) with its kernel and promise, linking its output, in a box at most a
quarter of the window high so that the table shows below it.  Two rows
above the promises say whether the kernel gave the
predicted verdict and whether its console stayed clean.  Written as Markdown
for a terminal and as one HTML page (inline CSS, no script, nothing fetched):
each kernel's column links its result files (console.log, suite.tap,
summary.json, check.json, relative to the page), each failed cell links the
output of its tests further down the page, and the header and the promise
column stay in view when the table scrolls.
"""
import dataclasses
import html
import json
import os
import pathlib
import re
from typing import Any

from . import gate, kcidb, promises as promises_mod, run as run_mod, tap

STATES = ("pass", "fail", "skip", "refused", "untested")
MARK = {"pass": "pass", "fail": "FAIL", "skip": "skip", "refused": "refused",
        "untested": "-"}


@dataclasses.dataclass
class Cell:
    state: str  # one of STATES
    text: str  # short, for the table
    detail: list[str]  # one line per test or finding
    tests: list[tap.Result] = dataclasses.field(default_factory=list)

    @property
    def reasons(self) -> list[str]:
        return sorted({line.split(": ", 1)[1] for line in self.detail
                       if line.startswith("skip ") and ": " in line})


@dataclasses.dataclass
class Row:
    key: str  # promise ID, or "vm.verdict" / "vm.health"
    label: str
    cells: dict[str, Cell]  # kernel name -> Cell


@dataclasses.dataclass
class Section:
    title: str
    rows: list[Row]


@dataclasses.dataclass
class Matrix:
    run_id: str
    about: str  # commit and times of the run, one line
    kernels: list[run_mod.Kernel]
    sections: list[Section]
    repro: dict[str, Any] | None = None  # repro.json of `make repro(-matrix)`: its own section
    kcidb_checked: str = ""  # what the KCIDB check of the run's kcidb.json covered

    @property
    def upstream(self) -> list[run_mod.Kernel]:
        """The kernels whose own Landlock selftests ran or were skipped."""
        return [k for k in self.kernels if k.upstream is not None]


def upstream_rows(k: run_mod.Kernel) -> list[tuple[str, str]]:
    """(label, text) of a kernel's own Landlock selftests: their failures are
    findings about the kernel (kernels/README.md), not failures of this run."""
    u = k.upstream
    if u is None:
        return []
    if u.skipped:
        return [("outcome", "skipped"), ("why", u.summary.get("skip_reason", ""))]
    c = tap.counts(u.results)
    findings = u.summary.get("kernel_findings") or [r.name for r in u.results
                                                    if r.status == "fail"]
    return [("outcome", u.summary.get("outcome") or "?"),
            ("tests", f"{c['pass']} pass, {c['fail']} fail, {c['skip']} skip, "
                      f"{c['error']} error"),
            ("kernel findings", ", ".join(findings) if findings else "none")]


def _line(r: tap.Result) -> str:
    if r.status == "pass":
        return f"pass {r.name}"
    return f"{r.status} {r.name}: {r.reason or 'no reason given'}"


def unreported(kernels: list[run_mod.Kernel]) -> dict[str, list[tap.Result]]:
    """{kernel name: Results}: each kernel's results, plus an error for every
    test that ran elsewhere but not here because its binary ended early."""
    names: dict[str, str] = {}
    for k in kernels:
        for r in k.results:
            names.setdefault(r.name, r.binary)
    out: dict[str, list[tap.Result]] = {}
    for k in kernels:
        ended = {r.binary for r in k.results if r.status == "error" and r.name.endswith(">")}
        seen = {r.name for r in k.results}
        out[k.name] = k.results + [
            tap.Result(binary, name, "error", f"never reported: {binary} ended early")
            for name, binary in names.items() if name not in seen and binary in ended]
    return out


def promise_cell(kernel: run_mod.Kernel, promise_id: str, results: list[tap.Result]) -> Cell:
    tests = [r for r in results if promise_id in r.promises]
    detail = [_line(r) for r in tests]
    if not tests:
        return Cell("untested", "", ["no test of this promise ran"])
    bad = [r for r in tests if r.status in ("fail", "error")]
    passed = [r for r in tests if r.status == "pass"]
    if bad:
        return Cell("fail", f"{len(bad)} of {len(tests)} failed", detail, tests)
    if kernel.refused_by_design and not passed:
        return Cell("refused", kernel.summary.get("verdict_code") or kernel.verdict, detail)
    if passed:
        skipped = len(tests) - len(passed)
        return Cell("pass", f"{len(passed)}/{len(tests)}" + (f", {skipped} skipped"
                                                             if skipped else ""), detail)
    cell = Cell("skip", "", detail)
    cell.text = "; ".join(cell.reasons)
    return cell


def _vm_rows(kernels: list[run_mod.Kernel]) -> list[Row]:
    verdict: dict[str, Cell] = {}
    health: dict[str, Cell] = {}
    for k in kernels:
        found = gate.verdict_findings(k)
        verdict[k.name] = (Cell("fail", "; ".join(found), found) if found else
                           Cell("pass", k.verdict_text,
                                [f"verdict {k.verdict_text}, as predicted"]))
        found = gate.health_findings(k)
        health[k.name] = (Cell("fail", f"{len(found)} problem(s)", found) if found else
                          Cell("pass", "clean", ["no oops, WARNING, panic or timeout"]))
    return [Row("vm.verdict", "verdict as the entry's ABI predicts", verdict),
            Row("vm.health", "console clean, results complete", health)]


def build(run: run_mod.Run, groups: list[promises_mod.Group]) -> Matrix:
    """groups: promises.Group list (PROMISES.md); tests name IDs it may lack."""
    kernels = run.kernels
    results = unreported(kernels)

    def row(pid: str, label: str) -> Row:
        return Row(pid, label, {k.name: promise_cell(k, pid, results[k.name]) for k in kernels})

    sections = [Section("Kernel", _vm_rows(kernels))]
    known: set[str] = set()
    for g in groups:
        known.update(p.id for p in g.promises)
        sections.append(Section(f"{g.letter}: {g.title}", [row(p.id, p.text)
                                                              for p in g.promises]))
    extra = sorted({pid for k in kernels for r in k.results for pid in r.promises} - known,
                   key=promises_mod.order_key)
    if extra:
        sections.append(Section("Promise IDs not in PROMISES.md",
                                [row(pid, "(not in PROMISES.md)") for pid in extra]))
    orphans = sorted({r.name for k in kernels for r in k.results if not r.promises})
    if orphans:
        rows = []
        for name in orphans:
            cells: dict[str, Cell] = {}
            for k in kernels:
                tests = [r for r in k.results if r.name == name]
                cells[k.name] = _test_cell(k, tests)
            rows.append(Row(name, "test without a promise ID", cells))
        sections.append(Section("Tests that name no promise", rows))
    meta = run.meta
    about = " ".join(part for part in (
        f"commit {meta['commit'][:12]}," if meta.get("commit") else "",
        f"from {meta['start']}" if meta.get("start") else "",
        f"to {meta['end']}" if meta.get("end") else "") if part).rstrip(",")
    return Matrix(run.id, about, kernels, sections, load_repro(run.path))


def load_repro(path: str | pathlib.Path) -> dict[str, Any] | None:
    """results/<run>/repro.json (vmtest/repro), or None."""
    try:
        data: Any = json.loads((pathlib.Path(path) / "repro.json").read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("rows") and data.get("header") else None


def _repro_title(r: dict[str, Any]) -> str:
    return (f"Reproducer {r.get('repro')} (CONFINE={r.get('confine')}, "
            f"expect: {r.get('expect') or 'none stated'})")


def repro_markdown(r: dict[str, Any]) -> list[str]:
    out = ["", f"## {_md(_repro_title(r))}", "",
           "| " + " | ".join(r["header"]) + " |", "|" + "---|" * len(r["header"])]
    out += ["| " + " | ".join(_md(str(c)) for c in row) + " |" for row in r["rows"]]
    return out


def _test_cell(kernel: run_mod.Kernel, tests: list[tap.Result]) -> Cell:
    if not tests:
        return Cell("untested", "", ["did not run"])
    r = tests[0]
    state = {"pass": "pass", "skip": "skip", "fail": "fail", "error": "fail"}[r.status]
    if state == "skip" and kernel.refused_by_design:
        state = "refused"
    return Cell(state, r.reason if state != "pass" else "", [_line(r) for r in tests], tests)


def regime(s: dict[str, Any]) -> str:
    """The ABI regime of a kernel, from what its guest found: the ABI (and the
    cap), the verdict, whether signals and abstract sockets are scoped (G6),
    and Yama's ptrace_scope when the kernel has Yama."""
    landlock = s.get("landlock", "ok")
    if landlock != "ok":
        return f"Landlock {landlock}"
    text = f"ABI {s.get('abi')}"
    if s.get("cap"):
        text += f" capped at {s['cap']}"
    if s.get("profile", "bare") != "bare":
        text += f", in the container profile {s['profile']}"
    features = s.get("features") or {}
    if s.get("verdict_code") and s.get("verdict_code") != "accepted":
        text += f": refused ({s['verdict_code']})"
    elif "scope_signal" in features:
        scoped = [f for f in ("scope_signal", "scope_abstract_unix")
                  if features.get(f) == "enforced"]
        text += (": signals and abstract sockets scoped" if len(scoped) == 2 else
                 ": signals and abstract sockets unscoped (G6)" if not scoped else
                 f": only {', '.join(scoped)} enforced")
    if s.get("yama_ptrace_scope") is not None:
        text += f"; Yama ptrace_scope {s['yama_ptrace_scope']}"
    return text


def _header(k: run_mod.Kernel) -> tuple[str, str, str, str, str]:
    s = k.summary
    abi = (regime(s) if s.get("abi") is not None or s.get("landlock", "ok") != "ok"
           else kcidb.landlock_text(s))
    c = {"pass": 0, "fail": 0, "skip": 0, "error": 0}
    for r in k.results:
        c[r.status] += 1
    tests = f"{c['pass']} pass, {c['fail'] + c['error']} fail, {c['skip']} skip"
    return k.name, s.get("release") or "?", abi, s.get("outcome") or "?", tests


def markdown(matrix: Matrix) -> str:
    kernels = matrix.kernels
    notes: list[str] = []
    out = [f"# jr2 conformance matrix, run {matrix.run_id}", ""]
    if matrix.about:
        out[1:1] = ["", matrix.about]
    out.append("| | " + " | ".join(f"**{k.name}**" for k in kernels) + " |")
    out.append("|---|" + "---|" * len(kernels))
    for label, index in (("release", 1), ("Landlock", 2), ("outcome", 3), ("tests", 4)):
        out.append(f"| {label} | " + " | ".join(_header(k)[index] for k in kernels) + " |")

    def note(text: str) -> str:
        if text not in notes:
            notes.append(text)
        return f"[{notes.index(text) + 1}]"

    for section in matrix.sections:
        out.append(f"| **{section.title}** |" + " |" * len(kernels))
        for row in section.rows:
            cells = []
            for k in kernels:
                c = row.cells[k.name]
                if c.state == "pass":
                    cells.append("pass")
                elif c.state == "untested":
                    cells.append("-")
                elif c.state == "refused":
                    cells.append("refused")
                elif c.state == "skip":
                    cells.append("skip " + "".join(note(r) for r in c.reasons))
                else:
                    cells.append("**FAIL** " + note(f"{k.name} {row.key}: " + "; ".join(
                        d for d in c.detail if not d.startswith(("pass ", "skip ")))))
            label = row.key if row.key.startswith("vm.") else f"{row.key} {_short(row.label)}"
            out.append(f"| {_md(label)} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("pass: every test of the promise passed (some may skip); skip: none ran, "
               "for the reason noted; refused: the runtime refuses this kernel, as its ABI "
               "predicts; -: no test names this promise.")
    if notes:
        out.append("")
        out += [f"[{i}] {_md(text)}" for i, text in enumerate(notes, 1)]
    if matrix.upstream:
        out += ["", "## The kernel's own Landlock selftests", "",
                "Each kernel's own tools/testing/selftests/landlock of its own version; a test "
                "that fails there is a finding about the kernel (kernels/README.md), not a "
                "failure of jr2.", "",
                "| | " + " | ".join(f"**{k.name}**" for k in matrix.upstream) + " |",
                "|---|" + "---|" * len(matrix.upstream)]
        rows = [upstream_rows(k) for k in matrix.upstream]
        for label in ("outcome", "tests", "kernel findings", "why"):
            out.append(f"| {label} | " + " | ".join(
                _md(dict(r).get(label, "")) for r in rows) + " |")
    if matrix.repro:
        out += repro_markdown(matrix.repro)
    return "\n".join(out) + "\n"


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[:width - 3].rstrip() + "..."


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


# The table scrolls in its own box (as high as the window): its header row
# sticks to the top, the promise column to the left (the corner to both), so
# that 15+ kernels and every promise scroll under them.
CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1b1b;background:#fff}
h1{font-size:1.4em}table{border-collapse:separate;border-spacing:0}
div.scroll{overflow:auto;max-height:calc(100vh - 1em);max-width:100%;border:1px solid #bbb}
th,td{border:1px solid #bbb;padding:.25em .5em;vertical-align:top}
thead th{background:#eef;position:sticky;top:0;z-index:2}
thead th:first-child{left:0;z-index:3}
th.promise{text-align:left;font-weight:normal;min-width:18em;max-width:32em;
position:sticky;left:0;z-index:1;background:#f8f8fc}
th.promise b{display:inline-block;min-width:2.5em}
tr.group th{background:#ddd;text-align:left}
tr.group th span{position:sticky;left:.5em;display:inline-block}
th.kernel a{font-weight:normal;font-size:.85em}
td.cell a{color:inherit}
code{font:.92em ui-monospace,monospace;background:#ececf4;padding:0 .2em}
td.cell{text-align:center;min-width:7em;font-size:.9em}
td.pass{background:#c8ecc8}td.fail{background:#f4b4b4;font-weight:bold}
td.skip{background:#fbeab0}td.refused{background:#cfd8f0}td.untested{background:#f2f2f2;color:#888}
.legend span{display:inline-block;padding:.1em .6em;margin-right:.5em;border:1px solid #bbb}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em}
.verdict.fail{color:#8b0000}.verdict.pass{color:#145214;font-weight:bold}
div.failed{overflow:auto;max-height:25vh;margin-bottom:1em;border:1px solid #bbb}
table#failed td{background:#fbe3e3}table#failed thead th{position:sticky;top:0;background:#eee}
"""


KERNEL_FILES = ("console.log", "suite.tap", "summary.json", "check.json")


def _inline_code(escaped: str) -> str:
    """`code` in an already escaped text as <code>code</code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)


def anchor(*parts: str) -> str:
    """An id for HTML from any kernel name and row key ("out-6.12-R6")."""
    return "-".join(re.sub(r"[^A-Za-z0-9_.]+", "_", p) for p in parts)


def _href(base: str, *parts: str) -> str:
    return html.escape("/".join(
        p for p in (base.replace(os.sep, "/") if base else "", *parts) if p), quote=True)


def failures_of(matrix: Matrix) -> list[tuple[run_mod.Kernel, Row, Cell]]:
    """(kernel, row, cell) of every failed cell, in the table's order."""
    return [(k, row, row.cells[k.name]) for s in matrix.sections for row in s.rows
            for k in matrix.kernels if row.cells[k.name].state == "fail"]


def failed_summary(matrix: Matrix, base: str = "") -> list[str]:
    """What failed, before anything else on the page: one row per failed
    test (a kernel row: per finding), with its kernel, promise and links to
    its output further down and to the kernel's TAP."""
    e = html.escape
    failures = failures_of(matrix)
    if not failures:
        return [f'<p id="verdict" class="verdict pass">Nothing failed on '
                f"{len(matrix.kernels)} kernel(s).</p>"]
    kernels = sorted({k.name for k, _, _ in failures}, key=[k.name for k in matrix.kernels].index)
    out = [f'<h2 id="verdict" class="verdict fail">What failed: {len(failures)} cell(s) on '
           f"{e(', '.join(kernels))}</h2>",
           '<div class="failed"><table id="failed"><thead><tr><th>kernel</th><th>promise</th>'
           "<th>test</th><th>output</th></tr></thead><tbody>"]
    for k, row, c in failures:
        here = f'<a href="#{anchor("out", k.name, row.key)}">output</a>'
        if (k.path / "suite.tap").is_file() and c.tests:
            here += f' <a href="{_href(base, k.path.name, "suite.tap")}">TAP</a>'
        lines = [r.name for r in c.tests if r.status in ("fail", "error")] or c.detail or [""]
        for line in lines:
            out.append(f'<tr data-kernel="{e(k.name)}" data-row="{e(row.key)}">'
                       f"<td>{e(k.name)}</td><td><b>{e(row.key)}</b> "
                       f"{_inline_code(e(_short(row.label)))}</td>"
                       f"<td><code>{e(line)}</code></td><td>{here}</td></tr>")
    out.append("</tbody></table></div>")
    return out


def html_page(matrix: Matrix, base: str = "") -> str:
    """The page; `base`: the run folder relative to where the page is
    written ("" when in it), for the links to each kernel's files."""
    e = html.escape
    kernels = matrix.kernels
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>jr2 conformance matrix, run {e(matrix.run_id)}</title>",
           f"<style>{CSS}</style></head><body>",
           f"<h1>jr2 conformance matrix, run {e(matrix.run_id)}</h1>",
           f'<p class="about">{e(matrix.about)}</p>' if matrix.about else "",
           *failed_summary(matrix, base),
           '<p class="legend"><span style="background:#c8ecc8">pass</span>'
           '<span style="background:#f4b4b4">fail</span>'
           '<span style="background:#fbeab0">skipped (reason in the cell)</span>'
           '<span style="background:#cfd8f0">refused by design</span>'
           '<span style="background:#f2f2f2">untested</span></p>',
           '<div class="scroll"><table id="matrix"><thead><tr><th>promise</th>']
    for k in kernels:
        name, release, abi, outcome, tests = _header(k)
        files = []
        for f, label in zip(KERNEL_FILES, ("console", "TAP", "summary", "check")):
            if (k.path / f).is_file():
                files.append(f'<a href="{_href(base, k.path.name, f)}" title="{e(f)}">'
                             f"{label}</a>")
            else:
                files.append(f'<span class="missing">{e(f)} missing</span>')
        out.append(f'<th class="kernel" data-kernel="{e(name)}">{e(name)}<br>'
                   f"<small>{e(release)}<br>{e(abi)}<br>outcome: {e(outcome)}<br>"
                   f"{e(tests)}</small><br>{' '.join(files)}</th>")
    out.append("</tr></thead><tbody>")
    for section in matrix.sections:
        out.append(f'<tr class="group"><th colspan="{len(kernels) + 1}">'
                   f"<span>{_inline_code(e(section.title))}</span></th></tr>")
        for row in section.rows:
            out.append(f'<tr data-row="{e(row.key)}"><th class="promise"><b>{e(row.key)}</b> '
                       f"{_inline_code(e(row.label))}</th>")
            for k in kernels:
                c = row.cells[k.name]
                label = {"pass": "pass", "fail": "FAIL", "skip": "skipped",
                         "refused": "refused by design", "untested": "untested"}[c.state]
                if c.state == "fail":
                    label = f'<a href="#{anchor("out", k.name, row.key)}">{label}</a>'
                text = f"<br><small>{e(c.text)}</small>" if c.text else ""
                out.append(f'<td class="cell {c.state}" id="{anchor("cell", k.name, row.key)}" '
                           f'data-kernel="{e(k.name)}" '
                           f'data-row="{e(row.key)}" data-state="{c.state}" '
                           f'title="{e(chr(10).join(c.detail))}">{label}{text}</td>')
            out.append("</tr>")
    out.append("</tbody></table></div>")
    failures = failures_of(matrix)
    if failures:
        out.append("<h2>Failures</h2>")
    for k, row, c in failures:
        out.append(f'<section class="failure" id="{anchor("out", k.name, row.key)}">'
                   f"<h3>{e(k.name)}: {e(row.key)}</h3><pre>{e(chr(10).join(c.detail))}</pre>")
        for r in c.tests:
            if r.status not in ("fail", "error"):
                continue
            where = (f'<a href="{_href(base, k.path.name, "suite.tap")}">suite.tap</a>'
                     if (k.path / "suite.tap").is_file() else "suite.tap (missing)")
            text = r.output or r.reason or "(no output)"
            if r.status == "error" and r.reason and r.reason not in text:
                text = f"{r.reason}\n{text}"
            out.append(f'<h4>{e(r.name)}: its output (from {where})</h4><pre class="output">'
                       f"{e(text)}</pre>")
        if not c.tests:  # a kernel row: the findings are the output
            links = " ".join(f'<a href="{_href(base, k.path.name, f)}">{e(f)}</a>'
                             for f in KERNEL_FILES if (k.path / f).is_file())
            out.append(f"<p>See {links}</p>" if links else "")
        out.append("</section>")
    if matrix.upstream:
        out.append('<h2 id="upstream">The kernel\'s own Landlock selftests</h2>'
                   "<p>Each kernel's own tools/testing/selftests/landlock of its own version; "
                   "a test that fails there is a finding about the kernel "
                   "(kernels/README.md), not a failure of jr2.</p>"
                   '<div class="scroll"><table id="upstream-table"><thead><tr><th></th>')
        for k in matrix.upstream:
            tap_file = k.path / "upstream" / "suite.tap"
            link = (f' <a href="{_href(base, k.path.name, "upstream", "suite.tap")}">TAP</a>'
                    if tap_file.is_file() else "")
            out.append(f'<th class="kernel">{e(k.name)}{link}</th>')
        out.append("</tr></thead><tbody>")
        rows = [dict(upstream_rows(k)) for k in matrix.upstream]
        for label in ("outcome", "tests", "kernel findings", "why"):
            out.append(f"<tr><th>{e(label)}</th>" + "".join(
                f"<td>{e(r.get(label, ''))}</td>" for r in rows) + "</tr>")
        out.append("</tbody></table></div>")
    if matrix.repro:
        repro = matrix.repro
        out.append(f'<h2>{e(_repro_title(repro))}</h2><table id="repro"><thead><tr>'
                   + "".join(f"<th>{e(h)}</th>" for h in repro["header"]) + "</tr></thead><tbody>")
        out += ["<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in row) + "</tr>"
                for row in repro["rows"]]
        out.append("</tbody></table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
