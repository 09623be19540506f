# SPDX-License-Identifier: GPL-2.0-only
"""vmtest/repro: a reporter's program (a .c file, a script or a folder) run
in a guest unconfined, under `jr2-confine run` or as a program of
`jr2-harness`, with its exit status, output and Landlock denials brought out.

The guest side is vmtest/guest/repro; this module prepares what it carries
(the compiled program, repro.conf), reads back what it printed, checks the
reproducer's own expectation (its first-line `expect:` comment) and writes
results/<run>/<kernel>/repro/ and the matrix table.
"""
import base64
import dataclasses
import json
import pathlib
import re
import shlex
import shutil
import subprocess
from collections.abc import Sequence
from typing import Any

from . import initramfs

Json = dict[str, Any]
# (a clause as written, met: True, False or None when it could not be checked, what was seen)
Check = tuple[str, bool | None, str]

REPO = pathlib.Path(__file__).resolve().parents[2]
GUEST_SCRIPT = REPO / "vmtest" / "guest" / "repro"
CONFINES = ("none", "confine", "harness")
DEFAULT_TIMEOUT_S = 60
# The project's headers, for a reporter's C file; the libraries when built.
INCLUDES = ("runtime", "runtime/harness", "runtime/trace")
LIBS = ("build/obj/libjr2.a", "build/obj/libjr2harness.a")
CFLAGS = ("-std=gnu11", "-O1", "-g", "-Wall", "-Wextra", "-D_GNU_SOURCE")
# A folder runs the first of these it holds.
FOLDER_ENTRIES = ("repro.c", "repro.sh", "run.sh", "run")
FILE_MARK = "# repro-file: "
END_MARK = "# repro-end: "


class ReproError(Exception):
    """A reproducer that cannot be prepared; the message names it and the fix."""


# ---------------------------------------------------------------- expectations

@dataclasses.dataclass(frozen=True)
class Clause:
    kind: str  # "exit", "exit-nonzero", "denial", "no-denial"
    status: int | None = None
    operation: str | None = None  # None: any
    error: str | None = None  # errno name (EACCES), None: any
    path: str | None = None  # None: any

    def text(self) -> str:
        if self.kind == "exit":
            return f"exit {self.status}"
        if self.kind == "exit-nonzero":
            return "exit nonzero"
        if self.kind == "no-denial":
            return "no denial"
        return " ".join(["denial", self.operation or "any"] +
                        [w for w in (self.error, self.path) if w])


@dataclasses.dataclass(frozen=True)
class Expectation:
    clauses: tuple[Clause, ...]
    source: str  # the comment as written

    def text(self) -> str:
        return ", ".join(c.text() for c in self.clauses)


EXPECT_LINE = re.compile(r"^\s*(?://|#|/\*|--|;)\s*expect:\s*(.*?)\s*(?:\*/)?\s*$", re.I)
ERRNO_NAME = re.compile(r"^E[A-Z0-9]+$")


def parse_clause(text: str, where: str) -> Clause:
    words = text.split()
    if not words:
        raise ReproError(f"{where}: an empty clause in the expect: comment; write e.g. "
                         "'expect: exit 1, denial open EACCES'")
    head = words[0].lower()
    if head == "exit":
        if len(words) == 2 and words[1].lower() == "nonzero":
            return Clause("exit-nonzero")
        if len(words) == 2 and re.fullmatch(r"\d{1,3}", words[1]) and int(words[1]) < 256:
            return Clause("exit", status=int(words[1]))
        raise ReproError(f"{where}: '{text}' is no exit clause: write 'exit N' (0-255) "
                         "or 'exit nonzero'")
    if head == "no" and len(words) == 2 and words[1].lower() in ("denial", "denials"):
        return Clause("no-denial")
    if head in ("denial", "denials"):
        operation: str | None = None
        error: str | None = None
        path: str | None = None
        for word in words[1:]:
            if word.startswith("/"):
                path = word
            elif ERRNO_NAME.match(word):
                error = word
            elif operation is None and re.fullmatch(r"[a-z_]+", word):
                operation = None if word == "any" else word
            else:
                raise ReproError(f"{where}: '{word}' in '{text}' is neither an operation "
                                 "(open, mkdir, unlink, signal, ...), an errno name (EACCES) "
                                 "nor a path (/run/jr2/...)")
        return Clause("denial", operation=operation, error=error, path=path)
    raise ReproError(f"{where}: unknown clause '{text}' in the expect: comment; known: "
                     "'exit N', 'exit nonzero', 'denial OP [ERRNO] [PATH]', 'no denial'")


def parse_expectation(text: str, where: str = "reproducer") -> Expectation | None:
    """The Expectation of a reproducer's first line (or second, after #!),
    or None when it states none.  Raises ReproError on a malformed one."""
    lines = text.splitlines()[:2]
    if lines and lines[0].startswith("#!"):
        lines = lines[1:]
    for line in lines[:1]:
        m = EXPECT_LINE.match(line)
        if m:
            parts = [p for p in re.split(r"[,;]|\band\b", m.group(1)) if p.strip()]
            if not parts:
                raise ReproError(f"{where}: 'expect:' says nothing; write e.g. "
                                 "'// expect: exit 0' or '# expect: denial open EACCES'")
            return Expectation(tuple(parse_clause(p.strip(), where) for p in parts),
                               m.group(1))
    return None


def denial_matches(clause: Clause, denial: Json) -> bool:
    if clause.operation and denial.get("operation") != clause.operation:
        return False
    if clause.error and denial.get("error") != clause.error:
        return False
    if clause.path and denial.get("path") != clause.path:
        return False
    return True


def check(expectation: Expectation, outcome: Json) -> list[Check]:
    """[(clause text, met?, what was seen)] for one kernel's outcome (a dict
    with status and denials; denials None when they were not traced)."""
    verdicts: list[Check] = []
    status, denials = outcome.get("status"), outcome.get("denials")
    for clause in expectation.clauses:
        met: bool | None
        if status is None:  # it did not run: nothing to hold it to
            met, seen = None, "not run"
        elif clause.kind in ("exit", "exit-nonzero"):
            met = None if status is None else (status == clause.status if clause.kind == "exit"
                                               else status != 0)
            seen = "not run" if status is None else f"exit {status}"
        elif denials is None:
            met, seen = None, "denials not traced on this kernel"
        elif clause.kind == "no-denial":
            met, seen = not denials, f"{len(denials)} denial(s)"
        else:
            found = [d for d in denials if denial_matches(clause, d)]
            met = bool(found)
            seen = describe_denials(found or denials, 2) or "no denial"
        verdicts.append((clause.text(), met, seen))
    return verdicts


# ---------------------------------------------------------------- the reproducer

@dataclasses.dataclass
class Repro:
    path: pathlib.Path  # as given
    kind: str  # "c", "script", "exec" (a static program), "folder"
    entry: pathlib.Path  # the file run (the .c source for "c")
    expectation: Expectation | None


def load(named: str | pathlib.Path) -> Repro:
    """The Repro of a file or folder; raises ReproError."""
    path = pathlib.Path(named)
    if path.is_dir():
        entry = next((path / n for n in FOLDER_ENTRIES if (path / n).is_file()), None)
        if entry is None:
            raise ReproError(f"folder '{path}' holds none of {', '.join(FOLDER_ENTRIES)}: "
                             "add the one to run (a C file is compiled, a script run with sh)")
        kind = "folder"
    elif path.is_file():
        entry = path
        if path.suffix == ".c":
            kind = "c"
        elif _is_elf(path):
            kind = "exec"
        else:
            kind = "script"
    else:
        raise ReproError(f"no reproducer '{path}': give REPRO=<file.c|script|folder>")
    text = "" if _is_elf(entry) else entry.read_text(errors="replace")
    return Repro(path, kind, entry, parse_expectation(text, str(entry)))


def _is_elf(path: pathlib.Path) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def compile_c(
        source: pathlib.Path, target: str | pathlib.Path, cc: str = "gcc",
        repo: pathlib.Path = REPO, extra_includes: Sequence[pathlib.Path] = ()) -> pathlib.Path:
    """Compiles source statically with the project's headers (and libraries,
    when built); returns output.  Raises ReproError with the compiler's words."""
    output = pathlib.Path(target)
    output.parent.mkdir(parents=True, exist_ok=True)
    args = [cc, *CFLAGS]
    for inc in (*extra_includes, *(repo / i for i in INCLUDES)):
        args += ["-I", str(inc)]
    args += ["-o", str(output), str(source)]
    args += [str(repo / lib) for lib in LIBS if (repo / lib).exists()]
    args.append("-static")
    if shutil.which(cc) is None:
        raise ReproError(f"no C compiler '{cc}': install gcc (apt-get install gcc) or "
                         "give CC=<compiler>")
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ReproError(f"'{source}' does not compile ({' '.join(args)}):\n"
                         f"{proc.stderr.strip()}")
    if proc.stderr.strip():
        print(proc.stderr.strip(), flush=True)
    if not initramfs.is_static_elf(output.read_bytes()):
        raise ReproError(f"'{output}' is not static: the guest has no libc")
    return output


def stage(repro: Repro, stage_to: str | pathlib.Path, confine: str = "harness",
          args: Sequence[str] = (), timeout_s: float = DEFAULT_TIMEOUT_S,
          cc: str = "gcc") -> list[pathlib.Path]:
    """Fills stage_dir with what goes to /jr2/payload; returns its entries."""
    if confine not in CONFINES:
        raise ReproError(f"CONFINE={confine} is unknown: use one of {', '.join(CONFINES)}")
    stage_dir = pathlib.Path(stage_to)
    if stage_dir.exists():
        shutil.rmtree(stage_dir)
    stage_dir.mkdir(parents=True)
    name = re.sub(r"[^A-Za-z0-9._-]", "_", repro.path.name) or "repro"
    if repro.kind == "folder":
        top = stage_dir / name
        shutil.copytree(repro.path, top, symlinks=True)
        workdir, inner = name, repro.entry.relative_to(repro.path)
        if inner.suffix == ".c":
            binary = compile_c(top / inner, top / inner.with_suffix(""), cc,
                               extra_includes=(top,))
            inner, kind = binary.relative_to(top), "exec"
        else:
            kind = "exec" if _is_elf(top / inner) else "script"
        entry = f"{name}/{inner}"
    elif repro.kind == "c":
        binary = compile_c(repro.entry, stage_dir / repro.entry.stem, cc,
                           extra_includes=(repro.entry.parent,))
        workdir, entry, kind = ".", binary.name, "exec"
    else:
        shutil.copy2(repro.entry, stage_dir / name)
        workdir, entry = ".", name
        kind = "exec" if repro.kind == "exec" else "script"
    if kind == "exec" and not initramfs.is_static_elf((stage_dir / entry).read_bytes()):
        raise ReproError(f"'{repro.entry}' is a dynamic program: the guest has no libc; "
                         "link it with -static or give the .c file")
    conf = {"CONFINE": confine, "KIND": kind, "ENTRY": entry, "WORKDIR": workdir,
            "ARGS": " ".join(shlex.quote(a) for a in args), "TIMEOUT": str(int(timeout_s))}
    (stage_dir / "repro.conf").write_text(
        "".join(f"{k}={shlex.quote(v)}\n" for k, v in conf.items()))
    shutil.copy2(GUEST_SCRIPT, stage_dir / "jr2-repro-guest")
    return sorted(stage_dir.iterdir())


GUEST_CMD = "sh /jr2/payload/jr2-repro-guest"


# ---------------------------------------------------------------- the guest's answer

def parse_guest(text: str) -> dict[str, bytes]:
    """{name: bytes} of the files the guest framed; a cut-off one is dropped."""
    files: dict[str, bytes] = {}
    name: str | None = None
    chunks: list[str] = []
    for line in text.splitlines():
        line = line.rstrip("\r")
        if line.startswith(FILE_MARK):
            name, chunks = line[len(FILE_MARK):].strip(), []
        elif line.startswith(END_MARK) and name == line[len(END_MARK):].strip():
            try:
                files[name] = base64.b64decode("".join(chunks), validate=False)
            except ValueError:
                files[name] = b""
            name = None
        elif name is not None:
            chunks.append(line.strip())
    return files


def read_denials(data: bytes) -> list[Json]:
    """The JSON lines of jr2-trace; a line that is no JSON object is kept as text."""
    out: list[Json] = []
    for line in data.decode(errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            value = {"unparsed": line}
        out.append(value if isinstance(value, dict) else {"unparsed": line})
    return out


def _int(data: bytes) -> int | None:
    try:
        return int(data.decode().strip())
    except (ValueError, AttributeError):
        return None


TRACE_REASONS = {3: "this kernel cannot be traced (no tracing programs, no kprobes, or no BTF)",
                 4: "there is no Landlock to trace"}


def outcome(files: dict[str, bytes]) -> Json:
    """What the guest's files say: status, time, denials (None: not traced)."""
    status = _int(files["status"]) if "status" in files else None
    centis = _int(files.get("time_cs", b""))
    traced = "denials.jsonl" in files
    denials = read_denials(files["denials.jsonl"]) if traced else None
    trace_log = files.get("trace.log", b"").decode(errors="replace").strip()
    untraced = None
    if not traced:
        code = _int(files.get("trace.status", b""))
        reason = TRACE_REASONS.get(code or 0, f"jr2-trace exited {code}")
        last = trace_log.splitlines()[-1] if trace_log else ""
        untraced = f"denials not traced: {reason}" + (f" ({last})" if last else "")
    return {"status": status, "time_s": None if centis is None else centis / 100,
            "denials": denials, "untraced": untraced,
            "notes": files.get("notes", b"").decode(errors="replace").strip()}


def describe_denials(denials: list[Json], limit: int = 3) -> str:
    """`open /run/jr2/stand-ins EACCES, ...` (the first `limit`)."""
    words: list[str] = []
    for d in denials[:limit]:
        target = d.get("path") or d.get("socket") or (
            f"pid {d['target_pid']}" if d.get("target_pid") is not None else "")
        words.append(" ".join(str(w) for w in (d.get("operation") or d.get("unparsed", "?"),
                                               target, d.get("error") or d.get("errno"))
                              if w not in (None, "")))
    if len(denials) > limit:
        words.append("...")
    return ", ".join(words)


def line(kernel: str, result: Json) -> str:
    """`repro 6.6: exit 0 in 0.4 s, 3 denials (open /run/jr2/stand-ins EACCES, ...)`."""
    if result.get("error"):
        text = f"error: {result['error']}"
    elif result.get("refused"):
        text = str(result["refused"]) + (f": {result['notes'].splitlines()[0]}"
                                    if result.get("notes") else "")
    elif result["status"] is None:
        text = "not run" + (f": {result['notes'].splitlines()[0]}" if result.get("notes")
                            else "")
    else:
        text = f"exit {result['status']} in {result['time_s'] or 0:.2f} s"
        if result["status"] == 137:
            text += " (killed: timeout or SIGKILL)"
    if result.get("refused"):
        pass  # nothing ran as jr2 runs it: no denials, no clauses to show
    elif result.get("denials") is None:
        if not result.get("error"):
            text += f", {result.get('untraced') or 'denials not traced'}"
    else:
        n = len(result["denials"])
        text += f", {n} denial{'' if n == 1 else 's'}"
        if n:
            text += f" ({describe_denials(result['denials'])})"
    if result.get("expect") is not None:
        text += f"; expect {result['expect']}: {result['verdict'].upper()}"
        bad = [f"{c} (saw {s})" for c, met, s in result["checks"] if met is not True]
        if bad and not result.get("refused"):
            text += " (" + "; ".join(bad) + ")"
    return f"repro {kernel}: {text}"


def verdict(checks: list[Check]) -> str:
    """pass: every clause met; fail: one not met; unknown: one could not be
    checked (not run, denials not traced)."""
    if any(met is False for _, met, _ in checks):
        return "fail"
    if any(met is None for _, met, _ in checks):
        return "unknown"
    return "pass"


def collect(kernel_name: str, out_dir: pathlib.Path, boot_result: Json,
            expectation: Expectation | None, confine: str) -> Json:
    """Writes out_dir/{exit_status, stdout, stderr, denials.jsonl, repro.json, ...}
    from the boot's cmd.out; returns the kernel's result dict."""
    cmd_out = out_dir / "cmd.out"
    text = cmd_out.read_text(errors="replace") if cmd_out.exists() else ""
    files = parse_guest(text)
    for name in ("stdout", "stderr", "denials.jsonl", "trace.log", "harness.log", "notes"):
        if name in files:
            (out_dir / name).write_bytes(files[name])
        else:
            (out_dir / name).unlink(missing_ok=True)
    result = outcome(files)
    (out_dir / "exit_status").write_text("" if result["status"] is None
                                         else f"{result['status']}\n")
    problems = list(boot_result.get("problems", []))
    result.update({"kernel": kernel_name, "confine": confine,
                   "abi": boot_result.get("abi"), "landlock": boot_result.get("landlock"),
                   "release": boot_result.get("release"),
                   "verdict_code": boot_result.get("verdict_code"),
                   "boot_problems": problems, "error": None})
    # jr2 refuses the kernel (its own `check --json` says so): the reproducer
    # does not run as jr2 runs it, so there is no bug of jr2 to show there.
    code = boot_result.get("verdict_code")
    result["refused"] = (f"refused by jr2 (check: {code})"
                         if confine != "none" and code not in (None, "accepted") else None)
    if boot_result.get("outcome") == "error" and result["status"] is None:
        result["error"] = "; ".join(problems) or "the guest gave no answer"
    elif not files:
        result["error"] = "the guest printed no repro files (see cmd.out, console.log)"
    if expectation is not None:
        result["expect"] = expectation.text()
        result["checks"] = check(expectation, result)
        result["verdict"] = ("unknown" if result["error"] else "refused" if result["refused"]
                             else verdict(result["checks"]))
    else:
        result["expect"] = result["checks"] = result["verdict"] = None
    (out_dir / "repro.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


# ---------------------------------------------------------------- the matrix

def signature(result: Json) -> tuple[Any, ...]:
    """What 'the outcome' means when kernels are compared: the exit status and
    the denials as (operation, target, error)."""
    if result.get("refused"):
        return ("refused",)
    if result.get("error") or result.get("status") is None:
        return ("no answer",)
    denials = result.get("denials")
    kinds = None if denials is None else tuple(sorted({
        (d.get("operation"), d.get("path") or d.get("socket"), d.get("error"))
        for d in denials}, key=str))
    return (result["status"], kinds)


def table(results: list[Json]) -> list[tuple[str, ...]]:
    """Rows (kernel, ABI, exit, denials, differs from the newest, expectation);
    results in matrix order, the newest last."""
    if not results:
        return []
    newest = results[-1]
    rows: list[tuple[str, ...]] = []
    for r in results:
        if r.get("landlock") not in (None, "ok"):
            abi = f"Landlock {r['landlock']}"
        else:
            abi = "?" if r.get("abi") is None else str(r["abi"])
        if r.get("error"):
            status = "error"
        elif r.get("refused"):
            status = r["refused"]
        elif r.get("status") is None:
            status = "not run"
        else:
            status = str(r["status"])
        if r.get("denials") is None:
            den = "not traced"
        else:
            den = str(len(r["denials"])) + (f" ({describe_denials(r['denials'], 2)})"
                                             if r["denials"] else "")
        if r is newest:
            differs = "(newest)"
        elif signature(r) == signature(newest):
            differs = "no"
        elif r.get("denials") is None or newest.get("denials") is None:
            differs = "yes" if signature(r)[0] != signature(newest)[0] else "exit same"
        else:
            differs = "yes"
        rows.append((r["kernel"], abi, status, den, differs,
                     (r.get("verdict") or "-") if r.get("expect") is not None else "-"))
    return rows


HEADER = ("kernel", "ABI", "exit", "denials", "differs from newest", "expect")


def markdown_table(rows: list[tuple[str, ...]]) -> str:
    out = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for row in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |")
    return "\n".join(out) + "\n"


def text_table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(HEADER, *rows)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join(fmt.format(*map(str, row)).rstrip() for row in (HEADER, *rows)) + "\n"


def exit_status(results: list[Json]) -> int:
    """0: the expectation held everywhere it was checked; 1: it failed on some
    kernel (the bug is present); 3: no failure, but a kernel gave no answer or
    its answer could not be checked.  A kernel jr2 refuses (by its own check)
    is neither.  Without an expectation: 0 unless a boot gave no answer (3)."""
    if any(r.get("verdict") == "fail" for r in results):
        return 1
    if any(r.get("error") or (r.get("expect") is not None
                              and r.get("verdict") not in ("pass", "refused"))
           for r in results):
        return 3
    return 0
