"""The committed ledger can be corrected with the platform's own commands.

`gnncb ledger rescore SLUG` re-opens each active submission's stored envelope; a row without
one can only be skipped (`--skip-missing`) or marked stale. So every active row of a committed
competition's current version keeps its envelope under `leaderboard/envelopes/`, carries its
95% intervals, and is scored on the public part. Rows superseded before envelopes were stored
were withdrawn with an audit line (`gnncb ledger withdraw`), never deleted.

Out of scope, because `rescore` and the boards only reach a competition's current version:
rows of older versions (gta v1) and the code track's rows (no hidden labels, no envelopes).
"""

from __future__ import annotations

import shutil

import pytest

from evaluator.cli import main
from evaluator.competition.spec import load_spec
from evaluator.ledger.store import Ledger, active_submissions
from tests.helpers.paths import REPO

LEDGER = REPO / "leaderboard" / "ledger.jsonl"
ENVELOPES = REPO / "leaderboard" / "envelopes"
SPECS = [load_spec(p.parent) for p in sorted((REPO / "competitions").glob("*/competition.yaml"))]


def current_rows() -> dict[str, list[dict]]:
    """slug -> the active submissions of its current version (audit lines applied)."""
    wanted = {(s.slug, s.version): s.slug for s in SPECS}
    out: dict[str, list[dict]] = {s.slug: [] for s in SPECS}
    for r in active_submissions(Ledger(LEDGER).rows()):
        slug = wanted.get((r["slug"], r["version"]))
        if slug is not None:
            out[slug].append(r)
    return out


def test_every_active_committed_row_has_its_envelope_intervals_and_public_score():
    rows = current_rows()
    assert len(rows) == 14 and all(rows.values())
    problems = []
    for slug, subs in rows.items():
        for r in subs:
            what = f"{slug} {r['participant']} {r['digest'][:12]}"
            if not (ENVELOPES / f"{r['digest']}.jwe").is_file():
                problems.append(f"{what}: no stored envelope")
            if not r.get("intervals"):
                problems.append(f"{what}: no intervals")
            if r.get("scored_on") != "public":
                problems.append(f"{what}: scored on {r.get('scored_on', 'all')!r}")
    assert problems == [], "\n".join(problems)


@pytest.mark.slow
def test_every_active_committed_code_track_row_has_its_pass_rate_interval():
    """Code-track rows: the interval over problems, recomputed here from the row's own
    per-problem counts (a row's interval must describe the score shown beside it)."""
    from evaluator.codetrack.board import BOARDS
    from evaluator.codetrack.intervals import row_interval

    rows = [r for r in active_submissions(Ledger(LEDGER).rows()) if r["slug"] in BOARDS]
    assert rows, "the committed ledger has a code-track row (the real model's)"
    for r in rows:
        board = BOARDS[r["slug"]]
        assert r.get("intervals", {}).get("pass_rate") == row_interval(
            r, slug=board.slug, version=board.version), r["digest"][:12]


def test_superseded_rows_are_withdrawn_with_a_reason_not_removed():
    """The 24 rows scored on the whole split before envelopes were stored are still in the
    file (history is not rewritten), each with a withdrawal naming the row that replaced it,
    and none of them was the latest row of its participant."""
    rows = Ledger(LEDGER).rows()
    by_digest = {r["digest"]: r for r in rows if r["type"] == "submission"}
    superseded = [r for r in rows if r["type"] == "withdrawal"
                  and r["reason"].startswith("superseded: scored on the whole test split")]
    assert len(superseded) == 24
    for w in superseded:
        old = by_digest[w["digest"]]
        assert not (ENVELOPES / f"{old['digest']}.jwe").exists()
        new = w["reason"].rsplit("re-run as ", 1)[1]
        [replacement] = [r for d, r in by_digest.items() if d.startswith(new)]
        assert (replacement["slug"], replacement["version"], replacement["participant"]) == \
            (old["slug"], old["version"], old["participant"])
        assert replacement["scored_at"] > old["scored_at"]


@pytest.mark.shared
@pytest.mark.slow
def test_rescoring_every_committed_competition_needs_no_skip_missing(shared_secrets, tmp_path,
                                                                    capsys):
    """A dry-run re-score of each committed competition on a copy of the repository: no row
    is skipped, none fails, and none would change (the ledger matches the sealed labels)."""
    root = tmp_path / "repo"
    for name in ("competitions", "leaderboard", "keys"):
        shutil.copytree(REPO / name, root / name)
    before = (root / "leaderboard" / "ledger.jsonl").read_bytes()
    key = str(shared_secrets / "deploy-private.pem")
    for spec in SPECS:
        capsys.readouterr()
        code = main(["ledger", "rescore", spec.slug, "--root", str(root), "--private-key", key,
                     "--dry-run"])
        out, err = capsys.readouterr()
        assert (code, err) == (0, ""), f"{spec.slug}: {err}"
        summary = next(line for line in out.splitlines() if "re-scored" in line)
        assert summary.endswith("; 0 changed"), out
        assert "skipped" not in out and "could not re-score" not in out, out
    assert (root / "leaderboard" / "ledger.jsonl").read_bytes() == before
