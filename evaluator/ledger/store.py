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
from evaluator.ledger.chain import CHAIN, chain_head, line_hash
from evaluator.submission.identity import HUMAN, migrate_row
from evaluator.util import gcpause

SUBMISSION = "submission"
WITHDRAWAL = "withdrawal"
RESCORE = "rescore"
# A re-score that could not reach a row (its envelope was not stored): the row keeps its score
# but is marked as scored on labels that may since have changed.
STALE = "stale"
# A maintainer's record of which submissions count as a participant's final ones.
FINAL_CHOICE = "final-choice"
# `competition.schedule.REVEAL`, spelled here: importing it loads the spec module and SciPy
# into every command that reads the ledger (the site build stays without SciPy).
_REVEAL = "reveal"
# The C scanner behind `json.loads` (same strictness and constants), called once per line.
# attr-defined: JSONDecoder.__init__ sets `scan_once`; typeshed does not declare it.
_SCAN = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


# What every reader takes from a row of each type, by name -> the JSON types allowed (bool is
# not an int here). Why checked on read: a hand-edited line (`"version": "1"`, a withdrawal
# without its digest) crashed whichever command met it first, the keyed pull-request job
# included, with a traceback instead of the file and line. Types not listed here are left to
# the readers that know them (a newer row type passes through untouched); keys not listed are
# free.
_NUMBER = (int, float)
_REQUIRED: dict[str, dict[str, tuple[type, ...]]] = {
    SUBMISSION: {"slug": (str,), "version": (int,), "participant": (str,), "scores": (dict,),
                 "scored_at": (str,)},
    WITHDRAWAL: {},
    RESCORE: {"target": (str,), "scores": (dict,), "at": (str,)},
    STALE: {"target": (str,), "at": (str,)},
    FINAL_CHOICE: {"participant": (str,), "chosen": (list,)},
    _REVEAL: {"private": (dict,)},
}
_NONE = type(None)
_OPTIONAL: dict[str, dict[str, tuple[type, ...]]] = {
    SUBMISSION: {"entrant": (str,), "participant_id": (int, _NONE), "pr": (int, _NONE),
                 "submitted_at": (str,), "method": (str,), "model": (str,), "team": (str,),
                 "sealed_scores": (str,), "scored_on": (str,), "intervals": (dict,),
                 "declared": (dict,), "final_choice": (list, _NONE), "late": (bool,),
                 "per_problem": (dict,), "commitment": (str,), "sealed_salt": (str,),
                 "label_commitments": (dict,), "label_version": (int,), "paired": (dict,)},
    WITHDRAWAL: {"slug": (str,), "version": (int,), "participant": (str,)},
    RESCORE: {"slug": (str,), "version": (int,), "participant": (str,), "sealed_scores": (str,),
              "scored_on": (str,), "intervals": (dict,), "previous": (dict,),
              "label_commitments": (dict,), "label_version": (int,), "paired": (dict,)},
    STALE: {"slug": (str,), "version": (int,)},
    FINAL_CHOICE: {"slug": (str,), "version": (int,)},
    _REVEAL: {"slug": (str,), "version": (int,), "paired": (dict,)},
}
_JSON_NAMES = {str: "a string", int: "an integer", float: "a number", dict: "an object",
               list: "a list", bool: "true or false", _NONE: "null"}


def _shape_problem(row: dict[str, Any]) -> str | None:
    """What is wrong with a parsed row's shape, or None. Cheap on good rows (a 100,000-row
    ledger is read on every render): the loops over keys and scores run in C (`map`, set
    operations); the reason is worked out only for a bad row."""
    kind = row["type"]
    if type(kind) is not str:
        return f"'type' is {_json_name(kind)}, must be a string"
    digest = row.get("digest")
    if type(digest) is not str or not digest:
        return (f"{kind} row without 'digest'" if digest is None else
                f"{kind} row: 'digest' is {_json_name(digest)}, must be a non-empty string")
    required = _REQUIRED.get(kind)
    if required is None:
        return None
    for key, types in required.items():
        if type(row.get(key)) not in types:
            return (f"{kind} row without {key!r}" if key not in row else
                    _wrong(kind, key, row[key], types))
    optional = _OPTIONAL.get(kind)
    if optional is not None:
        for key in optional.keys() & row.keys():
            if type(row[key]) not in optional[key]:
                return _wrong(kind, key, row[key], optional[key])
    for name in ("scores", "previous"):
        values = row.get(name)
        if type(values) is dict and not _NUMBER_TYPES.issuperset(map(type, values.values())):
            metric, value = next((m, v) for m, v in values.items() if type(v) not in _NUMBER)
            return (f"{kind} row: {name}[{metric!r}] is {_json_name(value)}, must be a "
                    "number")
    for name in ("chosen", "final_choice"):
        values = row.get(name)
        if type(values) is list and not _STR_TYPE.issuperset(map(type, values)):
            return f"{kind} row: {name!r} must be a list of digests (strings)"
    return None


_NUMBER_TYPES = frozenset(_NUMBER)
_STR_TYPE = frozenset({str})
_MISSING = object()


def _json_name(value: object) -> str:
    if value is None:
        return "null"
    shown = json.dumps(value, ensure_ascii=True, default=str)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return f"{shown} ({_JSON_NAMES.get(type(value), type(value).__name__)})"


def _wrong(kind: str, key: str, value: object, types: tuple[type, ...]) -> str:
    want = " or ".join(_JSON_NAMES[t] for t in types)
    return f"{kind} row: {key!r} is {_json_name(value)}, must be {want}"


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
        lineno = body.count(b"\n") + 1
        try:
            text = tail.decode("utf-8")
            json.loads(text)
        except ValueError:  # not JSON (UnicodeDecodeError included): a write cut short
            self._report_torn(end, len(tail))
            return rows, end
        # complete but unterminated (e.g. an editor dropped the newline): a hand-edited row
        # is checked like any other, not taken for a torn write and cut off
        rows.append(self._parse(text, lineno))
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
        scan, parse, migrate, shape = _SCAN, self._parse, migrate_row, _shape_problem
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
                problem = shape(row)
                if problem is not None:
                    raise ConfigError(self._bad_line(lineno, problem))
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
            raise ConfigError(self._bad_line(lineno, "ledger row without 'type'"))
        problem = _shape_problem(row)
        if problem is not None:
            raise ConfigError(self._bad_line(lineno, problem))
        return migrate_row(row)  # old identity scheme read as the current one; line unchanged

    def _bad_line(self, lineno: int, problem: str) -> str:
        return (f"{self.path}, line {lineno}: {problem}; the ledger is written only by gnncb: "
                f"restore the line from git (git log -p -- {self.path.name}) or correct it by "
                "hand")

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
                _dumps(row)  # refuse a row that is not JSON before writing any
                new.append(row)
        if new:
            self._write(new)
        return len(new)

    def _write(self, rows: list[dict[str, Any]]) -> None:
        """Append `rows`, each linked to the line before it (`ledger.chain`): the link is
        made here, under the lock, so whoever made the row (a keyed job, a copy of a row from
        an artifact) cannot choose it."""
        _, torn = self._read()
        data = self.path.read_bytes() if self.path.exists() else b""
        lead = b""
        if torn is not None:  # cut the interrupted write off before appending
            data = data[:torn]
        elif data and not data.endswith(b"\n"):
            lead = b"\n"
            data += lead
        head = chain_head(data)
        lines = []
        for row in rows:
            line = _dumps({**row, CHAIN: head}).encode("utf-8")
            head = line_hash(line)
            lines.append(line + b"\n")
        with self.path.open("ab") as fh:
            if torn is not None:
                fh.truncate(torn)
            fh.write(lead + b"".join(lines))
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
            for key in ("scored_on", "sealed_scores", "intervals", "paired",
                        "label_commitments", "label_version"):  # a re-score onto the public
                # part, on corrected labels (its own paired comparisons and the commitments it
                # was scored against), or one that adds intervals or comparisons
                if key in audit:
                    r[key] = audit[key]
        if digest in stale:  # scored on labels since corrected: its comparisons are too
            r = {k: v for k, v in r.items() if k != "paired"}
            r["stale_since"] = stale[digest]["at"]
        out.append(r)
    return out


def person(row: dict[str, Any]) -> str:
    """Who a row counts for: `id:<GitHub account id>` when the row names one, else its
    lower-cased participant name (platform entrants, rows recorded without a pull request).

    Why the account and not the login: a GitHub login can be renamed at any time and a freed
    login taken by someone else, so counting by login gave a renamed account a fresh quota
    and fresh final entries. The login stays on the row for display only."""
    pid = row.get("participant_id")
    if type(pid) is int:
        return f"id:{pid}"
    return str(row["participant"]).lower()


def belongs(row: dict[str, Any], login: str, participant_id: int | None) -> bool:
    """Whether `row` is by the participant with this login and (when known) account id.

    With an account id, rows of that account count whatever login they carry (a rename is
    the same person), and rows without an id count when they carry the login (recorded
    before ids were kept; counting them too errs on the side of the limit). Without an id
    (local `gnncb evaluate`, platform entrants) the login decides."""
    if participant_id is None:
        return str(row["participant"]).lower() == login.lower()
    pid = row.get("participant_id")
    if type(pid) is int:
        return pid == participant_id
    return str(row["participant"]).lower() == login.lower()


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

