# SPDX-License-Identifier: GPL-2.0-only
"""The HTML matrix in headless Chromium: `make test-report-browser`.

Kept out of `make test` (it needs the chromium package, ~350 MB).  The page
of the `faults` fixture run is loaded from a file; the DOM Chromium built is
compared cell by cell with the report's model, and the screenshot must show
the table: its pixels hold the colour of each cell state.
"""
import os
import pathlib
import shutil
import signal
import struct
import subprocess
import zlib

import pytest

from conftest import FIXTURES
from jr2results import promises, report, run
from test_report import SPEC, Cells, cells

CHROMIUM = shutil.which("chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--window-size=1400,1000"]
# The background of each state's cell (report.CSS), as RGB.
COLOURS = {"pass": (0xc8, 0xec, 0xc8), "fail": (0xf4, 0xb4, 0xb4), "skip": (0xfb, 0xea, 0xb0),
           "refused": (0xcf, 0xd8, 0xf0)}
OUT = pathlib.Path(os.environ.get("REPORT_BROWSER_OUT", "build/report-browser"))


def chromium(profile, *args, timeout=120):
    """Runs chromium in its own session, so that a hang kills all its processes."""
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


def png_pixels(data):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
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
    raw, stride, prev, rows = zlib.decompress(idat), width * bpp, bytearray(width * bpp), []
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


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    assert CHROMIUM, "chromium is not installed: `make test-report-browser` installs it"
    matrix = report.build(run.load(FIXTURES / "faults"), promises.parse(SPEC))
    OUT.mkdir(parents=True, exist_ok=True)
    path = (OUT / "matrix.html").resolve()
    path.write_text(report.html_page(matrix))
    return matrix, path, tmp_path_factory.mktemp("chromium")


def test_dom_holds_every_cell_of_the_model(page):
    matrix, path, tmp = page
    dom = chromium(tmp / "profile-dom", "--dump-dom", path.as_uri())
    parser = Cells()
    parser.feed(dom)
    expected = {key: cell.state for key, cell in cells(matrix).items()}
    assert parser.cells == expected
    assert "<table" in dom and parser.external == []


def test_screenshot_shows_the_coloured_table(page):
    matrix, path, tmp = page
    shot = (OUT / "matrix.png").resolve()
    shot.unlink(missing_ok=True)
    chromium(tmp / "profile-shot", f"--screenshot={shot}", path.as_uri())
    width, height, rows = png_pixels(shot.read_bytes())
    assert (width, height) == (1400, 1000)
    counts = dict.fromkeys(COLOURS, 0)
    for row in rows:
        for pixel in row:
            for state, colour in COLOURS.items():
                if pixel == colour:
                    counts[state] += 1
    # Each state shows as at least one cell's worth of its colour (a cell is ~100x30 px).
    assert all(n > 2000 for n in counts.values()), counts
