"""The sandbox's public data types: what a caller asks for (Limits), what protected a run
(Isolation), how it ended (SandboxResult), and the errors of the sandbox itself.

Why a module of its own: every other part of the sandbox (detection, the judge side, the root
layout) and every caller speak in these types; keeping them apart from the machinery lets a
caller read the contract without the 1,000 lines that keep it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluator.errors import ConfigError


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
    # what held besides the namespaces: the system-call filter ("libseccomp: ..." or "none
    # (why)"), the workload's own cgroup namespace, how /proc was mounted ("hidepid=...")
    hardening: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.exit_reason == "ok"

NO_ISOLATION = Isolation(False, False, False, False, "none")
FULL_MECHANISM = "unshare+setuid"


def memory_limit_reached(peak_bytes: int | None, limit_bytes: int | None) -> bool:
    """Whether a measured peak (RSS of a process, or a cgroup's memory.peak) is at the memory
    limit: >= MEMORY_HIT of it. A request that fails below that (one huge allocation, or
    reserved but unused address space) did not use the memory, so it is not a memory end."""
    return bool(limit_bytes and peak_bytes and peak_bytes >= MEMORY_HIT * limit_bytes)
