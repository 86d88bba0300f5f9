"""A busy machine does not turn a correct program into a timeout, and does not switch the wall
limit off either.

The wall limit is for code that sleeps or blocks. PID 1 charges a run the wall time it had, less
the time the kernel kept its main thread runnable but waiting for a CPU (/proc/PID/schedstat's
run-queue delay, read from outside the program, credited up to WAIT_CREDIT_FACTOR x the limit):
on a loaded judge machine (CI under load, a campaign beside another) a program that needs 0.5 s
of CPU under a 1.5 s wall limit still ends "ok", while a program that sleeps, or spins, past its
limit still ends "timeout".

The contention is made deterministic and independent of the machine: the program pins itself to
one CPU beside three spinning processes of its own, so it gets at most a quarter of that CPU
(and waits the rest in the kernel's run queue, which is what the kernel counts; threads would
not do: a thread waiting for Python's GIL sleeps, it does not queue)."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from evaluator import sandbox
from evaluator.sandbox import Limits, run
from tests.sandbox.helpers import CONTENDED, WALL, WORK

pytestmark = pytest.mark.slow


def _run(ws: Path, code: str, wall: float) -> sandbox.SandboxResult:
    (ws / "solution.py").write_text(textwrap.dedent(code))
    return run([sys.executable, "solution.py"], workspace=ws,
               limits=Limits(wall_seconds=wall, cpu_seconds=30))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


def test_a_program_kept_waiting_for_a_cpu_is_not_timed_out(ws: Path) -> None:
    busy = CONTENDED + f"""
    while time.process_time() < {WORK}:
        pass
    print("done")
    """

    result = _run(ws, busy, wall=WALL)
    # sharing one CPU with three spinning processes, 0.5 s of CPU takes at least 2 s of wall:
    # over the 1.5 s limit, which only the credited run-queue wait keeps from being a timeout
    assert result.wall_seconds > WALL, "the program was not slowed: nothing was tested"
    assert result.exit_reason == "ok", (result.exit_reason, result.stderr_tail)
    assert result.stdout_tail.strip() == "done"


def test_a_spinning_program_still_times_out(ws: Path) -> None:
    """The credit is capped: waiting it causes itself does not let a program run forever."""
    result = _run(ws, CONTENDED + "\n    while True:\n        pass\n", wall=WALL)
    assert result.exit_reason == "timeout"


def test_a_sleeping_program_still_times_out(ws: Path) -> None:
    result = _run(ws, "import time\ntime.sleep(60)\n", wall=WALL)
    assert result.exit_reason == "timeout"
    assert result.returncode is None


def test_the_run_queue_wait_is_read_from_the_kernel() -> None:
    assert sandbox.process_wait_seconds(os.getpid()) is not None
    assert sandbox.process_wait_seconds(2**22 + 12345) is None  # no such process
    # the credit is capped: a run is never charged less than elapsed - 10 x its limit
    assert sandbox.credited_wall(100.0, 1000.0, 2.0) == 100.0 - 20.0
    assert sandbox.credited_wall(5.0, -1.0, 2.0) == 5.0
    assert sandbox.credited_wall(5.0, 1.5, 2.0) == 3.5


def test_pid_1s_wait_clock_stays_bound_to_its_process() -> None:
    """PID 1 reads the workload's run-queue wait through one open schedstat file: a figure
    while the process lives, and nothing once it is gone (never another process's that got
    its pid)."""
    from evaluator.sandbox.channel import WaitClock

    hold_r, hold_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # a child that lives until the pipe closes
        os.close(hold_w)
        os.read(hold_r, 1)
        os._exit(0)
    os.close(hold_r)
    clock = WaitClock(pid)
    try:
        first = clock.seconds()
        assert first is not None and first >= 0.0
        os.close(hold_w)
        os.waitpid(pid, 0)  # exited and reaped: the open file reads nothing any more
        assert clock.seconds() is None
        assert WaitClock(2**22 + 12345).seconds() is None  # no such process
    finally:
        clock.close()
