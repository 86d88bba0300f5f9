"""Which platform key each sealed thing of a competition needs: hidden labels, the stored
envelopes of its active submissions, and their sealed private-part scores.

Why one place: after `gnncb keys reseal` the hidden labels open with the new key, but the
stored envelopes (`ledger rescore` re-opens them) and the sealed scores (`competition reveal`
opens them) are committed, append-only evidence sealed to the key of their day; they cannot be
re-sealed without changing their digests, which are the ledger's identities. Reseal once said
the old key "is no longer needed" and the next rescore and reveal failed on every row; now
reseal, rescore and reveal all read the kids from here and say which key opens what.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evaluator.competition.spec import load_spec
from evaluator.errors import Rejection
from evaluator.ledger.store import Ledger, active_submissions
from evaluator.repo.record import envelopes_dir, ledger_path
from evaluator.submission import envelope

LABELS, ENVELOPES, SCORES = "hidden label file", "stored envelope", "sealed score"
USED_BY = {LABELS: "ledger rescore, evaluate, competition reveal",
           ENVELOPES: "ledger rescore", SCORES: "competition reveal"}


def sealed_kid(compact: bytes | str) -> str | None:
    """The kid a JWE's header names (None when the header cannot be read)."""
    try:
        return str(envelope.read_header(compact.encode("ascii") if isinstance(compact, str)
                                        else compact)["kid"])
    except (Rejection, UnicodeEncodeError, KeyError):
        return None


def needs_key(kid: str | None, held: Mapping[str, Any]) -> str:
    """What to tell a maintainer whose keys do not open something sealed to `kid`."""
    given = ", ".join(k[:12] + "..." for k in held) or "none"
    if kid is None:
        return "its header names no key"
    return (f"sealed to key {kid}, which none of the given private keys opens (given: "
            f"{given}); give that key's PEM (--private-key, repeatable, or "
            "$GNNCB_PRIVATE_KEY_PREVIOUS after a rotation)")


def key_uses(root: Path, slug: str) -> dict[str, Counter[str]]:
    """kid -> {kind: count} for the competition's current version: its hidden label files,
    the stored envelopes and the effective sealed scores of its active submissions."""
    root = Path(root)
    folder = root / "competitions" / slug
    spec = load_spec(folder)
    uses: dict[str, Counter[str]] = defaultdict(Counter)
    for split in spec.splits.values():
        path = folder / split.labels
        if path.is_file():
            uses[sealed_kid(path.read_bytes()) or "unknown"][LABELS] += 1
    ledger = ledger_path(root)
    rows = Ledger(ledger).rows() if ledger.is_file() else []
    for r in active_submissions(rows):
        if r["slug"] != spec.slug or r["version"] != spec.version:
            continue
        stored = envelopes_dir(root) / f"{r['digest']}.jwe"
        if stored.is_file():
            uses[sealed_kid(stored.read_bytes()) or "unknown"][ENVELOPES] += 1
        if r.get("sealed_scores"):
            uses[sealed_kid(r["sealed_scores"]) or "unknown"][SCORES] += 1
    return dict(uses)


def describe_uses(counts: Counter[str]) -> str:
    """'3 stored envelopes (ledger rescore), 3 sealed scores (competition reveal)'."""
    parts = []
    for kind in (LABELS, ENVELOPES, SCORES):
        n = counts.get(kind, 0)
        if n:
            parts.append(f"{n} {kind}{'' if n == 1 else 's'} ({USED_BY[kind]})")
    return ", ".join(parts)
