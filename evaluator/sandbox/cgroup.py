"""Per-run cgroups: where this judge can make them, and the run's own memory cgroup.

Why: a cgroup v2 with memory.max counts every page of a run's tree (anonymous, shared, memfd,
tmpfs), which RLIMIT_AS per process cannot; where the judge cannot create one, runs fall back to
RLIMIT_AS plus size-capped tmpfs, and every result says which mechanism bounded it
(docs/sandbox.md: "Memory").
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from evaluator import settings
from evaluator.sandbox import fs as sandbox_fs
from evaluator.sandbox.types import MEMORY_CGROUP, MEMORY_RLIMIT, Limits, SandboxError

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


class RunCgroup:
    """A run's own cgroup: memory.max for the whole tree (anonymous, shared, memfd and tmpfs
    pages), no swap, OOM kills the whole group; read memory.peak and memory.events after."""

    _counter = 0
    _lock = threading.Lock()

    def __init__(self, parent: Path, uid: int, memory_bytes: int) -> None:
        with RunCgroup._lock:
            RunCgroup._counter += 1
            n = RunCgroup._counter
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



@contextlib.contextmanager
def run_cgroup(uid: int, limits: Limits) -> Iterator[RunCgroup | None]:
    """The run's own memory cgroup where this judge can make one (else None: RLIMIT_AS)."""
    parent, _ = cgroup_parent()
    if parent is None or limits.memory_bytes is None:
        yield None
        return
    try:
        group = RunCgroup(parent, uid, limits.memory_bytes)
    except OSError as exc:
        raise SandboxError(f"cannot create the run's cgroup under {parent}: {exc}") from exc
    try:
        yield group
    finally:
        group.remove()
