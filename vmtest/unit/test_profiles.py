# SPDX-License-Identifier: GPL-2.0-only
"""The container profiles' config.json (vmtest/jr2vm/profiles.py), from
runc spec's shape and the containers' data, without a runtime."""
import pathlib
from typing import Any

import pytest

from jr2vm import profiles

SPEC: dict[str, Any] = {
    "ociVersion": "1.0.2-dev", "root": {"path": "rootfs", "readonly": True}, "hostname": "runc",
    "process": {"terminal": True, "user": {"uid": 0, "gid": 0}, "args": ["sh"], "env": [],
                "cwd": "/", "capabilities": {"bounding": ["CAP_KILL"], "ambient": ["CAP_KILL"]},
                "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024}],
                "noNewPrivileges": True},
    "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"},
               {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup"}],
    "linux": {"namespaces": [{"type": "pid"}, {"type": "mount"}],
              "maskedPaths": ["/proc/kcore"], "readonlyPaths": ["/proc/sys"]},
}
SECCOMP: dict[str, Any] = {
    "defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 38,
    "syscalls": [
        {"names": ["read"], "action": "SCMP_ACT_ALLOW"},
        {"names": ["mount"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYS_ADMIN"]}},
        {"names": ["setns"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1,
         "excludes": {"caps": ["CAP_SYS_ADMIN"]}},
        {"names": ["s390_only"], "action": "SCMP_ACT_ALLOW", "includes": {"arches": ["s390x"]}},
    ],
}
CONF = 'x = 1\ndefault_capabilities = [\n  "CHOWN",\n  "KILL",\n]\n'


def test_default_capabilities_read_as_cap_names() -> None:
    assert profiles.default_capabilities(CONF) == ["CAP_CHOWN", "CAP_KILL"]
    with pytest.raises(profiles.ProfileError, match="default_capabilities"):
        profiles.default_capabilities("nothing = 1\n")


def test_seccomp_rules_follow_the_capabilities_and_arch() -> None:
    without = profiles.oci_seccomp(SECCOMP, ["CAP_KILL"])
    names = [r["names"][0] for r in without["syscalls"]]
    assert names == ["read", "setns"]
    assert without["defaultErrnoRet"] == 38
    assert without["architectures"][0] == "SCMP_ARCH_X86_64"
    admin = profiles.oci_seccomp(SECCOMP, ["CAP_SYS_ADMIN"])
    assert [r["names"][0] for r in admin["syscalls"]] == ["read", "mount"]


def test_container_is_root_with_the_default_set() -> None:
    config = profiles.make_config("container", SPEC, ["CAP_CHOWN"], SECCOMP, ["A=1"])
    process = config["process"]
    assert process["user"] == {"uid": 0, "gid": 0}
    assert process["capabilities"] == {"bounding": ["CAP_CHOWN"], "effective": ["CAP_CHOWN"],
                                       "permitted": ["CAP_CHOWN"]}
    assert process["noNewPrivileges"] is False
    assert "rlimits" not in process and process["env"] == ["A=1"]
    assert config["root"] == {"path": "/jr2/rootfs", "readonly": False}
    # runc's own masked and read-only paths are kept as they are.
    assert config["linux"]["maskedPaths"] == ["/proc/kcore"]
    assert config["linux"]["readonlyPaths"] == ["/proc/sys"]
    assert {m["destination"] for m in config["mounts"]} >= {"/proc", "/tmp", "/mnt", "/run"}
    # runc spec's read-only cgroup mount stays, as in a pod.
    assert "/sys/fs/cgroup" in {m["destination"] for m in config["mounts"]}
    # The spec given is left as it was.
    assert SPEC["process"]["user"] == {"uid": 0, "gid": 0}


def test_cgroup_v1_where_the_kernel_has_no_cgroup_bpf(tmp_path: pathlib.Path) -> None:
    config = tmp_path / "config"
    config.write_text("# x\nCONFIG_CGROUPS=y\n# CONFIG_CGROUP_BPF is not set\n")
    assert profiles.cgroup_version(config) == "v1"
    config.write_text("# x\nCONFIG_CGROUPS=y\nCONFIG_CGROUP_BPF=y\n")
    assert profiles.cgroup_version(config) == "v2"
    assert profiles.cgroup_version(None) == "v2"
    assert profiles.cgroup_version(tmp_path / "absent") == "v2"


def test_restricted_is_uid_1000_without_capabilities() -> None:
    config = profiles.make_config("restricted", SPEC, ["CAP_CHOWN"], SECCOMP, [])
    process = config["process"]
    assert process["user"] == {"uid": 1000, "gid": 1000}
    assert all(v == [] for v in process["capabilities"].values())
    assert process["noNewPrivileges"] is True
    assert config["root"]["readonly"] is True
    tmp = next(m for m in config["mounts"] if m["destination"] == "/tmp")
    assert "uid=1000" in tmp["options"]
    assert [r["names"][0] for r in config["linux"]["seccomp"]["syscalls"]] == ["read", "setns"]


def test_unknown_profile_names_the_choices() -> None:
    with pytest.raises(profiles.ProfileError, match="bare, container, restricted"):
        profiles.make_config("privileged", SPEC, [], SECCOMP, [])
