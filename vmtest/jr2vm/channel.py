# SPDX-License-Identifier: GPL-2.0-only
"""Read what the guest wrote: the result channel (ttyS1) and the console (ttyS0)."""
import dataclasses
import json
import re
from typing import Any

MARK = "# jr2-vm: "
# What makes a console log an error, whatever the suite says.  printk's time
# prefix is optional (some configs lack it).
PROBLEM = re.compile(r"(\bBUG:|\bWARNING:|\bOops\b|Kernel panic|general protection fault|"
                     r"Unable to handle kernel|\bcut here\b)")


@dataclasses.dataclass
class Channel:
    release: str = ""
    probe: dict[str, Any] | None = None
    check_text: str = ""
    check_status: int | None = None
    suite_binaries: int | None = None  # N of suite-begin N
    tap: str = ""
    cmd_output: str = ""
    cmd_status: int | None = None
    binary_s: dict[str, float] = dataclasses.field(default_factory=dict)  # guest time of each binary
    binary_cpu_s: dict[str, float] = dataclasses.field(default_factory=dict)  # its CPU time
    suite_ended: bool = False
    ended: bool = False


def parse(text: str) -> Channel:
    """Splits the channel into its parts; tolerates a cut-off text."""
    ch = Channel()
    section: str | None = None
    lines: dict[str, list[str]] = {"check": [], "suite": [], "cmd": []}
    for line in text.splitlines():
        line = line.rstrip("\r")
        if not line.startswith(MARK):
            if section:
                lines[section].append(line)
            continue
        word, _, rest = line[len(MARK):].partition(" ")
        if word == "booted":
            ch.release = rest.strip()
        elif word == "probe":
            try:
                ch.probe = json.loads(rest)
            except ValueError:
                ch.probe = None
        elif word in ("check-begin", "cmd-begin"):
            section = word.split("-")[0]
        elif word == "suite-begin":
            section = "suite"
            ch.suite_binaries = int(rest) if rest.strip().isdigit() else None
        elif word == "check-end":
            ch.check_status, section = _int(rest), None
        elif word == "cmd-end":
            ch.cmd_status, section = _int(rest), None
        elif word in ("binary-time", "binary-cpu"):
            name, _, centis = rest.partition(" ")
            if centis.strip().isdigit():
                (ch.binary_s if word == "binary-time" else ch.binary_cpu_s)[name] = int(centis) / 100
        elif word == "suite-end":
            ch.suite_ended, section = True, None
        elif word == "end":
            ch.ended, section = True, None
    ch.check_text = "\n".join(l for l in lines["check"] if not l.startswith("# check stderr: "))
    ch.tap = "".join(l + "\n" for l in lines["suite"])
    ch.cmd_output = "".join(l + "\n" for l in lines["cmd"])
    return ch


def _int(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def console_problems(text: str) -> list[str]:
    """The console lines that show a kernel problem (oops, BUG, WARNING, panic)."""
    return [line.strip() for line in text.splitlines() if PROBLEM.search(line)]


def check_json(ch: Channel) -> dict[str, Any] | None:
    """The parsed output of `jr2-confine check --json`, or None."""
    try:
        value = json.loads(ch.check_text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
