# SPDX-License-Identifier: GPL-2.0-only
"""What a kernel must give, from the one ABI table (`jr2-confine abi-table --json`)."""
import functools
import json
import pathlib
import subprocess
from typing import Any

import jr2kernels

REPO = pathlib.Path(__file__).resolve().parents[2]
CONFINE = REPO / "build" / "bin" / "jr2-confine"
# What the probe answers when Landlock is absent or off: outside the ABI table.
REFUSED_STATES = {"ENOSYS": "no_landlock", "EOPNOTSUPP": "not_enabled"}


class TableError(Exception):
    pass


@functools.lru_cache(maxsize=None)
def abi_table(confine: pathlib.Path = CONFINE) -> dict[str, Any]:
    """The ABI table of the runtime under test; raises TableError."""
    try:
        run = subprocess.run([str(confine), "abi-table", "--json"], capture_output=True,
                             text=True, timeout=30)
    except OSError as err:
        raise TableError(f"cannot run '{confine} abi-table --json' ({err.strerror}): "
                         "build the runtime first (make all)") from err
    try:
        table = json.loads(run.stdout)
        rows = {row["abi"]: row for row in table["abis"]}
        return {"required": table["required"], "newest_known": table["newest_known"], "abis": rows}
    except (ValueError, KeyError, TypeError) as err:
        raise TableError(f"'{confine} abi-table --json' gave no ABI table "
                         f"(status {run.returncode}): {err}") from err


def expected_verdict(landlock: str, abi: int, table: dict[str, Any]) -> tuple[str, str]:
    """(verdict, verdict_code) that `jr2-confine check` must give on a kernel
    whose probe answers `landlock` (ok | ENOSYS | EOPNOTSUPP) and ABI `abi`."""
    if landlock in REFUSED_STATES:
        return "refused", REFUSED_STATES[landlock]
    in_force = min(abi, table["newest_known"])
    row = table["abis"].get(in_force)
    if row is None:
        raise TableError(f"ABI {abi} is not in the ABI table (ABIs "
                         f"{min(table['abis'])} to {max(table['abis'])})")
    return row["verdict"], "accepted" if row["verdict"] == "accepted" else "abi_too_old"


def entry_verdict(entry: jr2kernels.Entry, table: dict[str, Any]) -> tuple[str, str]:
    """The expected verdict of a matrix entry, from the ABI it names."""
    return expected_verdict(entry.landlock, entry.abi_number, table)
