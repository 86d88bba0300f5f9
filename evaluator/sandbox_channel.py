"""A conversation with a sandboxed process, and the kernel's figures about it, from outside.

Why: a batch judge that lets the untrusted process time and measure itself believes whatever
that process says (ten lines switch off in-process timers; `tracemalloc.stop()` reports 0
bytes). With a channel the judge hands the workload one case at a time over a pipe, keeps the
clock itself, and reads the workload's CPU time (the kernel's per-process CPU clock,
`clock_gettime` on `MAKE_PROCESS_CPUCLOCK(pid)`) and peak resident memory (`VmHWM` of
/proc/<pid>/status, reset with `clear_refs`) from outside, as root. Nothing the workload prints
or writes enters these figures.

Inside the workload the channel is fd 3 (judge -> workload) and fd 4 (workload -> judge).
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Callable

CHANNEL_IN_FD = 3  # in the workload: what the judge sends
CHANNEL_OUT_FD = 4  # in the workload: what it sends back
_CPUCLOCK_SCHED = 2


class ChannelClosed(Exception):
    """The workload's end of the channel is gone (it exited or was killed)."""


class ChannelOverflow(Exception):
    """The workload sent a line longer than the reader allows."""


def process_cpu_seconds(pid: int) -> float | None:
    """CPU time (user+sys, all threads, children not included) of `pid`, from the kernel's
    process CPU clock; None when the process is gone."""
    try:
        return time.clock_gettime(((~pid) << 3) | _CPUCLOCK_SCHED)
    except OSError:
        return None


def peak_rss_bytes(pid: int) -> int | None:
    """`VmHWM` of `pid` (peak resident set size since start or the last reset)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def reset_peak_rss(pid: int) -> bool:
    """Reset `VmHWM` of `pid` to its current RSS (Linux >= 4.0; needs ptrace rights: root)."""
    try:
        with open(f"/proc/{pid}/clear_refs", "wb") as fh:
            fh.write(b"5")
        return True
    except OSError:
        return False


def _parents() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, start time) for every process, from /proc/<pid>/stat."""
    out: dict[int, tuple[int, int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            out[int(entry)] = (int(fields[1]), int(fields[19]))
        except (OSError, IndexError, ValueError):
            continue
    return out


def oldest_descendant(root: int, depth: int) -> int | None:
    """The first-started process `depth` generations below `root` (the workload: unshare ->
    launcher -> workload is depth 2, launcher -> workload depth 1)."""
    table = _parents()
    level = [root]
    for _ in range(depth):
        kids = [(start, pid) for pid, (ppid, start) in table.items() if ppid in level]
        if not kids:
            return None
        level = [min(kids)[1]]
    return level[0]


class Channel:
    """The judge's end: `send` a line, `read_line` with a timeout and a size cap, and the
    kernel's figures of the workload process (`cpu_seconds`, `peak_rss`, `reset_peak`).

    `stop()` ends the run now (the sandbox kills the whole tree); the result's exit_reason is
    then "stopped". Returning from the conversation function without stopping closes the
    channel, which a well-behaved workload takes as the end of its input."""

    def __init__(self, write_fd: int, read_fd: int, launcher_pid: int, depth: int,
                 stop: Callable[[], None]) -> None:
        self._w = write_fd
        self._r = read_fd
        self._launcher = launcher_pid
        self._depth = depth
        self._stop = stop
        self._buf = bytearray()
        self._pid: int | None = None
        self.stopped = False
        self._lock = threading.Lock()

    # -- the workload process ----------------------------------------------------------
    @property
    def pid(self) -> int | None:
        """Host pid of the workload (found once, the first time it is needed)."""
        if self._pid is None:
            self._pid = oldest_descendant(self._launcher, self._depth)
        return self._pid

    def cpu_seconds(self) -> float | None:
        pid = self.pid
        return None if pid is None else process_cpu_seconds(pid)

    def peak_rss(self) -> int | None:
        pid = self.pid
        return None if pid is None else peak_rss_bytes(pid)

    def reset_peak(self) -> bool:
        pid = self.pid
        return pid is not None and reset_peak_rss(pid)

    # -- the pipe --------------------------------------------------------------------------
    def send(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._w, view):]
        except (BrokenPipeError, OSError) as exc:
            raise ChannelClosed(str(exc)) from None

    def pending(self) -> bool:
        """True when the workload has sent bytes the judge has not read yet."""
        if self._buf:
            return True
        ready, _, _ = select.select([self._r], [], [], 0)
        return bool(ready)

    def read_line(self, timeout: float, max_bytes: int) -> bytes | None:
        """The next line (without its newline), or None when `timeout` seconds pass first.
        Raises ChannelClosed at EOF and ChannelOverflow when a line exceeds `max_bytes`."""
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            cut = self._buf.find(b"\n")
            if cut >= 0:
                line = bytes(self._buf[:cut])
                del self._buf[: cut + 1]
                return line
            if len(self._buf) > max_bytes:
                raise ChannelOverflow(f"a line longer than {max_bytes:,} bytes")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([self._r], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(self._r, min(1 << 20, max_bytes + 2 - len(self._buf)))
            if not chunk:
                raise ChannelClosed("the workload closed the channel")
            self._buf += chunk

    def stop(self) -> None:
        with self._lock:
            if not self.stopped:
                self.stopped = True
                self._stop()
