"""Drawing the site's figures in a worker process beside the build, when a second core exists.

Why: matplotlib costs about 0.1 s of CPU per figure whatever the ledger's size (text layout,
ticks, the SVG writer), and a full build draws two per competition plus two for the results,
while the rest of the build (ranking, CSVs, entry pages, results) needs none of them until the
pages that show them are written, last. So a full build starts one worker process at once: it
imports matplotlib while this process reads and ranks the ledger, then draws the figures it is
sent. The worker is a fresh interpreter (`python -c ...`), not a fork: it shares no memory with
this process, so neither pays copy-on-write faults for the ledger's rows, and it works the same
on every platform. The CPU time is about the same as drawing here (the worker imports
matplotlib instead of this process, plus ~0.1 s of interpreter start-up); only the wall time
shrinks, and only when the second core is free. A build that draws only a few figures (`--only`)
draws them here: starting a worker would cost more than it saves. `jobs=1` (`--jobs 1`,
`GNNCB_SITE_JOBS=1`, or one core) draws everything here, with the same bytes (tested).

No deadlock whatever the sizes: the worker reads two batches of jobs from its stdin (its main
thread waits on the pipe while a second thread imports matplotlib), and only then writes its one
answer, every figure, to its stdout, which this process reads when it needs a figure.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
import threading
import traceback
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

from evaluator import settings

Job = tuple[str, str, tuple[Any, ...]]  # (key, name of a function in render.site.plots, args)
MIN_FIGURES = 8  # fewer figures than this are drawn in the build's own process


def jobs_wanted() -> int:
    """Processes to use: `GNNCB_SITE_JOBS` if set, else 2 when this process may run on two
    cores or more, else 1 (everything in this process)."""
    jobs = settings.site_jobs()
    if jobs is not None:
        return jobs
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return 2 if (cores or 1) >= 2 else 1


def _draw(job: Job) -> Any:
    from evaluator.render.site import plots

    _, name, args = job
    return getattr(plots, name)(*args)


def _send(stream: BinaryIO, value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(data).to_bytes(8, "big") + data)
    stream.flush()


def _recv(stream: BinaryIO) -> Any:
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError("the other side closed the pipe")
    size = int.from_bytes(head, "big")
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the other side closed the pipe mid-message")
    return pickle.loads(data)  # noqa: S301 - our own process's message, over our own pipe


def serve() -> None:
    """The worker's main (`python -c "...; serve()"`): two batches in, every figure out."""
    from evaluator.render.site import plots

    ready = threading.Thread(target=plots._pyplot, name="import-matplotlib")
    ready.start()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but our answer may reach the pipe
    try:
        out: dict[str, Any] = {}
        for _ in range(2):
            batch = _recv(stdin)
            ready.join()
            for job in batch or ():
                out[job[0]] = _draw(job)
        answer: tuple[str, Any] = ("ok", out)
    except BaseException:  # noqa: BLE001 - any failure goes back to the build, which raises
        answer = ("error", traceback.format_exc())
    with contextlib.suppress(OSError):  # the build stopped first: nobody to tell
        _send(stdout, answer)


class Drawer:
    """`d.send(first_jobs)`, `d.send(last_jobs)`, then `d.get(key)` -> the figure's SVG."""

    def __init__(self, parallel: bool) -> None:
        self._inline: dict[str, Job] = {}
        self._done: dict[str, Any] | None = None
        self._batches = 0
        self._proc: subprocess.Popen[bytes] | None = None
        if parallel:
            package = Path(__file__).resolve().parents[3]  # the folder of evaluator/
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(
                [str(package), *filter(None, [os.environ.get("PYTHONPATH")])])}
            sys.stdout.flush()
            sys.stderr.flush()
            self._proc = subprocess.Popen(  # noqa: S603 - our interpreter, our module
                [sys.executable, "-c", "from evaluator.render.site.parallel import serve; serve()"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)

    @property
    def parallel(self) -> bool:
        return self._proc is not None

    def send(self, jobs: list[Job]) -> None:
        """A batch of jobs; the second batch is the last."""
        if self._batches >= 2:
            raise RuntimeError("Drawer.send takes two batches")
        self._batches += 1
        if self._proc is None:
            self._inline.update({job[0]: job for job in jobs})
            return
        try:
            # arg-type, union-attr (below): Popen(stdin=PIPE, stdout=PIPE) sets both pipes
            _send(self._proc.stdin, jobs)  # type: ignore[arg-type]
        except (BrokenPipeError, OSError):
            self._failed()
        if self._batches == 2:
            self._proc.stdin.close()  # type: ignore[union-attr]  # stdin=PIPE: never None

    def get(self, key: str) -> Any:
        if self._proc is None:
            return _draw(self._inline.pop(key))
        if self._done is None:
            while self._batches < 2:
                self.send([])
            try:
                # arg-type: Popen(stdout=PIPE) sets the pipe
                status, payload = _recv(self._proc.stdout)  # type: ignore[arg-type]
            except EOFError:
                self._failed()
            if status != "ok":
                raise RuntimeError(f"drawing the site's figures failed in the worker "
                                   f"process:\n{payload}")
            self._done = payload
        return self._done.pop(key)

    def _failed(self) -> NoReturn:
        code = self._proc.wait(timeout=30) if self._proc else None
        raise RuntimeError("the site's drawing worker process ended without an answer (exit "
                           f"code {code}); rebuild with --jobs 1 to draw in one process")

    def close(self) -> None:
        """Stop the worker: it has answered, or it is not needed any more (the build failed)."""
        if self._proc is None:
            return
        proc, self._proc = self._proc, None
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        if self._done is None and proc.poll() is None:
            proc.kill()
        proc.wait()

    def __enter__(self) -> Drawer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def wanted(jobs: int | None, figures: int) -> bool:
    """Draw in a worker? With two cores allowed and enough figures to be worth a process."""
    return (jobs_wanted() if jobs is None else jobs) > 1 and figures >= MIN_FIGURES
