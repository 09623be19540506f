# SPDX-License-Identifier: GPL-2.0-only
"""ci/matrix-kernels: a built entry (kernel.org) is required by CI and the gate
wherever it can be had (built, prebuilt image, pinned tarball), and named with
the reason where it cannot."""
import hashlib
import os
import pathlib
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]
IMAGE = b"a prebuilt bzImage of 9.2"
MATRIX = f"""
[[kernel]]
name = "7.3"
source = "debian"
  [[kernel.deb]]
  sha256 = "{'7' * 64}"
[[kernel]]
name = "9.2"
source = "kernel.org"
url = "https://cdn.kernel.org/pub/linux/kernel/v9.x/linux-9.2.16.tar.xz"
sha256 = ""
  [kernel.prebuilt]
  release = "9.2.1"
  sha256 = "{hashlib.sha256(IMAGE).hexdigest()}"
"""


def matrix_kernels(tmp_path, images, *args):
    (tmp_path / "matrix.toml").write_text(MATRIX)
    (tmp_path / "missing").write_text("# none declared\n")
    env = dict(os.environ, JR2_KERNEL_MATRIX=str(tmp_path / "matrix.toml"),
               JR2_RELEASE_MISSING=str(tmp_path / "missing"),
               JR2_KERNEL_CACHE=str(tmp_path / "cache"), JR2_KERNEL_IMAGES=images)
    run = subprocess.run([str(REPO / "ci" / "matrix-kernels"), *args], env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()


def test_a_built_entry_without_image_or_tarball_is_named_with_the_reason(tmp_path):
    lines = matrix_kernels(tmp_path, "", "--gate")
    assert lines[0] == "7.3"
    name, _, reason = lines[1].partition("=")
    assert name == "9.2"
    assert "cannot be had here" in reason and "no prebuilt image of SHA256" in reason
    assert "not pinned" in reason
    assert matrix_kernels(tmp_path, "") == ["7.3"]


def test_a_built_entry_whose_image_is_found_is_required(tmp_path):
    (tmp_path / "images" / "9.2").mkdir(parents=True)
    (tmp_path / "images" / "9.2" / "vmlinuz").write_bytes(IMAGE)
    assert matrix_kernels(tmp_path, str(tmp_path / "images"), "--gate") == ["7.3", "9.2"]
    (tmp_path / "images" / "9.2" / "vmlinuz").write_bytes(b"another build")
    assert matrix_kernels(tmp_path, str(tmp_path / "images"), "--gate")[1].startswith("9.2=")


def test_a_built_entry_in_the_cache_is_required(tmp_path):
    folder = tmp_path / "cache" / "9.2"
    folder.mkdir(parents=True)
    (folder / "vmlinuz").write_bytes(IMAGE)
    (folder / "source.json").write_text("{}")  # a stamp of something else
    assert matrix_kernels(tmp_path, "", "--gate")[1].startswith("9.2=")
    (folder / "source.json").write_text(
        '{"source": "prebuilt", "sha256": "%s", "release": "9.2.1", "from": "x"}'
        % hashlib.sha256(IMAGE).hexdigest())
    assert matrix_kernels(tmp_path, "", "--gate") == ["7.3", "9.2"]
