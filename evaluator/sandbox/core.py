"""One sandbox for untrusted code: LLM-written training scripts and code-track solutions.

Why one module: both tracks run code we did not write (an LLM's `solution.py` for hours, or a
participant's solution over thousands of graph cases) and must get the same guarantees: no
network, no access to the repository, keys or other runs' files, a hard deadline that kills the
whole process tree, and resource limits that end a runaway program without hurting the judge.

How (root + util-linux, no extra packages): the judge starts
`unshare --mount --net --pid --ipc --uts --fork --kill-child` around a tiny launcher (this very
module, run with `python -I -S`). Inside the fresh namespaces the launcher is PID 1. It builds a
new root on a tmpfs from an allow-list (system dirs and the Python installation read-only, the
workspace read-write, a private /tmp), pivots into it, then forks the workload, which sets its
rlimits, drops to a per-run unprivileged uid with no-new-privs and execs `argv`. PID 1 stays the
trusted supervisor: it enforces the workload's CPU limit on the kernel's exact clock, measures
its peak RSS, relays the judge's channel one frame at a time (timing and measuring each) and,
when it exits (workload done, deadline, or the judge gone), the kernel kills everything left in
the PID namespace, so `setsid()` + double fork cannot escape. Exit reasons come only from what
the kernel reports and PID 1 measured (docs/sandbox.md: exit reasons).

Where that is impossible (not root, no `unshare`) runs still happen, with rlimits, a scrubbed
environment and a subreaper that kills the tree, but every result says so:
`Isolation.sandboxed` is False and `require_sandbox=True` refuses to run. See docs/sandbox.md
for the threat model.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import functools
import json
import math
import os
import resource
import select
import selectors
import shutil
import signal
import socket
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator import settings
from evaluator.errors import ConfigError
from evaluator.sandbox import fs as sandbox_fs
from evaluator.sandbox.channel import (  # noqa: F401 - re-exported for callers
    CHANNEL_IN_FD,
    CHANNEL_OUT_FD,
    Channel,
    ChannelClosed,
    Relay,
    Reply,
    process_cpu_seconds,
)

# --------------------------------------------------------------------------------------------
# Public data types
# --------------------------------------------------------------------------------------------


class SandboxError(ConfigError):
    """The sandbox itself could not run the program (a platform problem, not the program's)."""


class SandboxUnavailable(SandboxError):
    """`require_sandbox=True` but this machine cannot isolate runs."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one run. `None` disables a limit (not recommended for untrusted code)."""

    wall_seconds: float = 60.0
    # CPU of the workload process (exact kernel clock, enforced by PID 1); RLIMIT_CPU a little
    # above it for every process of the tree
    cpu_seconds: float | None = None
    # cgroup v2 memory.max of the tree where available, else RLIMIT_AS per process
    memory_bytes: int | None = 2 * 1024**3
    max_processes: int | None = 64  # RLIMIT_NPROC of the run's own uid (threads count too)
    output_bytes: int = 64 * 1024  # tail of stdout/stderr kept; more is drained and dropped
    file_size_bytes: int | None = 1024**3  # RLIMIT_FSIZE
    tmp_bytes: int = 512 * 1024**2  # size of the private /tmp (and /dev/shm) tmpfs
    # Workspace quota (isolated runs): the run works on a tmpfs of this size and inode count,
    # copied in before and out after the run; None: the host directory itself, unbounded.
    workspace_bytes: int | None = 2 * 1024**3
    workspace_inodes: int | None = 100_000

    def __post_init__(self) -> None:
        if not self.wall_seconds > 0:
            raise SandboxError(f"Limits.wall_seconds must be > 0, got {self.wall_seconds}")
        for name in ("cpu_seconds", "memory_bytes", "max_processes", "file_size_bytes",
                     "workspace_bytes", "workspace_inodes"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise SandboxError(f"Limits.{name} must be > 0 or None, got {value}")
        if self.output_bytes < 0 or self.tmp_bytes < 0:
            raise SandboxError("Limits.output_bytes and Limits.tmp_bytes must be >= 0")


@dataclass(frozen=True)
class Isolation:
    """What a run was (or would be) protected by; never claims more than was set up."""

    network: bool  # no network (own netns)
    pid_namespace: bool  # whole tree killed reliably, setsid children can't escape
    filesystem: bool  # host files (repo, keys, /work/shared, $HOME, other tmp dirs) not readable
    unprivileged: bool  # runs as an unprivileged uid
    mechanism: str  # "unshare+setuid" | "none"
    detail: str = ""  # why isolation is missing, for the operator

    @property
    def sandboxed(self) -> bool:
        """True only when network, pid_namespace and filesystem isolation all hold."""
        return self.network and self.pid_namespace and self.filesystem

    @property
    def level(self) -> str:
        """One of: full, none, or "partial: no <what is missing>"."""
        missing = [
            name
            for name, held in (
                ("network", self.network),
                ("pid namespace", self.pid_namespace),
                ("filesystem", self.filesystem),
                ("unprivileged uid", self.unprivileged),
            )
            if not held
        ]
        if not missing:
            return "full"
        if len(missing) == 4:
            return "none"
        return "partial: no " + ", no ".join(missing)


# How memory was bounded (SandboxResult.memory_mechanism), decided per run (docs/sandbox.md):
# a per-run cgroup v2 with memory.max when this judge can create one (counts every page of the
# tree: anonymous, shared, memfd, tmpfs), else RLIMIT_AS per process (counts MAP_SHARED and
# memfd mappings) plus size-capped tmpfs for /tmp, /dev/shm and the workspace.
MEMORY_CGROUP = "cgroup-v2"
MEMORY_RLIMIT = "rlimit-as+tmpfs"
MEMORY_MECHANISM = MEMORY_RLIMIT  # the fallback, and what unlimited runs record
# exit_reason "memory" needs a measured peak at >= this share of memory_bytes (or an OOM kill)
MEMORY_HIT = 0.75


@dataclass(frozen=True)
class SandboxResult:
    """How a run ended. `returncode` is negative for a signal and None after a timeout."""

    # "ok" | "error" | "timeout" | "cpu" | "memory" | "quota" | "killed" | "stopped"
    exit_reason: str
    returncode: int | None
    stdout_tail: str
    stderr_tail: str
    wall_seconds: float
    cpu_seconds: float  # user+sys of the whole tree (launcher included, a few ms)
    peak_rss_bytes: int | None  # largest single process of the tree
    isolation: Isolation
    # how memory was bounded ("cgroup-v2" or "rlimit-as+tmpfs"), the workspace quota's use at
    # the end (bytes, inodes, full, dropped, refused: special files not copied back)
    memory_mechanism: str = MEMORY_MECHANISM
    workspace: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.exit_reason == "ok"


NO_ISOLATION = Isolation(False, False, False, False, "none")
_FULL_MECHANISM = "unshare+setuid"

# Per-run uids: RLIMIT_NPROC counts processes per uid machine-wide, so concurrent runs that
# shared uid 65534 would share one fork budget. Each run locks a slot and gets its own uid.
UID_BASE = 1_100_000
UID_SLOTS = 1024

# PID 1 of the sandbox gives up this long after the judge's own deadline (judge gone, or stuck).
_INIT_GRACE_SECONDS = 5.0
# After a timeout, how long PID 1 gets to stop the tree before the judge SIGKILLs the group.
_STOP_SECONDS = 30.0  # PID 1 also copies the workspace back (up to its quota) before exiting
# After the main process ends, how long to keep draining pipes held by escaped processes.
_DRAIN_SECONDS = 1.0
# RLIMIT_CPU (tick-sampled, runs a few % ahead of the exact clock under contention) is only a
# backstop for the other processes of the tree: set this far above the exact limit PID 1 keeps.
_RLIMIT_CPU_FACTOR = 1.25

# /etc entries a program may legitimately need; the rest of /etc stays hidden.
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


# --------------------------------------------------------------------------------------------
# Workspace preparation
# --------------------------------------------------------------------------------------------


def prepare_workspace(dest: Path, sources: Mapping[str, Path]) -> Path:
    """Copy public files into a fresh directory and return its resolved path.

    `sources` maps a relative name inside the workspace to a file or directory. Contents are
    copied, never linked: a symlink inside a copied directory is followed only when it stays
    inside that directory, otherwise this refuses (it could smuggle a private file in).
    """
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise SandboxError(f"workspace {dest} already exists and is not empty; pass a fresh path")
    dest.mkdir(parents=True, exist_ok=True)
    root = dest.resolve()
    for name, source in sources.items():
        target = _workspace_target(root, name)
        source = Path(source)
        if not source.exists():
            raise SandboxError(f"cannot copy {source} into the workspace as {name!r}: not found")
        target.parent.mkdir(parents=True, exist_ok=True)
        real = source.resolve()
        if real.is_dir():
            _copy_tree(real, target, real)
        else:
            _copy_file(real, target)
    return root


def _workspace_target(root: Path, name: str) -> Path:
    parts = Path(name).parts
    if not name or Path(name).is_absolute() or ".." in parts:
        raise SandboxError(
            f"workspace entry name {name!r} must be a relative path without '..' "
            "(e.g. 'solution.py' or 'data/train.csv')"
        )
    return root.joinpath(*parts)


def _copy_tree(src: Path, dst: Path, top: Path, stack: tuple[Path, ...] = ()) -> None:
    if src in stack:
        raise SandboxError(f"symlink loop at {src}; refusing to copy it into a workspace")
    dst.mkdir(exist_ok=True)
    for entry in sorted(src.iterdir()):
        target = dst / entry.name
        real = entry.resolve()
        if entry.is_symlink() and not real.is_relative_to(top):
            raise SandboxError(
                f"{entry} is a symlink to {real}, outside {top}; refusing to copy it into a "
                "workspace (replace the link by the file itself)"
            )
        if real.is_dir():
            _copy_tree(real, target, top, (*stack, src))
        else:
            _copy_file(real, target)


def _copy_file(src: Path, dst: Path) -> None:
    mode = src.stat().st_mode
    if not stat.S_ISREG(mode):
        raise SandboxError(f"{src} is not a regular file; only files and directories are copied")
    shutil.copyfile(src, dst)
    os.chmod(dst, (stat.S_IMODE(mode) | 0o644) & 0o755)


# --------------------------------------------------------------------------------------------
# Isolation detection
# --------------------------------------------------------------------------------------------


@functools.cache
def detect_isolation() -> Isolation:
    """Probe once what this machine offers, by actually running `true` in the full sandbox."""
    reason = _full_isolation_blocker()
    if reason is None:
        full = Isolation(True, True, True, True, _FULL_MECHANISM)
        try:
            with tempfile.TemporaryDirectory(prefix="gnncb-sandbox-probe-") as tmp:
                probe = _execute(
                    ["true"], Path(tmp).resolve(), Limits(wall_seconds=30), {}, None, (), full
                )
            if probe.exit_reason == "ok":
                return full
            reason = f"probe run ended with {probe.exit_reason}: {probe.stderr_tail.strip()}"
        except (SandboxError, OSError) as exc:
            reason = f"probe run failed: {exc}"
    return Isolation(False, False, False, False, "none", detail=reason)


CGROUP_ENV = settings.SANDBOX_CGROUP.name  # a cgroup v2 directory prepared for the judge's runs


@functools.cache
def cgroup_parent() -> tuple[Path | None, str]:
    """Where this judge can create per-run cgroups with the memory controller, probed once:
    (directory, description) or (None, why not). The directory is $GNNCB_SANDBOX_CGROUP if set,
    else the judge's own cgroup v2; it qualifies when `memory` is in its cgroup.controllers,
    is (or can be) enabled in its cgroup.subtree_control, and a child made there has a
    writable memory.max. Nothing is changed when it does not qualify."""
    if not sys.platform.startswith("linux"):
        return None, f"cgroups need Linux, this is {sys.platform}"
    if os.geteuid() != 0:
        return None, "not root (per-run cgroups need it)"
    explicit = settings.sandbox_cgroup()
    if explicit:
        candidates = [Path(explicit)]
    else:
        candidates = _own_cgroup_dirs()
        if not candidates:
            return None, "no cgroup v2 hierarchy holds this process"
    reasons = []
    for parent in candidates:
        reason = _probe_cgroup(parent)
        if reason is None:
            return parent, f"cgroup v2 memory controller at {parent}"
        reasons.append(f"{parent}: {reason}")
    return None, "; ".join(reasons)


def cgroup_memory_status() -> str:
    """One line for the operator: which memory mechanism runs get here, and why."""
    parent, why = cgroup_parent()
    if parent is not None:
        return f"{MEMORY_CGROUP}: per-run cgroups under {parent}"
    return f"{MEMORY_RLIMIT} (no usable cgroup v2 memory controller: {why})"


def _own_cgroup_dirs() -> list[Path]:
    """The directory of this process's cgroup in each mounted cgroup v2 hierarchy."""
    try:
        own = next((line.split(":", 2)[2].strip()
                    for line in Path("/proc/self/cgroup").read_text().splitlines()
                    if line.startswith("0::")), None)
        mountinfo = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    if own is None:
        return []
    out = []
    for line in mountinfo:
        if " - cgroup2 " not in line:
            continue
        fields = line.split(" - ")[0].split()
        root, point = fields[3], fields[4]
        if own == root or own.startswith(root.rstrip("/") + "/"):
            out.append(Path(point) / own[len(root.rstrip("/")):].lstrip("/"))
    return out


def _probe_cgroup(parent: Path) -> str | None:
    """None when per-run memory cgroups can be made under `parent`, else why not."""
    try:
        controllers = (parent / "cgroup.controllers").read_text().split()
    except OSError as exc:
        return f"cannot read cgroup.controllers ({exc.strerror or exc})"
    if "memory" not in controllers:
        return f"no memory controller (available: {' '.join(controllers) or 'none'})"
    try:
        enabled = (parent / "cgroup.subtree_control").read_text().split()
        if "memory" not in enabled:
            (parent / "cgroup.subtree_control").write_text("+memory")
    except OSError as exc:
        return (f"cannot enable memory for child cgroups ({exc.strerror or exc}; a cgroup that "
                f"holds processes cannot: point {CGROUP_ENV} at a delegated one)")
    probe = parent / f"gnncb-probe-{os.getpid()}"
    try:
        probe.mkdir()
    except OSError as exc:
        return f"cannot create a child cgroup ({exc.strerror or exc})"
    reason = None
    try:
        (probe / "memory.max").write_text("max")
    except OSError as exc:
        reason = f"a child cgroup has no writable memory.max ({exc.strerror or exc})"
    try:  # a cgroup goes with its control files; a plain directory does not
        probe.rmdir()
    except OSError as exc:
        if exc.errno != errno.ENOTEMPTY:
            return reason or f"cannot remove the probe cgroup ({exc.strerror or exc})"
        with contextlib.suppress(OSError):
            sandbox_fs.remove_tree(probe)
        return "not a cgroup filesystem"
    return reason


class _RunCgroup:
    """A run's own cgroup: memory.max for the whole tree (anonymous, shared, memfd and tmpfs
    pages), no swap, OOM kills the whole group; read memory.peak and memory.events after."""

    _counter = 0
    _lock = threading.Lock()

    def __init__(self, parent: Path, uid: int, memory_bytes: int) -> None:
        with _RunCgroup._lock:
            _RunCgroup._counter += 1
            n = _RunCgroup._counter
        self.path = parent / f"gnncb-run-{uid}-{os.getpid()}-{n}"
        self.limit = memory_bytes
        self.path.mkdir()
        try:
            (self.path / "memory.max").write_text(str(memory_bytes))
            for name, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
                if (self.path / name).exists():
                    (self.path / name).write_text(value)
            # (O_CREAT changes nothing on cgroupfs, where the file exists; it lets the tests'
            # stand-in hierarchy, plain directories, record what the workload writes)
            self.procs = os.open(self.path / "cgroup.procs",
                                 os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError:
            self.remove()
            raise

    def figures(self) -> dict[str, int]:
        """memory.peak (Linux >= 5.19) and the oom/oom_kill counts of memory.events."""
        out: dict[str, int] = {}
        with contextlib.suppress(OSError, ValueError):
            out["cgroup_peak"] = int((self.path / "memory.peak").read_text())
        with contextlib.suppress(OSError, ValueError):
            for line in (self.path / "memory.events").read_text().splitlines():
                key, value = line.split()
                if key in ("oom", "oom_kill"):
                    out[f"cgroup_{key}"] = int(value)
        return out

    def remove(self) -> None:
        if getattr(self, "procs", -1) >= 0:
            with contextlib.suppress(OSError):
                os.close(self.procs)
            self.procs = -1
        for _ in range(50):  # the kernel may need a moment after the last process is reaped
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError as exc:
                if exc.errno == errno.ENOTEMPTY:  # not cgroupfs (a stand-in): leave it
                    return
                if (self.path / "cgroup.kill").exists():
                    with contextlib.suppress(OSError):
                        (self.path / "cgroup.kill").write_text("1")
                time.sleep(0.02)


def _full_isolation_blocker() -> str | None:
    if not sys.platform.startswith("linux"):
        return f"namespaces need Linux, this is {sys.platform}"
    if os.geteuid() != 0:
        return "not running as root (mount/network/pid namespaces and uid switching need root)"
    if shutil.which("unshare") is None:
        return "util-linux `unshare` not found (apt-get install util-linux)"
    if not hasattr(os, "pidfd_open"):
        return "os.pidfd_open missing (needs Linux >= 5.3)"
    return None


# --------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------


def run(
    argv: Sequence[str],
    *,
    workspace: Path,
    limits: Limits = Limits(),  # noqa: B008 - frozen dataclass, safe as a default
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    require_sandbox: bool = False,
    readonly_paths: Sequence[Path] = (),
    channel: Callable[[Channel], None] | None = None,
    stdlib_only: bool = False,
    channel_line_bytes: int = 1 << 20,
) -> SandboxResult:
    """Run `argv` in `workspace` under `limits`, isolated as far as this machine allows.

    With `channel`, the workload gets a pipe pair (fd 3 in, fd 4 out) that PID 1 relays, and
    `channel(ch)` runs in this thread while the run lasts: it queues frames (an input line and
    its CPU and wall allowance) and reads their replies, timed and measured by PID 1 (see
    sandbox_channel; a reply line is capped at `channel_line_bytes`). It may `ch.stop()` the
    run, which then ends with exit_reason "stopped", as it does when a frame overruns.
    With `stdlib_only` the run sees this Python's interpreter and standard library and nothing
    else of the Python environment (no venv, no site-packages, no other Python's libraries):
    run `stdlib_python()` there, not a venv's `bin/python`.

    The workspace is the only writable place besides a private /tmp; the Python installation
    of this interpreter and `readonly_paths` are visible read-only; nothing else of the host
    is. Raises SandboxUnavailable when `require_sandbox` and the machine cannot isolate, and
    SandboxError when the sandbox cannot be set up; the program's own failures are results.
    """
    if not argv:
        raise SandboxError("run() needs a command: argv is empty")
    workspace = Path(workspace)
    if not workspace.is_dir():
        raise SandboxError(f"workspace {workspace} is not a directory; create it first")
    _check_workspace(workspace.resolve())
    isolation = detect_isolation()
    if require_sandbox and not isolation.sandboxed:
        raise SandboxUnavailable(
            "a sandbox is required but this machine cannot provide one "
            f"({isolation.level}; {isolation.detail}). Run the judge as root on Linux with "
            "util-linux `unshare`, or pass require_sandbox=False for trusted code."
        )
    extra = [Path(p) for p in readonly_paths]
    for path in extra:
        if not path.exists():
            raise SandboxError(f"readonly path {path} does not exist")
        if path.resolve() == Path("/"):
            raise SandboxError("readonly path / would expose the whole host; name a directory")
    return _execute(
        list(argv), workspace.resolve(), limits, dict(env or {}), stdin, extra, isolation,
        channel, stdlib_only, channel_line_bytes,
    )


def _check_workspace(workspace: Path) -> None:
    """Refuse directories whose ownership a run must not take over (it is chown'ed)."""
    protected = [Path("/"), Path.home(), Path(tempfile.gettempdir()), *python_paths()]
    protected.append(Path(__file__).resolve().parents[2])  # the repository
    for path in protected:
        real = path.resolve()
        if workspace == real or real.is_relative_to(workspace):
            raise SandboxError(
                f"workspace {workspace} is or contains {real}; runs need a fresh directory of "
                "their own (see prepare_workspace)"
            )


def sandbox_env(workspace: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """The environment a run sees: built from scratch, the caller's `extra` on top."""
    base = {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(workspace),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "CUDA_VISIBLE_DEVICES": "",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
    }
    for key, value in extra.items():
        if not key or "=" in key or "\0" in key or "\0" in str(value):
            raise SandboxError(f"invalid environment variable {key!r} for the sandbox")
        base[key] = str(value)
    return base


def _execute(
    argv: list[str],
    workspace: Path,
    limits: Limits,
    env: dict[str, str],
    stdin: bytes | None,
    readonly_paths: Sequence[Path],
    isolation: Isolation,
    channel: Callable[[Channel], None] | None = None,
    stdlib_only: bool = False,
    channel_line_bytes: int = 1 << 20,
) -> SandboxResult:
    isolated = isolation.mechanism == _FULL_MECHANISM
    config: dict[str, Any] = {
        "argv": argv,
        "env": sandbox_env(workspace, env),
        "cwd": str(workspace),
        "deadline": limits.wall_seconds + _INIT_GRACE_SECONDS,
        "cpu_limit": limits.cpu_seconds,
        "isolate": isolated,
        "uid": None,
        "line_bytes": channel_line_bytes,
    }
    if not isolated:
        config["rlimits"] = _rlimits(limits, cgroup=False)
        return _spawn_and_wait(config, limits, stdin, isolation, channel)
    owner = workspace.stat()
    owner_ids = (owner.st_uid, owner.st_gid)
    if UID_BASE <= owner.st_uid < UID_BASE + UID_SLOTS:  # left over by an interrupted judge
        owner_ids = (os.geteuid(), os.getegid())
    with _uid_slot() as uid, tempfile.TemporaryDirectory(prefix="gnncb-sandbox-root-") as mnt, \
            _run_cgroup(uid, limits) as cgroup:
        config["uid"] = uid
        config["root"] = mnt
        config["rlimits"] = _rlimits(limits, cgroup=cgroup is not None)
        config["layout"] = _layout(workspace, readonly_paths, limits, uid, stdlib_only)
        for op in config["layout"]:
            if op["op"] == "workspace":  # the copy back is owned by the directory's owner
                op["owner"] = list(owner_ids)
        if cgroup is not None:
            config["cgroup_procs"] = cgroup.procs
        if limits.memory_bytes is not None:
            config["shm_pages"] = max(1, limits.memory_bytes // resource.getpagesize())
        if limits.workspace_bytes is not None and limits.workspace_inodes is not None:
            # the run works on a copy (a quota'd tmpfs); the host directory is never its
            return _spawn_and_wait(config, limits, stdin, isolation, channel, cgroup)
        _chown_tree(workspace, uid, uid)
        try:
            return _spawn_and_wait(config, limits, stdin, isolation, channel, cgroup)
        finally:
            _chown_tree(workspace, *owner_ids)


@contextlib.contextmanager
def _run_cgroup(uid: int, limits: Limits) -> Iterator[_RunCgroup | None]:
    """The run's own memory cgroup where this judge can make one (else None: RLIMIT_AS)."""
    parent, _ = cgroup_parent()
    if parent is None or limits.memory_bytes is None:
        yield None
        return
    try:
        group = _RunCgroup(parent, uid, limits.memory_bytes)
    except OSError as exc:
        raise SandboxError(f"cannot create the run's cgroup under {parent}: {exc}") from exc
    try:
        yield group
    finally:
        group.remove()


def _rlimits(limits: Limits, *, cgroup: bool) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {"RLIMIT_CORE": [0, 0]}
    if limits.cpu_seconds is not None:
        # a backstop for every process of the tree; the workload itself is stopped at exactly
        # cpu_seconds by PID 1 (the exact clock; RLIMIT_CPU is tick-sampled and runs ahead)
        soft = math.ceil(_RLIMIT_CPU_FACTOR * limits.cpu_seconds) + 1
        out["RLIMIT_CPU"] = [soft, soft + 1]  # SIGXCPU at soft, SIGKILL one second later
    if limits.memory_bytes is not None and not cgroup:
        # RLIMIT_AS counts MAP_SHARED and memfd mappings, which RLIMIT_DATA does not
        out["RLIMIT_AS"] = [limits.memory_bytes, limits.memory_bytes]
        out["RLIMIT_DATA"] = [limits.memory_bytes, limits.memory_bytes]
    if limits.max_processes is not None:
        out["RLIMIT_NPROC"] = [limits.max_processes, limits.max_processes]
    if limits.file_size_bytes is not None:
        out["RLIMIT_FSIZE"] = [limits.file_size_bytes, limits.file_size_bytes]
    return out


@contextlib.contextmanager
def _uid_slot() -> Iterator[int]:
    """Lock a free per-run uid; the flock dies with the judge, so slots never leak."""
    lock_dir = Path("/run/gnncb-sandbox")
    try:
        lock_dir.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        lock_dir = Path(tempfile.gettempdir()) / f"gnncb-sandbox-{os.geteuid()}"
        lock_dir.mkdir(mode=0o700, exist_ok=True)
    start = os.getpid() % UID_SLOTS
    for i in range(UID_SLOTS):
        slot = (start + i) % UID_SLOTS
        fd = os.open(lock_dir / f"slot-{slot}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        try:
            yield UID_BASE + slot
        finally:
            os.close(fd)
        return
    raise SandboxError(f"all {UID_SLOTS} sandbox uid slots are busy; too many concurrent runs")


def _chown_tree(top: Path, uid: int, gid: int) -> None:
    """chown without following symlinks, iteratively (a run may leave links to host files and
    trees deeper than any recursion limit)."""
    sandbox_fs.chown_tree(top, uid, gid)


# --------------------------------------------------------------------------------------------
# Filesystem layout of the new root (computed by the judge, applied by the launcher)
# --------------------------------------------------------------------------------------------


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


def _layout(
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
    covered = [str(Path("/") / n) for n in _SYSTEM_DIRS]
    for dst in sorted(binds, key=lambda p: (p.count("/"), p)):  # parents before children
        src, rw = binds[dst]
        if not rw and any(dst == c or dst.startswith(c + "/") for c in covered):
            continue
        if rw and quota:
            ops.append({"op": "workspace", "src": src, "dst": dst, "uid": uid,
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


# --------------------------------------------------------------------------------------------
# Judge side: spawn the launcher, pump I/O, enforce the deadline
# --------------------------------------------------------------------------------------------


class _Tail:
    """Keeps only the last `limit` bytes of a stream, however much is written."""

    def __init__(self, limit: int) -> None:
        self.limit = max(0, limit)
        self.buf = bytearray()

    def add(self, chunk: bytes) -> None:
        self.buf += chunk
        if len(self.buf) > 2 * self.limit + 65536:
            del self.buf[: len(self.buf) - self.limit]

    def text(self) -> str:
        data = bytes(self.buf[-self.limit :]) if self.limit else b""
        return data.decode("utf-8", errors="replace")


_LAUNCH = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from evaluator.sandbox.core import _launcher_main; _launcher_main(sys.argv[2:])"
)


def _spawn_and_wait(
    config: dict[str, Any],
    limits: Limits,
    stdin: bytes | None,
    isolation: Isolation,
    channel: Callable[[Channel], None] | None = None,
    cgroup: _RunCgroup | None = None,
) -> SandboxResult:
    cfg_r, cfg_w = os.pipe()
    child_fds: list[int] = []
    judge_fds: list[int] = []
    if channel is not None:
        ctl_r, ctl_w = os.pipe()  # judge -> PID 1: frames
        res_r, res_w = os.pipe()  # PID 1 -> judge: replies
        child_fds, judge_fds = [ctl_r, res_w], [ctl_w, res_r]
        config["relay"] = child_fds
    if cgroup is not None:
        child_fds.append(cgroup.procs)
    status_r, status_w = os.pipe()
    alive_r, alive_w = os.pipe()  # EOF tells PID 1 the judge is gone
    package_root = str(Path(__file__).resolve().parents[2])
    launcher = [sys.executable, "-I", "-S", "-c", _LAUNCH, package_root]
    launcher += [str(cfg_r), str(status_w), str(alive_r)]
    cmd = launcher
    if config["isolate"]:
        unshare = shutil.which("unshare") or "unshare"
        cmd = [unshare, "--mount", "--net", "--pid", "--ipc", "--uts", "--fork"]
        cmd += ["--kill-child", "--propagation", "private", "--", *launcher]
    own_fds = [cfg_r, status_w, alive_r, *[fd for fd in child_fds if cgroup is None
                                           or fd != cgroup.procs]]
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={},
            cwd="/",
            pass_fds=(cfg_r, status_w, alive_r, *child_fds),
            start_new_session=True,
        )
    except OSError as exc:
        for fd in (cfg_w, status_r, alive_w, *own_fds, *judge_fds):
            os.close(fd)
        raise SandboxError(f"cannot start the sandbox launcher {cmd[0]}: {exc}") from exc
    for fd in own_fds:
        os.close(fd)
    pidfd = os.pidfd_open(proc.pid)
    reaped = False
    stop_lock = threading.Lock()
    alive = [alive_w]

    def stop_run() -> None:
        # Closing the alive pipe makes PID 1 kill and reap the workload, then exit; the
        # kernel tears the namespace down and the rusage of the whole tree survives.
        with stop_lock:
            if alive[0] >= 0:
                os.close(alive[0])
                alive[0] = -1

    stopped = False
    try:
        with contextlib.suppress(BrokenPipeError):
            _write_all(cfg_w, json.dumps(config).encode())
        os.close(cfg_w)
        cfg_w = -1
        out, err = _Tail(limits.output_bytes), _Tail(limits.output_bytes)
        deadline = start + limits.wall_seconds
        if channel is None:
            timed_out = _pump(proc, pidfd, stdin, out, err, deadline)
        else:
            timed_out, stopped = _converse(proc, pidfd, stdin, out, err, deadline, channel,
                                           judge_fds, stop_run)
        if timed_out or stopped:
            stop_run()
            if not select.select([pidfd], [], [], _STOP_SECONDS)[0]:
                _kill_group(proc.pid)
        _, wait_status, usage = os.wait4(proc.pid, 0)
        reaped = True
        proc.returncode = os.waitstatus_to_exitcode(wait_status)
        wall = time.monotonic() - start
        _kill_group(proc.pid)  # leftovers of the group in unisolated runs
        _drain(proc, out, err)
        status = _read_status(status_r)
    finally:
        if not reaped:  # the judge itself failed or was interrupted: leave nothing behind
            _kill_group(proc.pid)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(proc.pid, 0)
            proc.returncode = -signal.SIGKILL
        stop_run()
        for fd in (cfg_w, status_r, pidfd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
    if "setup_error" in status:
        raise SandboxError(f"sandbox setup failed: {status['setup_error']}")
    if cgroup is not None:
        status.update(cgroup.figures())
    cpu = usage.ru_utime + usage.ru_stime
    # The launcher's report (a trusted root process): the workload's own rusage and its VmHWM
    # at exit, and reaped orphans'. The judge's wait4 would include the launcher, whose
    # ru_maxrss starts at the judge's own RSS (inherited through fork).
    own = [int(status.get(k, 0)) for k in ("workload_maxrss", "workload_hwm", "orphan_maxrss")]
    peak = max(own) if any(own) else None
    mechanism = MEMORY_CGROUP if cgroup is not None else MEMORY_RLIMIT
    reason, returncode = _classify(timed_out, status, proc.returncode, peak, limits)
    if stopped and not timed_out and reason != "cpu":
        reason = "stopped"
    return SandboxResult(
        exit_reason=reason,
        returncode=returncode,
        stdout_tail=out.text(),
        stderr_tail=err.text(),
        wall_seconds=wall,
        cpu_seconds=cpu,
        peak_rss_bytes=peak,
        isolation=isolation,
        memory_mechanism=mechanism,
        workspace=status.get("workspace"),
    )


def _converse(
    proc: subprocess.Popen[bytes],
    pidfd: int,
    stdin: bytes | None,
    out: _Tail,
    err: _Tail,
    deadline: float,
    channel: Callable[[Channel], None],
    judge_fds: list[int],
    stop_run: Callable[[], None],
) -> tuple[bool, bool]:
    """Pump output in a thread while `channel` converses here; (timed out, stopped)."""
    outcome: dict[str, bool] = {}

    def pump() -> None:
        outcome["timed_out"] = _pump(proc, pidfd, stdin, out, err, deadline)
        if outcome["timed_out"]:
            stop_run()  # PID 1 ends the run: its replies end (ChannelClosed)

    thread = threading.Thread(target=pump, name="gnncb-sandbox-pump", daemon=True)
    thread.start()
    ctl_w, res_r = judge_fds
    ch = Channel(ctl_w, res_r, stop_run)
    try:
        channel(ch)
    except ChannelClosed:
        pass
    finally:
        ch.close()  # no more frames: PID 1 ends the workload's input (and its grace)
        thread.join()
        with contextlib.suppress(OSError):
            os.close(res_r)
    return outcome.get("timed_out", False), ch.stopped


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _pump(
    proc: subprocess.Popen[bytes],
    pidfd: int,
    stdin: bytes | None,
    out: _Tail,
    err: _Tail,
    deadline: float,
) -> bool:
    """Move bytes until the launcher exits; True when the deadline came first."""
    sel = selectors.DefaultSelector()
    assert proc.stdout is not None and proc.stderr is not None
    sel.register(proc.stdout.fileno(), selectors.EVENT_READ, out)
    sel.register(proc.stderr.fileno(), selectors.EVENT_READ, err)
    pending = memoryview(stdin or b"")
    if proc.stdin is not None:
        os.set_blocking(proc.stdin.fileno(), False)
        if pending:
            sel.register(proc.stdin.fileno(), selectors.EVENT_WRITE, "stdin")
        else:
            proc.stdin.close()
    sel.register(pidfd, selectors.EVENT_READ, "exit")
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return True
            for key, _ in sel.select(remaining):
                if key.data == "exit":
                    return False
                if key.data == "stdin":
                    assert proc.stdin is not None
                    try:
                        pending = pending[os.write(key.fd, pending[:65536]) :]
                    except (BrokenPipeError, BlockingIOError) as exc:
                        if isinstance(exc, BlockingIOError):
                            continue
                        pending = memoryview(b"")
                    if not pending:
                        sel.unregister(key.fd)
                        proc.stdin.close()
                    continue
                chunk = os.read(key.fd, 1 << 16)
                if chunk:
                    key.data.add(chunk)
                else:
                    sel.unregister(key.fd)
    finally:
        sel.close()


def _drain(proc: subprocess.Popen[bytes], out: _Tail, err: _Tail) -> None:
    """Read what is left in the pipes; give up on writers that escaped an unisolated run."""
    assert proc.stdout is not None and proc.stderr is not None
    pending = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    end = time.monotonic() + _DRAIN_SECONDS
    while pending and (remaining := end - time.monotonic()) > 0:
        ready, _, _ = select.select(list(pending), [], [], remaining)
        for fd in ready:
            chunk = os.read(fd, 1 << 16)
            if chunk:
                pending[fd].add(chunk)
            else:
                del pending[fd]


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _read_status(fd: int) -> dict[str, Any]:
    os.set_blocking(fd, False)
    data = b""
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(fd, 65536):
            data += chunk
    try:
        return json.loads(data) if data else {}
    except ValueError:
        return {}


def memory_limit_reached(peak_bytes: int | None, limit_bytes: int | None) -> bool:
    """Whether a measured peak (RSS of a process, or a cgroup's memory.peak) is at the memory
    limit: >= MEMORY_HIT of it. A request that fails below that (one huge allocation, or
    reserved but unused address space) did not use the memory, so it is not a memory end."""
    return bool(limit_bytes and peak_bytes and peak_bytes >= MEMORY_HIT * limit_bytes)


def _classify(
    timed_out: bool,
    status: dict[str, Any],
    outer_code: int | None,
    peak: int | None,
    limits: Limits,
) -> tuple[str, int | None]:
    """Map how the workload ended to an exit_reason (see SandboxResult), from what the kernel
    reported and PID 1 measured (wait status, the exact CPU clock, peak RSS, cgroup events),
    never from the program's output or its own signals: printing "MemoryError", raising it,
    reserving address space it never uses or sending itself SIGXCPU proves nothing."""
    if timed_out or status.get("timeout"):
        return "timeout", None
    if "signal" in status:
        code: int | None = -int(status["signal"])
    elif "exit" in status:
        code = int(status["exit"])
    else:
        code = outer_code  # launcher died without reporting (killed from outside)
    if status.get("cpu_limit"):  # PID 1 stopped it when its exact CPU clock reached the limit
        return "cpu", code
    if status.get("stopped"):  # the judge (or PID 1 relaying its frames) ended the run
        return "stopped", code
    if (status.get("workspace") or {}).get("full"):  # writes failed with ENOSPC, whatever next
        return "quota", code
    if code == 0:
        return "ok", 0
    sig = -code if code is not None and code < 0 else None
    own_cpu = float(status.get("workload_cpu", 0.0))  # exact, read by PID 1 before reaping
    if (sig in (signal.SIGXCPU, signal.SIGKILL) and limits.cpu_seconds is not None
            and own_cpu >= limits.cpu_seconds):
        return "cpu", code
    if limits.memory_bytes is not None and (
            int(status.get("cgroup_oom_kill", 0)) > 0 or int(status.get("cgroup_oom", 0)) > 0
            or memory_limit_reached(max(peak or 0, int(status.get("cgroup_peak", 0))),
                                    limits.memory_bytes)):
        return "memory", code
    if sig is not None:
        return "killed", code
    return "error", code


# --------------------------------------------------------------------------------------------
# Launcher side (runs as `python -I -S -c ...`; PID 1 of the sandbox when isolated)
# --------------------------------------------------------------------------------------------

_MS_RDONLY = 1
_MS_NOSUID = 2
_MS_NODEV = 4
_MS_NOEXEC = 8
_MS_REMOUNT = 32
_MS_BIND = 4096
_MS_MOVE = 8192
_MNT_DETACH = 2
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_CHILD_SUBREAPER = 36
_PTRACE_CONT = 7
SANDBOX_HOSTNAME = "sandbox"
_DIR_OPEN = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_QUOTA_SLACK = 1024 * 1024  # a workspace with less free space than this counts as full
_PTRACE_SEIZE = 0x4206
_PTRACE_O_TRACEEXIT = 0x40
_PTRACE_EVENT_EXIT = 6
_PTRACE_EVENT_STOP = 128
_PIVOT_ROOT_SYSCALL = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}


def _launcher_main(args: Sequence[str]) -> None:
    cfg_fd, status_fd, alive_fd = (int(a) for a in args)
    with os.fdopen(cfg_fd, "rb") as stream:
        config = json.loads(stream.read())
    with os.fdopen(status_fd, "w") as status:
        copy_out = None
        try:
            if config["isolate"]:
                copy_out = _build_root(config["root"], config["layout"])
            if config["isolate"]:  # own UTS namespace: the host's name stays outside
                socket.sethostname(SANDBOX_HOSTNAME)
            if config.get("shm_pages"):  # SysV shm of this IPC namespace, in pages
                with open("/proc/sys/kernel/shmall", "w") as fh:
                    fh.write(str(config["shm_pages"]))
        except Exception as exc:  # report and stop: never run a half-built sandbox
            status.write(json.dumps({"setup_error": f"{type(exc).__name__}: {exc}"}))
            return
        outcome = _supervise(config, alive_fd)
        orphans = _reap_descendants()
        outcome["orphan_maxrss"] = max(outcome.get("orphan_maxrss", 0), orphans)
        if copy_out is not None:  # every process of the run is dead: nothing races the copy
            try:
                outcome["workspace"] = _workspace_out(copy_out)
            except Exception as exc:  # noqa: BLE001 - reported to the judge as a setup error
                outcome["setup_error"] = f"copying the workspace back failed: {exc}"
        status.write(json.dumps(outcome))


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(src: str | None, dst: str, fstype: str | None, flags: int, data: str | None) -> None:
    enc = [s.encode() if s is not None else None for s in (src, dst, fstype, data)]
    _check(_libc().mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {dst}")


def _statvfs_flags(path: str) -> int:
    """Flags a bind remount must keep (the kernel refuses to drop locked ones)."""
    f = os.statvfs(path).f_flag
    out = 0
    for st_flag, ms_flag in (
        (os.ST_NOEXEC, _MS_NOEXEC),
        (os.ST_NOSUID, _MS_NOSUID),
        (os.ST_NODEV, _MS_NODEV),
        (os.ST_RDONLY, _MS_RDONLY),
    ):
        if f & st_flag:
            out |= ms_flag
    return out


def _build_root(root: str, layout: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Build and enter the new root; returns the workspace to copy out afterwards, if any."""
    copy_out = None
    _mount("sandbox-root", root, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755,size=4194304")
    for op in layout:
        dst = root + op["dst"]
        kind = op["op"]
        os.makedirs(os.path.dirname(dst), mode=0o755, exist_ok=True)
        if kind == "symlink":
            os.symlink(op["target"], dst)
        elif kind == "file":
            with open(dst, "w") as fh:
                fh.write(op["text"])
            os.chmod(dst, 0o644)
        elif kind in ("bind", "inner_bind"):
            src = root + op["src"] if kind == "inner_bind" else op["src"]
            _bind(src, dst, rw=op.get("rw", True), device=op["dst"].startswith("/dev/"))
        elif kind == "tmpfs":
            os.makedirs(dst, mode=0o755, exist_ok=True)
            _mount("tmpfs", dst, "tmpfs", _MS_NOSUID | _MS_NODEV, op["options"])
        elif kind == "workspace":
            copy_out = _workspace_in(op, dst)
        elif kind == "empty":
            _mount("empty", dst, "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_RDONLY, "size=4096")
        elif kind == "proc":
            os.makedirs(dst, mode=0o555, exist_ok=True)
            _mount("proc", dst, "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None)
        else:
            raise ValueError(f"unknown layout op {kind!r}")
    _pivot(root)
    _mount(None, "/", None, _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV, None)
    return copy_out


def _workspace_in(op: dict[str, Any], dst: str) -> dict[str, Any]:
    """Mount the size- and inode-capped tmpfs at the workspace path and copy the host
    workspace into it (owned by the run's uid). The host directory stays open, for the copy
    back once every process of the run is dead."""
    os.makedirs(dst, mode=0o755, exist_ok=True)
    _mount("workspace", dst, "tmpfs", _MS_NOSUID | _MS_NODEV, op["options"])
    host = os.open(op["src"], _DIR_OPEN)
    inner = os.open(dst, _DIR_OPEN)
    try:
        os.fchown(inner, op["uid"], op["uid"])
        try:
            sandbox_fs.copy_tree_fd(host, inner, op["uid"], op["uid"])
        except OSError as exc:
            raise SandboxError(f"the workspace {op['src']} does not fit its quota "
                               f"({op['options']}): {exc}") from exc
    finally:
        os.close(inner)
    return {"host_fd": host, "path": op["dst"], "owner": op["owner"]}


def _workspace_out(copy_out: dict[str, Any]) -> dict[str, Any]:
    """Copy the run's workspace back over the host directory (as its owner, following
    nothing, special files dropped) and report the quota's use."""
    inner = os.open(copy_out["path"], _DIR_OPEN)
    host = copy_out["host_fd"]
    try:
        vfs = os.fstatvfs(inner)
        free = vfs.f_bavail * vfs.f_frsize
        report = {
            "bytes": (vfs.f_blocks - vfs.f_bfree) * vfs.f_frsize,
            "inodes": vfs.f_files - vfs.f_ffree,
            "full": free < _QUOTA_SLACK or vfs.f_favail <= 1,
        }
        sandbox_fs.clear_dir_fd(host)
        uid, gid = copy_out["owner"]
        counts = sandbox_fs.copy_tree_fd(inner, host, uid, gid)
        report["dropped"] = counts["dropped"]
        report["refused"] = counts["refused"]
        return report
    finally:
        os.close(inner)
        os.close(host)


def _bind(src: str, dst: str, *, rw: bool, device: bool) -> None:
    if os.path.isdir(src):
        os.makedirs(dst, mode=0o755, exist_ok=True)
    elif not os.path.exists(dst):
        with open(dst, "w"):
            pass
    _mount(src, dst, None, _MS_BIND, None)
    flags = _MS_REMOUNT | _MS_BIND | _MS_NOSUID | _statvfs_flags(src)
    if device:
        flags &= ~_MS_NODEV
    else:
        flags |= _MS_NODEV
    if not rw:
        flags |= _MS_RDONLY
    _mount(None, dst, None, flags, None)


def _pivot(root: str) -> None:
    """Make `root` the new /, and detach the host root so no path leads back to it."""
    libc = _libc()
    number = _PIVOT_ROOT_SYSCALL.get(os.uname().machine)
    os.chdir(root)
    if number is not None:
        os.mkdir(".oldroot", 0o700)
        _check(libc.syscall(number, b".", b".oldroot"), "pivot_root")
        os.chdir("/")
        _check(libc.umount2(b"/.oldroot", _MNT_DETACH), "umount old root")
        os.rmdir("/.oldroot")
    else:  # switch_root style: move the mount over / and chroot into it
        _mount(".", "/", None, _MS_MOVE, None)
        os.chroot(".")
        os.chdir("/")


def _supervise(config: dict[str, Any], alive_fd: int) -> dict[str, Any]:
    """Fork the workload, relay its channel (if any), enforce its CPU limit on the exact clock,
    reap every orphan, and report how the workload ended."""
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    # Unisolated runs: orphans of the workload re-parent to us, not to the host's init.
    _libc().prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    relay_fds = config.get("relay")
    if relay_fds:
        in_r, in_w = os.pipe()  # PID 1 -> workload (its fd 3)
        out_r, out_w = os.pipe()  # workload -> PID 1 (its fd 4)
        config["channel"] = [in_r, out_w]
    cpus = max(1, len(os.sched_getaffinity(0)))  # how fast a CPU clock runs per wall second
    pid = os.fork()
    if pid == 0:
        _exec_workload(config)
    # Traced for one event only: the stop just before exit, where the kernel still shows the
    # workload's peak RSS (gone once it is a zombie). Signals pass through.
    libc = _libc()
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    libc.ptrace(_PTRACE_SEIZE, pid, None, ctypes.c_void_p(_PTRACE_O_TRACEEXIT))
    figures: dict[str, Any] = {}
    relay = None
    if relay_fds:
        os.close(in_r)
        os.close(out_w)
        relay = Relay(relay_fds[0], relay_fds[1], in_w, out_r, pid, int(config["line_bytes"]),
                      cpus)
    if "cgroup_procs" in config:
        os.close(config["cgroup_procs"])
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):  # the workload tree alone holds the output pipes now
        os.dup2(null, fd)
    deadline = time.monotonic() + float(config["deadline"])
    cpu_limit = config.get("cpu_limit")
    try:
        while True:
            ended = _reap(libc, pid, figures)
            if ended is not None:
                return ended
            if cpu_limit is not None:
                used = process_cpu_seconds(pid) or 0.0
                if used >= cpu_limit:
                    return _stop(libc, pid, {"cpu_limit": True}, figures)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return _stop(libc, pid, {"timeout": True}, figures)
            wait = remaining
            if cpu_limit is not None:  # the clock cannot pass the limit before we look again
                wait = min(wait, max(0.005, (cpu_limit - used) / cpus))
            readers, writers = [wake_r, alive_fd], []
            if relay is not None:
                readers += relay.readers()
                writers = relay.writers()
                if (t := relay.timeout()) is not None:
                    wait = min(wait, t)
            ready_r, ready_w, _ = select.select(readers, writers, [], wait)
            if alive_fd in ready_r:  # EOF: the judge hit its deadline or is gone
                return _stop(libc, pid, {"stopped": True}, figures)
            if wake_r in ready_r:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_r, 4096)
            if relay is not None and relay.step(ready_r, ready_w):
                return _stop(libc, pid, {"stopped": True, "relay": relay.ended}, figures)
    finally:
        if relay is not None:  # the frame in flight (if any) ends with E and these figures
            relay.finish(figures.get("workload_cpu"), figures.get("workload_hwm"))


def _reap(libc: ctypes.CDLL, pid: int, figures: dict[str, Any]) -> dict[str, Any] | None:
    """Reap whatever has ended (handling the workload's ptrace stops); the outcome once the
    workload itself has ended. Its exact CPU time is read while it is a zombie, before the
    reap (its own clock: no children in it, unlike its rusage)."""
    while True:
        try:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return None
        if info is None or info.si_pid == 0:
            return None
        child = info.si_pid
        if info.si_code in (os.CLD_TRAPPED, os.CLD_STOPPED):
            _, wait_status, _ = os.wait4(child, os.WNOHANG)
            if child == pid and os.WIFSTOPPED(wait_status):
                _on_trace_stop(libc, pid, wait_status, figures)
            continue
        if child == pid:
            figures["workload_cpu"] = process_cpu_seconds(pid) or 0.0
        _, wait_status, usage = os.wait4(child, 0)
        _account(figures, child == pid, usage)
        if child == pid:
            if os.WIFSIGNALED(wait_status):
                return {"signal": os.WTERMSIG(wait_status), **figures}
            return {"exit": os.waitstatus_to_exitcode(wait_status), **figures}


def _on_trace_stop(libc: ctypes.CDLL, pid: int, status: int, figures: dict[str, Any]) -> None:
    """Handle a ptrace stop of the workload: read its memory figures at the exit event,
    let group stops go, and deliver every other signal unchanged."""
    event = (status >> 16) & 0xFF
    deliver = 0
    if event == _PTRACE_EVENT_EXIT:
        figures.update(_memory_figures(pid))
    elif event != _PTRACE_EVENT_STOP:
        deliver = os.WSTOPSIG(status)
    libc.ptrace(_PTRACE_CONT, pid, None, ctypes.c_void_p(deliver))


def _memory_figures(pid: int) -> dict[str, int]:
    """VmHWM (peak RSS) in bytes, read at the exit stop."""
    out: dict[str, int] = {}
    with contextlib.suppress(OSError, ValueError, IndexError), open(
            f"/proc/{pid}/status", "rb") as fh:
        for line in fh:
            if line.startswith(b"VmHWM:"):
                out["workload_hwm"] = int(line.split()[1]) * 1024
    return out


def _account(figures: dict[str, Any], workload: bool, usage: resource.struct_rusage) -> None:
    """Peak RSS of the workload (its own rusage: a fresh child of this small launcher, so it
    does not inherit the judge's RSS) and of reaped orphans."""
    key = "workload_maxrss" if workload else "orphan_maxrss"
    figures[key] = max(figures.get(key, 0), usage.ru_maxrss * 1024)


def _stop(libc: ctypes.CDLL, pid: int, outcome: dict[str, Any],
          figures: dict[str, Any]) -> dict[str, Any]:
    """Kill and reap the workload so its CPU time is accounted; PID 1's exit does the rest."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    figures.setdefault("workload_cpu", process_cpu_seconds(pid) or 0.0)
    while True:
        try:
            _, status, usage = os.wait4(pid, 0)
        except ChildProcessError:
            break
        if os.WIFSTOPPED(status):
            _on_trace_stop(libc, pid, status, figures)
            continue
        _account(figures, True, usage)
        if os.WIFSIGNALED(status):
            outcome["signal"] = os.WTERMSIG(status)
        else:
            outcome["exit"] = os.waitstatus_to_exitcode(status)
        break
    outcome.update(figures)
    return outcome


def _reap_descendants() -> int:
    """Kill every remaining descendant and reap it, so nothing outlives the run and the CPU
    time of background processes reaches the judge's rusage (the kernel's own teardown at
    PID 1's exit does not account it).

    As PID 1 of the sandbox, kill(-1) reaches exactly the namespace. Unisolated, the launcher
    is a child subreaper: orphans (a setsid()+double-fork included) become its children, and
    killing children until none are left walks down the tree."""
    in_namespace = os.getpid() == 1
    peak = 0  # largest peak RSS among them (returned)
    while True:  # kill again each round: a process may have forked while the last kill landed
        targets = [-1] if in_namespace else _children()
        for target in targets:
            with contextlib.suppress(ProcessLookupError):
                os.kill(target, signal.SIGKILL)
        try:
            _, _, usage = os.wait4(-1, 0)
        except ChildProcessError:
            return peak
        peak = max(peak, usage.ru_maxrss * 1024)


def _children() -> list[int]:
    """Direct children of this process, from /proc (no CONFIG_PROC_CHILDREN needed)."""
    me, kids = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            kids.append(int(entry))
    return kids


def _exec_workload(config: dict[str, Any]) -> None:
    """In the forked child: limits, drop privileges, exec. Never returns."""
    argv = config["argv"]
    try:
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_DFL)
        os.chdir(config["cwd"])
        if "cgroup_procs" in config:  # into the run's own cgroup, while still root
            os.write(config["cgroup_procs"], b"0")
        for name, (soft, hard) in config["rlimits"].items():
            resource.setrlimit(getattr(resource, name), (soft, hard))
        uid = config["uid"]
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        _check(_libc().prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(NO_NEW_PRIVS)")
        keep = 3
        if "channel" in config:  # judge -> workload at fd 3, workload -> judge at fd 4
            copies = [os.dup(fd) for fd in config["channel"]]
            for target, fd in zip((CHANNEL_IN_FD, CHANNEL_OUT_FD), copies, strict=True):
                os.dup2(fd, target)
                os.set_inheritable(target, True)  # dup2 onto itself keeps O_CLOEXEC
            keep = CHANNEL_OUT_FD + 1
        os.closerange(keep, 1 << 16)
        os.umask(0o022)
        os.execvpe(argv[0], argv, config["env"])  # noqa: S606 - argv is the point of a sandbox
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.write(2, f"sandbox: cannot start {argv[0]!r}: {exc}\n".encode())
    os._exit(127)


if __name__ == "__main__":
    found = detect_isolation()
    print(f"isolation: {found.level} (mechanism {found.mechanism}) {found.detail}".rstrip())
    print(f"memory: {cgroup_memory_status()}")
