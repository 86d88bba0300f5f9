"""In-sandbox batch runner: run one candidate `solution.py` over many cases in one process.

Why a batch runner: starting a sandboxed interpreter costs ~0.1-0.5 s, a graph case a few
milliseconds; one process per case would spend almost all its time starting up. This script is
copied into the sandbox's workspace and started there (`python -I worker.py ...`), so it uses
the standard library only and trusts nothing it loads.

Protocol (the judge in `judge.py` is the other side):
- input: a JSONL file, one case per line: {"i": index, "t": seconds allowed, "k": {arguments by
  name}} (ordered with --arg-names) or "a": [positional arguments]; each line is parsed just
  before its case runs, so every case gets fresh, unshared inputs;
- output: a JSONL file of records written with one `os.write` each and never buffered, so a
  crash loses nothing that was finished. Per case: {"i", "s", "w", "c", ...} with status `s` in
  ok | error | timeout | memory | invalid, `o` the answer (status ok), `e` an error text, `w`/`c`
  wall and CPU seconds, `m` the peak traced memory (memory pass), `out` the first characters the
  case printed. A final {"done": n} marks a complete run; a {"load": status, "e": ...} record
  says the solution could not be loaded at all.

Per-case limits, from cheapest to last resort:
1. a CPU-time interval timer (ITIMER_PROF) raises `CaseTimeout` inside Python code;
2. RLIMIT_CPU, re-armed per case, kills the process when C code ignores signals
   (`sum(range(10**12))`); the judge then blames the first case without a record;
3. a watchdog thread writes a timeout record and exits when a case exceeds its wall allowance
   (sleeping, blocked, or catching `CaseTimeout` and carrying on);
4. the sandbox's own wall limit, outside this process.
With `--reap`, every process the case left behind is killed after it (`kill(-1)` as the run's own
unprivileged uid, inside the sandbox's PID namespace), so `setsid` children and fork bombs die
with their case. The judge passes `--reap` only when that is safe.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import math
import os
import resource
import signal
import sys
import threading
import time
import traceback
import tracemalloc
from typing import Any

RECORD_ERROR_CHARS = 2000  # traceback tail kept per failing case
PRINT_HEAD_CHARS = 500  # what a case printed, kept for feedback
WATCHDOG_POLL = 0.05


class CaseTimeout(BaseException):  # noqa: N818 - BaseException so `except Exception` cannot eat it
    """Raised in the candidate's code when its CPU allowance for one case is spent."""


class _Sink:
    """Stand-in for sys.stdout/stderr: keeps the head of what a case prints, drops the rest.

    Printing megabytes then costs the candidate time, never the judge memory or pipe space.
    """

    def __init__(self) -> None:
        self.head: list[str] = []
        self.size = 0

    def write(self, text: Any) -> int:
        text = str(text)
        if self.size < PRINT_HEAD_CHARS:
            self.head.append(text[: PRINT_HEAD_CHARS - self.size])
        self.size += len(text)
        return len(text)

    def flush(self) -> None:
        return None

    def isatty(self) -> bool:
        return False

    def take(self) -> str:
        text = "".join(self.head)
        self.head, self.size = [], 0
        return text


class _Runner:
    """Owns the output file, the timers and the watchdog for one worker process."""

    def __init__(self, results: str, reap: bool) -> None:
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
        self.fd = os.open(results, flags, 0o644)
        self.lock = threading.Lock()
        # kill(-1) as root outside a PID namespace would hit the whole machine: never
        self.reap = reap and os.geteuid() != 0 and os.getuid() != 0
        self.current: tuple[int, float, float] | None = None  # (index, wall deadline, started)
        self.armed = False
        self.dumps = json.dumps  # bound now: the candidate may monkeypatch the json module later
        self.cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        signal.signal(signal.SIGPROF, self._on_cpu_timer)
        threading.Thread(target=self._watchdog, name="gnncb-watchdog", daemon=True).start()

    # -- records -------------------------------------------------------------------------
    def emit(self, record: dict[str, Any], answer_json: str | None = None) -> None:
        """Write one record; `answer_json` (already encoded) is spliced in as field "o"."""
        text = self.dumps(record, separators=(",", ":"))
        if answer_json is not None:
            text = text[:-1] + ',"o":' + answer_json + "}"
        line = (text + "\n").encode()
        with self.lock:
            self.current = None
            _write_all(self.fd, line)

    # -- limits --------------------------------------------------------------------------
    def _on_cpu_timer(self, signum: int, frame: Any) -> None:
        if self.armed:
            raise CaseTimeout

    def arm(self, index: int, seconds: float, wall_factor: float) -> None:
        """Start the CPU timer, the CPU rlimit backstop and the wall watchdog for one case."""
        used = _cpu_seconds()
        soft = math.ceil(used + seconds + 0.25)
        if self.cpu_hard != resource.RLIM_INFINITY:
            soft = min(soft, self.cpu_hard)
        with contextlib.suppress(ValueError, OSError):  # a lower hard limit still applies
            resource.setrlimit(resource.RLIMIT_CPU, (soft, self.cpu_hard))
        now = time.monotonic()
        self.current = (index, now + max(seconds * wall_factor, seconds + 2.0), now)
        self.armed = True
        # repeat every 0.1 s in case the candidate catches the first CaseTimeout
        signal.setitimer(signal.ITIMER_PROF, seconds, 0.1)

    def disarm(self) -> None:
        self.armed = False
        signal.setitimer(signal.ITIMER_PROF, 0, 0)

    def _watchdog(self) -> None:
        while True:
            time.sleep(WATCHDOG_POLL)
            current = self.current
            if current is None or time.monotonic() < current[1]:
                continue
            with self.lock:
                if self.current is not current:
                    continue  # the case finished while we waited for the lock
                index, _, started = current
                record = {
                    "s": "timeout",
                    "e": "the case exceeded its wall-clock allowance (watchdog)",
                    "w": round(time.monotonic() - started, 6),
                    "c": None,
                    "wd": 1,
                }
                record = {"load": "timeout", **record} if index < 0 else {"i": index, **record}
                _write_all(self.fd, (self.dumps(record) + "\n").encode())
                os._exit(3)

    def cleanup(self) -> None:
        """Kill and reap whatever the case left running (only with --reap, see module doc)."""
        if not self.reap:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(-1, signal.SIGKILL)
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _tail(text: str) -> str:
    return text[-RECORD_ERROR_CHARS:]


def _load_method(path: str, method: str) -> Any:
    spec = importlib.util.spec_from_file_location("solution", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["solution"] = module
    spec.loader.exec_module(module)
    cls = getattr(module, "Solution", None)
    if cls is None:
        raise AttributeError("solution.py defines no `class Solution`")
    if not callable(getattr(cls, method, None)):
        raise AttributeError(f"class Solution has no method `{method}`")
    return cls


def _run_case(
    runner: _Runner, cls: Any, method: str, case: dict[str, Any], sink: _Sink, opts: Any
) -> str:
    """Run one case under its limits and write its record.

    Encoding the answer stays inside the timed region: a candidate can return an object whose
    serialisation runs its own code, and that code must not escape the limits either.
    """
    index, seconds = case["i"], float(case["t"])
    if "k" in case:
        missing = [n for n in opts.arg_names if n not in case["k"]]
        if missing:  # a case-set defect, reported as such rather than blamed on the candidate
            runner.emit({"i": index, "s": "error", "w": 0.0, "c": 0.0,
                         "e": f"judge error: the case lacks argument(s) {missing}"})
            return "error"
        args = [case["k"][n] for n in opts.arg_names]
    else:
        args = case["a"]
    status, encoded, error = "ok", "", ""
    wall = cpu = 0.0
    if opts.memory:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
    wall0, cpu0 = time.perf_counter(), time.process_time()
    try:
        runner.arm(index, seconds, opts.wall_factor)
        try:
            answer = getattr(cls(), method)(*args)
            wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
            encoded = _encode(runner, answer, opts.max_output)
        finally:
            runner.disarm()
    except CaseTimeout:
        status, error = "timeout", "the case exceeded its CPU-time allowance"
    except MemoryError:
        status, error = "memory", "MemoryError: the solution ran out of memory"
    except _Invalid as exc:
        status, error = "invalid", str(exc)
    except BaseException:  # noqa: BLE001 - SystemExit, KeyboardInterrupt: all the candidate's
        status, error = "error", _tail(traceback.format_exc())
    if status != "ok" and not wall:
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    answer = None
    record: dict[str, Any] = {"i": index, "s": status, "w": round(wall, 6), "c": round(cpu, 6)}
    if error:
        record["e"] = error
    if opts.memory:
        record["m"] = max(0, tracemalloc.get_traced_memory()[1] - base)
    printed = sink.take()
    if printed:
        record["out"] = printed
    runner.cleanup()
    runner.emit(record, encoded if status == "ok" else None)
    return status


class _Invalid(Exception):
    """The answer cannot be handed to the checker (not JSON data, or too large)."""


def _encode(runner: _Runner, answer: Any, limit: int) -> str:
    try:
        encoded = runner.dumps(answer, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as exc:
        raise _Invalid(f"the answer is not plain JSON data: {exc}") from None
    if len(encoded) > limit:
        raise _Invalid(f"the answer encodes to {len(encoded):,} bytes, over the {limit:,} limit")
    return encoded


def _cases(path: str, offset: int, start: int, stop: int | None) -> Any:
    with open(path, "rb") as fh:
        fh.seek(offset)
        for raw in fh:
            case = json.loads(raw)
            if case["i"] < start:
                continue
            if stop is not None and case["i"] >= stop:
                return
            yield case


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("solution")
    parser.add_argument("cases")
    parser.add_argument("results")
    parser.add_argument("--method", required=True)
    parser.add_argument("--arg-names", type=lambda t: [x for x in t.split(",") if x], default=[],
                        help="argument order for cases given by name")
    parser.add_argument("--start", type=int, default=0, help="first case index to run")
    parser.add_argument("--offset", type=int, default=0, help="byte offset of that case's line")
    parser.add_argument("--stop", type=int, default=None, help="stop before this case index")
    parser.add_argument("--memory", action="store_true", help="measure peak traced memory")
    parser.add_argument("--reap", action="store_true", help="kill leftover processes per case")
    parser.add_argument("--load-timeout", type=float, default=30.0)
    parser.add_argument("--wall-factor", type=float, default=3.0)
    parser.add_argument("--max-output", type=int, default=8 * 1024 * 1024)
    parser.add_argument("--max-timeouts", type=int, default=0, help="stop after N (0: never)")
    opts = parser.parse_args(argv)

    runner = _Runner(opts.results, opts.reap)
    sys.setrecursionlimit(20_000)
    sink = _Sink()
    sys.stdout = sys.stderr = sink  # type: ignore[assignment]
    sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the process
    sys.argv = ["solution.py"]
    try:
        runner.arm(-1, opts.load_timeout, opts.wall_factor)
        try:
            cls = _load_method(opts.solution, opts.method)
        finally:
            runner.disarm()
    except CaseTimeout:
        runner.emit({"load": "timeout", "e": "loading solution.py exceeded its time allowance"})
        return 0
    except BaseException:  # noqa: BLE001 - report any failure to load, then stop
        runner.emit({"load": "error", "e": _tail(traceback.format_exc())})
        return 0
    runner.cleanup()
    if sink.take():
        pass  # output printed at import time is not part of any case
    if opts.memory:
        tracemalloc.start()
    done = timeouts = 0
    for case in _cases(opts.cases, opts.offset, opts.start, opts.stop):
        if _run_case(runner, cls, opts.method, case, sink, opts) == "timeout":
            timeouts += 1
        done += 1
        if opts.max_timeouts and timeouts >= opts.max_timeouts:
            runner.emit({"stopped": "timeouts", "n": done})
            return 0
    runner.emit({"done": done})
    return 0


if __name__ == "__main__":
    sys.exit(main())
