# SPDX-License-Identifier: GPL-2.0-only
"""Prebuilt images as a kernel source (kernels/jr2kernels.py), and the ABI cap
of a guest (vmtest/jr2vm/runner.py, summary.py)."""
import hashlib
import json
import pathlib
from typing import Any

import pytest

import jr2kernels
from jr2vm import channel, runner, summary, upstream

IMAGE = b"a prebuilt bzImage, as test data"
SHA = hashlib.sha256(IMAGE).hexdigest()


@pytest.fixture
def cache(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    monkeypatch.setenv("JR2_KERNEL_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def images(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    top = tmp_path / "images"
    (top / "9.2").mkdir(parents=True)
    (top / "9.2" / "vmlinuz").write_bytes(IMAGE)
    (top / "9.2" / "config").write_text("CONFIG_SECURITY_LANDLOCK=y\n")
    (top / "9.2" / "release").write_text("9.2.1\n")
    monkeypatch.setenv("JR2_KERNEL_IMAGES", f"{tmp_path / 'elsewhere'}:{top}")
    return top


def upstream_entry(sha: str = SHA, release: str = "9.2.1") -> jr2kernels.Entry:
    return jr2kernels.Entry("9.2", "kernel.org", 3, "accepted",
                            url="https://cdn.kernel.org/pub/linux/kernel/v9.x/linux-9.2.16.tar.xz",
                            fragment="kernels/config/vm.config",
                            prebuilt=jr2kernels.Prebuilt(sha, release))


def test_a_prebuilt_image_is_checked_and_used_like_a_cached_build(
        cache: pathlib.Path, images: pathlib.Path) -> None:
    entry = upstream_entry()
    kernel = jr2kernels.fetch(entry, [entry])
    assert kernel.vmlinuz == cache / "9.2" / "vmlinuz"
    assert kernel.vmlinuz.read_bytes() == IMAGE
    assert kernel.config is not None
    assert kernel.config.read_text() == "CONFIG_SECURITY_LANDLOCK=y\n"
    stamp = json.loads((cache / "9.2" / "source.json").read_text())
    assert stamp["source"] == "prebuilt" and stamp["release"] == "9.2.1"
    assert stamp["from"] == str(images / "9.2" / "vmlinuz")
    # The next run reuses the cache, even with the images gone.
    (images / "9.2" / "vmlinuz").unlink()
    assert jr2kernels.cached(entry) is not None
    assert jr2kernels.way(entry, [entry]).startswith("cached (prebuilt 9.2.1")


def test_an_image_of_another_sha256_is_not_taken(cache: pathlib.Path, images: pathlib.Path) -> None:
    entry = upstream_entry(sha="0" * 64)
    assert jr2kernels.prebuilt_image(entry) is None
    with pytest.raises(jr2kernels.KernelError) as err:
        jr2kernels.fetch(entry, [entry])
    # Falls back to the tarball recipe, which says what to do, and where the image goes.
    message = str(err.value)
    assert "make kernel-build KERNEL=9.2" in message
    assert "linux-9.2.16.tar.xz, which is not in the cache" in message
    assert "JR2_KERNEL_IMAGES" in message and "0" * 64 in message
    assert not (cache / "9.2" / "vmlinuz").exists()


def test_no_image_folder_falls_back_to_the_tarball(
        cache: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JR2_KERNEL_IMAGES", "")
    entry = upstream_entry()
    assert jr2kernels.image_dirs() == []
    assert jr2kernels.way(entry, [entry]).startswith("tarball recipe, not built")
    with pytest.raises(jr2kernels.KernelError, match="not built yet"):
        jr2kernels.fetch(entry, [entry])


def test_a_release_that_disagrees_with_the_image_is_refused(
        cache: pathlib.Path, images: pathlib.Path) -> None:
    entry = upstream_entry(release="9.2.7")
    with pytest.raises(jr2kernels.KernelError, match="says '9.2.1'.*release '9.2.7'"):
        jr2kernels.fetch(entry, [entry])


def test_the_list_says_which_way_each_entry_comes(
        cache: pathlib.Path, images: pathlib.Path) -> None:
    entry = upstream_entry()
    assert jr2kernels.way(entry, [entry]) == (
        f"prebuilt image {images / '9.2' / 'vmlinuz'} (release 9.2.1)")


@pytest.mark.parametrize("text, message", [
    ('[[kernel]]\nname = "x"\nsource = "kernel.org"\nabi = 3\nverdict = "accepted"\n'
     'url = "u"\n[kernel.prebuilt]\nrelease = "9"\nsha256 = "ab"\n', "needs the image's sha256"),
    ('[[kernel]]\nname = "x"\nsource = "debian"\nsuite = "s"\nabi = 3\nverdict = "accepted"\n'
     '[[kernel.deb]]\npackage = "p"\nversion = "1"\nsha256 = "' + "a" * 64 + '"\n'
     'vmlinuz = "v"\n[kernel.prebuilt]\nrelease = "9"\nsha256 = "' + "a" * 64 + '"\n',
     "only a built entry"),
])
def test_a_bad_prebuilt_entry_is_refused(tmp_path: pathlib.Path, text: str, message: str) -> None:
    path = tmp_path / "matrix.toml"
    path.write_text(text)
    with pytest.raises(jr2kernels.KernelError, match=message):
        jr2kernels.load_matrix(path)


def test_the_seed_kernels_name_their_images() -> None:
    by_name = {e.name: e for e in jr2kernels.load_matrix()}
    for name in ("6.2", "6.6", "6.8", "6.11", "5.15"):
        pre = by_name[name].prebuilt
        assert pre and len(pre.sha256) == 64 and pre.release.startswith(name + ".")


def test_the_cap_reaches_the_guest_on_its_command_line() -> None:
    kernel = jr2kernels.Kernel("7.3", pathlib.Path("vmlinuz"), cmdline="lsm=yama")
    assert runner.guest_cmdline(kernel, 5) == "lsm=yama JR2_MAX_ABI=5"
    assert runner.guest_cmdline(kernel, 0) == "lsm=yama"


TABLE = {"required": 3, "newest_known": 11,
         "abis": {n: {"abi": n, "verdict": "accepted" if n >= 3 else "refused"}
                  for n in range(1, 12)}}


def channel_of(abi: int, check: dict[str, Any]) -> channel.Channel:
    text = (f"# jr2-vm: booted 7.3.4\n# jr2-vm: probe {json.dumps({'abi': abi, 'errno': '', 'errata': 1})}\n"
            f"# jr2-vm: check-begin\n{json.dumps(check)}\n# jr2-vm: check-end 0\n"
            "# jr2-vm: suite-begin 0\n# jr2-vm: suite-end\n# jr2-vm: end\n")
    return channel.parse(text)


def check_of(kernel_abi: int, cap: int | None, in_force: int) -> dict[str, Any]:
    return {"release": "7.3.4", "landlock": "ok", "verdict": "accepted",
            "verdict_code": "accepted", "yama_ptrace_scope": 1,
            "abi": {"kernel": kernel_abi, "in_force": in_force, "cap": cap}}


def test_a_capped_boot_expects_the_verdict_of_the_capped_abi() -> None:
    entry = jr2kernels.Entry("7.3", "debian", 11, "accepted")
    ch = channel_of(11, check_of(11, 2, 2))
    ch.check_status = 1
    check = check_of(11, 2, 2)
    check.update(verdict="refused", verdict_code="abi_too_old")
    ch.check_text = json.dumps(check)
    result = summary.summarize(summary.Boot("7.3", entry, ch, "", TABLE, False, 600, {}, {}, 85,
                                            cap=2))
    assert result["expected_verdict_code"] == "abi_too_old"
    assert result["cap"] == 2 and result["yama_ptrace_scope"] == 1
    assert not [p for p in result["problems"] if "cap" in p], result["problems"]


def test_a_cap_the_guest_did_not_take_is_a_problem() -> None:
    entry = jr2kernels.Entry("7.3", "debian", 11, "accepted")
    result = summary.summarize(summary.Boot("7.3", entry, channel_of(11, check_of(11, None, 11)),
                                            "", TABLE, False, 600, {}, {}, 85, cap=5))
    assert any("reports the ABI cap None, vmtest gave 5" in p for p in result["problems"])
    result = summary.summarize(summary.Boot("7.3", entry, channel_of(11, check_of(11, 5, 11)),
                                            "", TABLE, False, 600, {}, {}, 85, cap=5))
    assert any("ABI 11 in force, the cap 5" in p for p in result["problems"])
    assert result["outcome"] != "pass"


@pytest.mark.parametrize("lib_mk, args", [
    # 5.15's: installs the headers itself, after the tree's scripts/subarch.include.
    ("ifdef KSFT_KHDR_INSTALL\ntop_srcdir ?= ../../../..\n"
     "include $(top_srcdir)/scripts/subarch.include\nARCH ?= $(SUBARCH)\n",
     ["KSFT_KHDR_INSTALL_DONE=1"]),
    # 6.x's: takes KHDR_INCLUDES, needs nothing of the tree.
    ("KHDR_INCLUDES ?= -isystem $(top_srcdir)/usr/include\n", []),
])
def test_an_old_lib_mk_builds_from_a_selftests_tarball(
        tmp_path: pathlib.Path, lib_mk: str, args: list[str]) -> None:
    tree = tmp_path / "linux-5.15.0"
    (tree / upstream.SELFTESTS).mkdir(parents=True)
    (tree / upstream.SELFTESTS / "lib.mk").write_text(lib_mk)
    assert upstream._old_lib_mk_args(tree) == args
    subarch = tree / "scripts" / "subarch.include"
    assert subarch.exists() == bool(args)
    if args:
        assert "SUBARCH := x86" in subarch.read_text()
        # A tree with its own scripts/subarch.include is left as it is.
        assert upstream._old_lib_mk_args(tree) == []
