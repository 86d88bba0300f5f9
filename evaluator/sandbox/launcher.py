"""PID 1 of a sandboxed run, and the workload it forks: the trusted side inside the namespaces.

The judge (`spawn.py`) starts `python -I -S -c LOAD... <repository root> <fds>` (under
`unshare --mount --net --pid --ipc --uts --fork --kill-child` when isolated). Inside the fresh
namespaces this module is PID 1: it builds the new root from the judge's layout (`rootfs.py`),
pivots into it, forks the workload (rlimits, its own cgroup, a per-run uid, no-new-privs, then
exec), relays the judge's channel (`channel.py`), enforces the workload's exact CPU limit,
measures its peak RSS, reaps every orphan, copies a quota'd workspace back, and reports how the
workload ended as JSON on the status pipe. When it exits, the kernel kills whatever is left in
the PID namespace.

Why the standard library only (plus `channel.py` and `fdtree.py`, themselves standard library
only; tests/sandbox/test_launcher.py checks all three): PID 1 runs as root next to untrusted
code, before and while it runs; it should load no more code than it executes, and none of the
judge side (YAML, numpy, the ledger...) or the Python environment. `LOAD` imports it without
running the package faces `evaluator/__init__.py` and `evaluator/sandbox/__init__.py`, which
import the judge side: it registers both as bare packages that only know where their modules
are, so `-I -S` (no site-packages, no environment, no script directory) is all PID 1 sees.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import select
import signal
import socket
import time
from collections.abc import Sequence
from typing import Any

from evaluator.sandbox.channel import (
    CHANNEL_IN_FD,
    CHANNEL_OUT_FD,
    Relay,
    WaitClock,
    credited_wall,
    fit_pipe,
    process_cpu_seconds,
)
from evaluator.sandbox.fdtree import Budget, clear_dir_fd, copy_tree_fd
from evaluator.sandbox.syscalls import build_filter, load_binding

# The `-c` program that loads this module in PID 1 (then `main(sys.argv[2:])`): argv[1] is the
# directory that holds `evaluator/`.
LOAD = (
    "import sys, types\n"
    "for name in ('evaluator', 'evaluator.sandbox'):\n"
    "    sys.modules[name] = types.ModuleType(name)\n"
    "    sys.modules[name].__path__ = [sys.argv[1] + '/' + name.replace('.', '/')]\n"
    "from evaluator.sandbox.launcher import main\n"
)


class SandboxError(Exception):
    """A setup step PID 1 cannot complete. PID 1 reports it by name and message in its status
    ("SandboxError: ..."), and the judge raises `evaluator.sandbox.SandboxError` with that text;
    this stand-in keeps PID 1 free of the judge side's imports."""


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
_CLONE_NEWCGROUP = 0x02000000
# What held besides the namespaces, for the run's record (filled while PID 1 sets up)
HARDENING: dict[str, Any] = {}
_PIVOT_ROOT_SYSCALL = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}


def main(args: Sequence[str]) -> None:
    cfg_fd, status_fd, alive_fd = (int(a) for a in args)
    with os.fdopen(cfg_fd, "rb") as stream:
        config = json.loads(stream.read())
    with os.fdopen(status_fd, "w") as status:
        copy_out = None
        try:
            if config.get("seccomp"):  # loaded before the pivot: the binding is a host file
                config["filter"], HARDENING["seccomp"] = build_filter(
                    load_binding(config["seccomp"]))
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
        copy_in = (copy_out or {}).get("copy_in") or {}
        if copy_out is not None and copy_in.get("quota"):  # it does not fit: nothing runs,
            # and the host directory is left as it is (a partial copy back would lose the rest)
            os.close(copy_out["host_fd"])
            status.write(json.dumps({"quota_in": copy_in}))
            return
        outcome = _supervise(config, alive_fd)
        orphans = _reap_descendants()
        outcome["orphan_maxrss"] = max(outcome.get("orphan_maxrss", 0), orphans)
        if copy_out is not None:  # every process of the run is dead: nothing races the copy
            try:
                outcome["workspace"] = _workspace_out(copy_out)
            except Exception as exc:  # noqa: BLE001 - reported to the judge as a setup error
                outcome["setup_error"] = f"copying the workspace back failed: {exc}"
            else:
                outcome["workspace"]["copy_in"] = copy_in
        outcome["hardening"] = HARDENING
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
            _mount_proc(dst)
        else:
            raise ValueError(f"unknown layout op {kind!r}")
    _pivot(root)
    _mount(None, "/", None, _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV, None)
    return copy_out


def _mount_proc(dst: str) -> None:
    """The run's own /proc, where the kernel allows with `hidepid=invisible` (Linux >= 5.8;
    `hidepid=2` before): the workload sees only its own uid's processes, not PID 1 (whose
    command line names the judge's interpreter and repository) nor any other root process."""
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    for option in ("hidepid=invisible", "hidepid=2"):
        try:
            _mount("proc", dst, "proc", flags, option)
        except OSError:
            continue
        HARDENING["proc"] = option
        return
    _mount("proc", dst, "proc", flags, None)
    HARDENING["proc"] = "plain (the kernel refused hidepid)"


def _workspace_in(op: dict[str, Any], dst: str) -> dict[str, Any]:
    """Mount the size- and inode-capped tmpfs at the workspace path and copy the host
    workspace into it (owned by the run's uid), charging the quota as it goes. The host
    directory stays open, for the copy back once every process of the run is dead.

    What does not fit is not a setup error: it is what an earlier run (or the caller) left,
    and the report says so (`copy_in`); `main` then starts nothing and the run ends `quota`."""
    os.makedirs(dst, mode=0o755, exist_ok=True)
    _mount("workspace", dst, "tmpfs", _MS_NOSUID | _MS_NODEV, op["options"])
    host = os.open(op["src"], _DIR_OPEN)
    inner = os.open(dst, _DIR_OPEN)
    try:
        os.fchown(inner, op["uid"], op["uid"])
        counts = copy_tree_fd(host, inner, op["uid"], op["uid"], Budget(*op["quota"]))
    finally:
        os.close(inner)
    return {"host_fd": host, "path": op["dst"], "owner": op["owner"], "quota": op["quota"],
            "copy_in": {k: counts[k] for k in ("dropped", "refused", "quota")}}


def _workspace_out(copy_out: dict[str, Any]) -> dict[str, Any]:
    """Copy the run's workspace back over the host directory (as its owner, following
    nothing, special files dropped, holes kept, each name charged) and report the quota's use.
    The copy writes at most the quota on the host: what does not fit is dropped and named,
    and the run ends `quota`."""
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
        clear_dir_fd(host)
        uid, gid = copy_out["owner"]
        counts = copy_tree_fd(inner, host, uid, gid, Budget(*copy_out["quota"]))
        report["dropped"] = counts["dropped"]
        report["refused"] = counts["refused"]
        report["quota"] = counts["quota"]
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
        for end in (in_w, out_r):  # each holds a whole line: nobody waits on the other's CPU
            fit_pipe(end, int(config["line_bytes"]) + 1)
        config["channel"] = [in_r, out_w]
    cpus = max(1, len(os.sched_getaffinity(0)))  # how fast a CPU clock runs per wall second
    report_r, config["report"] = os.pipe()  # the child's own account, until its exec
    pid = os.fork()
    if pid == 0:
        _exec_workload(config)
    os.close(config["report"])
    HARDENING.update(_child_report(report_r))
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
        def sweep() -> None:
            _kill_all_but(pid)

        relay = Relay(relay_fds[0], relay_fds[1], in_w, out_r, pid, int(config["line_bytes"]),
                      cpus, between_frames=sweep if os.getpid() == 1 else None)
    if "cgroup_procs" in config:
        os.close(config["cgroup_procs"])
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):  # the workload tree alone holds the output pipes now
        os.dup2(null, fd)
    # The wall limit, enforced here on the workload's own clock: time the kernel kept it waiting
    # for a CPU is credited back (capped), so a busy machine does not turn a correct program into
    # a timeout; the judge's own deadline, WAIT_CREDIT_FACTOR times longer, is the backstop.
    allowance = float(config["deadline"])
    started = time.monotonic()
    wait_clock = WaitClock(pid)
    wait0 = wait_clock.seconds() or 0.0
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
            waited = (wait_clock.seconds() or wait0) - wait0
            figures["queue_wait"] = round(max(0.0, waited), 6)
            remaining = allowance - credited_wall(time.monotonic() - started, waited, allowance)
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


def _child_report(fd: int) -> dict[str, Any]:
    """What the forked child put in force before its exec (it writes this, then execs, which
    closes the pipe): still PID 1's own code, so it is believed."""
    data = b""
    with contextlib.suppress(OSError):
        while chunk := os.read(fd, 4096):
            data += chunk
    os.close(fd)
    try:
        return dict(json.loads(data))
    except ValueError:  # the child failed before its report (it exits 127 and says why)
        return {}


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


def _kill_all_but(keep: int) -> int:
    """Kill every process of the namespace except PID 1 and `keep` (the workload), until none
    is left alive; return how many were killed. Run by PID 1 after each answered frame.

    Why here and not in the worker: the worker runs inside the candidate's interpreter, which
    can replace `os.kill` (a `setsid` helper then survived every case, working on the next
    cases' inputs). PID 1 is out of its reach. Killed processes stay zombies until their
    parent reaps them (the workload's own children) or PID 1's loop does (orphans)."""
    killed = 0
    for _ in range(1000):  # a process may fork while the last kill lands; bounded by NPROC
        alive = _namespace_pids(skip=(1, keep))
        if not alive:
            break
        for other in alive:
            with contextlib.suppress(ProcessLookupError):
                os.kill(other, signal.SIGKILL)
                killed += 1
        time.sleep(0.001)
    return killed


def _namespace_pids(skip: tuple[int, ...]) -> list[int]:
    """Processes of this PID namespace that are not yet dead (zombies and dying ones left out),
    but those in `skip` (not even looked at: this runs after every frame)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in skip:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in (b"Z", b"X", b"x"):
            pids.append(int(entry))
    return pids


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


_LANDLOCK_CREATE_RULESET, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT_SELF = 444, 445, 446
_LANDLOCK_ACCESS_FS_WRITE_FILE = 1 << 1
_LANDLOCK_RULE_PATH_BENEATH = 1
_O_PATH = 0o10000000


def _landlock(writable: list[str]) -> str:
    """Let the workload open files for writing only beneath `writable` (Landlock, Linux >=
    5.13; the numbers are the same on every architecture). "" when the kernel has none.

    Why, when everything else is read-only anyway: procfs. A process may write its own
    /proc/<pid>/clear_refs (and every thread's /proc/<pid>/task/<tid>/clear_refs), and "5"
    there resets the peak RSS (VmHWM, and the ru_maxrss wait4 reports) that PID 1 records;
    a solution could use 300 MB and then have 10 MB recorded. No mount can cover the files of
    threads that do not exist yet; Landlock refuses the open itself."""
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        return ""
    attr = ctypes.c_uint64(_LANDLOCK_ACCESS_FS_WRITE_FILE)
    ruleset = libc.syscall(_LANDLOCK_CREATE_RULESET, ctypes.byref(attr),
                           ctypes.c_size_t(8), ctypes.c_uint32(0))
    _check(0 if ruleset >= 0 else -1, "landlock_create_ruleset")

    class _Beneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))

    try:
        for path in writable:
            fd = os.open(path, _O_PATH | os.O_CLOEXEC)
            try:
                rule = _Beneath(_LANDLOCK_ACCESS_FS_WRITE_FILE, fd)
                _check(libc.syscall(_LANDLOCK_ADD_RULE, ruleset, _LANDLOCK_RULE_PATH_BENEATH,
                                    ctypes.byref(rule), 0), f"landlock_add_rule {path}")
            finally:
                os.close(fd)
        _check(libc.syscall(_LANDLOCK_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return f"ABI {abi}: files opened for writing only in the workspace, /tmp and /dev"


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
        # its own cgroup namespace, rooted at the cgroup it is in: /proc/self/cgroup reads
        # "0::/", not the host's path (unprivileged, this fails and says so in the report)
        cgroup_ns = config["isolate"] and _libc().unshare(_CLONE_NEWCGROUP) == 0
        for name, (soft, hard) in config["rlimits"].items():
            resource.setrlimit(getattr(resource, name), (soft, hard))
        uid = config["uid"]
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        _check(_libc().prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(NO_NEW_PRIVS)")
        landlock = _landlock([config["cwd"], "/tmp", "/dev"]) if config["isolate"] else ""  # noqa: S108
        if config.get("filter") is not None:  # last: every call above is PID 1's, not its
            config["filter"].load()
        report = {"cgroup_namespace": bool(cgroup_ns), "landlock": landlock,
                  "seccomp_loaded": config.get("filter") is not None}
        os.write(config["report"], json.dumps(report).encode())
        os.close(config["report"])
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
