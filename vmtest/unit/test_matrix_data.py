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


def flavour(entry: jr2kernels.Entry) -> str:
    """The Debian flavour its image package names: 'amd64', 'cloud-amd64', 'rt-amd64'."""
    package = entry.debs[0].package if entry.debs else ""
    for name in ("cloud-amd64", "rt-amd64"):
        if f"-{name}" in package:
            return name
    return "amd64"


def test_a_cloud_and_an_rt_flavour_are_listed(entries: list[jr2kernels.Entry]) -> None:
    flavours = {flavour(e) for e in entries if e.source == "debian" and not e.base}
    assert {"cloud-amd64", "rt-amd64"} <= flavours, flavours


def test_flavours_of_one_build_expect_its_abi(entries: list[jr2kernels.Entry]) -> None:
    """One Debian build (one version of source package linux) is one Landlock:
    its flavours expect the ABI and verdict of its generic image."""
    generic = {e.debs[0].version: e for e in entries
               if e.source == "debian" and not e.base and flavour(e) == "amd64"}
    others = [e for e in entries if e.source == "debian" and not e.base and flavour(e) != "amd64"]
    assert others
    for entry in others:
        base = generic[entry.debs[0].version]
        assert (entry.abi, entry.verdict) == (base.abi, base.verdict), (entry.name, base.name)


def config_of(entry: jr2kernels.Entry) -> dict[str, str]:
    kernel = jr2kernels.cached(entry)
    if kernel is None or kernel.config is None:
        pytest.skip(f"{entry.name}: not in the kernel cache {jr2kernels.cache_dir()} "
                    f"(kernels/fetch {entry.name})")
    options: dict[str, str] = {}
    for line in kernel.config.read_text().splitlines():
        if line.startswith("CONFIG_") and "=" in line:
            key, _, value = line.partition("=")
            options[key] = value.strip('"')
    return options


@pytest.mark.parametrize("name", [e.name for e in jr2kernels.load_matrix()
                                  if e.source == "debian" and not e.base
                                  and any(d.config for d in e.debs)])
def test_the_config_agrees_with_the_entry(entries: list[jr2kernels.Entry], name: str) -> None:
    """The cached kernel's config backs its entry: Landlock built and in the
    default LSM list where an ABI is expected, PREEMPT_RT in the RT flavour."""
    entry = jr2kernels.find(entries, name)
    options = config_of(entry)
    landlock = (options.get("CONFIG_SECURITY_LANDLOCK") == "y"
                and "landlock" in options.get("CONFIG_LSM", "").split(","))
    assert landlock == isinstance(entry.abi, int), (name, entry.abi)
    assert (options.get("CONFIG_PREEMPT_RT") == "y") == (flavour(entry) == "rt-amd64"), name
    # The guest ends QEMU by ioperm (vmtest/guest/vm-exit.c), /dev/port or not.
    assert options.get("CONFIG_X86_IOPL_IOPERM") == "y", name
