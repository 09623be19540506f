# SPDX-License-Identifier: GPL-2.0-only
"""kernels/jr2kernels.py: the cache, the pinned SHA256, the messages that say what to do."""
import hashlib
import pathlib
import subprocess
import urllib.error
from collections.abc import Callable

import pytest

import jr2kernels


@pytest.fixture
def cache(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    monkeypatch.setenv("JR2_KERNEL_CACHE", str(tmp_path))
    return tmp_path


def debian_entry(sha: str) -> jr2kernels.Entry:
    deb = jr2kernels.Deb("linux-image-9.9-amd64", "9.9-1", sha, vmlinuz="boot/vmlinuz-9.9")
    return jr2kernels.Entry("9.9", "debian", 12, "accepted", suite="forky", debs=[deb])


class FakeApt(jr2kernels.Apt):
    """apt as the tests want it: these versions, this content."""

    def __init__(self, versions: set[tuple[str, str]], content: bytes = b"") -> None:
        self.versions, self.content, self.downloads, self.updates = versions, content, 0, 0

    def write_sources(self) -> None:
        pass

    def lists_fresh(self) -> bool:
        return True

    def update(self) -> None:
        self.updates += 1

    def has_version(self, package: str, version: str) -> bool:
        return (package, version) in self.versions

    def download(self, deb: jr2kernels.Deb, dest: pathlib.Path) -> None:
        self.downloads += 1
        (dest / deb.filename).write_bytes(self.content)


def test_a_build_that_left_the_archive_says_so_and_what_to_change(cache: pathlib.Path) -> None:
    entry = debian_entry("0" * 64)
    apt = FakeApt(versions=set())
    with pytest.raises(jr2kernels.KernelError) as err:
        jr2kernels.fetch_debs(entry, apt)
    assert "has left the Debian archive (forky)" in str(err.value)
    assert "kernels/matrix.toml" in str(err.value)
    assert apt.updates == 1  # the lists were refreshed before concluding


def test_a_download_with_another_sha256_is_refused_and_removed(cache: pathlib.Path) -> None:
    entry = debian_entry("0" * 64)
    apt = FakeApt({("linux-image-9.9-amd64", "9.9-1")}, content=b"not the pinned build")
    with pytest.raises(jr2kernels.KernelError, match="has SHA256 .* the matrix pins 0000"):
        jr2kernels.fetch_debs(entry, apt)
    assert not (cache / "debs" / entry.debs[0].filename).exists()


def test_a_cached_deb_with_the_pinned_sha256_is_reused(cache: pathlib.Path) -> None:
    content = b"a deb"
    entry = debian_entry(hashlib.sha256(content).hexdigest())
    (cache / "debs").mkdir()
    (cache / "debs" / entry.debs[0].filename).write_bytes(content)
    apt = FakeApt(versions=set())
    assert jr2kernels.fetch_debs(entry, apt) == [cache / "debs" / entry.debs[0].filename]
    assert apt.downloads == 0


def test_an_unreachable_kernel_org_tarball_names_the_file_to_place(
        cache: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    entry = jr2kernels.Entry("6.2", "kernel.org", 3, "accepted",
                             url="https://cdn.kernel.org/pub/linux/kernel/v6.x/linux-6.2.16.tar.xz")

    def unreachable(url: str, path: pathlib.Path, timeout: float = 15) -> None:
        raise urllib.error.URLError("Network is unreachable")
    monkeypatch.setattr(jr2kernels, "download", unreachable)
    with pytest.raises(jr2kernels.KernelError) as err:
        jr2kernels.tarball_of(entry)
    assert f"place linux-6.2.16.tar.xz at {cache / 'src' / 'linux-6.2.16.tar.xz'}" in str(err.value)
    assert "not built yet" in jr2kernels.build_hint(entry)
    assert str(cache / "src" / "linux-6.2.16.tar.xz") in jr2kernels.build_hint(entry)


def test_a_placed_tarball_without_a_pinned_sha256_is_refused(cache: pathlib.Path) -> None:
    entry = jr2kernels.Entry("6.2", "kernel.org", 3, "accepted", url="https://x/linux-6.2.16.tar.xz")
    (cache / "src").mkdir()
    (cache / "src" / "linux-6.2.16.tar.xz").write_bytes(b"tar")
    with pytest.raises(jr2kernels.KernelError, match="no SHA256 pinned"):
        jr2kernels.tarball_of(entry)


def test_a_cache_stamp_of_another_build_is_not_reused(cache: pathlib.Path) -> None:
    entry = debian_entry("1" * 64)
    folder = cache / entry.name
    folder.mkdir()
    (folder / "vmlinuz").write_bytes(b"k")
    (folder / "source.json").write_text('{"source": "debian", "debs": []}')
    assert jr2kernels.cached(entry) is None


def test_an_unknown_name_lists_the_entries() -> None:
    entries = jr2kernels.load_matrix()
    with pytest.raises(jr2kernels.KernelError, match="entries: 5.10 6.1"):
        jr2kernels.find(entries, "4.19")


def test_a_path_is_a_users_own_kernel(tmp_path: pathlib.Path) -> None:
    image = tmp_path / "linux" / "bzImage"
    image.parent.mkdir()
    image.write_bytes(b"k")
    kernel = jr2kernels.resolve(str(image), entries=[])
    assert kernel.entry is None and kernel.vmlinuz == image and kernel.name == "custom-linux"
    with pytest.raises(jr2kernels.KernelError, match="no kernel image"):
        jr2kernels.resolve(str(tmp_path / "nothing"), entries=[])


def fake_bzimage(payload: bytes, setup_sects: int = 4, size_appended: bool = True) -> bytes:
    """A bzImage header (boot protocol 2.08+) around a compressed payload
    (the kernel build appends the size to XZ and ZSTD payloads, not gzip)."""
    if size_appended:
        payload += b"\x10\x00\x00\x00"
    image = bytearray((setup_sects + 1) * 512)
    image[0x1F1] = setup_sects
    image[0x202:0x206] = b"HdrS"
    offset = 0x100
    image[0x248:0x24C] = offset.to_bytes(4, "little")
    image[0x24C:0x250] = len(payload).to_bytes(4, "little")
    return bytes(image) + b"\0" * offset + payload


@pytest.mark.parametrize("compress, sized", [
    (lambda d: __import__("lzma").compress(d, format=__import__("lzma").FORMAT_XZ), True),
    (lambda d: subprocess.run(["zstd", "-q"], input=d, capture_output=True).stdout, True),
    (lambda d: __import__("gzip").compress(d), False),
], ids=["xz", "zstd", "gzip"])
def test_the_vmlinux_is_unpacked_from_a_bzimage(tmp_path: pathlib.Path,
                                                compress: Callable[[bytes], bytes],
                                                sized: bool) -> None:
    elf = b"\x7fELF" + bytes(range(256)) * 8
    (tmp_path / "bzImage").write_bytes(fake_bzimage(compress(elf), size_appended=sized))
    jr2kernels.extract_vmlinux(tmp_path / "bzImage", tmp_path / "vmlinux")
    assert (tmp_path / "vmlinux").read_bytes() == elf


def test_a_bzimage_of_unknown_payload_says_to_boot_it_whole(tmp_path: pathlib.Path) -> None:
    (tmp_path / "bzImage").write_bytes(fake_bzimage(b"LZ4!" * 10))
    with pytest.raises(jr2kernels.KernelError, match="boot the bzImage itself"):
        jr2kernels.extract_vmlinux(tmp_path / "bzImage", tmp_path / "vmlinux")
    (tmp_path / "bzImage").write_bytes(fake_bzimage(b"\x1f\x8b" + b"broken" * 10))
    with pytest.raises(jr2kernels.KernelError, match="boot the bzImage itself"):
        jr2kernels.extract_vmlinux(tmp_path / "bzImage", tmp_path / "vmlinux")
    (tmp_path / "other").write_bytes(b"\0" * 4096)
    with pytest.raises(jr2kernels.KernelError, match="not a bzImage"):
        jr2kernels.extract_vmlinux(tmp_path / "other", tmp_path / "vmlinux")
