# SPDX-License-Identifier: GPL-2.0-only
"""The kernel's own Landlock selftests of a kernel's own version, built static.

Sources, never another version's tests:
- a Debian entry: Debian's linux-source-<series> whose version is the entry's
  own (downloaded with the matrix's private apt, checked by apt);
- an entry with a prebuilt image (6.2, 6.6, 6.8, 6.11, 5.15): the
  landlock-selftests.tar.xz beside the image in a folder of JR2_KERNEL_IMAGES
  (default ../shared/kernels), checked against that folder's SHA256SUMS.
Built once per source into <kernel cache>/upstream/<name>/ by the tree's own
lib.mk (`make LDFLAGS=-static`), with the UAPI headers of that same version
(the tarball's usr/include, or Debian's linux-libc-dev of that version).
"""
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

import jr2kernels

SELFTESTS = "tools/testing/selftests"
FRAME = ("lib.mk", "kselftest.h", "kselftest_harness.h", "kselftest")
DEBS = ("gcc", "make", "libcap-dev", "xz-utils", "rsync")


class NoSource(Exception):
    """This kernel has no source of its own Landlock selftests: skip, saying why."""


def images_dirs() -> list[pathlib.Path]:
    value = os.environ.get("JR2_KERNEL_IMAGES")
    if value is not None:
        return [pathlib.Path(p) for p in value.split(":") if p]
    shared = jr2kernels.REPO.parent / "shared" / "kernels"
    return [shared] if shared.is_dir() else []


def source_of(kernel: jr2kernels.Kernel,
              entries: list[jr2kernels.Entry]) -> tuple[str, pathlib.Path | str, str]:
    """("deb", package, version) or ("tarball", path, sha256) of a kernel's tests."""
    entry = kernel.entry
    if entry is None:
        raise NoSource(f"'{kernel.name}' is a bzImage of its own: its version's Landlock "
                       "selftests are unknown (name a matrix entry)")
    if entry.landlock != "ok":
        raise NoSource(f"{entry.name} boots without Landlock ({entry.abi}): the kernel's own "
                       "Landlock selftests need it")
    files = jr2kernels.find(entries, entry.base) if entry.base else entry
    for folder in images_dirs():
        tarball = folder / files.name / "landlock-selftests.tar.xz"
        if tarball.is_file():
            return ("tarball", tarball, _listed_sha256(tarball))
    if files.source == "debian" and files.debs:
        version = files.debs[0].version
        m = re.match(r"(\d+\.\d+)", version)
        if m:
            return ("deb", f"linux-source-{m.group(1)}", version)
    raise NoSource(f"{entry.name}: no Debian linux-source of its version and no "
                   "landlock-selftests.tar.xz beside its image (JR2_KERNEL_IMAGES)")


def _listed_sha256(tarball: pathlib.Path) -> str:
    sums = tarball.parent / "SHA256SUMS"
    if not sums.is_file():
        raise NoSource(f"no {sums} to check {tarball} against")
    for line in sums.read_text().splitlines():
        digest, _, name = line.partition("  ")
        if name.strip() == tarball.name:
            if jr2kernels.sha256_of(tarball) != digest:
                raise NoSource(f"{tarball}: SHA256 differs from {sums}: a damaged copy")
            return digest
    raise NoSource(f"{sums} does not list {tarball.name}")


def _deb(apt: jr2kernels.Apt, package: str, version: str) -> pathlib.Path:
    """The .deb of package=version in the cache, downloaded once (apt checks it)."""
    debs = jr2kernels.cache_dir() / "upstream" / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    pattern = f"{package}_{version.replace(':', '%3a')}_*.deb"  # "all" or "amd64"
    if not list(debs.glob(pattern)):
        if not apt.has_version(package, version):
            raise NoSource(f"Debian's archive holds no {package} {version}: the kernel's own "
                           "tests of that version cannot be had")
        jr2kernels.log(f"downloading {package} {version} (for the kernel's own Landlock selftests)")
        apt.download(jr2kernels.Deb(package, version, ""), debs)
    found = sorted(debs.glob(pattern))
    if not found:
        raise jr2kernels.KernelError(f"apt-get download {package}={version} left no {pattern} "
                                     f"in {debs}")
    return found[0]


def _tree_from_deb(package: str, version: str, entries: list[jr2kernels.Entry],
                   work: pathlib.Path) -> tuple[pathlib.Path, list[pathlib.Path]]:
    """The selftests frame of linux-source's tarball, and the UAPI headers of
    linux-libc-dev of the same version (what `make headers_install` gives)."""
    apt = jr2kernels.apt_for(entries)
    apt.write_sources()
    if not apt.lists_fresh():
        apt.update()
    source = _deb(apt, package, version)
    headers = _deb(apt, "linux-libc-dev", version)
    series = package.removeprefix("linux-source-")
    inner = f"usr/src/linux-source-{series}.tar.xz"
    subprocess.run(f"dpkg-deb --fsys-tarfile '{source}' | tar -x -C '{work}' ./{inner}",
                   shell=True, check=True)
    top = f"linux-source-{series}"
    members = [f"{top}/{SELFTESTS}/{m}" for m in (*FRAME, "landlock")] + [f"{top}/COPYING"]
    run = subprocess.run(["tar", "-xJf", str(work / inner), "-C", str(work), *members],
                         capture_output=True, text=True)
    (work / inner).unlink()
    tree = work / top
    if not (tree / SELFTESTS / "landlock").is_dir():
        raise NoSource(f"{package} {version} has no {SELFTESTS}/landlock "
                       f"({run.stderr.strip()[-200:]})")
    subprocess.run(["dpkg-deb", "-x", str(headers), str(work / "libc-dev")], check=True)
    return tree, [work / "libc-dev" / "usr" / "include",
                  work / "libc-dev" / "usr" / "include" / "x86_64-linux-gnu"]


def _tree_from_tarball(tarball: pathlib.Path,
                       work: pathlib.Path) -> tuple[pathlib.Path, list[pathlib.Path]]:
    """The tarball holds the frame and `make headers_install`'s usr/include."""
    # tar(1), not tarfile: Debian 12's Python has no extraction filter.
    run = subprocess.run(["tar", "-xJf", str(tarball), "-C", str(work), "--no-same-owner"],
                         capture_output=True, text=True)
    if run.returncode:
        raise NoSource(f"{tarball} does not unpack: {run.stderr.strip()[-300:]}")
    trees = [p for p in work.iterdir() if (p / SELFTESTS / "landlock").is_dir()]
    if len(trees) != 1:
        raise NoSource(f"{tarball} holds no {SELFTESTS}/landlock")
    return trees[0], [trees[0] / "usr" / "include"]


def _old_lib_mk_args(tree: pathlib.Path) -> list[str]:
    """make's extra arguments for a lib.mk before 5.18, which installs the UAPI
    headers itself (`make headers_install` in the whole tree) and first
    includes the tree's scripts/subarch.include for ARCH: a tarball of the
    selftests alone has neither.  Its headers are the tarball's usr/include,
    where the tests look (-I$(top_srcdir)/usr/include): the install is marked
    done, and SUBARCH, which only that install reads, is x86 (the guests')."""
    lib_mk = tree / SELFTESTS / "lib.mk"
    subarch = tree / "scripts" / "subarch.include"
    if "scripts/subarch.include" not in lib_mk.read_text() or subarch.exists():
        return []
    subarch.parent.mkdir(exist_ok=True)
    subarch.write_text("# vmtest/jr2vm/upstream.py: the headers are installed already\n"
                       "SUBARCH := x86\n")
    return ["KSFT_KHDR_INSTALL_DONE=1"]


def build(kernel: jr2kernels.Kernel,
          entries: list[jr2kernels.Entry]) -> dict[str, pathlib.Path]:
    """{guest path: host path} of the kernel's own tests (jr2/selftests/...)."""
    kind, what, version = source_of(kernel, entries)
    key = re.sub(r"[^A-Za-z0-9.+~-]", "_", f"{kind}-{pathlib.Path(str(what)).name}-{version}")
    out = jr2kernels.cache_dir() / "upstream" / key
    if not (out / ".built").exists():
        with tempfile.TemporaryDirectory(prefix="jr2-upstream-") as tmp:
            work = pathlib.Path(tmp)
            tree, headers = (_tree_from_tarball(pathlib.Path(what), work) if kind == "tarball"
                             else _tree_from_deb(str(what), version, entries, work))
            staging = work / "out"
            staging.mkdir()
            jr2kernels.log(f"{kernel.name}: building its own Landlock selftests ({tree.name})")
            run = subprocess.run(
                ["make", "-s", "-C", str(tree / SELFTESTS / "landlock"), f"OUTPUT={staging}",
                 "LDFLAGS=-static", "KHDR_INCLUDES=" + " ".join(f"-isystem {h}" for h in headers),
                 *_old_lib_mk_args(tree)],
                capture_output=True, text=True,
                env={k: v for k, v in os.environ.items() if not k.startswith("MAKE")})
            if run.returncode != 0:
                raise jr2kernels.KernelError(
                    f"{kernel.name}: its own Landlock selftests ({tree.name}) do not build: "
                    f"{run.stderr.strip()[-800:]}")
            if out.exists():
                shutil.rmtree(out)
            shutil.copytree(staging, out)
            (out / "source").write_text(f"{kind} {what} {version}\n")
            (out / ".built").write_text("")
    return {f"jr2/selftests/{p.name}": p for p in sorted(out.iterdir())
            if p.is_file() and os.access(p, os.X_OK)}
