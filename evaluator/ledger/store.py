"""`leaderboard/ledger.jsonl`: the append-only record of every accepted submission.

Why append-only JSONL: leaderboards are a pure function of this file, so nobody ever edits a
leaderboard by hand; a row's identity is the digest of its envelope, so re-running a workflow on
the same pull request cannot add a second row; corrections (withdrawals, re-scores) are new
audit lines, never rewrites of history.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from filelock import FileLock

from evaluator.errors import ConfigError
from evaluator.submission.identity import HUMAN, migrate_row
from evaluator.util import gcpause

SUBMISSION = "submission"
WITHDRAWAL = "withdrawal"
RESCORE = "rescore"
# A re-score that could not reach a row (its envelope was not stored): the row keeps its score
# but is marked as scored on labels that may since have changed.
STALE = "stale"
# The C scanner behind `json.loads` (same strictness and constants), called once per line.
# attr-defined: JSONDecoder.__init__ sets `scan_once`; typeshed does not declare it.
_SCAN = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _dumps(row: dict[str, Any]) -> str:
    """One JSONL line; NaN or infinity anywhere is refused (it would not be JSON)."""
    try:
        return json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
    except ValueError as err:
        raise ConfigError(f"refusing to write a ledger row that is not JSON: {err}") from None


class Ledger:
    """A JSONL file guarded by a lock file beside it (safe for concurrent local writers).

    A row is committed once its whole line, newline included, is on disk. A crash in the middle
    of an append leaves an unterminated last line: it is reported, ignored when reading (that
    row was never recorded, and no command answered "recorded" for it) and cut off by the next
    append, so nobody has to edit the file by hand. Any other unreadable line is corruption and
    stops every command (exit 2).
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = FileLock(str(self.path) + ".lock", timeout=120)
        self._reported_torn: int | None = None

    def _read(self) -> tuple[list[dict[str, Any]], int | None]:
        """(committed rows, byte offset of a torn last line or None)."""
        if not self.path.exists():
            return [], None
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        body, tail = data[:end], data[end:]
        with gcpause.paused():  # a large ledger: no heap walks per allocation burst
            rows = self._parse_each(body.decode("utf-8").split("\n"))
            gcpause.settle(len(rows))
        if not tail.strip():
            return rows, None
        try:
            row = self._parse(tail.decode("utf-8"), body.count(b"\n") + 1)
        except (ConfigError, UnicodeDecodeError):
            self._report_torn(end, len(tail))
            return rows, end
        rows.append(row)  # complete but unterminated (e.g. an editor dropped the newline)
        return rows, None

    def _parse_each(self, lines: list[str]) -> list[dict[str, Any]]:
        """Every non-blank line as a row, with `_parse`'s checks and errors.

        Why not `_parse` per line: at 100,000 rows the wrappers around the C scanner
        (`json.loads` -> `JSONDecoder.decode` -> two whitespace regex matches) cost more than
        a fifth of the parse. A line the scanner reads whole as a JSON object with a 'type'
        and no identity to migrate is taken as it is; any other line (leading or trailing
        whitespace, not JSON, not an object, no 'type', an old identity) goes through
        `_parse`, which gives the same row and raises the same error as before.
        """
        scan, parse, migrate = _SCAN, self._parse, migrate_row
        rows: list[dict[str, Any]] = []
        append = rows.append
        for lineno, line in enumerate(lines, 1):
            if not line:
                continue
            try:
                row, stop = scan(line, 0)
            except (StopIteration, ValueError):
                row, stop = None, -1
            if stop == len(line) and type(row) is dict and "type" in row:
                # the common current row: a submission from a pull request by a human
                if not (row.get("pr") is not None and row.get("entrant", HUMAN) == HUMAN):
                    row = migrate(row)
                append(row)
            elif line.strip():
                append(parse(line, lineno))
        return rows

    def _parse(self, line: str, lineno: int) -> dict[str, Any]:
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ConfigError(f"{self.path}, line {lineno}: corrupt ledger row: {err}") from None
        if not isinstance(row, dict) or "type" not in row:
            raise ConfigError(f"{self.path}, line {lineno}: ledger row without 'type'")
        return migrate_row(row)  # old identity scheme read as the current one; line unchanged

    def _report_torn(self, offset: int, size: int) -> None:
        if self._reported_torn != offset:
            self._reported_torn = offset
            print(f"gnncb: {self.path}: ignoring an incomplete last line ({size} bytes at byte "
                  f"{offset}) left by an interrupted write; that row was never recorded, and "
                  "the next append removes it", file=sys.stderr)

    def rows(self) -> list[dict[str, Any]]:
        return self._read()[0]

    def append(self, row: dict[str, Any]) -> bool:
        """Append one row unless a row with the same (type, digest) exists; True if written."""
        return self.append_many([row]) == 1

    def append_many(self, rows: Iterable[dict[str, Any]]) -> int:
        rows = list(rows)
        with self.locked() as current:
            return self.write_locked(rows, current)

    def append_checked(self, row: dict[str, Any],
                       check: Callable[[list[dict[str, Any]]], dict[str, Any] | None],
                       ) -> dict[str, Any] | None:
        """Append `row` after `check(rows)` passed on the rows read UNDER the lock.

        Why: a decision made on rows read earlier (eligibility, "not seen before") can be stale
        when fifty processes submit at once. `check` raises to refuse, or returns an existing
        row to report instead (a duplicate); then nothing is written and that row is returned.
        None means `row` was written by this call, and by no other.
        """
        with self.locked() as current:
            existing = check(current)
            if existing is not None:
                return existing
            self.write_locked([row], current)
            return None

    @contextlib.contextmanager
    def locked(self) -> Iterator[list[dict[str, Any]]]:
        """Hold the lock; yield the committed rows as they are now."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            yield self.rows()

    def write_locked(self, rows: list[dict[str, Any]], current: list[dict[str, Any]]) -> int:
        """Append the rows not yet present; the caller holds the lock (`locked`)."""
        for row in rows:
            if "type" not in row or "digest" not in row:
                raise ValueError("ledger rows need 'type' and 'digest'")
        seen = {(r["type"], r.get("digest")) for r in current}
        new = []
        for row in rows:
            key = (row["type"], row["digest"])
            if key not in seen:
                seen.add(key)
                new.append(_dumps(row) + "\n")
        if new:
            self._write(new)
        return len(new)

    def _write(self, lines: list[str]) -> None:
        _, torn = self._read()
        with self.path.open("ab") as fh:
            if torn is not None:  # cut the interrupted write off before appending
                fh.truncate(torn)
            elif fh.tell() and not self.path.read_bytes().endswith(b"\n"):
                fh.write(b"\n")
            fh.write("".join(lines).encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())


def active_submissions(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Submission rows not withdrawn, with the latest re-score applied, in ledger order.

    One pass sorts the rows by type; a second pass over the submissions applies the audit
    lines only when there are any (a ledger without corrections returns its submission rows
    as they are: at 100,000 rows the three passes this used to make were a tenth of a build).
    """
    subs: list[dict[str, Any]] = []
    withdrawn: set[str] = set()
    rescored: dict[str, dict[str, Any]] = {}
    stale: dict[str, dict[str, Any]] = {}
    append = subs.append
    for r in rows:
        kind = r["type"]
        if kind == SUBMISSION:
            append(r)
        elif kind == WITHDRAWAL:
            withdrawn.add(r["digest"])
        elif kind == RESCORE:
            rescored[r["target"]] = r
            stale.pop(r["target"], None)
        elif kind == STALE:
            stale[r["target"]] = r
    return apply_audits(subs, withdrawn, rescored, stale)


def apply_audits(subs: list[dict[str, Any]], withdrawn: set[str],
                 rescored: dict[str, dict[str, Any]], stale: dict[str, dict[str, Any]]
                 ) -> list[dict[str, Any]]:
    """Submission rows (ledger order) without the withdrawn ones, with the latest re-score
    and stale mark applied; `subs` itself when there is nothing to apply. The audit lines
    are read by the caller, in ledger order (`active_submissions`, or a renderer that reads
    them in its own single pass over the ledger)."""
    if not (withdrawn or rescored or stale):
        return subs
    out = []
    for r in subs:
        digest = r["digest"]
        if digest in withdrawn:
            continue
        if digest in rescored:
            audit = rescored[digest]
            r = {**r, "scores": audit["scores"], "rescored_at": audit["at"]}
            for key in ("scored_on", "sealed_scores", "intervals"):  # a re-score onto the
                # public part, or one that adds the score intervals
                if key in audit:
                    r[key] = audit[key]
        if digest in stale:
            r = {**r, "stale_since": stale[digest]["at"]}
        out.append(r)
    return out


def count_accepted(rows: list[dict[str, Any]], slug: str, version: int, participant: str,
                   *, since: str | None = None) -> int:
    """Accepted (not withdrawn) submissions of one participant, optionally since a timestamp."""
    return sum(1 for r in active_submissions(rows)
               if r["slug"] == slug and r["version"] == version
               and r["participant"].lower() == participant.lower()
               and (since is None or r["scored_at"] >= since))


def envelopes_beside(ledger_path: Path) -> Path:
    """Where a ledger keeps the ciphertexts of its rows (`leaderboard/envelopes/` for the
    repository's): `gnncb ledger rescore` re-opens them, so every way of recording a row
    stores its envelope, not only the pull-request flow."""
    return Path(ledger_path).parent / "envelopes"


def store_envelope(directory: Path, sealed: bytes) -> Path:
    """Write a ciphertext under its digest (idempotent); returns the path. Only ciphertext is
    ever stored: it is what the participant's pull request made public already."""
    from evaluator.submission.envelope import digest

    path = Path(directory) / f"{digest(sealed)}.jwe"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = sealed.strip() + b"\n"
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)
    return path

