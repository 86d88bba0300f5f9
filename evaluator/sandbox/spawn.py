"""The judge side of a run: start PID 1 (under `unshare` when isolated), hand it the run's
configuration, pump its output, enforce the deadline, and classify how the workload ended
from what the kernel reported and PID 1 measured.

Why apart from `launcher.py`: this side is the judge's process (it may import anything);
the launcher is the trusted PID 1 inside the namespaces and imports the standard library only.
They meet in a JSON configuration (in) and a JSON status (out) over inherited pipes.
"""

from __future__ import annotations

import contextlib
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
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from evaluator.sandbox import fs as sandbox_fs
from evaluator.sandbox import launcher, syscalls
from evaluator.sandbox.cgroup import RunCgroup, run_cgroup
from evaluator.sandbox.channel import WAIT_CREDIT_FACTOR, Channel, ChannelClosed
from evaluator.sandbox.rootfs import layout
from evaluator.sandbox.types import (
    FULL_MECHANISM,
    MEMORY_CGROUP,
    MEMORY_RLIMIT,
    Isolation,
    Limits,
    SandboxError,
    SandboxResult,
    memory_limit_reached,
)

# Per-run uids: RLIMIT_NPROC counts processes per uid machine-wide, so concurrent runs that
# shared uid 65534 would share one fork budget. Each run locks a slot and gets its own uid.
UID_BASE = 1_100_000
UID_SLOTS = 1024

# Setup time (namespaces, copy-in) the judge's backstop allows beyond PID 1's latest stop.
_INIT_GRACE_SECONDS = 5.0
# After a timeout, how long PID 1 gets to stop the tree before the judge SIGKILLs the group.
_STOP_SECONDS = 30.0  # PID 1 also copies the workspace back (up to its quota) before exiting
# After the main process ends, how long to keep draining pipes held by escaped processes.
_DRAIN_SECONDS = 1.0
# RLIMIT_CPU (tick-sampled, runs a few % ahead of the exact clock under contention) is only a
# backstop for the other processes of the tree: set this far above the exact limit PID 1 keeps.
_RLIMIT_CPU_FACTOR = 1.25


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


def execute(
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
    isolated = isolation.mechanism == FULL_MECHANISM
    binding, _ = seccomp_binding()
    config: dict[str, Any] = {
        "seccomp": binding,
        "argv": argv,
        "env": sandbox_env(workspace, env),
        "cwd": str(workspace),
        "deadline": limits.wall_seconds,  # PID 1's wall limit (waiting for a CPU credited)
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
            run_cgroup(uid, limits) as cgroup:
        config["uid"] = uid
        config["root"] = mnt
        config["rlimits"] = _rlimits(limits, cgroup=cgroup is not None)
        config["layout"] = layout(workspace, readonly_paths, limits, uid, stdlib_only)
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


@functools.cache
def seccomp_binding() -> tuple[str | None, str]:
    """libseccomp's Python binding for PID 1 (found once), or None and why not."""
    return syscalls.locate_binding()


def hardening(status: dict[str, Any]) -> dict[str, Any]:
    """What held besides the namespaces in this run, from PID 1's report (its own setup and
    its child's account before the exec): the system-call filter, the cgroup namespace and
    how /proc was mounted. A run without PID 1's report claims nothing."""
    held = status.get("hardening") or {}
    seccomp = held.get("seccomp")
    if seccomp and held.get("seccomp_loaded"):
        filter_text = (f"libseccomp: {len(seccomp['denied'])} calls denied (EPERM), clone "
                       f"with namespace flags denied, clone3 ENOSYS")
    else:
        filter_text = "none" + (f" ({seccomp_binding()[1]})" if seccomp_binding()[1] else "")
    return {"seccomp": filter_text, "cgroup_namespace": bool(held.get("cgroup_namespace")),
            "proc": held.get("proc", "none"), "landlock": held.get("landlock") or "none"}


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


# PID 1's program: the launcher module (standard library only), loaded without the judge side
_LAUNCH = launcher.LOAD + "main(sys.argv[2:])\n"


def _spawn_and_wait(
    config: dict[str, Any],
    limits: Limits,
    stdin: bytes | None,
    isolation: Isolation,
    channel: Callable[[Channel], None] | None = None,
    cgroup: RunCgroup | None = None,
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
    package_root = str(Path(__file__).resolve().parents[2])  # the directory holding evaluator/
    pid1 = [sys.executable, "-I", "-S", "-c", _LAUNCH, package_root]
    pid1 += [str(cfg_r), str(status_w), str(alive_r)]
    cmd = pid1
    if config["isolate"]:
        unshare = shutil.which("unshare") or "unshare"
        cmd = [unshare, "--mount", "--net", "--pid", "--ipc", "--uts", "--fork"]
        cmd += ["--kill-child", "--propagation", "private", "--", *pid1]
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
    status_reader = _StatusReader(status_r)  # drained as it comes: PID 1 never blocks on it
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
        # the backstop: PID 1 enforces the wall limit itself, crediting the time the workload
        # waited for a CPU (at most WAIT_CREDIT_FACTOR x the limit); past that, or if PID 1 is
        # stuck, the judge stops the run
        deadline = (start + limits.wall_seconds * (1 + WAIT_CREDIT_FACTOR)
                    + _INIT_GRACE_SECONDS)
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
        status = status_reader.result()
    finally:
        if not reaped:  # the judge itself failed or was interrupted: leave nothing behind
            _kill_group(proc.pid)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(proc.pid, 0)
            proc.returncode = -signal.SIGKILL
        stop_run()
        for fd in (cfg_w, pidfd):  # status_r belongs to its reader thread, which closes it
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
    if stopped and not timed_out and reason not in ("cpu", "quota"):
        reason = "stopped"
    workspace, note = _workspace_report(status)
    return SandboxResult(
        exit_reason=reason,
        returncode=returncode,
        stdout_tail=out.text(),
        stderr_tail=err.text() + note,
        wall_seconds=wall,
        cpu_seconds=cpu,
        peak_rss_bytes=peak,
        isolation=isolation,
        memory_mechanism=mechanism,
        workspace=workspace,
        hardening=hardening(status),
    )


def _workspace_report(status: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """The result's `workspace` report, and a line for stderr when the quota stopped a copy
    (the program never saw that line's cause: it is the sandbox's own account)."""
    if status.get("quota_in"):
        copy_in = status["quota_in"]
        report = {"bytes": None, "inodes": None, "full": True, "dropped": copy_in["dropped"],
                  "refused": copy_in["refused"], "quota": copy_in["quota"],
                  "copy_in": copy_in}
        return report, (f"\nsandbox: the workspace does not fit its quota ({copy_in['quota']}): "
                        f"{copy_in['dropped']} entries were not copied in and the program was "
                        "not started\n")
    kept: dict[str, Any] | None = status.get("workspace")
    if kept and kept.get("quota"):
        return kept, (f"\nsandbox: what the run left does not fit the workspace quota "
                      f"({kept['quota']}): {kept['dropped']} entries were not kept\n")
    return kept, ""


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


_STATUS_CAP = 1 << 20  # bytes of PID 1's status kept (it is a few KiB; the rest is dropped)
_STATUS_WAIT = 10.0  # seconds to wait for the status's end once PID 1 is gone


class _StatusReader:
    """Reads PID 1's status pipe in a thread from the start of the run, keeping at most
    _STATUS_CAP bytes. Why: a pipe holds 64 KiB, and PID 1 writes its status only at the end;
    read only after PID 1 exits, a large status (once: a hundred refused paths, each 50 KB
    deep) blocked PID 1 until the wall limit, so a valid run was recorded as a timeout. A
    status over the cap is not JSON and reads as empty (the run's figures are then unknown),
    never as a block."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.data = bytearray()
        self.thread = threading.Thread(target=self._read, name="sandbox-status", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            with contextlib.suppress(OSError):
                while chunk := os.read(self.fd, 65536):
                    if len(self.data) < _STATUS_CAP:
                        self.data += chunk[:_STATUS_CAP - len(self.data)]
        finally:
            os.close(self.fd)  # EOF: PID 1 (the only writer) is gone

    def result(self) -> dict[str, Any]:
        """The status, once PID 1 is gone (its end of the pipe closes with it)."""
        self.thread.join(_STATUS_WAIT)
        if self.thread.is_alive():  # a writer outlived PID 1: treat the status as lost
            return {}
        data = bytes(self.data)
        try:
            return json.loads(data) if data else {}
        except ValueError:
            return {}


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
    if status.get("quota_in"):  # the workspace did not fit its quota: nothing was started
        return "quota", None
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
    ws = status.get("workspace") or {}
    if ws.get("full") or ws.get("quota"):  # writes failed with ENOSPC, whatever came next, or
        return "quota", code  # what it left did not fit the quota on the way back
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
