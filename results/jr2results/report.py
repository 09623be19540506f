# SPDX-License-Identifier: GPL-2.0-only
"""The matrix report: kernels as columns, promise groups and promises as rows.

Each cell says what the tests of that promise did on that kernel: pass,
fail, skipped (with the reason), refused by design (the runtime refuses the
kernel, as the entry's ABI predicts), or untested (no test names the
promise).  Two rows above the promises say whether the kernel gave the
predicted verdict and whether its console stayed clean.  Written as Markdown
for a terminal and as one self-contained HTML page (no script, no link out).
"""
import dataclasses
import html

from . import gate, promises as promises_mod, tap

STATES = ("pass", "fail", "skip", "refused", "untested")
MARK = {"pass": "pass", "fail": "FAIL", "skip": "skip", "refused": "refused",
        "untested": "-"}


@dataclasses.dataclass
class Cell:
    state: str  # one of STATES
    text: str  # short, for the table
    detail: list  # one line per test or finding

    @property
    def reasons(self):
        return sorted({line.split(": ", 1)[1] for line in self.detail
                       if line.startswith("skip ") and ": " in line})


@dataclasses.dataclass
class Row:
    key: str  # promise ID, or "vm.verdict" / "vm.health"
    label: str
    cells: dict  # kernel name -> Cell


@dataclasses.dataclass
class Section:
    title: str
    rows: list


@dataclasses.dataclass
class Matrix:
    run_id: str
    about: str  # commit and times of the run, one line
    kernels: list  # run.Kernel
    sections: list


def _line(r):
    if r.status == "pass":
        return f"pass {r.name}"
    return f"{r.status} {r.name}: {r.reason or 'no reason given'}"


def unreported(kernels):
    """{kernel name: Results}: each kernel's results, plus an error for every
    test that ran elsewhere but not here because its binary ended early."""
    names = {}
    for k in kernels:
        for r in k.results:
            names.setdefault(r.name, r.binary)
    out = {}
    for k in kernels:
        ended = {r.binary for r in k.results if r.status == "error" and r.name.endswith(">")}
        seen = {r.name for r in k.results}
        out[k.name] = k.results + [
            tap.Result(binary, name, "error", f"never reported: {binary} ended early")
            for name, binary in names.items() if name not in seen and binary in ended]
    return out


def promise_cell(kernel, promise_id, results):
    tests = [r for r in results if promise_id in r.promises]
    detail = [_line(r) for r in tests]
    if not tests:
        return Cell("untested", "", ["no test of this promise ran"])
    bad = [r for r in tests if r.status in ("fail", "error")]
    passed = [r for r in tests if r.status == "pass"]
    if bad:
        return Cell("fail", f"{len(bad)} of {len(tests)} failed", detail)
    if kernel.refused_by_design and not passed:
        return Cell("refused", kernel.summary.get("verdict_code") or kernel.verdict, detail)
    if passed:
        skipped = len(tests) - len(passed)
        return Cell("pass", f"{len(passed)}/{len(tests)}" + (f", {skipped} skipped"
                                                             if skipped else ""), detail)
    cell = Cell("skip", "", detail)
    cell.text = "; ".join(cell.reasons)
    return cell


def _vm_rows(kernels):
    verdict, health = {}, {}
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


def build(run, groups):
    """groups: promises.Group list (PROMISES.md); tests name IDs it may lack."""
    kernels = run.kernels
    results = unreported(kernels)

    def row(pid, label):
        return Row(pid, label, {k.name: promise_cell(k, pid, results[k.name]) for k in kernels})

    sections = [Section("Kernel", _vm_rows(kernels))]
    known = set()
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
            cells = {}
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
    return Matrix(run.id, about, kernels, sections)


def _test_cell(kernel, tests):
    if not tests:
        return Cell("untested", "", ["did not run"])
    r = tests[0]
    state = {"pass": "pass", "skip": "skip", "fail": "fail", "error": "fail"}[r.status]
    if state == "skip" and kernel.refused_by_design:
        state = "refused"
    return Cell(state, r.reason if state != "pass" else "", [_line(r) for r in tests])


def regime(s):
    """The ABI regime of a kernel, from what its guest found: the ABI (and the
    cap), the verdict, whether signals and abstract sockets are scoped (G6),
    and Yama's ptrace_scope when the kernel has Yama."""
    landlock = s.get("landlock", "ok")
    if landlock != "ok":
        return f"Landlock {landlock}"
    text = f"ABI {s.get('abi')}"
    if s.get("cap"):
        text += f" capped at {s['cap']}"
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


def _header(k):
    s = k.summary
    abi = regime(s)
    c = {"pass": 0, "fail": 0, "skip": 0, "error": 0}
    for r in k.results:
        c[r.status] += 1
    tests = f"{c['pass']} pass, {c['fail'] + c['error']} fail, {c['skip']} skip"
    return k.name, f"{s.get('release', '?')}", abi, s.get("outcome", "?"), tests


def markdown(matrix):
    kernels = matrix.kernels
    notes, out = [], [f"# jr2 conformance matrix, run {matrix.run_id}", ""]
    if matrix.about:
        out[1:1] = ["", matrix.about]
    out.append("| | " + " | ".join(f"**{k.name}**" for k in kernels) + " |")
    out.append("|---|" + "---|" * len(kernels))
    for label, index in (("release", 1), ("Landlock", 2), ("outcome", 3), ("tests", 4)):
        out.append(f"| {label} | " + " | ".join(_header(k)[index] for k in kernels) + " |")

    def note(text):
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
    return "\n".join(out) + "\n"


def _short(text, width=60):
    return text if len(text) <= width else text[:width - 3].rstrip() + "..."


def _md(text):
    return text.replace("|", "\\|").replace("\n", " ")


CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1b1b;background:#fff}
h1{font-size:1.4em}table{border-collapse:collapse}
th,td{border:1px solid #bbb;padding:.25em .5em;vertical-align:top}
thead th{background:#eef;position:sticky;top:0}
th.promise{text-align:left;font-weight:normal;max-width:32em}
th.promise b{display:inline-block;min-width:2.5em}
tr.group th{background:#ddd;text-align:left}
td.cell{text-align:center;min-width:7em;font-size:.9em}
td.pass{background:#c8ecc8}td.fail{background:#f4b4b4;font-weight:bold}
td.skip{background:#fbeab0}td.refused{background:#cfd8f0}td.untested{background:#f2f2f2;color:#888}
.legend span{display:inline-block;padding:.1em .6em;margin-right:.5em;border:1px solid #bbb}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em}
"""


def html_page(matrix):
    e = html.escape
    kernels = matrix.kernels
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>jr2 conformance matrix, run {e(matrix.run_id)}</title>",
           f"<style>{CSS}</style></head><body>",
           f"<h1>jr2 conformance matrix, run {e(matrix.run_id)}</h1>",
           f'<p class="about">{e(matrix.about)}</p>' if matrix.about else "",
           '<p class="legend"><span style="background:#c8ecc8">pass</span>'
           '<span style="background:#f4b4b4">fail</span>'
           '<span style="background:#fbeab0">skipped (reason in the cell)</span>'
           '<span style="background:#cfd8f0">refused by design</span>'
           '<span style="background:#f2f2f2">untested</span></p>',
           '<table id="matrix"><thead><tr><th>promise</th>']
    for k in kernels:
        name, release, abi, outcome, tests = _header(k)
        out.append(f'<th class="kernel" data-kernel="{e(name)}">{e(name)}<br>'
                   f"<small>{e(release)}<br>{e(abi)}<br>outcome: {e(outcome)}<br>"
                   f"{e(tests)}</small></th>")
    out.append("</tr></thead><tbody>")
    for section in matrix.sections:
        out.append(f'<tr class="group"><th colspan="{len(kernels) + 1}">'
                   f"{e(section.title)}</th></tr>")
        for row in section.rows:
            out.append(f'<tr data-row="{e(row.key)}"><th class="promise"><b>{e(row.key)}</b> '
                       f"{e(row.label)}</th>")
            for k in kernels:
                c = row.cells[k.name]
                label = {"pass": "pass", "fail": "FAIL", "skip": "skipped",
                         "refused": "refused by design", "untested": "untested"}[c.state]
                text = f"<br><small>{e(c.text)}</small>" if c.text else ""
                out.append(f'<td class="cell {c.state}" data-kernel="{e(k.name)}" '
                           f'data-row="{e(row.key)}" data-state="{c.state}" '
                           f'title="{e(chr(10).join(c.detail))}">{label}{text}</td>')
            out.append("</tr>")
    out.append("</tbody></table>")
    failures = [(k, row, row.cells[k.name]) for s in matrix.sections for row in s.rows
                for k in kernels if row.cells[k.name].state == "fail"]
    if failures:
        out.append("<h2>Failures</h2>")
        for k, row, c in failures:
            out.append(f"<h3>{e(k.name)}: {e(row.key)}</h3><pre>{e(chr(10).join(c.detail))}</pre>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
