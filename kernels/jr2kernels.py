# SPDX-License-Identifier: GPL-2.0-only
"""The kernel matrix (kernels/matrix.toml) and the cache of its kernels.

A kernel of the matrix is fetched once into the cache (outside the
repository: $JR2_KERNEL_CACHE, else /var/cache/jr2-kernels) and reused:

    <cache>/apt/            the private apt sources list, lists and archives
    <cache>/debs/           the pinned .debs, checked against their SHA256
    <cache>/src/            kernel.org tarballs (placed by hand where no network)
    <cache>/<name>/         vmlinuz, config (when the packages hold one),
                            source.json (what it was made from)

A built entry may also name a prebuilt image by its SHA256 and release
([kernel.prebuilt]): the image is looked for in the folders of
$JR2_KERNEL_IMAGES (colon-separated; default ../shared/kernels next to the
repository when that folder exists), checked, and copied into the cache like
a build of its own; where it is absent the entry falls back to its tarball.

apt runs with the machine's own configuration (proxy, keyrings) but a private
sources list and state folder, never the system's.
"""
import dataclasses
import hashlib
import json
import lzma
import os
import pathlib
import shutil
import subprocess
import sys
import threading
import time
import tomllib
import urllib.error
import urllib.request
import zlib
from collections.abc import Iterable
from typing import Any

REPO = pathlib.Path(__file__).resolve().parent.parent
MATRIX = REPO / "kernels" / "matrix.toml"
BUILD_KERNEL = REPO / "kernels" / "build-kernel"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
LANDLOCK_STATES = ("ENOSYS", "EOPNOTSUPP")
SOURCES = ("debian", "kernel.org", "debian-source")
# apt lists older than this are refreshed before a download.
LISTS_MAX_AGE_S = 6 * 3600


class KernelError(Exception):
    """A kernel cannot be had; the message says why and what to do."""


@dataclasses.dataclass
class Deb:
    package: str
    version: str
    sha256: str
    vmlinuz: str = ""
    config: str = ""
    # Where the kernel came from, for its results (KCIDB's checkout): the
    # source package the Packages index names, and its Vcs-Git.  Not part
    # of what the cache holds.
    source: str = ""
    vcs_git: str = ""

    @property
    def filename(self) -> str:
        # apt-get download's name: the epoch's colon is escaped.
        return f"{self.package}_{self.version.replace(':', '%3a')}_amd64.deb"


@dataclasses.dataclass
class Prebuilt:
    """A kernel built elsewhere by kernels/build-kernel, named by its image's SHA256."""
    sha256: str
    release: str
    folder: str = ""  # its folder inside an images folder (default: the entry's name)


@dataclasses.dataclass
class Entry:
    name: str
    source: str
    abi: int | str  # the ABI number, or "ENOSYS" / "EOPNOTSUPP"
    verdict: str
    cmdline: str = ""
    base: str = ""  # a variant: the files of that entry
    suite: str = ""
    debs: list[Deb] = dataclasses.field(default_factory=list)
    url: str = ""
    sha256: str = ""
    fragment: str = ""
    package: str = ""
    tarball: str = ""
    prebuilt: Prebuilt | None = None
    pvh: bool = True  # false: QEMU boots the bzImage itself (its PVH entry was measured to hang)

    @property
    def files_name(self) -> str:
        """The cache folder of the kernel files (a variant shares its base's)."""
        return self.base or self.name

    @property
    def landlock(self) -> str:
        """What the probe must answer: ok, ENOSYS or EOPNOTSUPP."""
        return self.abi if isinstance(self.abi, str) and self.abi in LANDLOCK_STATES else "ok"

    @property
    def abi_number(self) -> int:
        return self.abi if isinstance(self.abi, int) else 0

    @property
    def built(self) -> bool:
        """True for the entries made by kernels/build-kernel."""
        return self.source in ("kernel.org", "debian-source")


@dataclasses.dataclass
class Kernel:
    """A kernel ready to boot."""
    name: str
    vmlinuz: pathlib.Path
    config: pathlib.Path | None = None
    cmdline: str = ""
    entry: Entry | None = None  # None for a user's own bzImage


def cache_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("JR2_KERNEL_CACHE", "/var/cache/jr2-kernels"))


def load_matrix(path: str | pathlib.Path = MATRIX) -> list[Entry]:
    """Returns the entries of the matrix in file order; raises KernelError."""
    try:
        data = tomllib.loads(pathlib.Path(path).read_text())
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise KernelError(f"cannot read the kernel matrix '{path}': {err}") from err
    entries: list[Entry] = []
    by_name: dict[str, Entry] = {}
    for raw in data.get("kernel", []):
        raw = dict(raw)
        name = raw.get("name", "")
        if not name:
            raise KernelError(f"{path}: a [[kernel]] has no name")
        if name in by_name:
            raise KernelError(f"{path}: kernel '{name}' is listed twice")
        base = raw.get("base", "")
        if base:
            if base not in by_name:
                raise KernelError(f"{path}: kernel '{name}' has base '{base}', "
                                  "which is not an entry above it")
            parent = by_name[base]
            raw = {**dataclasses.asdict(parent), "debs": parent.debs, **raw}
        raw["debs"] = [d if isinstance(d, Deb) else Deb(**d) for d in raw.get("debs", raw.pop("deb", []))]
        raw.pop("deb", None)
        try:
            if isinstance(raw.get("prebuilt"), dict):
                raw["prebuilt"] = Prebuilt(**raw["prebuilt"])
            entry = Entry(**raw)
        except TypeError as err:
            raise KernelError(f"{path}: kernel '{name}': {err}") from err
        check_entry(entry, path)
        entries.append(entry)
        by_name[name] = entry
    return entries


def check_entry(entry: Entry, path: str | pathlib.Path) -> None:
    where = f"{path}: kernel '{entry.name}'"
    if entry.source not in SOURCES:
        raise KernelError(f"{where}: source '{entry.source}' is none of {', '.join(SOURCES)}")
    if not (isinstance(entry.abi, int) and entry.abi > 0) and entry.abi not in LANDLOCK_STATES:
        raise KernelError(f"{where}: abi '{entry.abi}' is neither an ABI number "
                          f"nor one of {', '.join(LANDLOCK_STATES)}")
    if entry.source == "debian":
        if not entry.suite or not entry.debs:
            raise KernelError(f"{where}: a debian entry needs suite and at least one [[kernel.deb]]")
        if sum(1 for d in entry.debs if d.vmlinuz) != 1:
            raise KernelError(f"{where}: exactly one [[kernel.deb]] must name vmlinuz")
        for deb in entry.debs:
            if len(deb.sha256) != 64:
                raise KernelError(f"{where}: {deb.package} has no SHA256 pinned "
                                  f"(apt-cache show {deb.package}={deb.version})")
    elif entry.source == "kernel.org" and not entry.url:
        raise KernelError(f"{where}: a kernel.org entry needs url")
    elif entry.source == "debian-source" and not entry.tarball:
        raise KernelError(f"{where}: a debian-source entry needs tarball")
    if entry.prebuilt is not None:
        if not entry.built:
            raise KernelError(f"{where}: only a built entry (kernel.org, debian-source) may name "
                              "a prebuilt image")
        if len(entry.prebuilt.sha256) != 64 or not entry.prebuilt.release:
            raise KernelError(f"{where}: [kernel.prebuilt] needs the image's sha256 (64 hex "
                              "digits: sha256sum vmlinuz) and its release (make kernelrelease)")


def find(entries: list[Entry], name: str) -> Entry:
    for entry in entries:
        if entry.name == name:
            return entry
    names = " ".join(e.name for e in entries)
    raise KernelError(f"no kernel '{name}' in {MATRIX.relative_to(REPO)} (entries: {names}); "
                      "or give a path: KERNEL=/path/to/bzImage")


def sha256_of(path: str | pathlib.Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def log(msg: str) -> None:
    print(f"kernels: {msg}", file=sys.stderr, flush=True)


class Apt:
    """apt-get and apt-cache with a private sources list and state."""

    def __init__(
            self, root: pathlib.Path, suites: Iterable[str], mirror: str | None = None) -> None:
        self.root = root
        self.mirror = mirror or os.environ.get("JR2_DEBIAN_MIRROR", "http://deb.debian.org/debian")
        self.suites = sorted(set(suites))
        self.sources = root / "sources.list"

    def options(self) -> list[str]:
        return ["-o", f"Dir::Etc::SourceList={self.sources}",
                "-o", "Dir::Etc::SourceParts=/dev/null",
                "-o", f"Dir::State::Lists={self.root / 'lists'}",
                "-o", f"Dir::Cache={self.root / 'cache'}",
                "-o", "APT::Sandbox::User=root", "-q"]

    def write_sources(self) -> None:
        (self.root / "lists" / "partial").mkdir(parents=True, exist_ok=True)
        (self.root / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
        text = "".join(f"deb [signed-by={KEYRING}] {self.mirror} {suite} main\n"
                       for suite in self.suites)
        if not self.sources.exists() or self.sources.read_text() != text:
            self.sources.write_text(text)
            for old in (self.root / "lists").glob("*_Packages*"):
                old.unlink()

    def lists_fresh(self) -> bool:
        lists = list((self.root / "lists").glob("*_Packages*"))
        if len(lists) < len(self.suites):
            return False
        return time.time() - min(p.stat().st_mtime for p in lists) < LISTS_MAX_AGE_S

    def update(self) -> None:
        log(f"apt-get update (private lists in {self.root}: {' '.join(self.suites)})")
        run = subprocess.run(["apt-get", *self.options(), "update"], capture_output=True, text=True)
        if run.returncode != 0 or "\nE:" in "\n" + run.stderr:
            raise KernelError(f"apt-get update of the kernel sources failed ({self.mirror}): "
                              f"{run.stderr.strip()[-600:]}")

    def has_version(self, package: str, version: str) -> bool:
        run = subprocess.run(["apt-cache", *self.options(), "show", f"{package}={version}"],
                             capture_output=True, text=True)
        return run.returncode == 0 and f"Version: {version}" in run.stdout

    def download(self, deb: Deb, dest: pathlib.Path) -> None:
        run = subprocess.run(["apt-get", *self.options(), "download", f"{deb.package}={deb.version}"],
                             cwd=dest, capture_output=True, text=True)
        if run.returncode != 0:
            raise KernelError(f"apt-get download {deb.package}={deb.version} failed: "
                              f"{run.stderr.strip()[-600:]}")


def apt_for(entries: list[Entry]) -> Apt:
    suites = [e.suite for e in entries if e.source == "debian" and not e.base]
    return Apt(cache_dir() / "apt", suites)


def left_archive_message(entry: Entry, deb: Deb) -> str:
    return (f"kernel {entry.name}: the pinned build {deb.package} {deb.version} has left the Debian "
            f"archive ({entry.suite}): Debian keeps only the newest build of each series. Find the "
            f"current one (apt-cache search 'linux-(image|binary)-.*-amd64' with {entry.suite} in "
            f"the sources) and update its package, version, sha256 and member paths in "
            f"kernels/matrix.toml (apt-cache show PKG=VERSION gives Version and SHA256)")


def fetch_debs(entry: Entry, apt: Apt) -> list[pathlib.Path]:
    """Downloads (or reuses) and checks the .debs of a debian entry."""
    debs_dir = cache_dir() / "debs"
    debs_dir.mkdir(parents=True, exist_ok=True)
    paths: list[pathlib.Path] = []
    refreshed = False
    for deb in entry.debs:
        path = debs_dir / deb.filename
        if path.exists() and sha256_of(path) == deb.sha256:
            paths.append(path)
            continue
        apt.write_sources()
        if not refreshed and not apt.lists_fresh():
            apt.update()
            refreshed = True
        if not apt.has_version(deb.package, deb.version):
            if not refreshed:
                apt.update()
                refreshed = True
            if not apt.has_version(deb.package, deb.version):
                raise KernelError(left_archive_message(entry, deb))
        log(f"{entry.name}: downloading {deb.package} {deb.version}")
        path.unlink(missing_ok=True)
        apt.download(deb, debs_dir)
        got = sha256_of(path) if path.exists() else "(no file)"
        if got != deb.sha256:
            path.unlink(missing_ok=True)
            raise KernelError(f"kernel {entry.name}: {deb.filename} has SHA256 {got}, the matrix pins "
                              f"{deb.sha256}: a changed build or a broken mirror; check apt-cache show "
                              f"{deb.package}={deb.version}")
        paths.append(path)
    return paths


def extract_member(deb_path: pathlib.Path, member: str, dest: pathlib.Path) -> None:
    """Writes one file of a .deb's data archive to dest."""
    tmp = dest.with_suffix(".partial")
    with open(tmp, "wb") as out:
        data = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb_path)], stdout=subprocess.PIPE)
        tar = subprocess.run(["tar", "-xO", f"./{member}"], stdin=data.stdout, stdout=out,
                             stderr=subprocess.PIPE, text=True)
        if data.stdout:
            data.stdout.close()
        data.wait()
    if tar.returncode != 0 or tmp.stat().st_size == 0:
        tmp.unlink(missing_ok=True)
        raise KernelError(f"{deb_path.name} has no member '{member}' ({tar.stderr.strip()}): "
                          "fix the member path in kernels/matrix.toml (dpkg-deb -c lists them)")
    tmp.rename(dest)


def image_dirs() -> list[pathlib.Path]:
    """The folders searched for prebuilt images: $JR2_KERNEL_IMAGES, else
    ../shared/kernels next to the repository when it exists."""
    value = os.environ.get("JR2_KERNEL_IMAGES")
    if value is not None:
        return [pathlib.Path(p) for p in value.split(":") if p]
    tops = [REPO]
    # A git worktree (.git is a file naming .../main/.git/worktrees/NAME):
    # the main checkout's ../shared as well.
    dot_git = REPO / ".git"
    if dot_git.is_file():
        gitdir = dot_git.read_text().partition("gitdir:")[2].strip()
        if gitdir and pathlib.Path(gitdir).parent.name == "worktrees":
            tops.append(pathlib.Path(gitdir).parents[2])
    found = [top.parent / "shared" / "kernels" for top in tops]
    return [d for d in dict.fromkeys(found) if d.is_dir()]


def prebuilt_image(entry: Entry) -> pathlib.Path | None:
    """The path of the prebuilt image of an entry whose SHA256 matches, else None."""
    pre = entry.prebuilt
    if pre is None:
        return None
    for top in image_dirs():
        for candidate in (top / (pre.folder or entry.name) / "vmlinuz", top / "vmlinuz"):
            try:
                if candidate.is_file() and sha256_of(candidate) == pre.sha256:
                    return candidate
            except OSError:
                continue
    return None


def prebuilt_stamp(entry: Entry) -> dict[str, str]:
    pre = entry.prebuilt
    return {"source": "prebuilt", "sha256": pre.sha256, "release": pre.release} if pre else {}


def use_prebuilt(entry: Entry, pre: Prebuilt, image: pathlib.Path) -> Kernel:
    """Copies a checked prebuilt image (and its config) into the cache."""
    folder = cache_dir() / entry.name
    folder.mkdir(parents=True, exist_ok=True)
    release_file = image.parent / "release"
    if release_file.exists() and release_file.read_text().strip() != pre.release:
        raise KernelError(f"kernel {entry.name}: {release_file} says "
                          f"'{release_file.read_text().strip()}', kernels/matrix.toml says release "
                          f"'{pre.release}': fix the entry's [kernel.prebuilt]")
    (folder / "source.json").unlink(missing_ok=True)
    for name in ("vmlinuz", "config"):
        src = image if name == "vmlinuz" else image.parent / "config"
        if src.is_file():
            tmp = folder / f"{name}.{os.getpid()}.partial"
            shutil.copyfile(src, tmp)
            tmp.rename(folder / name)
        elif name == "config":
            (folder / name).unlink(missing_ok=True)
    got = sha256_of(folder / "vmlinuz")
    if got != pre.sha256:
        raise KernelError(f"kernel {entry.name}: the copy of {image} has SHA256 {got}, not "
                          f"{pre.sha256}: it changed while copied; run again")
    (folder / "source.json").write_text(json.dumps({**prebuilt_stamp(entry), "from": str(image)},
                                                   indent=1) + "\n")
    log(f"{entry.name}: prebuilt image {image} (release {pre.release}, SHA256 checked)")
    return cached_now(entry)


def way(entry: Entry, entries: list[Entry]) -> str:
    """How an entry will come, for `make kernels-list`."""
    files = find(entries, entry.files_name)
    hit = cached(files)
    if hit:
        stamp = json.loads((hit.vmlinuz.parent / "source.json").read_text())
        if stamp.get("source") == "prebuilt":
            return f"cached (prebuilt {stamp['release']} from {stamp.get('from', '?')})"
        return "cached"
    if files.source == "debian":
        return "to fetch (Debian archive)"
    image = prebuilt_image(files)
    if image and files.prebuilt:
        return f"prebuilt image {image} (release {files.prebuilt.release})"
    why = "the entry names no prebuilt image"
    if files.prebuilt:
        dirs = ":".join(str(d) for d in image_dirs()) or "no folder (JR2_KERNEL_IMAGES)"
        why = f"no image of SHA256 {files.prebuilt.sha256[:12]}... in {dirs}"
    return f"tarball recipe, not built ({why}): make kernel-build KERNEL={files.name}"


def stamp_of(entry: Entry) -> dict[str, Any]:
    if entry.source == "debian":
        # The files' pins only: a source or vcs_git written later keeps the cache.
        return {"source": "debian", "debs": [
            {k: getattr(d, k) for k in ("package", "version", "sha256", "vmlinuz", "config")}
            for d in entry.debs]}
    return {"source": entry.source, "url": entry.url, "tarball": entry.tarball,
            "sha256": entry.sha256, "fragment": entry.fragment}


def cached(entry: Entry) -> Kernel | None:
    """The Kernel of an entry when its files are in the cache and current, else None."""
    folder = cache_dir() / entry.files_name
    stamp = folder / "source.json"
    vmlinuz = folder / "vmlinuz"
    if not (stamp.exists() and vmlinuz.exists()):
        return None
    try:
        found = json.loads(stamp.read_text())
    except ValueError:
        return None
    found.pop("from", None)
    if found != stamp_of(entry) and not (entry.prebuilt and found == prebuilt_stamp(entry)):
        return None
    config = folder / "config"
    return Kernel(entry.name, vmlinuz, config if config.exists() else None, entry.cmdline, entry)


def cached_now(entry: Entry) -> Kernel:
    """The Kernel of an entry just put in the cache; raises KernelError when
    its files are not there (removed meanwhile by another run)."""
    kernel = cached(entry)
    if kernel is None:
        raise KernelError(f"kernel {entry.name}: its files in {cache_dir() / entry.files_name} "
                          "went missing as they were written: run again")
    return kernel


def fetch(entry: Entry, entries: list[Entry]) -> Kernel:
    """Returns the Kernel of an entry, fetching a debian one; raises KernelError."""
    if entry.base:
        base = find(entries, entry.base)
        kernel = fetch(base, entries)
        return Kernel(entry.name, kernel.vmlinuz, kernel.config, entry.cmdline, entry)
    hit = cached(entry)
    if hit:
        return hit
    image = prebuilt_image(entry)
    if image and entry.prebuilt:
        return use_prebuilt(entry, entry.prebuilt, image)
    if entry.built:
        raise KernelError(build_hint(entry))
    folder = cache_dir() / entry.name
    folder.mkdir(parents=True, exist_ok=True)
    paths = fetch_debs(entry, apt_for(entries))
    for deb, path in zip(entry.debs, paths):
        if deb.vmlinuz:
            extract_member(path, deb.vmlinuz, folder / "vmlinuz")
        if deb.config:
            extract_member(path, deb.config, folder / "config")
    (folder / "source.json").write_text(json.dumps(stamp_of(entry), indent=1) + "\n")
    log(f"{entry.name}: {folder / 'vmlinuz'}")
    return cached_now(entry)


def build_hint(entry: Entry) -> str:
    hint = (f"kernel {entry.name} is built from source and not built yet: "
            f"make kernel-build KERNEL={entry.name} (a long build: 20 to 60 min on 2 cores)")
    if entry.prebuilt:
        dirs = ":".join(str(d) for d in image_dirs()) or "none"
        hint += (f"; or place its prebuilt image (release {entry.prebuilt.release}, SHA256 "
                 f"{entry.prebuilt.sha256}) at <folder>/{entry.prebuilt.folder or entry.name}/vmlinuz "
                 f"in a folder of JR2_KERNEL_IMAGES (searched: {dirs})")
    if entry.source == "kernel.org":
        name = entry.url.rsplit("/", 1)[-1]
        path = cache_dir() / "src" / name
        if not path.exists():
            hint += (f"; it needs {name}, which is not in the cache: place it at {path} "
                     f"(from {entry.url}) where this machine cannot reach kernel.org")
    return hint


def tarball_of(entry: Entry) -> pathlib.Path:
    """The source tarball of a built entry, fetched for kernel.org; raises KernelError."""
    if entry.source == "debian-source":
        path = pathlib.Path(entry.tarball)
        if not path.exists():
            raise KernelError(f"kernel {entry.name}: no {path}: install the Debian package "
                              f"{entry.package} (scripts/need-debs {entry.package})")
        return path
    name = entry.url.rsplit("/", 1)[-1]
    path = cache_dir() / "src" / name
    if not path.exists():
        try:
            download(entry.url, path)
        except (OSError, urllib.error.URLError) as err:
            raise KernelError(
                f"kernel {entry.name}: the tarball {entry.url} is not reachable ({err}) and not in "
                f"the cache: place {name} at {path} (from a machine that reaches kernel.org), "
                "then run the same command again") from err
    if not entry.sha256:
        raise KernelError(
            f"kernel {entry.name}: no SHA256 pinned for {name} in kernels/matrix.toml: check {path} "
            "against kernel.org's signed sha256sums.asc and set the entry's sha256")
    got = sha256_of(path)
    if got != entry.sha256:
        raise KernelError(f"kernel {entry.name}: {path} has SHA256 {got}, the matrix pins "
                          f"{entry.sha256}: remove it and place the right tarball")
    return path


def download(url: str, path: pathlib.Path, timeout: float = 15) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".partial")
    with urllib.request.urlopen(url, timeout=timeout) as response, open(tmp, "wb") as out:
        shutil.copyfileobj(response, out)
    tmp.rename(path)


def build(entry: Entry) -> Kernel:
    """Builds a source entry with kernels/build-kernel; returns its Kernel."""
    if not entry.built:
        raise KernelError(f"kernel {entry.name} comes from the Debian archive: nothing to build")
    tarball = tarball_of(entry)
    folder = cache_dir() / entry.name
    run = subprocess.run([str(BUILD_KERNEL), str(tarball), str(REPO / entry.fragment), str(folder)])
    if run.returncode != 0:
        raise KernelError(f"kernel {entry.name}: kernels/build-kernel failed (status {run.returncode})")
    (folder / "source.json").write_text(json.dumps(stamp_of(entry), indent=1) + "\n")
    return cached_now(entry)


def user_kernel(spec: str | pathlib.Path) -> Kernel:
    """KERNEL=/path/to/bzImage: a user's own build, no entry, ABI read at boot."""
    path = pathlib.Path(spec).resolve()
    if not path.is_file():
        raise KernelError(f"no kernel image '{path}': give a bzImage path or a matrix name")
    name = path.parent.name if path.name in ("bzImage", "vmlinuz") else path.name
    return Kernel(f"custom-{name}", path)


def resolve(spec: str, entries: list[Entry] | None = None) -> Kernel:
    """A matrix name or a bzImage path -> Kernel."""
    entries = entries if entries is not None else load_matrix()
    if "/" in spec or spec.startswith("."):
        return user_kernel(spec)
    entry = find(entries, spec)
    return fetch(entry, entries)


def extract_vmlinux(bzimage: pathlib.Path, dest: pathlib.Path) -> None:
    """Writes the uncompressed ELF kernel inside a bzImage to dest (QEMU boots
    it through PVH, which skips the guest's own decompression: about 1 s with
    ZSTD, 3 s with XZ under TCG).  Raises KernelError when the payload is in
    another format."""
    data = pathlib.Path(bzimage).read_bytes()
    if data[0x202:0x206] != b"HdrS":
        raise KernelError(f"'{bzimage}' is not a bzImage (no HdrS boot header)")
    setup_sects = data[0x1F1] or 4
    offset, length = int.from_bytes(data[0x248:0x24C], "little"), int.from_bytes(data[0x24C:0x250], "little")
    start = (setup_sects + 1) * 512 + offset
    payload = data[start:start + length]
    try:
        if payload.startswith(b"\xfd7zXZ\x00"):
            # The decompressor stops at the stream's end: the 4-byte size the
            # build appends to XZ and ZSTD payloads is left over.
            elf = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(payload)
        elif payload.startswith(b"\x28\xb5\x2f\xfd"):
            run = subprocess.run(["zstd", "-dcq"], input=payload[:-4], capture_output=True)
            if run.returncode != 0:
                raise KernelError(f"zstd could not unpack the kernel of '{bzimage}': "
                                  f"{run.stderr.decode().strip()}")
            elf = run.stdout
        elif payload.startswith(b"\x1f\x8b"):
            elf = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(payload)
        else:
            raise KernelError(f"'{bzimage}': kernel payload of unknown format ({payload[:4].hex()}): "
                              "boot the bzImage itself (JR2_VM_PVH=0)")
    except (lzma.LZMAError, zlib.error, EOFError) as err:
        raise KernelError(f"'{bzimage}': cannot unpack its kernel ({err}): boot the bzImage "
                          "itself (JR2_VM_PVH=0)") from err
    if not elf.startswith(b"\x7fELF"):
        raise KernelError(f"'{bzimage}': the unpacked kernel is not an ELF file")
    # Two boots of one kernel (a variant and its base) may unpack it at once.
    tmp = pathlib.Path(f"{dest}.{os.getpid()}.{threading.get_ident()}.partial")
    tmp.write_bytes(elf)
    tmp.rename(dest)


def boot_image(kernel: Kernel) -> pathlib.Path:
    """The image QEMU loads: the unpacked vmlinux next to a matrix kernel's
    vmlinuz (made once, PVH boot), else the bzImage itself (a user's kernel
    may lack CONFIG_PVH; an entry with `pvh = false` in the matrix boots its
    bzImage too; JR2_VM_PVH=0 turns PVH off)."""
    if kernel.entry is None or not kernel.entry.pvh or os.environ.get("JR2_VM_PVH", "1") == "0":
        return kernel.vmlinuz
    vmlinux = kernel.vmlinuz.with_name("vmlinux")
    if not vmlinux.exists() or vmlinux.stat().st_mtime < kernel.vmlinuz.stat().st_mtime:
        extract_vmlinux(kernel.vmlinuz, vmlinux)
    return vmlinux
