# SPDX-License-Identifier: GPL-2.0-only
"""kernels/matrix.toml: the entries the issue asks for, consistent with the ABI table."""
import pathlib

import pytest

import jr2kernels
from jr2vm import expect

DEBIAN = ["5.10", "6.1", "6.12", "6.16", "6.18", "6.19", "7.0", "7.1", "7.2", "7.3"]
UPSTREAM = ["6.2", "6.6", "6.8", "6.11", "5.15"]


@pytest.fixture(scope="module")
def entries() -> list[jr2kernels.Entry]:
    return jr2kernels.load_matrix()


def test_every_kernel_asked_for_is_listed(entries: list[jr2kernels.Entry]) -> None:
    by_name = {e.name: e for e in entries}
    assert [n for n in DEBIAN if by_name.get(n) and by_name[n].source == "debian"] == DEBIAN
    assert [n for n in UPSTREAM if by_name.get(n) and by_name[n].source == "kernel.org"] == UPSTREAM
    nolsm = [e for e in entries if e.base and "lsm=" in e.cmdline]
    assert nolsm, "no variant booted with an lsm= list"
    assert all("landlock" not in e.cmdline and e.abi == "EOPNOTSUPP" for e in nolsm)


def test_verdicts_agree_with_the_abi_table(entries: list[jr2kernels.Entry]) -> None:
    table = expect.abi_table()
    for entry in entries:
        assert expect.entry_verdict(entry, table)[1] == entry.verdict, entry.name


def test_the_abi_the_table_gives_on_the_edges() -> None:
    table = expect.abi_table()
    assert expect.expected_verdict("ENOSYS", 0, table) == ("refused", "no_landlock")
    assert expect.expected_verdict("EOPNOTSUPP", 0, table) == ("refused", "not_enabled")
    assert expect.expected_verdict("ok", table["required"] - 1, table) == ("refused", "abi_too_old")
    assert expect.expected_verdict("ok", table["required"], table) == ("accepted", "accepted")
    # A kernel newer than the runtime is used at the newest ABI it knows (G4).
    assert expect.expected_verdict("ok", table["newest_known"] + 5, table) == ("accepted", "accepted")


def test_debian_entries_are_pinned(entries: list[jr2kernels.Entry]) -> None:
    for entry in entries:
        if entry.source == "debian":
            for deb in entry.debs:
                assert len(deb.sha256) == 64 and deb.version, (entry.name, deb.package)


def test_abis_rise_with_the_kernel(entries: list[jr2kernels.Entry]) -> None:
    abis = [e.abi_number for e in entries if e.source == "debian" and not e.base]
    assert abis == sorted(abis)


@pytest.mark.parametrize("text, message", [
    ('[[kernel]]\nname = "a"\nsource = "kernel.org"\nabi = 3\nverdict = "accepted"\nurl = "u"\n'
     '[[kernel]]\nname = "a"\nsource = "kernel.org"\nabi = 3\nverdict = "accepted"\nurl = "u"\n',
     "listed twice"),
    ('[[kernel]]\nname = "a"\nsource = "kernel.org"\nabi = "EPERM"\nverdict = "x"\nurl = "u"\n',
     "neither an ABI number"),
    ('[[kernel]]\nname = "a"\nsource = "debian"\nsuite = "s"\nabi = 3\nverdict = "accepted"\n'
     '[[kernel.deb]]\npackage = "p"\nversion = "1"\nsha256 = ""\nvmlinuz = "boot/v"\n',
     "no SHA256 pinned"),
    ('[[kernel]]\nname = "v"\nbase = "none"\nabi = 3\nverdict = "accepted"\n', "not an entry above"),
    ('[[kernel]]\nname = "a"\nsource = "ftp"\nabi = 3\nverdict = "accepted"\n', "source 'ftp'"),
])
def test_a_bad_matrix_is_refused_with_the_reason(tmp_path: pathlib.Path, text: str,
                                                  message: str) -> None:
    path = tmp_path / "matrix.toml"
    path.write_text(text)
    with pytest.raises(jr2kernels.KernelError, match=message):
        jr2kernels.load_matrix(path)


def test_a_variant_takes_its_base_files(entries: list[jr2kernels.Entry]) -> None:
    variant = next(e for e in entries if e.base)
    base = jr2kernels.find(entries, variant.base)
    assert variant.debs == base.debs and variant.files_name == base.name
    assert variant.cmdline and variant.cmdline != base.cmdline
