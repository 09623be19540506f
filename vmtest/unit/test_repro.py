# SPDX-License-Identifier: GPL-2.0-only
"""vmtest/repro without QEMU: expectations, compile, staging (copy), the
guest script (with stand-in jr2-* tools, under busybox sh), the table."""
import base64
import gzip
import json
import os
import pathlib
import shutil
import subprocess
from typing import Any

import pytest

from jr2vm import initramfs, repro

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "vmtest" / "examples" / "read-standins.c"
BUSYBOX = pathlib.Path("/bin/busybox")
need_cc = pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc: apt-get install gcc")
need_busybox = pytest.mark.skipif(not BUSYBOX.exists(),
                                  reason="no /bin/busybox: apt-get install busybox-static")


# ---------------------------------------------------------------- expectations

def expectation(text: str) -> repro.Expectation:
    """The Expectation a text states, which it must state."""
    found = repro.parse_expectation(text)
    assert found is not None, f"no expectation in {text!r}"
    return found


def test_expectation_of_the_first_line_in_each_comment_style() -> None:
    e = expectation("// expect: exit 1, denial open EACCES /run/jr2/stand-ins\n")
    assert e.clauses == (repro.Clause("exit", status=1),
                         repro.Clause("denial", operation="open", error="EACCES",
                                      path="/run/jr2/stand-ins"))
    assert expectation("# expect: denial open EACCES\n").clauses == (
        repro.Clause("denial", operation="open", error="EACCES"),)
    assert expectation("/* expect: exit nonzero; no denials */\n").clauses == (
        repro.Clause("exit-nonzero"), repro.Clause("no-denial"))
    assert expectation("#!/bin/sh\n# expect: exit 0 and denial any EPERM\n"
                                   ).clauses == (repro.Clause("exit", status=0),
                                                 repro.Clause("denial", error="EPERM"))
    assert expectation("// EXPECT: exit 3").text() == "exit 3"


def test_no_expectation_unless_on_the_first_line() -> None:
    assert repro.parse_expectation("") is None
    assert repro.parse_expectation("int main(void) { return 0; }\n") is None
    assert repro.parse_expectation("// a reproducer\n// expect: exit 1\n") is None
    assert repro.parse_expectation("#!/bin/sh\necho\n# expect: exit 1\n") is None


@pytest.mark.parametrize("line, words", [
    ("// expect:", "says nothing"),
    ("// expect: exit", "no exit clause"),
    ("// expect: exit 256", "no exit clause"),
    ("// expect: exit one", "no exit clause"),
    ("// expect: denial open eacces", "'eacces' in 'denial open eacces'"),
    ("// expect: crash", "unknown clause 'crash'"),
])
def test_a_malformed_expectation_is_refused_with_the_clause_named(line: str, words: str) -> None:
    with pytest.raises(repro.ReproError) as err:
        repro.parse_expectation(line + "\n", "r.c")
    assert words in str(err.value) and str(err.value).startswith("r.c: ")


DENIAL = {"operation": "open", "path": "/run/jr2/stand-ins", "errno": 13, "error": "EACCES"}


def test_check_each_clause_against_an_outcome() -> None:
    e = expectation("// expect: exit 1, denial open EACCES /run/jr2/stand-ins")
    checks = repro.check(e, {"status": 1, "denials": [DENIAL]})
    assert [met for _, met, _ in checks] == [True, True]
    assert repro.verdict(checks) == "pass"
    # The other errno, the other path, the other status: each one fails.
    for denial in (dict(DENIAL, error="EPERM"), dict(DENIAL, path="/run/jr2/x"),
                   dict(DENIAL, operation="mkdir")):
        checks = repro.check(e, {"status": 1, "denials": [denial]})
        assert [met for _, met, _ in checks] == [True, False]
        assert repro.verdict(checks) == "fail"
    checks = repro.check(e, {"status": 0, "denials": [DENIAL]})
    assert checks[0] == ("exit 1", False, "exit 0") and repro.verdict(checks) == "fail"


def test_denials_not_traced_make_a_denial_clause_unknown_not_passed() -> None:
    e = expectation("# expect: exit 1, denial open")
    checks = repro.check(e, {"status": 1, "denials": None})
    assert checks[1][1] is None and repro.verdict(checks) == "unknown"
    e = expectation("# expect: no denial")
    assert repro.verdict(repro.check(e, {"status": 0, "denials": []})) == "pass"
    assert repro.verdict(repro.check(e, {"status": 0, "denials": [DENIAL]})) == "fail"
    assert repro.verdict(repro.check(e, {"status": None, "denials": None})) == "unknown"


# ---------------------------------------------------------------- compile, copy

@need_cc
def test_a_c_file_compiles_static_with_the_project_headers(tmp_path: pathlib.Path) -> None:
    staged = repro.stage(repro.load(EXAMPLE), tmp_path / "s", "confine", ["a b", "$c"])
    names = {p.name for p in staged}
    assert names == {"read-standins", "repro.conf", "jr2-repro-guest"}
    assert initramfs.is_static_elf((tmp_path / "s" / "read-standins").read_bytes())
    conf = (tmp_path / "s" / "repro.conf").read_text()
    assert "CONFINE=confine\n" in conf and "KIND=exec\n" in conf and "ENTRY=read-standins\n" in conf


@need_cc
def test_a_c_file_that_does_not_compile_names_the_compiler_error(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "bad.c"
    src.write_text("int main(void) { return undeclared_name; }\n")
    with pytest.raises(repro.ReproError) as err:
        repro.stage(repro.load(src), tmp_path / "s")
    assert "'%s' does not compile" % src in str(err.value)
    assert "undeclared_name" in str(err.value)


def test_a_script_is_copied_and_run_with_sh(tmp_path: pathlib.Path) -> None:
    script = tmp_path / "my repro.sh"
    script.write_text("# expect: exit 0\ncat /run/jr2/stand-ins\n")
    rep = repro.load(script)
    assert rep.kind == "script" and rep.expectation is not None
    assert rep.expectation.text() == "exit 0"
    repro.stage(rep, tmp_path / "s")
    assert (tmp_path / "s" / "my_repro.sh").read_bytes() == script.read_bytes()
    assert "KIND=script\n" in (tmp_path / "s" / "repro.conf").read_text()


def test_a_folder_is_copied_whole_and_lands_under_payload(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "case"
    (folder / "data" / "deep").mkdir(parents=True)
    (folder / "data" / "deep" / "x.bin").write_bytes(bytes(range(256)))
    (folder / "run.sh").write_text("# expect: denial mkdir\nmkdir /run/jr2/d\n")
    (folder / "repro.sh").write_text("# expect: exit 2\nexit 2\n")
    rep = repro.load(folder)
    # repro.sh comes before run.sh: its expectation is the folder's.
    assert rep.kind == "folder" and rep.entry.name == "repro.sh"
    assert rep.expectation is not None and rep.expectation.text() == "exit 2"
    staged = repro.stage(rep, tmp_path / "s")
    conf = (tmp_path / "s" / "repro.conf").read_text()
    assert "ENTRY=case/repro.sh\n" in conf and "WORKDIR=case\n" in conf
    cpio_gz = initramfs.run_part("cmd", cmd=repro.GUEST_CMD, extra=staged)
    (tmp_path / "part.cpio").write_bytes(gzip.decompress(cpio_gz))
    root = tmp_path / "guest"
    root.mkdir()
    subprocess.run(["cpio", "-id", "--quiet", "-F", str(tmp_path / "part.cpio")], cwd=root,
                   check=True)
    got = root / "jr2" / "payload"
    assert (got / "case" / "data" / "deep" / "x.bin").read_bytes() == bytes(range(256))
    assert (got / "case" / "run.sh").exists() and (got / "repro.conf").exists()
    assert (got / "jr2-repro-guest").read_bytes() == repro.GUEST_SCRIPT.read_bytes()


@need_cc
def test_a_folder_with_repro_c_is_compiled_with_its_own_headers(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "case"
    folder.mkdir()
    (folder / "local.h").write_text("#define ANSWER 7\n")
    (folder / "repro.c").write_text('// expect: exit 7\n#include "local.h"\n'
                                    "int main(void) { return ANSWER; }\n")
    repro.stage(repro.load(folder), tmp_path / "s")
    assert initramfs.is_static_elf((tmp_path / "s" / "case" / "repro").read_bytes())
    assert "ENTRY=case/repro\n" in (tmp_path / "s" / "repro.conf").read_text()


def test_what_cannot_be_a_reproducer_is_refused(tmp_path: pathlib.Path) -> None:
    with pytest.raises(repro.ReproError, match="no reproducer"):
        repro.load(tmp_path / "missing.c")
    (tmp_path / "empty").mkdir()
    with pytest.raises(repro.ReproError, match="holds none of repro.c"):
        repro.load(tmp_path / "empty")
    dynamic = tmp_path / "prog"
    shutil.copy("/bin/true", dynamic)  # a dynamic program: the guest has no libc
    with pytest.raises(repro.ReproError, match="dynamic program"):
        repro.stage(repro.load(dynamic), tmp_path / "s")
    script = tmp_path / "s.sh"
    script.write_text("true\n")
    with pytest.raises(repro.ReproError, match="CONFINE=jail is unknown"):
        repro.stage(repro.load(script), tmp_path / "s", "jail")


# ---------------------------------------------------------------- the guest script

STUB_TRACE = """#!/bin/sh
# jr2-trace stand-in: --output FILE -- CMD...; STUB_TRACE_EXIT: cannot attach
[ -n "$STUB_TRACE_EXIT" ] && { echo "jr2-trace: stub refuses" >&2; exit $STUB_TRACE_EXIT; }
out=$2; shift 3
: >"$out"
"$@"; status=$?
[ -e "$JR2_REPRO_OUT/stdout" ] && grep -q denied "$JR2_REPRO_OUT/stdout" && \
  echo '{"operation":"open","path":"/run/jr2/stand-ins","errno":13,"error":"EACCES"}' >>"$out"
exit $status
"""
# Ready (status 0) only once serve has written its line, as the real one.
STUB_HARNESS = """#!/bin/sh
case $1 in
serve) trap 'exit 0' TERM; echo serving; : >"$JR2_REPRO_PAYLOAD/stub-serving"
       while :; do sleep 0.05; done ;;
status) [ -e "$JR2_REPRO_PAYLOAD/stub-serving" ] ;;
exec) shift 2; STUB_CONFINED=1 exec "$@" ;;
esac
"""
STUB_CONFINE = """#!/bin/sh
shift 2; STUB_CONFINED=1 exec "$@"
"""
SCRIPT = """# expect: exit 1
printf '%s|' "$@"; echo
pwd
echo to-stderr >&2
if [ -n "$STUB_CONFINED" ]; then echo denied; exit 1; fi
exit 0
"""


def run_guest(tmp_path: pathlib.Path, confine: str, env_extra: dict[str, str] | None = None
              ) -> tuple[dict[str, Any], dict[str, bytes]]:
    src = tmp_path / "r.sh"
    src.write_text(SCRIPT)
    payload = tmp_path / "payload"
    repro.stage(repro.load(src), payload, confine, ["a b", "$HOME", "it's"], 5)
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    for name, text in (("jr2-trace", STUB_TRACE), ("jr2-harness", STUB_HARNESS),
                       ("jr2-confine", STUB_CONFINE)):
        (bindir / name).write_text(text)
        (bindir / name).chmod(0o755)
    for applet in ("sh", "base64", "timeout", "sleep", "cat", "rm", "mkdir", "grep", "printf",
                   "pwd", "kill", "tail"):
        link = bindir / applet
        if not link.exists():
            link.symlink_to(BUSYBOX)
    env = {"PATH": f"{bindir}", "JR2_REPRO_PAYLOAD": str(payload),
           "JR2_REPRO_OUT": str(tmp_path / "out"), "HOME": "/nonexistent", **(env_extra or {})}
    proc = subprocess.run([str(BUSYBOX), "sh", str(payload / "jr2-repro-guest")], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return repro.outcome(repro.parse_guest(proc.stdout)), repro.parse_guest(proc.stdout)


@need_busybox
def test_the_guest_script_frames_status_output_and_denials(tmp_path: pathlib.Path) -> None:
    out, files = run_guest(tmp_path, "harness")
    # The words arrive as given: nothing expanded ($HOME), quotes kept.
    assert files["stdout"].decode() == f"a b|$HOME|it's|\n{tmp_path}/payload\ndenied\n"
    assert files["stderr"] == b"to-stderr\n"
    assert out["status"] == 1 and out["time_s"] is not None
    assert out["denials"] == [DENIAL]
    assert files["harness.log"] == b"serving\n"


@need_busybox
def test_the_guest_script_runs_unconfined_and_says_when_it_cannot_trace(
        tmp_path: pathlib.Path) -> None:
    out, files = run_guest(tmp_path, "none", {"STUB_TRACE_EXIT": "3"})
    assert out["status"] == 0 and b"denied" not in files["stdout"]
    assert out["denials"] is None
    assert out["untraced"] == ("denials not traced: this kernel cannot be traced (no tracing "
                               "programs, no kprobes, or no BTF) (jr2-trace: stub refuses)")


# ---------------------------------------------------------------- reading and the table

def test_parse_guest_decodes_binary_and_drops_a_cut_off_file() -> None:
    data = bytes(range(256)) * 3
    text = ("noise\n# repro-file: stdout\n" + base64.encodebytes(data).decode()
            + "# repro-end: stdout\n# repro-file: stderr\nAAAA\n")
    assert repro.parse_guest(text) == {"stdout": data}


def result(kernel: str, release: str, status: int | None, denials: list[dict[str, Any]] | None,
           abi: int = 7, expect: str | None = "exit 1",
           verdict: str | None = "pass") -> dict[str, Any]:
    return {"kernel": kernel, "release": release, "abi": abi, "landlock": "ok",
            "status": status, "time_s": 0.1, "denials": denials, "error": None,
            "expect": expect, "verdict": verdict, "checks": []}


def test_table_marks_what_differs_from_the_newest_kernel() -> None:
    rows = repro.table([result("6.12", "6.12.1", 1, [DENIAL], 6),
                        result("6.18", "6.18.1", 0, [], 7, verdict="fail"),
                        result("7.3", "7.3.4", 1, [DENIAL], 11)])
    assert rows == [
        ("6.12", "6", "1", "1 (open /run/jr2/stand-ins EACCES)", "no", "pass"),
        ("6.18", "7", "0", "0", "yes", "fail"),
        ("7.3", "11", "1", "1 (open /run/jr2/stand-ins EACCES)", "(newest)", "pass")]
    assert "| 6.18 | 7 | 0 | 0 | yes | fail |" in repro.markdown_table(rows)


def test_exit_status_says_whether_the_bug_shows_anywhere() -> None:
    ok = result("7.3", "7.3.4", 1, [DENIAL])
    assert repro.exit_status([ok]) == 0
    assert repro.exit_status([ok, dict(ok, verdict="fail")]) == 1
    assert repro.exit_status([ok, dict(ok, verdict="unknown")]) == 3
    assert repro.exit_status([ok, dict(ok, error="no end marker", verdict="unknown")]) == 3
    assert repro.exit_status([dict(ok, expect=None, verdict=None)]) == 0


def test_the_line_says_what_happened() -> None:
    r = result("6.6", "6.6.1", 0, [DENIAL, dict(DENIAL, path="/run/jr2/b")] * 2,
               expect=None, verdict=None)
    r["time_s"] = 0.4
    assert repro.line("6.6", r) == ("repro 6.6: exit 0 in 0.40 s, 4 denials (open "
                                    "/run/jr2/stand-ins EACCES, open /run/jr2/b EACCES, open "
                                    "/run/jr2/stand-ins EACCES, ...)")


def test_collect_writes_the_files_of_a_kernel(tmp_path: pathlib.Path) -> None:
    files = {"status": b"1\n", "time_cs": b"12\n", "stdout": b"o\n", "stderr": b"e\n",
             "denials.jsonl": (json.dumps(DENIAL) + "\n").encode(), "notes": b""}
    (tmp_path / "cmd.out").write_text("".join(
        f"# repro-file: {n}\n{base64.b64encode(d).decode()}\n# repro-end: {n}\n"
        for n, d in files.items()))
    e = repro.parse_expectation("// expect: exit 1, denial open EACCES")
    r = repro.collect("7.3", tmp_path, {"abi": 11, "landlock": "ok", "outcome": "pass",
                                        "problems": []}, e, "harness")
    assert r["verdict"] == "pass" and r["time_s"] == 0.12
    assert (tmp_path / "exit_status").read_text() == "1\n"
    assert (tmp_path / "stdout").read_bytes() == b"o\n"
    assert json.loads((tmp_path / "repro.json").read_text())["denials"] == [DENIAL]
    os.unlink(tmp_path / "cmd.out")
    r = repro.collect("7.3", tmp_path, {"outcome": "error", "problems": ["timeout"]}, e,
                      "harness")
    assert r["error"] == "timeout" and r["verdict"] == "unknown"
    assert not (tmp_path / "stdout").exists()


def test_a_kernel_jr2_refuses_is_refused_not_failed(tmp_path: pathlib.Path) -> None:
    (tmp_path / "cmd.out").write_text("# repro-file: notes\n" + base64.b64encode(
        b"jr2-harness serve did not start: ABI 2 found, ABI 3 required\n").decode()
        + "\n# repro-end: notes\n# repro-file: denials.jsonl\n\n# repro-end: denials.jsonl\n")
    e = repro.parse_expectation("// expect: exit 1, denial open EACCES")
    boot = {"abi": 2, "landlock": "ok", "verdict_code": "abi_too_old", "outcome": "pass",
            "problems": []}
    r = repro.collect("6.1", tmp_path, boot, e, "harness")
    assert r["verdict"] == "refused" and repro.exit_status([r]) == 0
    assert repro.line("6.1", r) == (
        "repro 6.1: refused by jr2 (check: abi_too_old): jr2-harness serve did not start: "
        "ABI 2 found, ABI 3 required; expect exit 1, denial open EACCES: REFUSED")
    assert repro.table([r])[0][2] == "refused by jr2 (check: abi_too_old)"
    # Unconfined, nothing of jr2 is asked: the same kernel answers.
    r = repro.collect("6.1", tmp_path, boot, e, "none")
    assert r["verdict"] == "unknown" and r["refused"] is None
