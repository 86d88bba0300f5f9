"""Pause Python's cyclic garbage collector around a bulk pass over the ledger.

Why: reading or rendering a 100,000-row ledger allocates millions of small dicts, lists and
tuples while the rows themselves stay alive. Each allocation burst triggers collections that
walk the whole live heap and find nothing to free (the rows are not garbage, and ledger rows
hold no reference cycles); at 100k rows those walks took more CPU than the work itself
(measured with `benchmarks/render_scale.py`). Reference counting still frees everything that is
not part of a cycle at once; cycles made meanwhile (matplotlib figures) are collected when the
pass ends and the collector is switched back on. Nesting is safe: only the outermost pause
turns the collector back on, and only if it was on before.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Run the block with the cyclic collector off (restored afterwards, even on error)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
