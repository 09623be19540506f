# SPDX-License-Identifier: GPL-2.0-only
"""summary.json of one kernel of a run (results/formats/README.md)."""
import dataclasses
from typing import Any

import jr2kernels
from jr2results import tap

from . import channel, expect


@dataclasses.dataclass
class Boot:
    """What one boot of a kernel gave, and what it was given."""
    name: str  # the kernel's
    entry: jr2kernels.Entry | None  # None for a user's own bzImage
    channel: channel.Channel  # the result channel, parsed
    console_text: str
    table: dict[str, Any]  # the runtime's ABI table (expect.abi_table)
    timed_out: bool
    timeout_s: float
    durations: dict[str, float]
    binaries: dict[str, str]  # the payload's programs: name -> SHA256
    exit_status: int | None = None  # QEMU's
    cap: int = 0  # the ABI cap given to the guest (0: none)


def summarize(boot: Boot) -> dict[str, Any]:
    """Everything known about one boot; `outcome` is pass only when all agrees.
    With a cap, the verdict expected is that of ABI min(kernel, cap)."""
    name, entry, ch, console_text = boot.name, boot.entry, boot.channel, boot.console_text
    table, timed_out, exit_status, cap = boot.table, boot.timed_out, boot.exit_status, boot.cap
    kernel_problems = channel.console_problems(console_text)
    problems = [f"console: {line}" for line in kernel_problems]
    probe = ch.probe or {}
    landlock = "ok"
    if probe.get("errno"):
        landlock = probe["errno"]
    abi = probe.get("abi") if probe else None
    errata = probe.get("errata") if probe and probe.get("errata", -1) >= 0 else None
    if timed_out:
        problems.append(f"timeout: the guest did not end within {boot.timeout_s} s")
    if not ch.ended:
        problems.append("no end marker on the result channel: the guest crashed, panicked or hung "
                        f"(QEMU exit status {exit_status}); see console.log")
    elif exit_status is not None and exit_status != 85:
        problems.append(f"QEMU exit status {exit_status}, not 85 (isa-debug-exit of the runner)")
    if not probe:
        problems.append("no Landlock probe result from the guest (jr2-vmprobe)")

    entry_abi: int | str | None = None
    expected: str | None = None
    expected_code: str | None = None
    if entry is not None:
        entry_abi = entry.abi_number if entry.landlock == "ok" else entry.landlock
        if probe and (landlock != entry.landlock or (landlock == "ok" and abi != entry.abi)):
            got = abi if landlock == "ok" else landlock
            problems.append(f"ABI mismatch: kernels/matrix.toml says {entry.name} gives "
                            f"{entry.abi}, the kernel reports {got}: fix the entry or the kernel")
        expected, expected_code = expect.entry_verdict(entry, table)
        if expected_code != entry.verdict:
            problems.append(f"the entry's verdict '{entry.verdict}' disagrees with the ABI table "
                            f"('{expected_code}' for {entry.abi}): fix kernels/matrix.toml")
        if cap:
            expected, expected_code = expect.expected_verdict(
                entry.landlock, min(entry.abi_number, cap), table)
    elif probe:
        expected, expected_code = expect.expected_verdict(
            landlock, min(abi or 0, cap) if cap else abi or 0, table)

    check = channel.check_json(ch)
    verdict = verdict_code = None
    if check is None:
        problems.append("no `jr2-confine check --json` output from the guest")
    else:
        verdict, verdict_code = check.get("verdict"), check.get("verdict_code")
        check_landlock = check.get("landlock")
        if probe and check_landlock and check_landlock != landlock:
            problems.append(f"jr2-confine check says Landlock '{check_landlock}', "
                            f"jr2-vmprobe says '{landlock}'")
        if (ch.check_status == 0) != (verdict == "accepted"):
            problems.append(f"jr2-confine check exited {ch.check_status} with verdict {verdict}")
        # The cap reached the guest, and the runtime took it.
        check_abi = check.get("abi") or {}
        if (check_abi.get("cap") or 0) != cap:
            problems.append(f"the guest's jr2-confine check reports the ABI cap "
                            f"{check_abi.get('cap')}, vmtest gave {cap or 'none'}")
        elif cap and probe and landlock == "ok" and check_abi.get("in_force") != min(abi or 0, cap):
            problems.append(f"jr2-confine check reports ABI {check_abi.get('in_force')} in "
                            f"force, the cap {cap} on the kernel's ABI {abi} gives "
                            f"{min(abi or 0, cap)}")

    results = tap.parse(ch.tap)
    if ch.suite_binaries is not None:
        framed = tap.finished_binaries(ch.tap)
        if framed < ch.suite_binaries:
            problems.append(f"{ch.suite_binaries - framed} of {ch.suite_binaries} suite binaries "
                            "did not finish")
        if ch.suite_binaries == 0:
            problems.append("the payload holds no suite binary (build/selftests/*_test)")
    counts = tap.counts(results)

    # A kernel that oopsed, warned or panicked gives no result to trust.
    if verdict is None or not ch.ended or timed_out or kernel_problems:
        outcome = "error"
    elif (verdict_code == expected_code and counts["fail"] == 0 and counts["error"] == 0
          and not problems):
        outcome = "pass"
    else:
        outcome = "fail"
    return {
        "kernel": name, "release": ch.release or probe.get("release", ""),
        "entry_abi": entry_abi, "abi": abi if landlock == "ok" else None, "errata": errata,
        "cap": cap or None,
        # Each feature as the guest's runtime found it (the ABI regime).
        "features": {name: f.get("status") for name, f in (check.get("features") or {}).items()}
        if check else {},
        "yama_ptrace_scope": check.get("yama_ptrace_scope") if check else None,
        "landlock": landlock if probe else None,
        "expected_verdict": expected, "expected_verdict_code": expected_code,
        "verdict": verdict, "verdict_code": verdict_code,
        "counts": counts,
        "tests": [{"name": r.name, "binary": r.binary, "promises": r.promises,
                   "status": r.status, "reason": r.reason, "duration_s": r.duration}
                  for r in results],
        "problems": problems, "durations": boot.durations, "binary_s": ch.binary_s,
        "binary_cpu_s": ch.binary_cpu_s, "outcome": outcome,
        "binaries_sha256": boot.binaries,
    }
