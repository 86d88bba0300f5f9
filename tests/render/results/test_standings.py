"""`gnncb results standings` (issue 26.6): the tier first, the point rank second, with the test
and its level, in Markdown, CSV and JSON, through the CLI; the same tiers the boards show."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import yaml

from evaluator.cli import main
from evaluator.competition.spec import load_spec
from evaluator.ledger.ranking import board_tiers, standings
from evaluator.ledger.store import Ledger, active_submissions
from evaluator.render.results.board import tier_cell
from tests.helpers.parts import spec_dict
from tests.helpers.paths import REPO

SLUG = "toy-tiers"


def _row(n: int, who: str, accuracy: float, paired: dict | None = None) -> dict:
    row = {"type": "submission", "digest": f"{n:x}" * 64, "slug": SLUG, "version": 1,
           "participant": who, "entrant": "human", "scores": {"accuracy": accuracy,
                                                               "macro_f1": accuracy},
           "scored_at": f"2026-12-0{n}T00:00:00Z"}
    if paired is not None:
        row["paired"] = {"score": "accuracy", "part": "public", "level": 0.95,
                         "test": "paired-bootstrap-percentile", "resamples": 2000,
                         "unit": "rows", "vs": paired}
    return row


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A competition folder (only its spec is read) and a ledger whose rows recorded paired
    comparisons: bob is significantly below alice, carol not below bob, dave has none."""
    folder = tmp_path / "competitions" / SLUG
    folder.mkdir(parents=True)
    (folder / "competition.yaml").write_text(yaml.safe_dump(spec_dict(SLUG)))
    alice, bob = "1" * 64, "2" * 64
    rows = [_row(1, "alice", 0.9),
            _row(2, "bob", 0.8, {alice: {"diff": -0.1, "low": -0.2, "high": -0.01}}),
            _row(3, "carol", 0.79, {bob: {"diff": -0.01, "low": -0.05, "high": 0.03}}),
            _row(4, "dave", 0.5)]
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp_path


def _results(repo: Path, capsys, *extra: str) -> str:
    capsys.readouterr()
    assert main(["results", "standings", SLUG, "--ledger", str(repo / "ledger.jsonl"),
                 "--competitions", str(repo / "competitions"), *extra]) == 0
    return capsys.readouterr().out


def test_markdown_shows_the_tier_first_and_the_rank_second(repo, capsys):
    out = _results(repo, capsys)
    assert "| Tier | Rank | Participant |" in out
    assert "Test: paired-bootstrap-percentile at 95 %, on the public part" in out
    assert "| 1 | 1 | alice |" in out
    assert "| 2 | 2 | bob |" in out and "+0.100 [+0.010, +0.200]" in out
    assert "| 2 | 3 | carol |" in out  # not significantly below bob: bob's tier
    assert "| 3° | 4 | dave |" in out  # no comparison, no intervals: the scores decide
    assert "point scores (no paired comparison" in out


def test_csv_and_json_carry_the_same_tiers_as_the_boards(repo, capsys):
    spec = load_spec(repo / "competitions" / SLUG)
    table = standings(spec, active_submissions(Ledger(repo / "ledger.jsonl").rows()))
    expected = [(tier_cell(t), e.rank, e.row["participant"])
                for e, t in zip(table, board_tiers(spec, table), strict=True)]
    data = json.loads(_results(repo, capsys, "--json"))["competitions"][SLUG]
    assert (data["test"], data["level"], data["part"]) == (
        "paired-bootstrap-percentile", 0.95, "public")
    assert [(e["tier_mark"], e["rank"], e["participant"]) for e in data["entries"]] == expected
    assert [e["boundary"] for e in data["entries"]] == ["", "paired", "paired", "point"]
    rows = list(csv.DictReader(io.StringIO(_results(repo, capsys, "--format", "csv"))))
    assert list(rows[0])[:3] == ["competition", "tier", "rank"]
    assert [(r["tier"], r["rank"]) for r in rows] == [("1", "1"), ("2", "2"), ("2", "3"),
                                                     ("3", "4")]
    assert {r["level"] for r in rows} == {"0.95"}


def test_an_unknown_competition_is_named(repo, capsys):
    assert main(["results", "standings", "nope", "--ledger", str(repo / "ledger.jsonl"),
                 "--competitions", str(repo / "competitions")]) == 2
    assert "no competition 'nope'" in capsys.readouterr().err


def test_the_repository_standings_match_its_boards(capsys):
    """The committed ledger: every competition's standings say what its board says."""
    capsys.readouterr()
    assert main(["results", "standings", "--json", "--root", str(REPO)]) == 0
    data = json.loads(capsys.readouterr().out)["competitions"]
    for slug, c in data.items():
        board = (REPO / "leaderboard" / f"{slug}.md").read_text()
        lines = [line for line in board.splitlines() if line.startswith("| ")]
        for e in c["entries"][:3]:
            line = next(x for x in lines if f" | {e['participant']} | " in x)
            assert line.startswith(f"| {e['tier_mark']} | {e['rank']}"), (slug, e, line)
