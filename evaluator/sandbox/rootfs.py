"""The new root of an isolated run, as a list of operations the judge computes and PID 1
applies (docs/sandbox.md: "What a run sees").

Why computed here and applied there: deciding what a run may see needs this Python's paths,
the host's /etc and the caller's read-only paths (judge side); applying it needs the fresh mount
namespace (PID 1, `launcher.py`). The list in between is plain data, sent as JSON.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evaluator.sandbox.launcher import SANDBOX_HOSTNAME
from evaluator.sandbox.types import Limits

_ETC_ALLOW = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "timezone",
    "alternatives",
    "ssl",
    "ca-certificates",
    "nsswitch.conf",
    "host.conf",
    "gai.conf",
    "protocols",
    "services",
    "mime.types",
    "os-release",
    "debian_version",
    "fonts",
)
_SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
_DEVICES = ("null", "zero", "full", "random", "urandom")
# Paths inside the sandbox's own root (a fresh tmpfs), not the host's shared temp dirs.
_SBX_TMP = "/tmp"  # noqa: S108
_SBX_VAR_TMP = "/var/tmp"  # noqa: S108
_SBX_SHM = "/dev/shm"  # noqa: S108


def python_paths() -> list[Path]:
    """Directories of this Python installation the workload needs to run the interpreter."""
    raw = {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix}
    raw.add(str(Path(sys.executable).resolve().parent.parent))
    return sorted(Path(p) for p in raw if p)


def stdlib_python() -> Path:
    """The real interpreter binary behind this Python (a venv's `bin/python` is a link to it):
    what a standard-library-only run executes, since no venv is mounted there."""
    return Path(sys.executable).resolve()


def stdlib_paths() -> list[Path]:
    """What a standard-library-only run needs of this Python: the interpreter binary, its
    shared libpython (if any), the standard library and lib-dynload. Nothing else: no venv, no
    site-packages (they are hidden even inside the stdlib dir), no project."""
    out = {stdlib_python(), Path(os.__file__).resolve().parent}
    out |= {Path(p).resolve() for p in sys.path if p.endswith("lib-dynload") and Path(p).is_dir()}
    soname = sysconfig.get_config_var("INSTSONAME")
    libdir = sysconfig.get_config_var("LIBDIR")
    if soname and libdir and (Path(libdir) / soname).is_file() and sysconfig.get_config_var(
            "Py_ENABLE_SHARED"):
        out.add((Path(libdir) / soname).resolve())
    return sorted(out)


def _foreign_python_dirs(stdlib: Path) -> list[str]:
    """Directories a standard-library-only run must not see although /usr is mounted: every
    other Python's library tree (e.g. Debian's /usr/lib/python3/dist-packages) and every
    site-packages / dist-packages directory, the one inside our own stdlib dir included."""
    hidden: set[str] = set()
    roots = [Path("/usr/lib"), Path("/usr/local/lib"), Path("/usr/lib64"), Path("/usr/share")]
    for root in roots:
        if not root.is_dir() or root.is_symlink():
            continue
        for entry in root.iterdir():
            if not entry.name.startswith(("python", "pypy")) or not entry.is_dir():
                continue
            if entry.is_symlink():
                continue
            if entry.resolve() == stdlib or stdlib.is_relative_to(entry.resolve()):
                continue  # our own stdlib lives here: hide only its package dirs (below)
            hidden.add(str(entry))
    for base in (stdlib, *[Path(p) for p in {sys.base_prefix, sys.prefix}]):
        for pattern in ("site-packages", "dist-packages", "lib/python*/site-packages",
                        "lib/python*/dist-packages", "local/lib/python*/*-packages"):
            hidden |= {str(p) for p in base.glob(pattern) if p.is_dir() and not p.is_symlink()}
    # only what is mounted at all (/usr, the stdlib dir) needs hiding; a venv is not mounted
    return sorted(d for d in hidden if d.startswith("/usr/") or Path(d).is_relative_to(stdlib))


def layout(
    workspace: Path, readonly_paths: Sequence[Path], limits: Limits, uid: int,
    stdlib_only: bool = False,
) -> list[dict[str, Any]]:
    """Operations that build the sandbox root, each with an absolute in-sandbox `dst`."""
    ops: list[dict[str, Any]] = []
    for name in _SYSTEM_DIRS:
        host = Path("/") / name
        if host.is_symlink():
            ops.append({"op": "symlink", "dst": str(host), "target": os.readlink(host)})
        elif host.is_dir():
            ops.append({"op": "bind", "src": str(host), "dst": str(host), "rw": False})
    ops += _etc_ops(workspace, uid)
    # /tmp first: workspaces and venvs often live under /tmp and are bound on top of it.
    tmp_size = max(1024 * 1024, limits.tmp_bytes)
    ops.append({"op": "tmpfs", "dst": _SBX_TMP, "options": f"mode=1777,size={tmp_size}"})
    ops.append({"op": "symlink", "dst": _SBX_VAR_TMP, "target": _SBX_TMP})
    binds: dict[str, tuple[str, bool]] = {}
    for path in [*(stdlib_paths() if stdlib_only else python_paths()), *readonly_paths]:
        real = path.resolve()
        for dst in (str(path.absolute()), str(real)):
            binds.setdefault(dst, (str(real), False))
    binds[str(workspace)] = (str(workspace), True)
    quota = limits.workspace_bytes is not None and limits.workspace_inodes is not None
    inodes = (limits.workspace_inodes or 1) - 1
    covered = [str(Path("/") / n) for n in _SYSTEM_DIRS]
    for dst in sorted(binds, key=lambda p: (p.count("/"), p)):  # parents before children
        src, rw = binds[dst]
        if not rw and any(dst == c or dst.startswith(c + "/") for c in covered):
            continue
        if rw and quota:
            ops.append({"op": "workspace", "src": src, "dst": dst, "uid": uid,
                        # entries a copy may create: the tmpfs's root takes one inode
                        "quota": [limits.workspace_bytes, inodes],
                        "options": f"mode=0755,size={limits.workspace_bytes},"
                                   f"nr_inodes={limits.workspace_inodes}"})
            continue
        ops.append({"op": "bind", "src": src, "dst": dst, "rw": rw})
        if not rw:
            covered.append(dst)
    if stdlib_only:  # empty read-only dirs over every other Python library and package dir
        ops += [{"op": "empty", "dst": d}
                for d in _foreign_python_dirs(Path(os.__file__).resolve().parent)]
    ops.append({"op": "tmpfs", "dst": "/dev", "options": "mode=0755,size=65536"})
    for dev in _DEVICES:
        ops.append({"op": "bind", "src": f"/dev/{dev}", "dst": f"/dev/{dev}", "rw": True})
    for i, name in enumerate(("stdin", "stdout", "stderr")):
        ops.append({"op": "symlink", "dst": f"/dev/{name}", "target": f"/proc/self/fd/{i}"})
    ops.append({"op": "symlink", "dst": "/dev/fd", "target": "/proc/self/fd"})
    ops.append({"op": "inner_bind", "src": _SBX_TMP, "dst": _SBX_SHM})
    ops.append({"op": "proc", "dst": "/proc"})
    return ops


def _etc_ops(workspace: Path, uid: int) -> list[dict[str, Any]]:
    ops: list[dict[str, Any]] = []
    for name in _ETC_ALLOW:
        host = Path("/etc") / name
        if host.is_symlink():
            ops.append({"op": "symlink", "dst": str(host), "target": os.readlink(host)})
        elif host.exists():
            ops.append({"op": "bind", "src": str(host), "dst": str(host), "rw": False})
    # getpass.getuser() and friends look the uid up; give it a name instead of a KeyError.
    passwd = (
        "root:x:0:0:root:/root:/bin/sh\n"
        f"sandbox:x:{uid}:{uid}:sandbox:{workspace}:/bin/sh\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
    )
    group = f"root:x:0:\nsandbox:x:{uid}:\nnogroup:x:65534:\n"
    hosts = "127.0.0.1 localhost\n::1 localhost\n"
    for name, text in (("passwd", passwd), ("group", group), ("hosts", hosts)):
        ops.append({"op": "file", "dst": f"/etc/{name}", "text": text})
    ops.append({"op": "file", "dst": "/etc/hostname", "text": f"{SANDBOX_HOSTNAME}\n"})
    return ops
