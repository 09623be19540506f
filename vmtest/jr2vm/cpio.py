# SPDX-License-Identifier: GPL-2.0-only
"""A newc cpio writer (gzipped or not): the initramfs, made without root or staging dirs.

Owners are root and times are 0, so the same inputs give the same bytes.
"""
import gzip
import stat

MAGIC = b"070701"


class Archive:
    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.ino = 1
        self.dirs: set[str] = set()

    def _entry(self, name: str, mode: int, data: bytes = b"",
               rdev: tuple[int, int] = (0, 0)) -> None:
        name_bytes = name.encode() + b"\0"
        fields = (self.ino, mode, 0, 0, 2 if stat.S_ISDIR(mode) else 1, 0, len(data),
                  0, 0, rdev[0], rdev[1], len(name_bytes), 0)
        self.ino += 1
        header = MAGIC + b"".join(b"%08x" % f for f in fields)
        self.parts += [header, name_bytes, _pad(len(header) + len(name_bytes)),
                       data, _pad(len(data))]

    def directory(self, name: str, mode: int = 0o755) -> None:
        """Adds name and its missing parents."""
        name = name.strip("/")
        parts = name.split("/")
        for i in range(1, len(parts) + 1):
            sub = "/".join(parts[:i])
            if sub and sub not in self.dirs:
                self.dirs.add(sub)
                self._entry(sub, stat.S_IFDIR | mode)

    def file(self, name: str, data: bytes, mode: int = 0o644) -> None:
        name = name.strip("/")
        if "/" in name:
            self.directory(name.rsplit("/", 1)[0])
        self._entry(name, stat.S_IFREG | mode, data)

    def symlink(self, name: str, target: str) -> None:
        name = name.strip("/")
        if "/" in name:
            self.directory(name.rsplit("/", 1)[0])
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def char_device(self, name: str, major: int, minor: int, mode: int = 0o600) -> None:
        self._entry(name.strip("/"), stat.S_IFCHR | mode, rdev=(major, minor))

    def raw(self) -> bytes:
        """The archive with its trailer, uncompressed: a TCG guest inflates gzip
        at a few MB/s, and QEMU loads the bytes as fast either way (its length
        is a multiple of 4, so that a part appended after it is found)."""
        self._entry("TRAILER!!!", 0)
        return b"".join(self.parts)

    def gzipped(self) -> bytes:
        """The archive with its trailer, gzipped (each appended initrd part must be)."""
        self._entry("TRAILER!!!", 0)
        return gzip.compress(b"".join(self.parts), compresslevel=1, mtime=0)


def _pad(length: int) -> bytes:
    return b"\0" * (-length % 4)
