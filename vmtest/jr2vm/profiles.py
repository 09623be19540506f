# SPDX-License-Identifier: GPL-2.0-only
"""Container profiles of vmtest: the suite inside a real OCI runtime in the guest.

bare        the suite as the guest's root with every capability (no runtime).
container   Debian's runc runs the suite as root with the default capability
            set and the default seccomp profile of podman/CRI-O (Debian's
            golang-github-containers-common: containers.conf's
            default_capabilities, seccomp.json), runc's own masked and
            read-only /proc and /sys paths, new pid, network, ipc, uts and
            mount namespaces, the suite's runner as PID 1.
restricted  the same as uid 1000 with every capability dropped,
            no_new_privs, a read-only root and the tmpfs mounts a pod gets
            (Kubernetes' "restricted" Pod Security Standard).

The config.json is `runc spec`'s, adjusted here; the data's versions (the
Debian packages') go into the run's results.  containerd's RuntimeDefault
is Go code in Debian (contrib/seccomp/seccomp_default.go of
golang-github-containerd-containerd-dev; the containerd package holds no
profile file), so the containers' seccomp.json is the profile's data.  What the runtime makes for
the suite, as the kubelet and runc make a pod's volumes: a tmpfs on /tmp
and /mnt (the tests' fixture roots, emptied by each test's fixture), on
/run and /var/tmp, the loopback interface up in the container's network
namespace (a pod's CNI does it).
"""
import dataclasses
import json
import pathlib
import subprocess
import tempfile
from collections.abc import Sequence
from typing import Any

PROFILES = ("bare", "container", "restricted")
RUNC = pathlib.Path("/usr/sbin/runc")
CONTAINERS_CONF = pathlib.Path("/usr/share/containers/containers.conf")
SECCOMP_JSON = pathlib.Path("/usr/share/containers/seccomp.json")
# The Debian packages whose data a profile is made of.
PACKAGES = ("runc", "golang-github-containers-common", "libseccomp2")
# The guest's uid and gid of the restricted profile (a pod's runAsUser).
RESTRICTED_UID = 1000
# The x86-64 guest's architectures, as the seccomp profile names them.
ARCHES = ("SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32")
# Where the guest's /init finds the profile (vmtest/guest/init).
GUEST_DIR = "jr2/profile"


class ProfileError(Exception):
    pass


@dataclasses.dataclass
class Profile:
    name: str
    config: dict[str, Any]  # the OCI runtime config.json
    versions: dict[str, str]  # Debian package -> version
    # {guest path: host path} of the runtime's executable and libraries
    files: dict[str, pathlib.Path]


def deb_version(package: str) -> str:
    done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0 or not done.stdout:
        raise ProfileError(f"the Debian package '{package}' is not installed: make vmtest-deps "
                           "installs it (scripts/need-debs)")
    return done.stdout


def default_capabilities(conf_text: str) -> list[str]:
    """containers.conf's default_capabilities = [ "CHOWN", ... ], as CAP_ names."""
    start = conf_text.find("\ndefault_capabilities = [")
    if start < 0:
        raise ProfileError(f"no default_capabilities in '{CONTAINERS_CONF}': the profile "
                           "needs podman's default capability set from it")
    body = conf_text[start:conf_text.index("]", start)]
    names = [part.strip().strip('"') for part in body.split("[", 1)[1].split(",")]
    return [f"CAP_{n}" for n in names if n]


def oci_seccomp(profile: dict[str, Any], caps: Sequence[str]) -> dict[str, Any]:
    """The containers' seccomp.json made into the OCI spec's linux.seccomp
    for these capabilities on x86-64, as podman does: a rule is kept when its
    includes (caps, arches) are met and its excludes are not."""
    arch_names = {"amd64", "x86_64", "x32", "386"}
    have = set(caps)
    rules = []
    for rule in profile["syscalls"]:
        inc, exc = rule.get("includes") or {}, rule.get("excludes") or {}
        if inc.get("caps") and not set(inc["caps"]) <= have:
            continue
        if inc.get("arches") and not set(inc["arches"]) & arch_names:
            continue
        if exc.get("caps") and set(exc["caps"]) & have:
            continue
        if exc.get("arches") and set(exc["arches"]) & arch_names:
            continue
        out: dict[str, Any] = {"names": rule["names"], "action": rule["action"]}
        if rule.get("errnoRet") is not None:
            out["errnoRet"] = rule["errnoRet"]
        if rule.get("args"):
            out["args"] = rule["args"]
        rules.append(out)
    seccomp: dict[str, Any] = {"defaultAction": profile["defaultAction"],
                               "architectures": list(ARCHES), "syscalls": rules}
    if profile.get("defaultErrnoRet") is not None:
        seccomp["defaultErrnoRet"] = profile["defaultErrnoRet"]
    return seccomp


def runc_spec() -> dict[str, Any]:
    """The runtime's own default config.json (`runc spec`)."""
    with tempfile.TemporaryDirectory(prefix="jr2-runc-spec-") as tmp:
        done = subprocess.run([str(RUNC), "spec"], cwd=tmp, capture_output=True, text=True,
                              check=False)
        if done.returncode != 0:
            raise ProfileError(f"'{RUNC} spec' exited {done.returncode}: "
                               f"{done.stderr.strip()}: reinstall Debian's runc")
        spec: dict[str, Any] = json.loads((pathlib.Path(tmp) / "config.json").read_text())
        return spec


def tmpfs(destination: str, uid: int, mode: str, size: str) -> dict[str, Any]:
    options = ["nosuid", "nodev", f"mode={mode}", f"size={size}"]
    if uid:
        options += [f"uid={uid}", f"gid={uid}"]
    return {"destination": destination, "type": "tmpfs", "source": "tmpfs", "options": options}


def make_config(name: str, spec: dict[str, Any], caps_default: list[str],
                seccomp_profile: dict[str, Any], env: Sequence[str]) -> dict[str, Any]:
    """runc spec's config adjusted to the profile `name` (container or restricted)."""
    if name not in ("container", "restricted"):
        raise ProfileError(f"no profile '{name}': give one of {', '.join(PROFILES)}")
    restricted = name == "restricted"
    caps = [] if restricted else list(caps_default)
    uid = RESTRICTED_UID if restricted else 0
    config: dict[str, Any] = json.loads(json.dumps(spec))
    process = config["process"]
    process["terminal"] = False
    process["user"] = {"uid": uid, "gid": uid}
    process["args"] = ["/bin/sh", f"/{GUEST_DIR}/suite.sh"]
    process["env"] = list(env)
    process["cwd"] = "/"
    # podman's and containerd's sets: no ambient nor inheritable capability.
    process["capabilities"] = {k: list(caps) for k in ("bounding", "effective", "permitted")}
    # allowPrivilegeEscalation: true is Kubernetes' default (no_new_privs
    # not set), false is the restricted standard's.
    process["noNewPrivileges"] = restricted
    # The runtime's limits are the guest's (containerd sets none of its own).
    process.pop("rlimits", None)
    # The guest's root, bound there by its /init (vmtest/guest/init).
    config["root"] = {"path": "/jr2/rootfs", "readonly": restricted}
    config["hostname"] = "jr2-pod"
    mounts = list(config["mounts"])
    mounts += [tmpfs("/tmp", uid, "0755", "64m"), tmpfs("/mnt", uid, "0755", "64m"),
               tmpfs("/run", uid, "0755", "16m"), tmpfs("/var/tmp", uid, "1777", "16m")]
    config["mounts"] = mounts
    linux = config["linux"]
    linux["seccomp"] = oci_seccomp(seccomp_profile, caps)
    linux["rootfsPropagation"] = "private"
    # The loopback interface of the pod's network namespace is up (CNI's
    # loopback plugin); busybox's nsenter and ip do it for runc here.
    config["hooks"] = {"createRuntime": [{
        "path": "/bin/sh",
        "args": ["sh", "-c", 'pid=$(sed -n \'s/.*"pid": *\\([0-9]*\\).*/\\1/p\'); '
                 'exec nsenter -t "$pid" -n ip link set lo up']}]}
    return config


def cgroup_version(kernel_config: pathlib.Path | None) -> str:
    """v2, or v1 for a kernel whose config lacks CONFIG_CGROUP_BPF: runc
    puts a cgroup v2's device rules in a BPF program (bpf_prog_query
    BPF_CGROUP_DEVICE fails, EINVAL, on such a kernel: seen on 6.6), a
    cgroup v1 node's in the devices controller.  v2 where the config is
    not known."""
    try:
        text = kernel_config.read_text(errors="replace") if kernel_config else ""
    except OSError:
        text = ""
    if text and "\nCONFIG_CGROUP_BPF=y" not in text:
        return "v1"
    return "v2"


def runtime_files() -> dict[str, pathlib.Path]:
    """{guest path: host path} of runc and the shared libraries it loads."""
    done = subprocess.run(["ldd", str(RUNC)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ProfileError(f"ldd '{RUNC}' exited {done.returncode}: install Debian's runc")
    files = {"usr/sbin/runc": RUNC}
    for line in done.stdout.splitlines():
        words = line.split()
        path = next((w for w in words if w.startswith("/")), None)
        if path:
            # Each library at its own path, and at the path named (the loader).
            files[path.lstrip("/")] = pathlib.Path(path).resolve()
    return files


def load(name: str, env: Sequence[str]) -> Profile:
    """The profile `name` as this host's Debian packages give it."""
    versions = {p: deb_version(p) for p in PACKAGES}
    try:
        caps = default_capabilities(CONTAINERS_CONF.read_text())
        seccomp = json.loads(SECCOMP_JSON.read_text())
    except OSError as err:
        raise ProfileError(f"{err}: install golang-github-containers-common") from err
    config = make_config(name, runc_spec(), caps, seccomp, env)
    return Profile(name, config, versions, runtime_files())
