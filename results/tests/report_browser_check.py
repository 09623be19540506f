# SPDX-License-Identifier: GPL-2.0-only
"""The HTML matrix in headless Chromium: `make test-report-browser`, a step of
`make test` (it installs Debian's chromium).

The page of a run as `jr2-results write` leaves it (the `faults` fixture
run, widened to 16 kernels) is loaded from its file.  The DOM Chromium
built is compared cell by cell with the report's model, and every link in
it must resolve: a `#fragment` to an element of that DOM, a file link to a
file of the run.  Screenshots must show the table (its pixels hold the
colour of each cell state) and, scrolled to the far corner, still the
header row and the promise column (sticky).
"""
import html
import json
import os
import pathlib
import shutil
import signal
import struct
import subprocess
import urllib.parse
import zlib

import pytest

from conftest import FIXTURES
from jr2results import cli, promises, report, run
from test_report import SPEC, Cells, cells

CHROMIUM = shutil.which("chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--window-size=1400,1000"]
# The background of each state's cell (report.CSS), as RGB.
COLOURS = {"pass": (0xc8, 0xec, 0xc8), "fail": (0xf4, 0xb4, 0xb4), "skip": (0xfb, 0xea, 0xb0),
           "refused": (0xcf, 0xd8, 0xf0)}
HEADER, PROMISE_COLUMN = (0xee, 0xee, 0xff), (0xf8, 0xf8, 0xfc)
SUMMARY = (0xfb, 0xe3, 0xe3)  # a row of "What failed"
# (width, height, rows of RGB tuples) of a screenshot
Pixels = tuple[int, int, list[list[tuple[int, ...]]]]
# (model, path, Chromium's DOM, the screenshot's pixels)
Page = tuple[report.Matrix, pathlib.Path, str, Pixels]
OUT = pathlib.Path(os.environ.get("REPORT_BROWSER_OUT", "build/report-browser"))
WIDE = 16  # kernels: more than a 1400-pixel window holds


def chromium(profile: pathlib.Path, *args: str, timeout: float = 120) -> str:
    """Runs chromium in its own session, so that a hang kills all its processes."""
    assert CHROMIUM, "chromium is not installed: `make test-report-browser` installs it"
    proc = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"chromium {' '.join(args)} did not end within {timeout} s")
    assert proc.returncode == 0, err.decode(errors="replace")[-2000:]
    return out.decode()


def png_pixels(data: bytes) -> Pixels:
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, bpp = 8, b"", 0, 0, 3
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), f"PNG depth {depth} colour type {colour}"
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, prev = zlib.decompress(idat), width * bpp, bytearray(width * bpp)
    rows: list[list[tuple[int, ...]]] = []
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xff
            elif kind == 2:
                line[i] = (line[i] + b) & 0xff
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xff
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def widen(path: pathlib.Path, count: int) -> None:
    """The run at `path` with copies of its kernels added up to `count`."""
    meta = json.loads((path / "run.json").read_text())
    names = list(meta["kernels"])
    i = 0
    while len(names) < count:
        source = names[i % len(meta["kernels"])]
        name = f"{source}-copy{i}"
        shutil.copytree(path / source, path / name)
        summary = json.loads((path / name / "summary.json").read_text())
        summary["kernel"] = name
        (path / name / "summary.json").write_text(json.dumps(summary))
        names.append(name)
        i += 1
    meta["kernels"] = names
    (path / "run.json").write_text(json.dumps(meta))


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Page:
    """The page as `jr2-results write` leaves it in a 16-kernel run, loaded
    once: (model, path, Chromium's DOM, the screenshot's pixels)."""
    assert CHROMIUM, "chromium is not installed: `make test-report-browser` installs it"
    if OUT.exists():
        shutil.rmtree(OUT)
    shutil.copytree(FIXTURES / "faults", OUT / "faults")
    widen(OUT / "faults", WIDE)
    the_run = run.load(OUT / "faults")
    assert len(the_run.kernels) == WIDE
    cli.write_outputs(the_run, OUT / "faults")
    matrix = report.build(the_run, promises.parse(SPEC))
    path = (OUT / "faults" / "matrix.html").resolve()
    path.write_text(report.html_page(matrix))  # the model's spec: SPEC
    shot = (OUT / "matrix.png").resolve()
    dom = chromium(tmp_path_factory.mktemp("chromium"), "--dump-dom", f"--screenshot={shot}",
                   path.as_uri())
    return matrix, path, dom, png_pixels(shot.read_bytes())


def test_dom_holds_every_cell_of_the_model_and_every_link_resolves(page: Page) -> None:
    matrix, path, dom, _ = page
    parser = Cells()
    parser.feed(dom)
    expected = {key: cell.state for key, cell in cells(matrix).items()}
    assert parser.cells == expected
    assert "<table" in dom and parser.external == []
    fragments = [h for h in parser.links if h.startswith("#")]
    files = [h for h in parser.links if not h.startswith("#")]
    failed = [key for key, state in expected.items() if state == "fail"]
    # Each failed cell links its output, and so do the rows of "What failed".
    assert len(set(fragments)) == len(failed) > 0 and len(files) >= 4 * WIDE
    unresolved = [h for h in fragments if h[1:] not in parser.ids]
    unresolved += [h for h in files
                   if not pathlib.Path(urllib.parse.unquote(urllib.parse.urlparse(
                       urllib.parse.urljoin(path.as_uri(), h)).path)).is_file()]
    assert unresolved == []


def test_screenshot_shows_the_coloured_table(page: Page) -> None:
    width, height, rows = page[3]
    assert (width, height) == (1400, 1000)
    counts = dict.fromkeys(COLOURS, 0)
    for row in rows:
        for pixel in row:
            for state, colour in COLOURS.items():
                if pixel == colour:
                    counts[state] += 1
    # Each state shows as at least one cell's worth of its colour (a cell is ~100x30 px).
    assert all(n > 2000 for n in counts.values()), counts


def test_header_and_promise_column_stay_in_view_at_the_far_corner(
        page: Page, tmp_path: pathlib.Path) -> None:
    """The page at the table's box (below "What failed") and the box scrolled
    to its far corner (as a reader would; a copy of the page with one line
    of script does it, the report has none): the
    header row must still be at the top of the box and the promise column at
    its left, over the cells of the last kernels."""
    matrix, path, _, (_, _, unscrolled) = page
    scrolled = path.with_name("matrix-scrolled.html")
    scrolled.write_text(path.read_text().replace(
        "</body>", '<script>document.querySelector("div.scroll").scrollTo(1e6, 1e6)</script>'
        # What is above the table hidden: the window as a reader scrolled to
        # the table sees it (headless Chromium's screenshot is of the top).
        "<style>h1, p.about, #verdict, div.failed, p.legend {display: none}</style>"
        "</body>"))
    shot = (OUT / "matrix-corner.png").resolve()
    chromium(tmp_path / "profile", f"--screenshot={shot}", scrolled.as_uri())
    width, height, rows = png_pixels(shot.read_bytes())
    header = [y for y in range(height) if sum(p == HEADER for p in rows[y]) > width // 2]
    column = [x for x in range(width // 4)
              if sum(row[x] == PROMISE_COLUMN for row in rows) > height // 3]
    assert header and header[0] < height // 4, "no header row at the top of the table"
    assert column and column[0] < 60, "no promise column at the left of the table"
    # The box did scroll: under the header, other cells than on the page as loaded.
    assert rows[header[-1] + 40] != unscrolled[header[-1] + 40]


def test_what_failed_opens_the_page(page: Page) -> None:
    """Before the legend and the table: each failed cell's kernel, promise and
    tests, in rows whose red shows in the first screen, linking the output."""
    matrix, _, dom, (width, height, rows) = page
    assert dom.index('id="verdict"') < dom.index('class="legend"') < dom.index('id="matrix"')
    summary = dom[dom.index('<table id="failed"'):]
    summary = summary[:summary.index("</table>")]
    failed = {key for key, cell in cells(matrix).items() if cell.state == "fail"}
    for kernel, row in failed:
        assert any(f'data-kernel="{kernel}" data-row="{r}"' in summary
                   for r in (row, html.escape(row, quote=False))), (kernel, row)
    assert "protected_dir.R6_truncate_o_trunc" in summary
    red = sum(pixel == SUMMARY for row in rows[:height // 2] for pixel in row)
    assert red > 5000, f"{red} pixels of the summary's rows in the first half-screen"
