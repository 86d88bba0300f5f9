"""In-sandbox batch runner: run one candidate `solution.py` over many cases in one process.

Why a batch runner: starting a sandboxed interpreter costs ~0.1-0.5 s, a graph case a few
milliseconds; one process per case would spend almost all its time starting up. The judge starts
this script inside the sandbox (`python -I -S worker.py ...`), so it uses the standard library
only and trusts nothing it loads.

Protocol (the judge in `judge.py` is the other side, through the sandbox's PID 1), over the
sandbox channel:
- fd 3 (in): one case per line, handed over by PID 1 only after the previous case's record came
  back: {"i": index, "t": seconds allowed, "k": {arguments by name}} (ordered with
  --arg-names) or "a": [positional arguments]; each line is parsed just before its case runs, so
  every case gets fresh, unshared inputs and no later input is ever inside the sandbox;
- fd 4 (out): first {"load": "ok"} or {"load": "error", "e": ...}, then one record per case:
  {"i", "s", ...} with status `s` in ok | error | timeout | memory | invalid, `o` the answer
  (status ok), `e` an error text, `out` the first characters the case printed.
EOF on fd 3 ends the worker.

Nothing this process says about time or memory is believed: it is the candidate's process, and
the candidate can patch anything in it. PID 1 keeps the per-case clock, reads the kernel's
exact CPU clock and peak RSS of this process from outside, sends it SIGPROF when a case passes
its CPU allowance and kills it shortly after if the case goes on. The SIGPROF handler below
(raising `CaseTimeout`) is only a fast path that ends a runaway Python loop without a process
restart. The judge checks the claims of a record against its own figures: `timeout` counts
only when the case measurably used its allowance and `memory` only when the peak RSS was at the
limit; otherwise the record is a runtime error. `error` and `invalid` can only hurt the
candidate and are taken as they are.
With `--reap`, every process the case left behind is killed after it (`kill(-1)` as the run's own
unprivileged uid, inside the sandbox's PID namespace), so `setsid` children and fork bombs die
with their case. The judge passes `--reap` only when that is safe.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import signal
import sys
import traceback
from typing import Any

RECORD_ERROR_CHARS = 2000  # traceback tail kept per failing case
PRINT_HEAD_CHARS = 500  # what a case printed, kept for feedback
CASES_FD = 3  # the sandbox channel: cases from the judge
RECORDS_FD = 4  # ... and records back to it


class CaseTimeout(BaseException):  # noqa: N818 - BaseException so `except Exception` cannot eat it
    """Raised in the candidate's code when PID 1 says its CPU allowance for a case is spent."""


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
    """Owns the record channel and the SIGPROF fast path for one worker process."""

    def __init__(self, out_fd: int, reap: bool) -> None:
        self.fd = out_fd
        # kill(-1) as root outside a PID namespace would hit the whole machine: never
        self.reap = reap and os.geteuid() != 0 and os.getuid() != 0
        self.armed = False
        self.dumps = json.dumps  # bound now: the candidate may monkeypatch the json module later
        signal.signal(signal.SIGPROF, self._on_cpu_timer)

    def emit(self, record: dict[str, Any], answer_json: str | None = None) -> None:
        """Write one record; `answer_json` (already encoded) is spliced in as field "o"."""
        text = self.dumps(record, separators=(",", ":"))
        if answer_json is not None:
            text = text[:-1] + ',"o":' + answer_json + "}"
        _write_all(self.fd, (text + "\n").encode())

    def _on_cpu_timer(self, signum: int, frame: Any) -> None:
        if self.armed:
            raise CaseTimeout

    def arm(self) -> None:
        """A SIGPROF from PID 1 (the case passed its CPU allowance) now ends the case. No
        timer of our own: tick-sampled timers run ahead of the exact clock the judge uses."""
        self.armed = True

    def disarm(self) -> None:
        self.armed = False

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
    index = case["i"]
    if "k" in case:
        missing = [n for n in opts.arg_names if n not in case["k"]]
        if missing:  # a case-set defect, reported as such rather than blamed on the candidate
            runner.emit({"i": index, "s": "error",
                         "e": f"judge error: the case lacks argument(s) {missing}"})
            return "error"
        args = [case["k"][n] for n in opts.arg_names]
    else:
        args = case["a"]
    status, encoded, error = "ok", "", ""
    try:
        runner.arm()
        try:
            answer = getattr(cls(), method)(*args)
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
    answer = None
    record: dict[str, Any] = {"i": index, "s": status}
    if error:
        record["e"] = error
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("solution")
    parser.add_argument("--method", required=True)
    parser.add_argument("--arg-names", type=lambda t: [x for x in t.split(",") if x], default=[],
                        help="argument order for cases given by name")
    parser.add_argument("--reap", action="store_true", help="kill leftover processes per case")
    parser.add_argument("--max-output", type=int, default=8 * 1024 * 1024)
    opts = parser.parse_args(argv)

    cases = os.fdopen(CASES_FD, "rb")
    runner = _Runner(RECORDS_FD, opts.reap)
    sys.setrecursionlimit(20_000)
    sink = _Sink()
    sys.stdout = sys.stderr = sink  # type: ignore[assignment]
    sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the process
    sys.argv = ["solution.py"]
    try:
        cls = _load_method(opts.solution, opts.method)
    except BaseException:  # noqa: BLE001 - report any failure to load, then stop
        runner.emit({"load": "error", "e": _tail(traceback.format_exc())})
        return 0
    runner.cleanup()
    sink.take()  # output printed at import time is not part of any case
    runner.emit({"load": "ok"})
    for raw in cases:
        _run_case(runner, cls, opts.method, json.loads(raw), sink, opts)
    return 0


if __name__ == "__main__":
    # Every record is already written (unbuffered, fd 4); skip the interpreter's teardown of
    # everything the solution imported (a few hundred ms with NetworkX loaded).
    os._exit(main())
