"""The site build on two cores: figures and results in worker processes beside the pages.

Why: matplotlib costs about 0.1 s of CPU per figure whatever the ledger's size (text layout,
ticks, the SVG writer) and a full build draws two per competition plus two for the results;
`evaluator.results` reads every row of the ledger; the pages need neither until the very end.
So when a second core may be used, the build forks two workers at its start: one imports
matplotlib and draws the figures it is sent, one computes the results; this process meanwhile
ranks, writes the CSVs and the entry pages, and writes the pages that need a figure last. The
CPU time is the same (a little more: the drawing worker imports matplotlib); only the wall time
shrinks, and only when the cores are free. `jobs=1` (`--jobs 1`, `GNNCB_SITE_JOBS=1`, one core,
or no `fork` on the platform) does the same work in this process, with the same bytes
(tests/test_site.py compares them).

No deadlock whatever the sizes: a worker sends one message, at its very end, which this process
reads when it needs it; this process sends the drawing worker two batches of jobs, which that
worker is waiting for (its main thread blocks on the pipe while a thread imports matplotlib).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

Job = tuple[str, str, tuple[Any, ...]]  # (key, name of a function in evaluator.site.plots, args)


def jobs_wanted() -> int:
    """Processes to use: `GNNCB_SITE_JOBS` if set, else 2 when this process may run on two
    cores or more, else 1 (everything in this process)."""
    raw = os.environ.get("GNNCB_SITE_JOBS", "").strip()
    if raw:
        try:
            return max(1, int(raw))
        except ValueError:
            return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return 2 if (cores or 1) >= 2 else 1


def can_fork(jobs: int) -> bool:
    return jobs > 1 and "fork" in multiprocessing.get_all_start_methods()


def _fork(target: Callable[..., None], *args: Any) -> tuple[Any, Any]:
    """(process, our end of a duplex pipe) for `target(their end, *args)` in a forked child."""
    ctx = multiprocessing.get_context("fork")
    ours, theirs = ctx.Pipe()
    sys.stdout.flush()  # the child must not flush a copy of our buffered output
    sys.stderr.flush()
    proc = ctx.Process(target=target, args=(theirs, *args), daemon=True,
                       name="gnncb-site-worker")
    proc.start()
    theirs.close()
    return proc, ours


def _answer(conn: Any, fn: Callable[[], Any]) -> None:
    try:
        conn.send(("ok", fn()))
    except BaseException:  # noqa: BLE001 - any failure goes back to the build, which raises
        with contextlib.suppress(OSError):  # the build stopped first: nobody to tell
            conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()


def _receive(proc: Any, conn: Any, what: str) -> Any:
    try:
        status, payload = conn.recv()
    except EOFError:
        proc.join(timeout=5)
        raise RuntimeError(f"the site's {what} worker process died without an answer (exit "
                           f"code {proc.exitcode}); rebuild with --jobs 1") from None
    if status != "ok":
        raise RuntimeError(f"the site's {what} worker process failed:\n{payload}")
    return payload


def _stop(proc: Any, conn: Any, *, kill: bool) -> None:
    """Wait for a worker that has answered (or is finishing); `kill`: the build failed, stop
    it now."""
    conn.close()
    if not kill:
        proc.join(timeout=30)
    if proc.is_alive():
        proc.terminate()
        proc.join()


class Forked:
    """`fn()` computed in a forked child (or, with `parallel=False`, here when first asked);
    its value comes back pickled: plain data only."""

    def __init__(self, fn: Callable[[], Any], parallel: bool, what: str) -> None:
        self._fn, self._what = fn, what
        self._proc = self._conn = None
        self._value: Any = None
        self._has = False
        if parallel:
            self._proc, self._conn = _fork(_answer, fn)

    def result(self) -> Any:
        if not self._has:
            if self._proc is None:
                self._value = self._fn()
            else:
                self._value = _receive(self._proc, self._conn, self._what)
            self._has = True
        return self._value

    def close(self, *, kill: bool = False) -> None:
        if self._proc is not None:
            _stop(self._proc, self._conn, kill=kill or not self._has)
            self._proc = None


def _draw(job: Job) -> Any:
    from evaluator.site import plots

    _, name, args = job
    return getattr(plots, name)(*args)


def _serve(conn: Any) -> None:
    """The drawing worker: import matplotlib while waiting for the first batch, draw it,
    wait for the last batch (or None), draw it, send every figure back."""
    ready = threading.Thread(target=_pyplot, name="import-matplotlib")
    ready.start()

    def work() -> dict[str, Any]:
        out: dict[str, Any] = {}
        for _ in range(2):
            batch = conn.recv()
            ready.join()
            for job in batch or ():
                out[job[0]] = _draw(job)
        return out

    _answer(conn, work)


def _pyplot() -> None:
    from evaluator.site import plots

    plots._pyplot()


class Drawer:
    """`d.send(first_jobs)`, `d.send(last_jobs)`, then `d.get(key)` -> the figure's SVG."""

    def __init__(self, parallel: bool) -> None:
        self._inline: dict[str, Job] = {}
        self._done: dict[str, Any] | None = None
        self._batches = 0
        self._proc = self._conn = None
        if parallel:
            self._proc, self._conn = _fork(_serve)

    def send(self, jobs: list[Job]) -> None:
        """A batch of jobs; the second batch is the last."""
        if self._batches >= 2:
            raise RuntimeError("Drawer.send takes two batches")
        self._batches += 1
        if self._proc is None:
            self._inline.update({job[0]: job for job in jobs})
        else:
            self._conn.send(jobs)

    def get(self, key: str) -> Any:
        if self._proc is None:
            return _draw(self._inline.pop(key))
        if self._done is None:
            while self._batches < 2:
                self.send([])
            self._done = _receive(self._proc, self._conn, "plot")
        return self._done.pop(key)

    def close(self, *, kill: bool = False) -> None:
        if self._proc is not None:
            _stop(self._proc, self._conn, kill=kill or self._done is None)
            self._proc = None
