"""Checkers under a per-case budget: in a child process the judge can kill.

Why a child process: a checker is ordinary Python run on an answer the candidate shaped (up to
the record's size cap), and the judge cannot prove every checker fast on every such answer
(int tuples whose hashes collide made lc2097's `Counter` quadratic: 75 s and more). A budget
inside the judge's own process cannot be enforced: a thread cannot be killed, a signal
handler runs only in the main thread and only between bytecodes (not inside one long C call
such as building a `Counter`), and an operation count would need every checker instrumented.
A process can be killed at any instant, so the bound holds for every checker, present and
future, whatever it calls.

How: the judge forks one checker process per problem on the first check that needs one (so it
holds the problem, its checker and the cases, registered at run time or not, with nothing to
re-import or re-send), and sends it one (case, which answer, candidate's answer) at a time.
The child's address space is capped at what it inherited plus MEMORY_HEADROOM (a
`MemoryError` is the judge's limit too). While it waits, the judge reads the child's CPU clock
(the kernel's exact process clock) and kills it when a check passes `cpu_seconds` of CPU, or
`wall_seconds` on the judge's clock (a backstop for a child that is descheduled or blocked);
the case then gets the verdict
`judge limit` and the next check forks a fresh child. The child closes every descriptor it
inherited except its two pipes at once, so it never holds a sandbox pipe open (a judge's
closed channel or its death must still reach the sandbox's PID 1).

`exact` never comes here: the judge compares JSON data at C speed, linear in the capped size.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import resource
import select
import signal
import struct
import time
from collections.abc import Sequence
from typing import Any

from evaluator import sandbox
from evaluator.codetrack.cases import Case
from evaluator.codetrack.problem import Problem

JUDGE_LIMIT = "judge limit"  # the checker ran out of its budget on this answer
_HEADER = struct.Struct("!Q")
_POLL = 0.05  # seconds between looks at the child's CPU clock
MEMORY_HEADROOM = 2 * 1024**3  # address space a checker may add to what it inherited


class CheckerOverBudget(Exception):
    """The checker used up its budget on one answer (it has been killed)."""


class CheckerProcess:
    """One problem's checker in a child process, each check bounded in CPU and wall time.

    `check(k, which, actual)` returns the checker's `(ok, reason)` for case `k` against its
    `expected` or `label` answer (an exception of the checker comes back as `(None, text)`),
    and raises CheckerOverBudget when the check ran out of budget or the child died."""

    def __init__(self, problem: Problem, cases: Sequence[Case], cpu_seconds: float,
                 wall_seconds: float) -> None:
        self.problem = problem
        self.cases = cases
        self.cpu_seconds = cpu_seconds
        self.wall_seconds = wall_seconds
        self.pid: int | None = None
        self._to = self._from = -1
        self.started = 0  # child processes forked (a killed one is replaced on the next check)

    def check(self, k: int, which: str, actual: Any) -> tuple[bool | None, str]:
        if self.pid is None:
            self._fork()
        assert self.pid is not None
        request = pickle.dumps((k, which, actual), protocol=pickle.HIGHEST_PROTOCOL)
        cpu0 = sandbox.process_cpu_seconds(self.pid) or 0.0
        t0 = time.monotonic()
        try:
            _send(self._to, request)
            reply = self._receive(cpu0, t0, sandbox.process_wait_seconds(self.pid) or 0.0)
        except OSError as exc:  # the child died (e.g. out of memory): the judge's limit too
            self.close()
            raise CheckerOverBudget(
                f"the checker process ended without a verdict on this answer ({exc}): the "
                "answer was neither accepted nor rejected (the judge's limit)") from None
        ok, reason = pickle.loads(reply)  # noqa: S301 - our own forked child
        if ok == "limit":
            raise CheckerOverBudget(
                f"the checker ran out of memory on this answer ({reason}; the judge's "
                f"{MEMORY_HEADROOM // 2**30} GiB budget per check): the answer was neither "
                "accepted nor rejected (the judge's limit)")
        return ok, reason

    def _receive(self, cpu0: float, t0: float, wait0: float) -> bytes:
        buf = bytearray()
        need = _HEADER.size
        header_done = False
        poller = select.poll()  # not select(): no limit on the descriptor's number
        poller.register(self._from, select.POLLIN)
        while True:
            if poller.poll(int(_POLL * 1000)):
                chunk = os.read(self._from, 1 << 20)
                if not chunk:
                    raise OSError("no reply")
                buf += chunk
                if not header_done and len(buf) >= _HEADER.size:
                    need = _HEADER.size + _HEADER.unpack_from(buf)[0]
                    header_done = True
                if header_done and len(buf) >= need:
                    return bytes(buf[_HEADER.size:need])
                continue
            used = (sandbox.process_cpu_seconds(self.pid or 0) or cpu0) - cpu0
            wall = time.monotonic() - t0
            waited = (sandbox.process_wait_seconds(self.pid or 0) or wait0) - wait0
            # the wall backstop counts the checker's time, not the time a busy machine kept it
            # waiting for a CPU (the kernel's run-queue delay, credited up to a cap)
            charged = sandbox.credited_wall(wall, waited, self.wall_seconds)
            if used > self.cpu_seconds or charged > self.wall_seconds:
                self.close()
                raise CheckerOverBudget(
                    f"the checker was stopped after {used:.2f} s CPU / {wall:.2f} s wall on "
                    f"this answer, over the judge's budget of {self.cpu_seconds:g} s CPU / "
                    f"{self.wall_seconds:g} s wall per check: the answer was neither accepted "
                    "nor rejected (the judge's limit, not a verdict on the answer)")

    def _fork(self) -> None:
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 0
            try:
                _detach(req_r, rep_w)
                _serve(req_r, rep_w, self.problem, self.cases)
            except BaseException:  # noqa: BLE001 - the child must end here, whatever happened
                code = 1
            os._exit(code)
        os.close(req_r)
        os.close(rep_w)
        self.pid, self._to, self._from = pid, req_w, rep_r
        self.started += 1

    def close(self) -> None:
        """Kill and reap the child (idempotent); the next check forks a fresh one."""
        for fd in (self._to, self._from):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._to = self._from = -1
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = None


def _detach(*keep: int) -> None:
    """In the child: close every inherited descriptor but `keep` (and stderr); stdin and stdout
    become /dev/null, so a reader of the judge's output is not kept waiting either. Then cap
    the address space: a checker may add MEMORY_HEADROOM to what it inherited."""
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    top = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    top = top if top != resource.RLIM_INFINITY and top > 0 else 1 << 20
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, top)
    # memory: what the judge had at the fork plus MEMORY_HEADROOM (a MemoryError is "judge limit")
    with open("/proc/self/statm", "rb") as fh:
        size = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    cap = size + MEMORY_HEADROOM
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    if hard == resource.RLIM_INFINITY or hard > cap:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _serve(req: int, rep: int, problem: Problem, cases: Sequence[Case]) -> None:
    while True:
        data = _read_message(req)
        if data is None:
            return
        k, which, actual = pickle.loads(data)  # noqa: S301 - from the judge, our parent
        case = cases[k]
        expected = case.expected if which == "expected" else case.label
        try:
            verdict = problem.checker(case.args, expected, actual)
            out: tuple[bool | str | None, str] = (bool(verdict.ok), str(verdict.reason))
        except MemoryError:  # the budget's, not the answer's (RLIMIT_AS set by _detach)
            out = ("limit", "MemoryError")
        except Exception as exc:  # a malformed answer may trip a validator: the answer's fault
            out = (None, f"{type(exc).__name__}: {exc}")
        _send(rep, pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL))


def _send(fd: int, data: bytes) -> None:
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def _read_message(fd: int) -> bytes | None:
    head = _read_exact(fd, _HEADER.size)
    if head is None:
        return None
    return _read_exact(fd, _HEADER.unpack(head)[0])


def _read_exact(fd: int, size: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < size:
        chunk = os.read(fd, size - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)
