"""Sandboxed batch judge: one candidate solution over many cases, few processes.

Why batches: a sandboxed interpreter costs 0.1-0.5 s to start and a case a few milliseconds, so
the judge starts one worker (`worker.py`) per problem inside `evaluator.sandbox` and streams the
cases through it over the sandbox channel, which the sandbox's PID 1 relays: the judge queues a
few cases with PID 1 (root, out of the worker's reach), and PID 1 hands the worker one at a
time, the next only after the previous record came back, so no later input is ever within the
worker's reach and no case waits for a round trip through the judge.

Nothing the worker says about itself is believed: it is the candidate's own process. PID 1
keeps each case's clock, reads the kernel's exact CPU clock and peak RSS (`VmHWM`, reset before
each case) of the worker from outside, sends it SIGPROF when a case passes its CPU allowance
and stops it when the case goes on or overruns its wall allowance; a fresh process resumes from
the next case (also after a crash: the case in flight is the culprit, and the kernel's report
of how the process ended gives its verdict). A record's claims are checked against those
figures (a `timeout` needs the allowance used, `memory` a peak RSS at the limit). Records are
read through a size cap and a nesting cap; anything else than a well-formed record for the case
in flight is an invalid output.

Checkers never run in the sandbox: they see the JSON-decoded answer here, as each record
arrives, so a candidate can neither read nor influence them, and the expected answers never
enter the workspace.

Verdicts: pass, wrong answer, runtime error, timeout, memory, invalid output. A case's time
limit is calibrated from the reference's time: max(floor, factor x reference), capped, in CPU
seconds of the worker process (the kernel's exact count); the wall allowance is 3x that (+2 s).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator import sandbox
from evaluator.codetrack.cases import Case
from evaluator.codetrack.checkers import exact
from evaluator.codetrack.checkrun import JUDGE_LIMIT, CheckerOverBudget, CheckerProcess
from evaluator.codetrack.costmodel import TIMEOUT_CAP, TIMEOUT_FACTOR, TIMEOUT_FLOOR
from evaluator.codetrack.problem import Problem
from evaluator.errors import ConfigError

PASS = "pass"  # noqa: S105 - a verdict, not a password
WRONG = "wrong answer"
RUNTIME = "runtime error"
TIMEOUT = "timeout"
MEMORY = "memory"
INVALID = "invalid output"
VERDICTS = (PASS, WRONG, RUNTIME, TIMEOUT, MEMORY, INVALID, JUDGE_LIMIT)

WORKER = Path(__file__).resolve().parent / "worker.py"
# Statuses of judge-made records (a worker's own "timeout"/"memory" survive only when measured).
_STATUS = {"error": RUNTIME, "timeout": TIMEOUT, "memory": MEMORY, "invalid": INVALID}
# How a worker process that died mid-case ended -> the verdict of the case it was running.
_EXIT = {"cpu": TIMEOUT, "timeout": TIMEOUT, "memory": MEMORY}
FEEDBACK_CHARS = 1000
RECORD_TEXT_CHARS = 2000  # error text kept from a record


@dataclass(frozen=True)
class JudgeConfig:
    """Limits and budgets of one judging run (defaults suit 20-200 node graphs)."""

    timeout_factor: float = TIMEOUT_FACTOR  # per-case time = max(floor, factor x ref time) ...
    timeout_floor: float = TIMEOUT_FLOOR  # ... in CPU seconds; wall allowance = 3x that (+2 s)
    timeout_cap: float = TIMEOUT_CAP
    memory_bytes: int = 1024**3  # per worker process (see docs/sandbox.md: memory)
    max_processes: int = 32  # processes/threads a solution may have at once
    max_output_bytes: int = 8 * 1024 * 1024  # one answer, JSON-encoded
    max_restarts: int = 25  # fresh worker processes after crashes, per problem and pass
    max_timeouts: int = 20  # after this many timeouts the remaining cases are not run
    load_timeout: float = 30.0  # importing solution.py (judge's wall clock)
    batch_wall_cap: float = 1800.0  # sandbox wall limit of one worker process
    measure_memory: bool = True  # record each case's peak RSS (the kernel's VmHWM)
    # CPU seconds a checker other than exact match may spend on one answer (in a child process,
    # killed past it: verdict "judge limit"); its wall backstop is wall_seconds() of it
    checker_seconds: float = 10.0
    feedback_cases: int = 3
    require_sandbox: bool = False
    python: str = sys.executable

    def case_seconds(self, case: Case) -> float:
        ref = case.ref_seconds or 0.0
        return round(min(self.timeout_cap, max(self.timeout_floor, self.timeout_factor * ref)), 3)

    @staticmethod
    def wall_seconds(cpu_seconds: float) -> float:
        """Wall allowance of a case with `cpu_seconds` of CPU (sleeping or blocked code)."""
        return max(3.0 * cpu_seconds, cpu_seconds + 2.0)


@dataclass
class CaseVerdict:
    """How one case ended. `verdict` is against the truth (the reference's answer), `published`
    against the upstream label (imported cases only); None where there is nothing to compare."""

    id: str
    index: int
    verdict: str | None
    published: str | None = None
    detail: str = ""
    wall: float | None = None
    cpu: float | None = None
    memory: int | None = None  # peak RSS of the worker process during the case (kernel VmHWM)
    ran: bool = True  # False: not run (budget exhausted or the solution did not load)


@dataclass
class ProblemJudgement:
    problem: str
    solution_digest: str
    verdicts: list[CaseVerdict]
    processes: int = 0
    restarts: int = 0
    wall_seconds: float = 0.0
    peak_rss_bytes: int | None = None
    load_error: str = ""
    isolation: str = ""
    memory_mechanism: str = ""  # how the worker's memory was bounded (sandbox docs)
    hardening: dict[str, Any] | None = None  # filter, cgroup namespace, /proc (sandbox docs)
    feedback: list[dict[str, Any]] = field(default_factory=list)
    # the first failure shrunk to a minimal counterexample (shrink.py), when asked for
    minimal: dict[str, Any] | None = None
    # how the time limits were set (limits.py): floor, factor, cap, raw reference timings
    limits: dict[str, Any] | None = None

    @property
    def passed(self) -> int:
        return sum(v.verdict == PASS for v in self.verdicts)

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(VERDICTS, 0)
        for v in self.verdicts:
            if v.verdict is not None:
                out[v.verdict] += 1
        return out


# --------------------------------------------------------------------------------------------
# One problem
# --------------------------------------------------------------------------------------------


def file_digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def judge_problem(
    problem: Problem,
    solution: Path,
    cases: Sequence[Case],
    *,
    config: JudgeConfig = JudgeConfig(),  # noqa: B008 - frozen dataclass
    workdir: Path | None = None,
    extra_files: Mapping[str, Path] | None = None,
    site_packages: bool = False,
) -> ProblemJudgement:
    """Run `solution` (a file defining `class Solution`) over `cases` in the sandbox.

    `extra_files` are copied into the workspace beside it (the reference wrapper needs the
    problem package). Solutions get the standard library only, as on the judges GraphEval36K's
    problems come from; `site_packages=True` (trusted references) also exposes the installed
    packages. `workdir` keeps the workspace for inspection; default: a temporary one.
    """
    solution = Path(solution)
    if not solution.is_file():
        raise ConfigError(f"solution file {solution} not found")
    own_tmp = workdir is None
    root = Path(tempfile.mkdtemp(prefix=f"gnncb-judge-{problem.id}-")) if own_tmp else workdir
    assert root is not None
    try:
        return _judge_in(problem, solution, list(cases), config, Path(root), extra_files or {},
                         site_packages)
    finally:
        if own_tmp:
            with contextlib.suppress(OSError):
                sandbox.remove_tree(root)


def _judge_in(
    problem: Problem,
    solution: Path,
    cases: list[Case],
    config: JudgeConfig,
    root: Path,
    extra: Mapping[str, Path],
    site_packages: bool,
) -> ProblemJudgement:
    started = time.monotonic()
    workspace = sandbox.prepare_workspace(root / "workspace", {"solution.py": solution, **extra})
    # The worker lives outside the workspace, mounted read-only: the solution (same uid as the
    # worker) cannot patch the runner for the next process. Inputs never enter the worker's
    # reach except the one case in flight (the next few wait in PID 1).
    runner = root / "runner"
    runner.mkdir()
    shutil.copyfile(WORKER, runner / "worker.py")
    for path in (runner, *runner.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    seconds = [config.case_seconds(c) for c in cases]
    lines = [case_line(k, seconds[k], case) for k, case in enumerate(cases)]
    judgement = ProblemJudgement(problem.id, file_digest(solution), [])
    batch = _Batch(problem, config, workspace, judgement, site_packages, runner.resolve(),
                   cases)
    try:
        records = batch.run(lines, seconds)
        # cases with a record were checked as their records came in (while the worker went on)
        verdicts = [batch.checked.get(k) or _verdict(problem, case, k, records.get(k), batch)
                    for k, case in enumerate(cases)]
    finally:
        batch.close()
    judgement.verdicts = verdicts
    judgement.load_error = batch.load_error
    judgement.wall_seconds = round(time.monotonic() - started, 3)
    judgement.feedback = feedback(problem, cases, verdicts, records, config.feedback_cases)
    return judgement


def case_line(k: int, seconds: float, case: Case) -> bytes:
    """The worker's input for one case (arguments and CPU allowance only).

    Arguments travel as the JSON text stored in the case set (`"k"`: by name; the worker orders
    them with `--arg-names`), so the judge never decodes or re-encodes the graphs.
    """
    return f'{{"i":{k},"t":{seconds!r},"k":{case.args_json()}}}\n'.encode()


# How the judge reads what comes back (a hostile worker can send anything).
_RECORD_SLACK = 64 * 1024  # error text and printed head on top of the answer
_MAX_DEPTH = 64  # nesting of a record; answers here are lists of lists at most
# PID 1 sends the worker SIGPROF when a case passes its CPU allowance (the worker ends the case
# cheaply, no restart) and kills it this much CPU later if it did not.
_CPU_GRACE = 0.1
# Cases queued with PID 1 beyond the one running: they wait in PID 1 (root, outside the
# worker's reach), so the next case starts without a round trip through the judge.
_QUEUED_CASES = 16
_QUEUED_BYTES = 4 * 1024 * 1024
_KIND_TEXT = {
    "O": "the record exceeds the size cap",
    "A": "the worker wrote a record before receiving the case",
    "E": "the worker process ended",
    "J": "the judge stopped listening",
}


def parse_record(line: bytes, max_depth: int = _MAX_DEPTH,
                 max_bytes: int | None = None) -> dict[str, Any]:
    """A JSON object from the worker, with bounded size and nesting; ValueError for anything
    else. The nesting is measured before `json.loads` (whose C scanner recurses per level) by
    `record_depth`, one forward pass whose work is linear in the record's length."""
    if max_bytes is not None and len(line) > max_bytes:
        raise ValueError(f"the record is {len(line):,} bytes, over the {max_bytes:,}-byte cap")
    if line.count(b"[") + line.count(b"{") > max_depth:
        record_depth(line, max_depth)  # raises past max_depth
    try:
        value = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"the record is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError("the record is not a JSON object")
    return value


# After an opening quote: the rest of a JSON string (unrolled, so a match or a failure examines
# each byte a bounded number of times). Anchored at one position per string, never retried.
_STRING_REST = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_STRUCTURAL = re.compile(rb'["\[\]{}]')


def record_depth(line: bytes, max_depth: int = _MAX_DEPTH) -> tuple[int, int]:
    """(deepest bracket nesting outside strings, bytes examined): one forward pass.

    Why not one regex over the line: a tokenizer that retries a string pattern at every quote
    is quadratic in escaped quotes (each `\\"` starts a new unterminated string: a 0.5 MB
    record took minutes). Here every byte is examined once: a C-speed search to the next
    structural byte, then, at a quote, one anchored match to the string's end. An unterminated
    string or a nesting past `max_depth` raises ValueError at once. The second figure is the
    pass's work (each examined byte counted once), kept for the linearity test.
    """
    pos = depth = deepest = steps = 0
    end = len(line)
    while pos < end:
        found = _STRUCTURAL.search(line, pos)
        if found is None:
            steps += end - pos
            break
        at = found.start()
        steps += at + 1 - pos
        byte = line[at]
        if byte == 0x22:  # '"': skip the whole string
            rest = _STRING_REST.match(line, at + 1)
            if rest is None:
                raise ValueError("the record is not JSON: a string is never closed")
            steps += rest.end() - at - 1
            pos = rest.end()
            continue
        if byte in b"[{":
            depth += 1
            if depth > max_depth:
                raise ValueError(f"the record is nested deeper than {max_depth} levels")
            deepest = max(deepest, depth)
        else:
            depth -= 1
        pos = at + 1
    return deepest, steps


@dataclass
class _Conversation:
    """One worker process: load the solution, then its cases, each on PID 1's clock.

    Cases are queued with the sandbox's PID 1 (a few ahead, so the next starts the moment the
    previous record is in), which hands the worker one at a time and measures each (see
    sandbox_channel). Afterwards: `records` (judge-made, by case index), `position` (index into
    `order` of the first case without a record), and how it ended: `finished`, a `load`
    failure, or the case at `position` is the culprit with `culprit` = (verdict, detail) when
    the judge's side ended it, None when the process died on its own (the kernel's exit report
    decides)."""

    batch: _Batch
    order: list[int]
    position: int
    lines: Sequence[bytes]
    seconds: Mapping[int, float]
    records: dict[int, dict[str, Any]] = field(default_factory=dict)
    finished: bool = False
    load: dict[str, Any] | None = None
    loaded: bool = False
    culprit: tuple[str, str] | None = None
    figures: tuple[float | None, float | None] = (None, None)  # culprit's (wall, cpu)

    def __call__(self, ch: sandbox.Channel) -> None:
        cfg = self.batch.config
        ch.submit(b"", cpu_seconds=math.inf, wall_seconds=cfg.load_timeout)
        reply = ch.reply()
        if reply.kind == "W":
            self.load = {"load": "timeout", "e": "loading solution.py exceeded "
                         f"{cfg.load_timeout:g} s (the judge's clock)"}
            return
        if reply.kind == "E":
            return  # died while loading: the kernel's exit report says how
        try:
            if reply.kind != "R":
                raise ValueError(_KIND_TEXT.get(reply.kind, reply.kind))
            load = parse_record(reply.line)
        except ValueError as exc:
            load = {"load": "error", "e": f"the worker sent no load record: {exc}"}
        if load.get("load") != "ok":
            self.load = {"load": "error",
                         "e": str(load.get("e", "solution.py could not be loaded"))[-2000:]}
            ch.stop()
            return
        self.loaded = True
        sent = self.position  # index into order of the next case to queue
        queued = 0  # bytes of the cases queued and not answered
        while self.position < len(self.order):
            while sent < len(self.order) and (sent == self.position or (
                    sent - self.position < _QUEUED_CASES and queued < _QUEUED_BYTES)):
                k = self.order[sent]
                limit = self.seconds[k]
                ch.submit(self.lines[k], cpu_notice=limit, cpu_seconds=limit + _CPU_GRACE,
                          wall_seconds=JudgeConfig.wall_seconds(limit))
                queued += len(self.lines[k])
                sent += 1
            if sent == len(self.order):
                ch.close()  # PID 1 ends the worker's input after the last case
            reply = ch.reply()
            k = self.order[self.position]
            queued -= len(self.lines[k])
            if not self._record(k, reply):
                if reply.kind != "E":  # E: it is dying; PID 1 lets its exit status show
                    ch.stop()
                return
            self.position += 1
            if self.batch.hopeless():
                ch.stop()
                return
        self.finished = True

    def _record(self, k: int, reply: sandbox.Reply) -> bool:
        """Judge case k from PID 1's reply; False when the process must end (case k is then
        the culprit)."""
        limit = self.seconds[k]
        wall_limit = JudgeConfig.wall_seconds(limit)
        wall, cpu = reply.wall, reply.cpu
        self.figures = (round(wall, 6), round(cpu, 6))
        if reply.kind == "E":
            return False  # died on its own: the kernel's exit report decides
        if reply.kind != "R":
            verdict = TIMEOUT if reply.kind in ("C", "W") else INVALID
            which = {
                "C": f"CPU time {cpu:.3f} s over the {limit:g} s allowance",
                "W": f"wall time {wall:.3f} s over the {wall_limit:g} s allowance",
            }.get(reply.kind, _KIND_TEXT.get(reply.kind, reply.kind))
            self.culprit = (verdict, f"stopped by the judge: {which}" if verdict == TIMEOUT
                            else which)
            return False
        try:
            rec = parse_record(reply.line, max_bytes=self.batch.config.max_output_bytes
                               + _RECORD_SLACK)
        except ValueError as exc:
            self.culprit = (INVALID, f"unreadable record: {exc}")
            return False
        if rec.get("i") != k or rec.get("s") not in ("ok", *_STATUS):
            self.culprit = (INVALID, "the record does not belong to the case in flight")
            return False
        cfg = self.batch.config
        peak = reply.peak_rss
        out: dict[str, Any] = {"s": rec["s"], "w": round(wall, 6), "c": round(cpu, 6),
                               "m": peak if cfg.measure_memory else None}
        if rec["s"] == "ok" and "o" in rec:
            out["o"] = rec["o"]
        elif rec["s"] == "ok":
            out = {**out, "s": "invalid", "e": "the record carries no answer"}
        for key in ("e", "out"):
            if isinstance(rec.get(key), str):
                out.setdefault(key, rec[key][-RECORD_TEXT_CHARS:])
        over = cpu > limit or wall > wall_limit
        if over:  # finished (or gave up), but over the limit by the judge's measurement
            out = {**out, "s": "timeout",
                   "e": f"the case used {cpu:.3f} s CPU / {wall:.3f} s wall, over its "
                        f"{limit:g} s CPU / {wall_limit:g} s wall allowance (the judge's "
                        "measurement)"}
            out.pop("o", None)
        elif rec["s"] == "timeout":  # claimed by the worker, not measured: the candidate's
            out = {**out, "s": "error",
                   "e": f"the worker reported a timeout, but the case used {cpu:.3f} s CPU / "
                        f"{wall:.3f} s wall, within its {limit:g} s CPU / {wall_limit:g} s "
                        "wall allowance (the judge's measurement): a runtime error. "
                        + str(out.get("e", ""))}
        elif rec["s"] in ("error", "memory") and sandbox.memory_limit_reached(
                peak, cfg.memory_bytes):  # failed with its peak RSS at the limit: memory
            out = {**out, "s": "memory",
                   "e": str(out.get("e", "")) + f" (peak RSS {peak / 2**20:.1f} MiB, at the "
                        f"{cfg.memory_bytes / 2**20:g} MiB limit: the judge's measurement)"}
        elif rec["s"] == "memory":  # claimed, not measured
            used = "unknown" if peak is None else f"{peak / 2**20:.1f} MiB"
            out = {**out, "s": "error",
                   "e": f"MemoryError with a peak RSS of {used} during the case, below "
                        f"{sandbox.MEMORY_HIT:.0%} of the {cfg.memory_bytes / 2**20:g} MiB "
                        "limit (the judge's measurement): a runtime error. "
                        + str(out.get("e", ""))}
        self.records[k] = out
        if out["s"] == "timeout":
            self.batch.timeouts += 1
        self.batch.check(k, out)
        return True


class _Batch:
    """Runs worker processes until every case has a record, a verdict, or the budget is spent."""

    def __init__(self, problem: Problem, config: JudgeConfig, workspace: Path,
                 judgement: ProblemJudgement, site_packages: bool, runner: Path,
                 cases: Sequence[Case]) -> None:
        self.problem = problem
        self.cases = cases
        self.checked: dict[int, CaseVerdict] = {}  # verdicts of cases with a record
        self.runner = runner  # read-only inside the sandbox: worker.py
        # -I: no user site, no PYTHON* variables; -S as well: no site-packages (stdlib only)
        self.flags = ["-I"] if site_packages else ["-I", "-S"]
        self.stdlib_only = not site_packages
        self.config = config
        self.workspace = workspace
        self.judgement = judgement
        self.load_error = ""
        self.load_verdict = RUNTIME
        self.blamed: dict[int, tuple[str, str, float | None, float | None]] = {}
        self.not_run: dict[int, str] = {}  # case -> why it never ran
        self.timeouts = 0
        self._checker: CheckerProcess | None = None
        isolation = sandbox.detect_isolation()
        # kill(-1) per case is safe only as the run's own uid inside its own PID namespace
        self.reap = isolation.pid_namespace and isolation.unprivileged
        judgement.isolation = isolation.level

    def checker_process(self) -> CheckerProcess:
        """The problem's checker process (forked on first use; closed by `close`)."""
        if self._checker is None:
            seconds = self.config.checker_seconds
            self._checker = CheckerProcess(self.problem, self.cases, seconds,
                                           JudgeConfig.wall_seconds(seconds))
        return self._checker

    def close(self) -> None:
        if self._checker is not None:
            self._checker.close()

    def hopeless(self) -> bool:
        return self.config.max_timeouts > 0 and self.timeouts >= self.config.max_timeouts

    def check(self, k: int, rec: dict[str, Any]) -> None:
        """The verdict of case k from its record, now (PID 1 runs the next cases meanwhile);
        a passing answer is not kept (feedback shows failing cases only)."""
        verdict = _verdict(self.problem, self.cases[k], k, rec, self)
        self.checked[k] = verdict
        if (verdict.verdict if verdict.verdict is not None else verdict.published) == PASS:
            rec.pop("o", None)

    def run(self, lines: Sequence[bytes], seconds: Sequence[float]) -> dict[int, dict[str, Any]]:
        """Records by case index; cases that end without one are explained in `self.blamed`
        (the culprit of a process that was stopped or died) or `self.not_run`."""
        order = list(range(len(seconds)))
        allowance = dict(enumerate(seconds))
        records: dict[int, dict[str, Any]] = {}
        position = 0
        restarts = 0
        cfg = self.config
        stop_reason = ""
        while position < len(order):
            remaining = sum(JudgeConfig.wall_seconds(allowance[k]) for k in order[position:])
            wall = min(cfg.batch_wall_cap, cfg.load_timeout + 10.0 + remaining)
            python = str(sandbox.stdlib_python()) if self.stdlib_only else cfg.python
            argv = [python, *self.flags, str(self.runner / "worker.py"), "solution.py",
                    "--method", self.problem.method,
                    "--arg-names", ",".join(self.problem.arg_names),
                    "--max-output", str(cfg.max_output_bytes)]
            if self.reap:
                argv.append("--reap")
            limits = sandbox.Limits(
                wall_seconds=wall,
                cpu_seconds=None,  # per case, by PID 1 (the kernel's exact CPU clock)
                memory_bytes=cfg.memory_bytes,
                max_processes=cfg.max_processes,
                output_bytes=16 * 1024,
            )
            conv = _Conversation(self, order, position, lines, allowance)
            result = sandbox.run(argv, workspace=self.workspace, limits=limits,
                                 require_sandbox=cfg.require_sandbox,
                                 readonly_paths=[self.runner], channel=conv,
                                 stdlib_only=self.stdlib_only,
                                 channel_line_bytes=cfg.max_output_bytes + _RECORD_SLACK)
            self.judgement.processes += 1
            self.judgement.memory_mechanism = result.memory_mechanism
            self.judgement.hardening = result.hardening
            peaks = [x for x in (self.judgement.peak_rss_bytes, result.peak_rss_bytes) if x]
            self.judgement.peak_rss_bytes = max(peaks) if peaks else None
            records.update(conv.records)
            position = conv.position
            if not conv.loaded:
                load = conv.load or {"load": "error", "e": _blame(result)[1]}
                self.load_error = str(load.get("e", "solution.py could not be loaded"))
                self.load_verdict = TIMEOUT if load.get("load") == "timeout" else RUNTIME
                return records
            if conv.finished or position >= len(order):
                break
            if self.hopeless():
                stop_reason = f"not run: the solution had already timed out {self.timeouts} times"
                break
            verdict, detail = conv.culprit or _blame(result)
            wall_s, cpu_s = conv.figures
            self.blamed[order[position]] = (verdict, detail, wall_s, cpu_s)
            self.timeouts += verdict == TIMEOUT
            position += 1
            restarts += 1
            self.judgement.restarts += 1
            if restarts > cfg.max_restarts:
                stop_reason = f"not run: the worker process died {restarts} times"
                break
            if self.hopeless():
                stop_reason = f"not run: the solution had already timed out {self.timeouts} times"
                break
        if stop_reason:
            for k in order[position:]:
                if k not in records and k not in self.blamed:
                    self.not_run[k] = stop_reason
        return records


def _blame(result: sandbox.SandboxResult) -> tuple[str, str]:
    """Verdict of the case a worker process was running when it ended on its own, from the
    kernel's report of how it ended (signal, rusage, limit hit), never from its output."""
    verdict = _EXIT.get(result.exit_reason, RUNTIME)
    how = {
        "cpu": "killed for exceeding its CPU time",
        "timeout": "killed by the sandbox's wall-clock limit",
        "memory": "killed for exceeding the memory limit",
        "killed": f"killed by signal {-(result.returncode or 0)}",
        "error": f"the worker process exited with status {result.returncode}",
        "ok": "the solution ended the worker process (e.g. os._exit) during this case",
        "stopped": "stopped by the judge",
        "quota": "what the solution left in its workspace does not fit the quota",
    }.get(result.exit_reason, result.exit_reason)
    tail = result.stderr_tail.strip()[-500:]
    return verdict, how + (f"; stderr: {tail}" if tail else "")


def _verdict(problem: Problem, case: Case, k: int, rec: dict[str, Any] | None,
             batch: _Batch) -> CaseVerdict:
    if rec is None:
        if k in batch.blamed:
            verdict, detail, wall, cpu = batch.blamed[k]
            blamed = _both(case, k, verdict, detail)
            blamed.wall, blamed.cpu = wall, cpu
            return blamed
        reason = batch.not_run.get(k, "not run")
        verdict = batch.load_verdict if batch.load_error else TIMEOUT
        if batch.load_error:
            reason = f"solution.py did not load: {batch.load_error[-800:]}"
        out = _both(case, k, verdict, reason)
        out.ran = False
        return out
    status = rec["s"]
    wall, cpu = rec.get("w"), rec.get("c")
    if status != "ok":
        out = _both(case, k, _STATUS[status], str(rec.get("e", ""))[-1500:])
    else:
        actual = rec.get("o")
        truth = _check(batch, k, "expected", actual) if case.has_expected else None
        published = None
        if case.has_label:
            if truth is not None and same_json(case.label, case.expected):
                published = truth  # same expected answer, same verdict: skip a second check
            else:
                published = _check(batch, k, "label", actual)
        out = CaseVerdict(
            case.id, k,
            verdict=truth[0] if truth else None,
            published=published[0] if published else None,
            detail=(truth or published or (PASS, ""))[1],
        )
    out.wall, out.cpu = wall, cpu
    out.memory = rec.get("m")
    return out


def _both(case: Case, k: int, verdict: str, detail: str) -> CaseVerdict:
    """A failure that does not depend on the expected answer counts for both comparisons."""
    return CaseVerdict(
        case.id, k,
        verdict=verdict if case.has_expected else None,
        published=verdict if case.has_label else None,
        detail=detail,
    )


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON data (`True` != `1`); both sides are JSON-decoded, so C-speed dumps do."""
    if a != b:
        return False
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _check(batch: _Batch, k: int, which: str, actual: Any) -> tuple[str, str]:
    """Case k's answer against its `which` ("expected" or "label") answer. Exact match runs
    here (C-speed comparison of JSON data, linear in the capped record); any other checker runs
    in the problem's checker process under `checker_seconds` (checkrun.py)."""
    case = batch.cases[k]
    if batch.problem.checker is exact:
        # checkers.exact on JSON-decoded values (no tuples to normalise), at C speed
        expected = case.expected if which == "expected" else case.label
        return (PASS, "") if same_json(expected, actual) else (
            WRONG, "answer differs from the expected value")
    try:
        ok, reason = batch.checker_process().check(k, which, actual)
    except CheckerOverBudget as exc:
        return JUDGE_LIMIT, str(exc)
    if ok is None:  # a malformed answer may trip a validator: the answer's fault
        return INVALID, f"the checker could not read the answer: {reason}"
    return (PASS, "") if ok else (WRONG, reason)


def truncate(value: Any, limit: int = FEEDBACK_CHARS) -> str:
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    if len(text) <= limit:
        return text
    return text[:limit] + f"... [{len(text) - limit:,} more characters]"


def feedback(
    problem: Problem,
    cases: Sequence[Case],
    verdicts: Sequence[CaseVerdict],
    records: Mapping[int, dict[str, Any]],
    limit: int,
) -> list[dict[str, Any]]:
    """The first failing cases with input, expected and actual output, as GraphEval36K returns
    them to the model (truncated so a prompt stays small)."""
    out: list[dict[str, Any]] = []
    for k, v in enumerate(verdicts):
        if len(out) >= limit:
            break
        primary = v.verdict if v.verdict is not None else v.published
        if primary in (None, PASS):
            continue
        case = cases[k]
        rec = records.get(k) or {}
        item: dict[str, Any] = {
            "case": case.id,
            "cell": case.cell,
            "verdict": primary,
            "detail": v.detail[-FEEDBACK_CHARS:],
            "input": truncate({n: case.args[n] for n in problem.arg_names if n in case.args}),
            "expected": truncate(case.expected if case.has_expected else case.label),
        }
        if "o" in rec:
            item["actual"] = truncate(rec["o"])
        if rec.get("out"):
            item["printed"] = truncate(rec["out"], 300)
        out.append(item)
    return out


# --------------------------------------------------------------------------------------------
# Reference solutions as candidates
# --------------------------------------------------------------------------------------------

_REFERENCE_TEMPLATE = '''\
"""Reference solution of {pid}, run as a candidate (generated by gnncb; trusted code)."""
import importlib
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_gnncb"))
_reference = getattr(importlib.import_module({module!r}), {name!r})
_ARG_NAMES = {arg_names!r}


class Solution:
    def {method}(self, *args):
        return _reference(**dict(zip(_ARG_NAMES, args)))
'''
_REGISTRY_TEMPLATE = '''\
"""Reference solution of {pid}, run as a candidate (generated by gnncb; trusted code)."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_gnncb"))
from evaluator.codetrack.problem import get_problem  # noqa: E402

_PROBLEM = get_problem({pid!r})


class Solution:
    def {method}(self, *args):
        return _PROBLEM.reference(**dict(zip(_PROBLEM.arg_names, args)))
'''


def reference_solution(problem: Problem, directory: Path) -> tuple[Path, dict[str, Path]]:
    """A `solution.py` that calls the problem's reference, plus the package files it needs in
    the workspace (the sandbox hides the repository, so the code travels with the run).

    It imports only the reference's own module when the function is reachable by name (saves
    importing all forty problems per process), else goes through the registry.
    """
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{problem.id}.py"
    module = getattr(problem.reference, "__module__", "") or ""
    name = getattr(problem.reference, "__qualname__", "") or ""
    reachable = (module.startswith("evaluator.codetrack.") and name.isidentifier()
                 and getattr(sys.modules.get(module), name, None) is problem.reference)
    template = _REFERENCE_TEMPLATE if reachable else _REGISTRY_TEMPLATE
    path.write_text(template.format(pid=problem.id, method=problem.method, module=module,
                                    name=name, arg_names=tuple(problem.arg_names)),
                    encoding="utf-8")
    package = Path(__file__).resolve().parent.parent
    extra = {
        "_gnncb/evaluator/__init__.py": package / "__init__.py",
        "_gnncb/evaluator/codetrack": package / "codetrack",
    }
    return path, extra
