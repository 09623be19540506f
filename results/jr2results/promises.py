# SPDX-License-Identifier: GPL-2.0-only
"""The promises of PROMISES.md, as the rows of the matrix report.

PROMISES.md has one `## <letter>: <title>` heading per group and one
`- <ID> <text>` line per promise (continuation lines indented).  Tests name
the promises they prove by the IDs leading their names (tap.Result.promises).
"""
import dataclasses
import os
import pathlib
import re

GROUP = re.compile(r"^## ([A-Z]): (.+)$")
PROMISE = re.compile(r"^- ([A-Z]\d+) (.+)$")
GROUP_ORDER = "GROAPET"
# The project's own promises, in its tree.
IN_TREE = "docs/PROMISES.md"



@dataclasses.dataclass
class Promise:
    id: str
    text: str


@dataclasses.dataclass
class Group:
    letter: str
    title: str
    promises: list[Promise]


def parse(text: str) -> list[Group]:
    groups: list[Group] = []
    current: Group | None = None
    for line in text.splitlines():
        m = GROUP.match(line)
        if m:
            current = Group(m.group(1), m.group(2).strip(), [])
            groups.append(current)
            continue
        m = PROMISE.match(line)
        if m and current is not None:
            current.promises.append(Promise(m.group(1), m.group(2).strip()))
        elif current is not None and current.promises and line.startswith("  "):
            current.promises[-1].text += " " + line.strip()
    return groups


def find(root: str | pathlib.Path) -> pathlib.Path | None:
    """The PROMISES.md that $PROMISES names, else docs/PROMISES.md of the
    repository `root`; None when neither is a file."""
    named = os.environ.get("PROMISES")
    if named and pathlib.Path(named).is_file():
        return pathlib.Path(named)
    path = pathlib.Path(root) / IN_TREE
    return path if path.is_file() else None


def load(path: str | pathlib.Path | None) -> list[Group]:
    return parse(pathlib.Path(path).read_text()) if path else []


def order_key(promise_id: str) -> tuple[int, int]:
    """G1 < G2 < G10 < R1 < O1: by group in PROMISES.md's order, then number."""
    return GROUP_ORDER.find(promise_id[0]), int(promise_id[1:])
