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


# Rows read at once from which on `settle` freezes the heap (below it, a collection is cheap).
SETTLE_ROWS = 10_000


def settle(rows: int) -> None:
    """After reading `rows` ledger rows with the collector paused: move every object alive
    now into the collector's permanent generation (`gc.freeze`), when they are many.

    Why: the rows are young objects when the pause ends, so the collector walks all of them
    at the next young collection, again when they are promoted, and again at the next full
    collection: at 100,000 rows about 0.3 CPU seconds each time, and nothing to free (the
    rows live as long as the command, and ledger rows hold no reference cycles). Frozen
    objects are never walked; reference counting still frees each row when it is dropped.
    The cost: a reference cycle that was garbage at this moment, or that frozen objects
    form later, is not collected (`gc.unfreeze()` gives them back); a command reading a
    large ledger makes few of either. Below `SETTLE_ROWS` a collection costs little and
    nothing is frozen, so small reads (the tests) leave the collector as it was.
    """
    if rows >= SETTLE_ROWS:
        gc.freeze()
