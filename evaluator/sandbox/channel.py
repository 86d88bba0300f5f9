"""A conversation with a sandboxed process, timed and measured from outside it.

Why: a batch judge that lets the untrusted process time and measure itself believes whatever
that process says (ten lines switch off in-process timers; `tracemalloc.stop()` reports 0
bytes). And a judge that hands over one input at a time and keeps the clock itself pays a round
trip through its own (busy, shared) process per case, which a loaded machine makes expensive.

So the sandbox's PID 1 relays. It is the trusted supervisor the workload cannot reach (root,
another uid, its tracer), it is already awake for the run, and it does almost nothing else.
The judge queues *frames* with PID 1, each an input line and the CPU and wall allowance of its
reply. PID 1 hands the workload one frame at a time (the next only after the previous reply, so
no later input is ever within the workload's reach), and for each frame it resets the
workload's peak RSS (`clear_refs`), reads the kernel's process CPU clock before and after
(`clock_gettime` on the workload's CPU clock: user+sys of all its threads), reads `VmHWM`
after, enforces both allowances itself (polling the CPU clock while it waits) and sends the
reply back with those figures. Nothing the workload prints or writes enters them.

Inside the workload the channel is fd 3 (PID 1 -> workload) and fd 4 (workload -> PID 1), one
line per message. Between PID 1 and the judge the messages are framed:

* judge -> PID 1: `<cpu notice> <cpu allowance> <wall allowance> <length>\\n<payload>`; PID 1
  sends the workload SIGPROF once when the frame's CPU passes the notice (a polite "time is
  up" it may ignore) and stops the run past either allowance; an empty payload sends nothing
  and just waits for a line (e.g. a load report); any figure may be `inf`;
* PID 1 -> judge: `<kind> <cpu> <wall> <elapsed> <peak rss> <length>\\n<line>`, kind `R` (the
  reply line), or how the frame ended without one: `C` CPU over its allowance, `W` wall over its
  allowance, `O` a line longer than the cap, `A` the workload wrote before it got its input, `E`
  the workload closed its output or exited. After any kind but `R` PID 1 ends the run (after `E`
  it gives the workload a moment to exit on its own, so its exit status tells how it ended), as
  it does when the judge stops reading (`J`, never sent). `wall` is the wall time the frame is
  *charged* (what its wall allowance is enforced on): `elapsed` less the time the workload
  waited for a CPU (`credited_wall`); `elapsed` is the raw figure.

What a frame is not charged for, besides waiting for a CPU: waiting for the relay. The workload's
output pipe is sized to hold a whole reply line of the cap (`fit_pipe`; without
CAP_SYS_RESOURCE at most fs.pipe-max-size, 1 MiB by default), so the workload writes its reply
in one call (or a few) that does not wait for PID 1 to drain it (a 64 KiB pipe made it sleep,
uncredited, once per 64 KiB until PID 1 got a CPU again: ~105 times for a 6.7 MB answer on a
loaded machine); PID 1 drains it at once into a buffer bounded by the same cap. And PID 1 never
stops draining the workload while the judge is busy (checking an earlier answer, say): replies
wait in PID 1, and only the start of the next frame waits for the judge.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

CHANNEL_IN_FD = 3  # in the workload: what the judge sends
CHANNEL_OUT_FD = 4  # in the workload: what it sends back
_CPUCLOCK_SCHED = 2
POLL_SECONDS = 0.05  # how often PID 1 reads the CPU clock of a frame in flight
CLOSE_GRACE_SECONDS = 2.0  # after its input ends (or it closed its output): time to exit
_RESULT_BACKLOG = 1 << 20  # PID 1 starts no frame while this much is unsent to the judge
KINDS = ("R", "C", "W", "O", "A", "E", "J")  # J: PID 1 lost the judge (never read)


class ChannelClosed(Exception):
    """The run ended: PID 1 sends nothing more."""


def process_cpu_seconds(pid: int) -> float | None:
    """CPU time (user+sys, all threads, children not included) of `pid`, from the kernel's
    process CPU clock (exact, not tick-sampled); also works on a zombie not yet reaped. None
    when the process is gone."""
    try:
        return time.clock_gettime(((~pid) << 3) | _CPUCLOCK_SCHED)
    except OSError:
        return None


# A wall allowance is for code that sleeps or blocks, not for a machine too busy to run it: the
# time the kernel kept the workload waiting for a CPU is credited back, up to this many times the
# allowance (so a run holds its slot at most 1 + this many times its wall limit, however loaded;
# the waiting a program can cause itself, with threads of its own, costs CPU its CPU limit counts).
WAIT_CREDIT_FACTOR = 10.0


def process_wait_seconds(pid: int) -> float | None:
    """Seconds `pid`'s main thread spent runnable but waiting for a CPU (the kernel's run-queue
    delay, /proc/PID/schedstat); None when unreadable (process gone, or no schedstat).

    Measured from outside: a process cannot lower it, and raising it (by keeping its own other
    threads busy) costs CPU time its CPU limit counts; the credit is capped besides."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as fh:
            return int(fh.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


class WaitClock:
    """`process_wait_seconds` of one process, its schedstat file opened once and re-read with
    `pread`. PID 1 reads it several times per case (every turn of its loop); an open and close
    per read (a path walk in /proc) cost about a fifth of the relay's CPU per case (profiled on
    the published cases). The open file
    stays bound to that process: once it is gone a read fails (None), even if its pid is reused.
    """

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.fd: int | None = None

    def seconds(self) -> float | None:
        if self.fd is None:
            try:
                self.fd = os.open(f"/proc/{self.pid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                self.fd = -1
        if self.fd < 0:
            return None
        try:
            return int(os.pread(self.fd, 256, 0).split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            return None

    def close(self) -> None:
        if self.fd is not None and self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
        self.fd = -1


def credited_wall(elapsed: float, waited: float, allowance: float) -> float:
    """Wall seconds charged to a workload: `elapsed` minus the time it waited for a CPU, that
    credit capped at WAIT_CREDIT_FACTOR x `allowance`."""
    return elapsed - min(max(0.0, waited), WAIT_CREDIT_FACTOR * allowance)


def fit_pipe(fd: int, size: int) -> int:
    """Grow the pipe of `fd` to hold `size` bytes (the kernel rounds up to a power of two
    pages), or as far as this process may (fs.pipe-max-size without CAP_SYS_RESOURCE);
    returns the pipe's capacity.

    Why: a writer sleeps once per pipe-full until the reader gets a CPU again, and that sleep
    is neither CPU nor run-queue wait of the writer, so nothing credits it. A pipe that holds a
    whole capped line lets the workload write its reply in one call. The kernel allocates the
    pages only as data is written (charged to the writer's memory cgroup), so an idle large
    pipe costs nothing, and a full one at most its capacity."""
    tries = [size]
    with contextlib.suppress(OSError, ValueError), open("/proc/sys/fs/pipe-max-size", "rb") as fh:
        tries.append(min(size, int(fh.read())))
    for want in tries:
        try:
            return fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, want)
        except OSError:
            continue
    try:
        return fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ)
    except OSError:
        return 0


def _hwm(status: bytes, field: bytes = b"VmHWM:") -> int | None:
    at = status.find(field)
    if at < 0:
        return None
    try:
        return int(status[at + len(field):status.index(b"kB", at)]) * 1024
    except ValueError:
        return None


# --------------------------------------------------------------------------------------------
# The judge's end
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """How one frame ended, measured by PID 1: `kind` (see KINDS), the workload's CPU seconds
    and the wall seconds it is charged for the frame (`credited_wall`: its wait for a CPU
    left out), its peak RSS during the frame (None when unreadable), the line it sent (kind
    `R` only) and the frame's raw elapsed wall seconds."""

    kind: str
    cpu: float
    wall: float
    peak_rss: int | None
    line: bytes = b""
    elapsed: float | None = None


class Channel:
    """The judge's end: `submit` frames, read their `reply()`s in order, `close()` when no more
    frames follow, or `stop()` the run now (the sandbox kills the whole tree; the result's
    exit_reason is then "stopped")."""

    def __init__(self, write_fd: int, read_fd: int, stop: Callable[[], None]) -> None:
        self._w = write_fd
        self._r = read_fd
        self._stop = stop
        self._buf = bytearray()
        self._closed = False
        self.stopped = False
        self._lock = threading.Lock()

    def submit(self, payload: bytes, *, cpu_seconds: float, wall_seconds: float,
               cpu_notice: float = float("inf")) -> None:
        """Queue one frame with PID 1 (`payload` is one line for the workload, newline
        included, or empty to only wait for a line)."""
        head = f"{cpu_notice!r} {cpu_seconds!r} {wall_seconds!r} {len(payload)}\n".encode()
        try:
            _write_all(self._w, head + payload)
        except OSError as exc:
            raise ChannelClosed(str(exc)) from None

    def close(self) -> None:
        """No more frames: once the queued ones are answered, the workload's input ends."""
        if not self._closed:
            self._closed = True
            with contextlib.suppress(OSError):
                os.close(self._w)

    def reply(self) -> Reply:
        """The next frame's reply (blocks: PID 1 enforces every allowance). Raises
        ChannelClosed when the run ended without one."""
        while True:
            cut = self._buf.find(b"\n")
            if cut >= 0:
                fields = bytes(self._buf[:cut]).split()
                kind, cpu, wall, elapsed, peak, length = fields
                end = cut + 1 + int(length)
                if len(self._buf) >= end:
                    line = bytes(self._buf[cut + 1:end])
                    del self._buf[:end]
                    rss = int(peak)
                    return Reply(kind.decode(), float(cpu), float(wall),
                                 rss if rss >= 0 else None, line, float(elapsed))
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise ChannelClosed("the run ended")
            self._buf += chunk

    def stop(self) -> None:
        with self._lock:
            if not self.stopped:
                self.stopped = True
                self._stop()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


# --------------------------------------------------------------------------------------------
# PID 1's end
# --------------------------------------------------------------------------------------------


class Relay:
    """PID 1's side: feeds the workload one frame at a time, times and measures each from
    outside and reports to the judge. Every descriptor is non-blocking; `_supervise` (in
    sandbox.py) drives it from its select loop, so a workload that neither reads nor writes
    cannot stall the clock, and a judge that reads slowly only holds back the next frame."""

    def __init__(self, ctl_fd: int, res_fd: int, win_fd: int, wout_fd: int, pid: int,
                 max_line: int, cpus: int = 1,
                 between_frames: Callable[[], None] | None = None) -> None:
        self.ctl, self.res, self.win, self.wout, self.pid = ctl_fd, res_fd, win_fd, wout_fd, pid
        # PID 1's own sweep after each answered frame: every process but the workload dies
        self.between_frames = between_frames
        self.sampled = 0  # largest RSS PID 1 read during the frame in flight
        self.max_line = max_line
        self.cpus = max(1, cpus)  # a CPU clock runs at most this fast per wall second
        for fd in (ctl_fd, res_fd, win_fd, wout_fd):
            os.set_blocking(fd, False)
        self.frames: collections.deque[tuple[float, float, float, bytes]] = collections.deque()
        self.ctl_buf = bytearray()
        self.ctl_open = True
        self.out = bytearray()  # replies not yet written to the judge
        self.to_workload = memoryview(b"")
        self.got = bytearray()  # bytes from the workload not yet part of a reply
        self.wout_open = True
        # the frame in flight: notice, CPU and wall allowance, wall and CPU clock at its start
        self.current: tuple[float, float, float, float, float] | None = None
        self.wait0 = 0.0  # the workload's run-queue wait when the frame started
        self.wait_seen = 0.0  # ... and when last read
        self.noticed = False
        self.ended: str | None = None  # the kind that ended the relay (not R)
        self.input_closed_at: float | None = None
        self._clear: int | None = None
        self._status: int | None = None
        self._wait = WaitClock(pid)

    # -- what to wait for ------------------------------------------------------------------
    def readers(self) -> list[int]:
        fds = [self.ctl] if self.ctl_open else []
        if self.wout_open and self.ended is None:
            fds.append(self.wout)
        return fds

    def writers(self) -> list[int]:
        fds = [self.res] if self.out and self.res >= 0 else []
        if self.to_workload and self.win >= 0:
            fds.append(self.win)
        return fds

    def timeout(self) -> float | None:
        """Seconds until the relay must look again (None: only when a descriptor is ready)."""
        if self.current is not None:
            notice, cpu_allowed, wall_allowed, t0, cpu0 = self.current
            used = (process_cpu_seconds(self.pid) or cpu0) - cpu0
            nxt = cpu_allowed if self.noticed else min(notice, cpu_allowed)
            # the CPU clock cannot pass the next threshold before we look again
            until = min((nxt - used) / self.cpus, wall_allowed - self._charged(t0, wall_allowed))
            return min(POLL_SECONDS, max(0.002, until))
        if self.input_closed_at is not None:
            return max(0.0, self.input_closed_at + CLOSE_GRACE_SECONDS - time.monotonic())
        return None

    # -- one turn of the loop -----------------------------------------------------------------
    def step(self, readable: list[int], writable: list[int]) -> bool:
        """Move bytes, check the frame in flight, start the next; True when PID 1 must stop
        the workload now."""
        if self.ctl in readable:
            self._read_ctl()
        if self.res in writable:
            self._flush()
        if self.win in writable:
            self._feed()
        if self.wout in readable:
            self._read_workload()
        if self.ended is None:
            self._check()
        if self.ended is None and self.current is None:
            self._start_next()
        if self.ended is not None and self.ended != "E":
            return True
        if self.input_closed_at is not None:  # input ended (or output closed): exit soon
            return time.monotonic() > self.input_closed_at + CLOSE_GRACE_SECONDS
        return False

    def finish(self, exit_cpu: float | None, exit_hwm: int | None) -> None:
        """The workload is gone (or being stopped): answer the frame in flight with `E`, then
        hand every reply to the judge (blocking: PID 1 has nothing else to do)."""
        if self.current is not None and self.ended is None:
            self._reply("E", cpu=exit_cpu, hwm=exit_hwm)
        elif self.ended is None and self.frames:  # gone between frames: the next is blamed
            self._reply_idle("E")
        while self.out and self.res >= 0:  # the judge reads them; drain its frames meanwhile
            readers = [self.ctl] if self.ctl_open else []  # (it may be blocked sending one)
            ready_r, ready_w, _ = select.select(readers, [self.res], [])
            if self.ctl in ready_r:
                try:
                    self.ctl_open = bool(os.read(self.ctl, 1 << 20))
                except BlockingIOError:
                    pass
                except OSError:
                    self.ctl_open = False
            if self.res in ready_w:
                self._flush()
        self.out.clear()
        self._wait.close()
        for fd in (self.res, self.ctl, self.win, self.wout, self._clear, self._status):
            if fd is not None and fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.res = self.win = -1

    # -- internals ----------------------------------------------------------------------
    def _read_ctl(self) -> None:
        try:
            chunk = os.read(self.ctl, 1 << 20)
        except BlockingIOError:
            return
        if not chunk:
            self.ctl_open = False
            return
        self.ctl_buf += chunk
        while (cut := self.ctl_buf.find(b"\n")) >= 0:
            notice, cpu, wall, length = bytes(self.ctl_buf[:cut]).split()
            end = cut + 1 + int(length)
            if len(self.ctl_buf) < end:
                break
            self.frames.append((float(notice), float(cpu), float(wall),
                                bytes(self.ctl_buf[cut + 1:end])))
            del self.ctl_buf[:end]

    def _flush(self) -> None:
        if self.res < 0:
            self.out.clear()
            return
        try:
            sent = os.write(self.res, self.out)
        except BlockingIOError:
            return
        except OSError:  # the judge stopped listening: nobody to work for any more
            self.out.clear()
            with contextlib.suppress(OSError):
                os.close(self.res)
            self.res = -1
            if self.ended is None:
                self.ended = "J"
            return
        del self.out[:sent]

    def _feed(self) -> None:
        try:
            sent = os.write(self.win, self.to_workload)
        except BlockingIOError:
            return
        except OSError:  # the workload closed its input: it will get no more
            self.to_workload = memoryview(b"")
            return
        self.to_workload = self.to_workload[sent:]

    def _read_workload(self) -> None:
        try:
            chunk = os.read(self.wout, 1 << 20)
        except BlockingIOError:
            return
        if not chunk:
            self.wout_open = False
            if self.current is not None:
                self._reply("E")
            if self.input_closed_at is None:
                self.input_closed_at = time.monotonic()
            return
        self.got += chunk
        if self.current is not None:
            self._take_line()
        elif len(self.got) > self.max_line:  # a flood between frames
            self._reply_idle("O")

    def _take_line(self) -> None:
        cut = self.got.find(b"\n")
        if cut < 0 or cut > self.max_line:
            if len(self.got) > self.max_line:
                self._reply("O")
            return
        line = bytes(self.got[:cut])
        del self.got[:cut + 1]
        self._reply("R", line=line)

    def _check(self) -> None:
        if self.current is None:
            return
        notice, cpu_allowed, wall_allowed, t0, cpu0 = self.current
        self._sample()
        if self._charged(t0, wall_allowed) > wall_allowed:
            self._reply("W")
            return
        used = (process_cpu_seconds(self.pid) or cpu0) - cpu0
        if used > cpu_allowed:
            self._reply("C")
        elif used > notice and not self.noticed:
            self.noticed = True
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGPROF)

    def _start_next(self) -> None:
        if len(self.out) > _RESULT_BACKLOG:
            return
        if not self.frames:
            if not self.ctl_open and self.input_closed_at is None:
                self.input_closed_at = time.monotonic()  # every frame answered: input ends
                with contextlib.suppress(OSError):
                    os.close(self.win)
                self.win = -1
            return
        if not self.wout_open:
            return  # finish() answers with E once the workload has exited
        notice, cpu_allowed, wall_allowed, payload = self.frames.popleft()
        if payload and self.got:  # it wrote before it was given this input
            self._reply_idle("A")
            return
        self._reset_peak()
        self.sampled = 0
        self.noticed = False
        self.wait0 = self.wait_seen = self._wait.seconds() or 0.0
        self.current = (notice, cpu_allowed, wall_allowed, time.monotonic(),
                        process_cpu_seconds(self.pid) or 0.0)
        if payload:
            self.to_workload = memoryview(payload)
            self._feed()
        else:  # only wait for a line (one written before the frame began counts)
            self._take_line()

    def _reply(self, kind: str, *, line: bytes = b"", cpu: float | None = None,
               hwm: int | None = None) -> None:
        assert self.current is not None
        wall_allowed, t0, cpu0 = self.current[2], self.current[3], self.current[4]
        elapsed = time.monotonic() - t0
        wall = self._charged(t0, wall_allowed, elapsed)
        now_cpu = cpu if cpu is not None else process_cpu_seconds(self.pid)
        used = max(0.0, (now_cpu if now_cpu is not None else cpu0) - cpu0)
        peak = hwm if hwm is not None else self._peak()
        if self.sampled and (peak is None or self.sampled > peak):
            peak = self.sampled  # a peak the workload reset (clear_refs) is not believed
        self.out += (f"{kind} {used:.6f} {wall:.6f} {elapsed:.6f} "
                     f"{peak if peak is not None else -1} {len(line)}\n").encode() + line
        self.current = None
        self.to_workload = memoryview(b"")
        if kind != "R":
            self.ended = kind
        self._flush()
        if kind == "R" and self.between_frames is not None:
            self.between_frames()

    def _reply_idle(self, kind: str) -> None:
        """End the relay between frames (the next frame is the one blamed)."""
        self.out += f"{kind} 0 0 0 -1 0\n".encode()
        self.ended = kind
        self._flush()

    def _reset_peak(self) -> None:
        if self._clear is None:
            try:
                self._clear = os.open(f"/proc/{self.pid}/clear_refs", os.O_WRONLY | os.O_CLOEXEC)
            except OSError:
                self._clear = -1
        if self._clear >= 0:
            with contextlib.suppress(OSError):
                os.write(self._clear, b"5")

    def _charged(self, t0: float, wall_allowed: float, elapsed: float | None = None) -> float:
        """The frame's wall time less what the workload spent waiting for a CPU (capped)."""
        now = self._wait.seconds()
        if now is not None:  # once the workload is gone: its last figure
            self.wait_seen = now
        waited = self.wait_seen - self.wait0
        if elapsed is None:
            elapsed = time.monotonic() - t0
        return credited_wall(elapsed, waited, wall_allowed)

    def _sample(self) -> None:
        """Read the workload's current RSS (which no process can reset, unlike its peak)."""
        self._peak()  # opens the status file once
        if self._status is not None and self._status >= 0:
            with contextlib.suppress(OSError):
                rss = _hwm(os.pread(self._status, 8192, 0), b"VmRSS:")
                self.sampled = max(self.sampled, rss or 0)

    def _peak(self) -> int | None:
        if self._status is None:
            try:
                self._status = os.open(f"/proc/{self.pid}/status", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                self._status = -1
        if self._status < 0:
            return None
        try:
            return _hwm(os.pread(self._status, 8192, 0))
        except OSError:
            return None

