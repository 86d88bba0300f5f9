"""Progress on long work: a tqdm bar on a terminal, a plain line now and then in CI logs.

Why both: a bar redraws one line with carriage returns, which log viewers (GitHub Actions
among them) show as a wall of partial lines or not at all until the end; a job that prints
nothing for twenty minutes looks hung. Off a terminal the same tqdm meter text is printed as
whole lines, at most every `every` seconds and at the end.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from tqdm import tqdm


class Progress:
    """`with Progress(total, "generating") as bar: ... bar.update(note="lc207")`."""

    def __init__(self, total: int, desc: str, *, stream: TextIO | None = None,
                 every: float = 30.0) -> None:
        self.total, self.desc, self.every = total, desc, every
        self.stream = stream or sys.stderr
        self.done = 0
        self._start = self._last = time.monotonic()
        self._bar = (tqdm(total=total, desc=desc, file=self.stream, leave=True)
                     if self.stream.isatty() else None)

    def update(self, n: int = 1, note: str = "") -> None:
        self.done += n
        if self._bar is not None:
            self._bar.set_postfix_str(note, refresh=False)
            self._bar.update(n)
            return
        now = time.monotonic()
        if now - self._last >= self.every or self.done >= self.total:
            self._last = now
            self._line(note)

    def _line(self, note: str) -> None:
        meter = tqdm.format_meter(self.done, self.total, time.monotonic() - self._start,
                                  prefix=self.desc, ncols=0)
        print(meter + (f" {note}" if note else ""), file=self.stream, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
