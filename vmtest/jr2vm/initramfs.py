# SPDX-License-Identifier: GPL-2.0-only
"""The guest's initramfs: a base part (busybox, /init, the static payload)
cached by content, and a small run part (run.conf, extra files) appended to it.
"""
import dataclasses
import hashlib
import json
import os
import pathlib
import shlex
import shutil
import struct
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence

from . import cpio, profiles

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = REPO / "build"
GUEST = REPO / "vmtest" / "guest"
BUSYBOX = pathlib.Path("/bin/busybox")
VMPROBE = BUILD / "vmtest" / "jr2-vmprobe"
VM_EXIT = BUILD / "vmtest" / "jr2-vm-exit"
RUN_TESTS = REPO / "selftests" / "run-tests"
PT_INTERP = 3


class PayloadError(Exception):
    pass


def is_static_elf(data: bytes) -> bool:
    """True for an ELF executable (its bytes) without a program interpreter."""
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2:
        return False
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    if phoff + phentsize * phnum > len(data):
        return False
    return all(struct.unpack_from("<I", data, phoff + i * phentsize)[0] != PT_INTERP
               for i in range(phnum))


def payload_binaries(bin_dir: pathlib.Path = BUILD / "bin",
                     selftests_dir: pathlib.Path = BUILD / "selftests") -> dict[str, pathlib.Path]:
    """{guest path: host path} of the runtime and the suite, as built."""
    files = {}
    for path in sorted(bin_dir.glob("jr2-*")) if bin_dir.is_dir() else []:
        if path.is_file():
            files[f"jr2/bin/{path.name}"] = path
    for path in sorted(selftests_dir.glob("*_test")) if selftests_dir.is_dir() else []:
        if path.is_file():
            files[f"jr2/selftests/{path.name}"] = path
    return files


def check_static(files: Mapping[str, pathlib.Path],
                 blobs: Mapping[str, bytes] | None = None) -> None:
    for guest, host in files.items():
        data = blobs[guest] if blobs and guest in blobs else host.read_bytes()
        if not is_static_elf(data):
            raise PayloadError(f"'{host}' is not a static executable: the guest has no libc; "
                               "link it with $(LDFLAGS_STATIC)")


def base_files(payload: Mapping[str, pathlib.Path]) -> dict[str, pathlib.Path]:
    for tool in (VMPROBE, VM_EXIT):
        if not tool.exists():
            raise PayloadError(f"no '{tool}': build it with make {tool.relative_to(REPO)}")
    files = {"bin/busybox": BUSYBOX, "init": GUEST / "init", "jr2/bin/jr2-vmprobe": VMPROBE,
             "bin/jr2-vm-exit": VM_EXIT, "jr2/bin/run-tests": RUN_TESTS}
    files.update(payload)
    return files


@dataclasses.dataclass
class Base:
    """The base part as read once for a whole run (the tree may be rebuilt meanwhile)."""
    data: bytes  # uncompressed cpio, held for the whole run
    sha256: dict[str, str]  # binary name -> SHA256 of the payload's programs


# The guest's folders; /var/tmp: files the kernel's helpers see (the suite's
# core_pattern helper), outside the suite's tmpfs mounts.
BASE_DIRS = ("bin", "dev", "proc", "sys", "tmp", "var", "var/tmp", "run", "root", "jr2/payload")


def build_base(payload: Mapping[str, pathlib.Path],
               cache_dir: pathlib.Path = BUILD / "vmtest") -> Base:
    """Returns the Base of this payload, rebuilt only when an input changed."""
    files = base_files(payload)
    digest = hashlib.sha256(repr(BASE_DIRS).encode())
    blobs: dict[str, bytes] = {}
    sums: dict[str, str] = {}
    for guest, host in sorted(files.items()):
        blobs[guest] = host.read_bytes()
        sums[guest] = hashlib.sha256(blobs[guest]).hexdigest()
        digest.update(f"{guest}\0{sums[guest]}".encode())
    check_static({"bin/busybox": BUSYBOX, "jr2/bin/jr2-vmprobe": VMPROBE,
                  "bin/jr2-vm-exit": VM_EXIT, **payload}, blobs)
    named = {pathlib.Path(g).name: sums[g] for g in sorted(payload)}
    path = cache_dir / f"base-{digest.hexdigest()[:16]}.cpio"
    if path.exists():
        return Base(path.read_bytes(), named)
    archive = cpio.Archive()
    for d in BASE_DIRS:
        archive.directory(d)
    # The kernel opens /dev/console for init's stdio before devtmpfs is mounted.
    archive.char_device("dev/console", 5, 1)
    for guest, data in sorted(blobs.items()):
        archive.file(guest, stripped(data), 0o755)
    # Uncompressed: inflating it took the TCG guest 5 of its 15 s of boot.
    data = archive.raw()
    cache_dir.mkdir(parents=True, exist_ok=True)
    # Other runs may be using older bases: only those of yesterday go.
    for old in cache_dir.glob("base-*.cpio*"):
        if time.time() - old.stat().st_mtime > 86400:
            old.unlink(missing_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.partial")
    tmp.write_bytes(data)
    tmp.rename(path)
    return Base(data, named)


def stripped(data: bytes) -> bytes:
    """The program without its debug sections (a quarter of the suite's bytes,
    which the guest would load, unpack and copy for nothing); as it is where
    binutils' strip is missing or refuses it (busybox, a script)."""
    strip = shutil.which("strip")
    if not strip or not data.startswith(b"\x7fELF"):
        return data
    with tempfile.TemporaryDirectory(prefix="jr2-strip-") as tmp:
        path = pathlib.Path(tmp) / "prog"
        path.write_bytes(data)
        done = subprocess.run([strip, "--strip-debug", str(path)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, check=False)
        return path.read_bytes() if done.returncode == 0 else data


def run_part(mode: str, cmd: str = "", filter_spec: str = "", test_timeout: int = 300,
             extra: Sequence[str | pathlib.Path] = (), suite_name: str = "jr2",
             lane_bins: Sequence[str] = (), profile: "profiles.Profile | None" = None,
             cgroup: str = "v2") -> bytes:
    """The appended part: /jr2/run.conf and the extra payload files.
    lane_bins: the suite binaries this guest runs (a lane's share), else all;
    profile: the OCI runtime, its libraries and config.json of a container
    profile (jr2vm/profiles.py), under /jr2/profile; None: bare; cgroup: the
    guest's cgroup version for the runtime (profiles.cgroup_version)."""
    filter_bin, _, filter_test = (filter_spec or "").partition(":")
    conf = {"MODE": mode, "SUITE_NAME": suite_name, "CMD": cmd, "FILTER_BIN": filter_bin,
            "FILTER_TEST": filter_test, "LANE_BINS": " ".join(lane_bins),
            "TEST_TIMEOUT": str(test_timeout), "PROFILE": profile.name if profile else "bare",
            "PROFILE_CGROUP": cgroup}
    archive = cpio.Archive()
    archive.file("jr2/run.conf", "".join(f"{k}={shlex.quote(v)}\n" for k, v in conf.items()).encode())
    if profile:
        dirs: set[str] = set()
        for guest in [f"{profiles.GUEST_DIR}/config.json", *profile.files]:
            parts = guest.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                d = "/".join(parts[:i])
                if d not in dirs and d not in BASE_DIRS:
                    dirs.add(d)
                    archive.directory(d)
        archive.file(f"{profiles.GUEST_DIR}/config.json",
                     (json.dumps(profile.config, indent=1) + "\n").encode(), 0o644)
        for guest, host in sorted(profile.files.items()):
            archive.file(guest, host.read_bytes(), 0o755)
    for named in extra:
        host = pathlib.Path(named)
        if host.is_dir():
            for sub in sorted(host.rglob("*")):
                if sub.is_file():
                    rel = sub.relative_to(host.parent)
                    archive.file(f"jr2/payload/{rel}", sub.read_bytes(), sub.stat().st_mode & 0o777)
        elif host.is_file():
            archive.file(f"jr2/payload/{host.name}", host.read_bytes(), host.stat().st_mode & 0o777)
        else:
            raise PayloadError(f"no payload file '{host}'")
    return archive.gzipped()


def initrd(path_out: pathlib.Path, base: Base, mode: str, cmd: str = "",
           filter_spec: str = "", test_timeout: int = 300,
           extra: Sequence[str | pathlib.Path] = (), suite_name: str = "jr2",
           lane_bins: Sequence[str] = (),
           profile: "profiles.Profile | None" = None, cgroup: str = "v2") -> pathlib.Path:
    """Writes base (a Base) + run part to path_out; returns it."""
    path_out.write_bytes(base.data + run_part(mode, cmd, filter_spec, test_timeout, extra,
                                              suite_name, lane_bins, profile, cgroup))
    return path_out
