"""A frame of the channel is charged for what the workload did, not for what the machine or
the judge did meanwhile (issue 27.4; docs/sandbox.md, "Channel").

* The workload never waits for the judge to hand over a reply, and as little as the machine
  allows for PID 1's CPU: its output pipe holds a whole line of the cap where PID 1 may size it
  so (CAP_SYS_RESOURCE; else fs.pipe-max-size, 1 MiB by default: 7 waits for PID 1 in a
  6.7 MB answer instead of ~105 with a 64 KiB pipe, each an uncredited sleep), and PID 1
  drains it whatever the judge does; a judge that holds a reply past the next frame's whole
  wall allowance before reading on still gets `R`.
* A frame kept waiting for a CPU is charged its elapsed time less that wait, as PID 1 enforces
  it, and the reply says both: the judge re-checks the charged figure, never the raw one.

The contention is the workload's own (pinned to one CPU beside spinning processes of its own,
as in test_busy_machine.py), so it does not depend on the machine.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from evaluator import sandbox
from evaluator.sandbox import Channel, Limits, Reply, run
from evaluator.sandbox.channel import fit_pipe
from tests.sandbox.helpers import CONTENDED, WALL, WORK

CAP = 4 * 1024 * 1024  # the channel's line cap in these runs
FULL = sandbox.detect_isolation()
needs_isolation = pytest.mark.skipif(
    not (FULL.sandboxed and FULL.unprivileged),
    reason=f"needs full sandbox isolation (root + unshare); here: {FULL.level}",
)

# One reply per input line: the sizes of its two channel pipes, padded to just under the cap.
REPORTER = f"""
    import fcntl, json, os
    for _ in os.fdopen(3, "rb"):
        sizes = {{"in": fcntl.fcntl(3, fcntl.F_GETPIPE_SZ),
                  "out": fcntl.fcntl(4, fcntl.F_GETPIPE_SZ)}}
        line = json.dumps({{**sizes, "pad": "x" * ({CAP} - 200)}}).encode() + b"\\n"
        view = memoryview(line)
        while view:
            view = view[os.write(4, view):]
    """


def _run(ws: Path, code: str, converse) -> sandbox.SandboxResult:
    (ws / "w.py").write_text(textwrap.dedent(code))
    return run([sys.executable, "w.py"], workspace=ws, channel=converse,
               channel_line_bytes=CAP, limits=Limits(wall_seconds=120, cpu_seconds=60))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@needs_isolation
def test_a_reply_fits_the_pipe_and_never_waits_for_a_judge_busy_elsewhere(ws: Path) -> None:
    allowance = 1.0
    replies: list[Reply] = []

    def converse(ch: Channel) -> None:
        for _ in range(3):
            ch.submit(b"go\n", cpu_seconds=30, wall_seconds=allowance)
        ch.close()
        replies.append(ch.reply())
        # the judge is busy (checking the first answer, say) for longer than the next frame's
        # whole wall allowance: the workload's next reply must not wait for it
        time.sleep(2 * allowance)
        replies.extend((ch.reply(), ch.reply()))

    probe = os.pipe()  # what a pipe may hold on this machine, as PID 1 (same uid) sizes it
    try:
        allowed = fit_pipe(probe[0], CAP + 1)
    finally:
        for fd in probe:
            os.close(fd)
    pipe_max = int(Path("/proc/sys/fs/pipe-max-size").read_text())
    assert allowed >= min(CAP + 1, pipe_max)
    result = _run(ws, REPORTER, converse)
    assert result.exit_reason == "ok", (result.exit_reason, result.stderr_tail)
    assert [r.kind for r in replies] == ["R", "R", "R"], [(r.kind, r.wall) for r in replies]
    for reply in replies:
        sizes = json.loads(reply.line)
        # either pipe holds a capped line (or as much as this machine allows): a reply is
        # written in one call (or in a few), whoever reads it and whenever
        assert min(sizes["out"], sizes["in"]) >= allowed, (allowed, sizes["in"], sizes["out"])
        assert reply.elapsed is not None and 0 <= reply.wall <= reply.elapsed


@pytest.mark.slow
@needs_isolation
def test_a_frame_kept_waiting_for_a_cpu_is_charged_without_the_wait(ws: Path) -> None:
    replies: list[Reply] = []
    busy = CONTENDED + f"""
    f = os.fdopen(3, "rb")
    f.readline()
    t = time.process_time()
    while time.process_time() - t < {WORK}:
        pass
    os.write(4, b"done\\n")
    f.readline()
    """

    def converse(ch: Channel) -> None:
        ch.submit(b"go\n", cpu_seconds=30, wall_seconds=WALL)
        ch.close()
        replies.append(ch.reply())

    _run(ws, busy, converse)
    (reply,) = replies
    assert reply.kind == "R" and reply.line == b"done", reply
    assert reply.elapsed is not None
    assert reply.elapsed > WALL, "the frame was not slowed: nothing was tested"
    # what the judge re-checks is what PID 1 enforced: the charged figure, within the allowance
    assert reply.cpu >= WORK and reply.wall <= WALL < reply.elapsed
