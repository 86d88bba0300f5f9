"""The ledger's hash chain: every line carries the SHA-256 of the line before it (`prev`).

Why: git history shows any edit of `leaderboard/ledger.jsonl`, but a ledger downloaded from
the site, or handed around outside git, has no history. With each line naming the hash of its
predecessor, changing, inserting or deleting any line (audit lines included) breaks the link
of the line after it, which `gnncb verify` names; the last line is covered by the boards,
which must be rebuilt from the ledger byte for byte.

Genesis: rows written before the chain existed carry no `prev`; they stay as they are
(committed lines are never rewritten). The first chained line's `prev` is the SHA-256 of ALL
the bytes before it (the whole unchained prefix, empty for a new ledger), so the old rows are
sealed into the chain as one block; every later line's `prev` is the SHA-256 of the previous
line's bytes (without its newline). Blank lines are skipped. A line without `prev` after the
first chained one is a break: only gnncb writes the ledger, and it always links.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

CHAIN = "prev"


def line_hash(line: bytes) -> str:
    return hashlib.sha256(line).hexdigest()


def _linked(line: bytes) -> bool:
    """Whether a line carries a chain link (a JSON object with `prev`)."""
    if b'"prev"' not in line:
        return False
    try:
        row = json.loads(line)
    except ValueError:
        return False
    return isinstance(row, dict) and isinstance(row.get(CHAIN), str)


def chain_head(body: bytes) -> str:
    """The `prev` the next line appended after `body` must carry (`body`: the committed
    bytes, empty or ending in a newline)."""
    text = body.rstrip(b"\n \t\r")
    last = text[text.rfind(b"\n") + 1:].strip()
    if last and _linked(last):
        return line_hash(last)
    return line_hash(body)  # genesis: the whole unchained prefix


@dataclass(frozen=True)
class ChainReport:
    lines: int  # non-blank lines read
    genesis: int | None  # line number of the first chained line (None: no chained line)
    problem: str | None  # the first broken link, or None


def check_chain(data: bytes, name: str = "ledger.jsonl") -> ChainReport:
    """Walk every line of a ledger file's bytes and check each link; the first broken one
    names the line whose content no longer matches (the one before the failing link)."""
    offset = 0
    lines = 0
    genesis: int | None = None
    previous: tuple[int, bytes] | None = None  # (line number, bytes) of the last chained line
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        start, offset = offset, offset + len(raw) + 1
        line = raw.strip()
        if not line:
            continue
        lines += 1
        linked = _linked(line)
        if genesis is None and not linked:
            continue
        if not linked:
            return ChainReport(lines, genesis, f"{name}, line {lineno}: no chain link "
                               f"('prev') after the chain began at line {genesis}: the line "
                               "was inserted or rewritten outside gnncb")
        link = json.loads(line)[CHAIN]
        if previous is None:
            genesis = lineno
            if link != line_hash(data[:start]):
                return ChainReport(lines, genesis, (
                    f"{name}, line {lineno}: its 'prev' does not match the SHA-256 of the "
                    f"{lineno - 1} line(s) before it (the rows written before the chain): "
                    f"one of lines 1-{lineno - 1} was changed, inserted or removed"
                    if lineno > 1 else
                    f"{name}, line 1: its 'prev' is not the SHA-256 of an empty ledger: "
                    "lines were removed before it"))
        elif link != line_hash(previous[1]):
            return ChainReport(lines, genesis, (
                f"{name}, line {previous[0]} was changed (or a line was removed or inserted "
                f"there) after line {lineno} was written: line {lineno}'s 'prev' does not "
                f"match the SHA-256 of line {previous[0]}"))
        previous = (lineno, line)
    return ChainReport(lines, genesis, None)
