# SPDX-License-Identifier: GPL-2.0-only
"""jr2-results: turn a run into JUnit, KCIDB and the matrix report; compare
two runs; hash binaries; decide the release gate.  See `jr2-results --help`."""
import argparse
import hashlib
import json
import os
import pathlib
import sys
from collections.abc import Iterable
from typing import Any

from . import compare, gate, junit, kcidb, kcidb_check, promises, report, run as run_mod

REPO = pathlib.Path(__file__).resolve().parents[2]
PROG = "jr2-results"


class UsageError(Exception):
    """A bad input: the message names it, its value and the fix."""


def kcidb_schema(path: str | pathlib.Path | None = None,
                 required: bool = False) -> tuple[dict[str, Any] | None, str]:
    """(the KCIDB schema or None, what was checked): None where it is absent
    and not required (named, or `required`: absent is an error)."""
    try:
        schema = kcidb_check.load_schema(path)
        kcidb_check.need_jsonschema()
        return schema, "schema v5.3 and links"
    except kcidb_check.SchemaMissing as e:
        if required or path:
            raise UsageError(str(e))
        return None, f"links and ids only: {e}"


def write_outputs(run: run_mod.Run, out: pathlib.Path, version: str = "",
                  promises_path: str | pathlib.Path | None = None,
                  schema_path: str | pathlib.Path | None = None,
                  kcidb_checkout: str | None = None,
                  log_url_base: str | None = None) -> report.Matrix:
    """Writes junit.xml, kcidb.json, matrix.md and matrix.html into `out`.
    KCIDB: kcidb_checkout "runtime" or "kernel" (default $JR2_KCIDB_CHECKOUT,
    else runtime), log_url_base the URL the run folder is published at
    (default $JR2_LOG_URL_BASE, else file: URLs)."""
    out.mkdir(parents=True, exist_ok=True)
    checkout = kcidb_checkout or os.environ.get("JR2_KCIDB_CHECKOUT") or "runtime"
    if checkout not in ("runtime", "kernel"):
        raise UsageError(f"KCIDB checkout '{checkout}' (--kcidb-checkout or "
                         "JR2_KCIDB_CHECKOUT): give runtime or kernel")
    data = kcidb.build(run, version, checkout,
                       log_url_base or os.environ.get("JR2_LOG_URL_BASE") or None)
    schema, checked = kcidb_schema(schema_path)
    errors = kcidb_check.check(data, schema)
    if errors:
        raise UsageError(f"the KCIDB JSON of run '{run.id}' breaks schema v5.3: "
                         + "; ".join(errors[:5]) + " (a bug in kcidb.py: report it)")
    (out / "kcidb.json").write_text(json.dumps(data, indent=1) + "\n")
    junit.write(run, out / "junit.xml")
    path = promises_path or promises.find(REPO)
    matrix = report.build(run, promises.load(path))
    (out / "matrix.md").write_text(report.markdown(matrix))
    base = os.path.relpath(run.path.resolve(), out.resolve())
    (out / "matrix.html").write_text(report.html_page(matrix, "" if base == "." else base))
    matrix.kcidb_checked = checked  # what the KCIDB check covered, for the caller to say
    return matrix


def hash_files(dirs: Iterable[str | pathlib.Path]) -> dict[str, str]:
    """{file name: sha256} of the regular files in `dirs` (the first name wins)."""
    digests: dict[str, str] = {}
    for named in dirs:
        d = pathlib.Path(named)
        if not d.is_dir():
            raise UsageError(f"binary folder '{d}' does not exist: build first (`make all`)")
        for f in sorted(d.iterdir()):
            if f.is_file() and f.name not in digests:
                digests[f.name] = hashlib.sha256(f.read_bytes()).hexdigest()
    return digests


def read_matrix(spec: Iterable[str]) -> dict[str, str | None]:
    """{kernel: reason or None} from `NAME` and `NAME=reason` words."""
    matrix: dict[str, str | None] = {}
    for word in spec:
        name, _, reason = word.partition("=")
        if not name:
            raise UsageError(f"matrix entry '{word}' has no kernel name: write NAME or "
                             "NAME=reason it may be missing")
        matrix[name] = reason.strip() or None
    return matrix


def load_run(path: str | pathlib.Path) -> run_mod.Run:
    try:
        return run_mod.load(path)
    except FileNotFoundError as e:
        raise UsageError(f"{e}: name a folder under results/ that `make matrix` wrote")


def newest_run(results: pathlib.Path) -> pathlib.Path:
    """The run folder under `results` whose run.json changed last."""
    runs = sorted(results.glob("*/run.json"), key=lambda p: p.stat().st_mtime)
    if not runs:
        raise UsageError(f"no run under {results}/: run `make matrix` first, or name one")
    return runs[-1].parent


def cmd_write(args: argparse.Namespace) -> int:
    path = pathlib.Path(args.run) if args.run else newest_run(REPO / "results")
    run = load_run(path)
    out = pathlib.Path(args.out or path)
    matrix = write_outputs(run, out, args.version, args.promises, args.kcidb_schema,
                           args.kcidb_checkout, args.log_url_base)
    print(f"{PROG}: wrote junit.xml, kcidb.json, matrix.md, matrix.html in {out} "
          f"({len(run.kernels)} kernel(s); kcidb.json checked: {matrix.kcidb_checked})")
    if args.print:
        print((out / "matrix.md").read_text(), end="")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    for p in (args.a, args.b):
        if not pathlib.Path(p).is_dir():
            raise UsageError(f"'{p}' is not a folder: give a run (results/<run-id>) or a "
                             "kernel folder (results/<run-id>/<kernel>)")
    try:
        changes, what = compare.compare(pathlib.Path(args.a), pathlib.Path(args.b))
    except ValueError as e:
        raise UsageError(str(e))
    print(compare.text(changes, what), end="")
    return 0


def cmd_hash(args: argparse.Namespace) -> int:
    digests = hash_files(args.dirs)
    text = json.dumps(digests, indent=1, sort_keys=True) + "\n"
    if args.output:
        pathlib.Path(args.output).write_text(text)
    else:
        print(text, end="")
    return 0


def cmd_check_kcidb(args: argparse.Namespace) -> int:
    try:
        data = json.loads(pathlib.Path(args.file).read_text())
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read KCIDB JSON '{args.file}': {e}")
    schema, _ = kcidb_schema(args.kcidb_schema, required=True)
    errors = kcidb_check.check(data, schema)
    for line in errors:
        print(f"{args.file}: {line}")
    print(f"{args.file}: {'INVALID' if errors else 'valid'} KCIDB v5.3 (schema, then links)")
    return 1 if errors else 0


def cmd_gate(args: argparse.Namespace) -> int:
    run = load_run(args.run)
    matrix = read_matrix(args.matrix)
    if not matrix:
        raise UsageError("no kernel in the release matrix: pass --matrix NAME... "
                         "(ci/release-gate reads them from kernels/)")
    built = hash_files(args.bin_dir)
    before = None
    if args.before:
        try:
            before = json.loads(pathlib.Path(args.before).read_text())
        except (OSError, ValueError) as e:
            raise UsageError(f"cannot read the hashes taken before the run "
                             f"'{args.before}': {e}")
    decision = gate.decide(run, matrix, built, before, args.require)
    out = pathlib.Path(args.out)
    write_outputs(run, out, args.version, args.promises, args.kcidb_schema)
    tested: dict[str, str] = {}
    for k in run.kernels:
        tested.update(k.binaries)
    (out / "SHA256SUMS").write_text("".join(f"{d}  {n}\n" for n, d in sorted(tested.items())))
    lines = [f"release gate for {args.version or 'this tree'}, run {run.id}: "
             f"{'PASS' if decision.passed else 'FAIL'}"]
    lines += [f"FAIL {f}" for f in decision.findings]
    lines += [f"note {n}" for n in decision.notes]
    lines += [f"ran {r}" for r in decision.ran]
    (out / "gate.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[1:] + lines[:1]))
    print(f"{PROG}: release files in {out}")
    return 0 if decision.passed else 1


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write", help="write junit.xml, kcidb.json, matrix.md, matrix.html")
    w.add_argument("run", nargs="?",
                   help="run folder, e.g. results/20261130-120000-1af3418 (default: the newest)")
    w.add_argument("--out", help="where to write (default: the run folder)")
    w.add_argument("--version", default="", help="version named in the KCIDB checkout")
    w.add_argument("--promises", help="PROMISES.md (default: $PROMISES, else docs/PROMISES.md)")
    w.add_argument("--print", action="store_true", help="print the Markdown matrix")
    w.add_argument("--kcidb-schema", metavar="FILE", help="kcidb-io's v5.3 JSON schema "
                   "(default: $JR2_KCIDB_SCHEMA, else ../shared/kcidb/; absent: links only)")
    w.add_argument("--kcidb-checkout", choices=["runtime", "kernel"],
                   help="KCIDB's checkout and build: this repository and its runtime, or "
                   "each kernel (its release, Debian package and config), so that "
                   "KernelCI's views of a kernel find the run (default: "
                   "$JR2_KCIDB_CHECKOUT, else runtime)")
    w.add_argument("--log-url-base", metavar="URL",
                   help="where the run folder is published: each test's log_url is "
                   "URL/<kernel>/suite.tap or console.log (default: $JR2_LOG_URL_BASE, "
                   "else file: URLs)")
    w.set_defaults(func=cmd_write)
    c = sub.add_parser("compare", help="what changed from run (or kernel folder) A to B")
    c.add_argument("a")
    c.add_argument("b")
    c.set_defaults(func=cmd_compare)
    h = sub.add_parser("hash", help="SHA256 of the files in folders, as JSON")
    h.add_argument("dirs", nargs="+")
    h.add_argument("-o", "--output")
    h.set_defaults(func=cmd_hash)
    k = sub.add_parser("check-kcidb", help="validate a KCIDB file against schema v5.3, "
                       "then its links and ids")
    k.add_argument("file")
    k.add_argument("--kcidb-schema", metavar="FILE", help="kcidb-io's v5.3 JSON schema "
                   "(default: $JR2_KCIDB_SCHEMA, else ../shared/kcidb/)")
    k.set_defaults(func=cmd_check_kcidb)
    g = sub.add_parser("gate", help="decide whether a run may stand for a release")
    g.add_argument("run")
    g.add_argument("--matrix", nargs="+", default=[], metavar="NAME[=REASON]",
                   help="kernels of the release matrix; =REASON declares why one may miss")
    g.add_argument("--bin-dir", action="append", required=True,
                   help="folder of the built binaries, hashed now (repeatable)")
    g.add_argument("--before", help="JSON of the hashes taken before the run (`hash -o`)")
    g.add_argument("--require", nargs="*", default=[], metavar="BINARY",
                   help="binaries every kernel must have tested")
    g.add_argument("--out", required=True, help="release folder, e.g. results/release/0.1.0")
    g.add_argument("--version", default="")
    g.add_argument("--promises")
    g.add_argument("--kcidb-schema", metavar="FILE", help="as for write")
    g.set_defaults(func=cmd_gate)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        status: int = args.func(args)
        return status
    except UsageError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
