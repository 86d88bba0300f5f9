"""No GitHub login can take a platform entrant's place, and no pull request can declare one.

Earlier a user whose login was `baseline-gnn` was accepted as that participant and replaced the
platform's baseline on the board, and a human could declare `entrant: baseline` (appearing in
the README's Baselines table) or `llm-api` (tainting the human-vs-LLM comparison). Platform
entrants now live under `baseline:`, `llm:` and `agent:` names, which GitHub logins cannot
contain, and a pull request is always entrant `human`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaluator.cli import main
from evaluator.competition.spec import load_spec
from evaluator.ledger.ranking import standings
from evaluator.ledger.store import Ledger
from evaluator.submission.identity import check_participant, migrate_row, platform_participant
from tests.helpers.arena import Arena, run_pr
from tests.helpers.fake_github import FakeGitHub


def legacy_row(participant: str, entrant: str, accuracy: float, **extra: Any) -> dict:
    """A row as the platform wrote it before namespaces (login-shaped name, no account id)."""
    return {"type": "submission", "digest": f"{abs(hash(participant)):064x}"[:64],
            "slug": "toy-nodes", "version": 1, "participant": participant,
            "participant_id": None, "entrant": entrant, "method": "reference", "model": "",
            "scores": {"accuracy": accuracy, "macro_f1": accuracy}, "pr": None,
            "submitted_at": "2026-01-01T00:00:00Z", "scored_at": "2026-01-01T00:00:00Z",
            **extra}


def _meta(login: str, **fields: Any) -> bytes:
    return json.dumps({"participant": login, "method": "GCN", **fields}).encode()


@pytest.mark.slow
@pytest.mark.parametrize("login, legacy, entrant", [
    ("baseline-gnn", "baseline-gnn", "baseline"),
    ("llm-gpt-4o", "llm-gpt-4o", "llm-api"),
])
def test_a_login_named_like_a_platform_entrant_does_not_replace_it(
        arena: Arena, fake: FakeGitHub, login: str, legacy: str, entrant: str) -> None:
    arena.commit_rows([legacy_row(legacy, entrant, 0.55)])
    folder = f"competitions/toy-nodes/submissions/{login}"
    files = {f"{folder}/predictions.csv.enc": arena.envelope("toy-nodes", login),
             f"{folder}/metadata.json": _meta(login)}
    fake.open_pr(1, login, files, author_id=4242)
    result, _ = run_pr(arena, fake, 1)
    assert result.status == "accepted", result.reason
    assert result.row["entrant"] == "human" and result.row["participant"] == login
    root = arena.clone()
    rows = Ledger(root / "leaderboard" / "ledger.jsonl").rows()
    table = standings(load_spec(root / "competitions" / "toy-nodes"), rows)
    by_name = {e.row["participant"]: e.row for e in table}
    namespaced = f"{legacy.split('-')[0].replace('llm', 'llm')}:{legacy.split('-', 1)[1]}"
    assert set(by_name) == {login, namespaced}  # two entries: nothing was replaced
    assert by_name[namespaced]["entrant"] == entrant
    assert by_name[namespaced]["scores"]["accuracy"] == 0.55
    assert by_name[login]["entrant"] == "human"
    board = (root / "leaderboard" / "toy-nodes.md").read_text()
    assert "baseline" in board or "llm" in board
    # the committed legacy line is untouched (migration happens in reading only)
    assert arena.rows()[0]["participant"] == legacy


@pytest.mark.parametrize("entrant", ["baseline", "llm-api", "llm-agent"])
def test_a_pull_request_cannot_declare_a_platform_entrant(arena: Arena, fake: FakeGitHub,
                                                          entrant: str) -> None:
    folder = "competitions/toy-nodes/submissions/alice"
    files = {f"{folder}/predictions.csv.enc": arena.envelope("toy-nodes", "alice"),
             f"{folder}/metadata.json": _meta("alice", entrant=entrant, model="gpt-4o")}
    fake.open_pr(1, "alice", files)
    head = arena.head()
    result, _ = run_pr(arena, fake, 1)
    assert (result.status, result.code) == ("rejected", "invalid-metadata")
    assert "reserved for the platform's own runs" in result.reason
    assert arena.head() == head and arena.rows() == []
    assert "reserved for the platform" in fake.bot_comments(1)[0]


def test_an_envelope_sealed_for_a_platform_name_is_refused_from_a_pr(
        arena: Arena, fake: FakeGitHub) -> None:
    folder = "competitions/toy-nodes/submissions/alice"
    files = {f"{folder}/predictions.csv.enc": arena.envelope("toy-nodes", "alice",
                                                             claim="baseline:gnn"),
             f"{folder}/metadata.json": _meta("alice")}
    fake.open_pr(1, "alice", files)
    result, _ = run_pr(arena, fake, 1)
    assert (result.status, result.code) == ("rejected", "claim-mismatch")
    assert arena.rows() == []


def test_old_pr_rows_that_declared_a_platform_kind_read_as_human() -> None:
    row = legacy_row("eve", "baseline", 0.9, pr=12, participant_id=99)
    migrated = migrate_row(row)
    assert migrated["entrant"] == "human" and migrated["declared_entrant"] == "baseline"
    assert migrated["participant"] == "eve"
    old = legacy_row("baseline-nongraph", "baseline", 0.5)
    assert migrate_row(old)["participant"] == "baseline:nongraph"
    assert migrate_row(old)["legacy_participant"] == "baseline-nongraph"


@pytest.mark.slow
def test_local_evaluate_keeps_kinds_apart(arena: Arena, tmp_path: Path, capsys: Any) -> None:
    """`gnncb evaluate` (the maintainer's tool) applies the same rule: a login is human, a
    platform name must carry its own kind."""
    root = arena.clone()
    key = tmp_path / "private.pem"
    key.write_text(arena.keypair.pem)
    ledger = tmp_path / "ledger.jsonl"

    def evaluate(participant: str, entrant: str) -> int:
        sub = tmp_path / f"sub-{participant.replace(':', '_')}-{entrant}"
        sub.mkdir()
        (sub / "predictions.csv.enc").write_bytes(arena.envelope("toy-nodes", participant))
        (sub / "metadata.json").write_bytes(_meta(participant, entrant=entrant,
                                                  model="m" if "llm" in entrant else ""))
        return main(["evaluate", "--competition", str(root / "competitions" / "toy-nodes"),
                     "--submission", str(sub), "--participant", participant,
                     "--private-key", str(key), "--ledger", str(ledger)])

    assert evaluate("alice", "baseline") == 1
    assert "reserved for the platform's own runs" in capsys.readouterr().err
    assert evaluate("baseline:gnn", "human") == 1
    assert "is a 'baseline' name" in capsys.readouterr().err
    assert evaluate("baseline:gnn", "llm-api") == 1
    assert not ledger.exists() or Ledger(ledger).rows() == []
    assert evaluate("baseline:gnn", "baseline") == 0
    assert [r["participant"] for r in Ledger(ledger).rows()] == ["baseline:gnn"]


def test_namespaces_cannot_be_logins() -> None:
    assert platform_participant("llm-api", "gpt-4o") == "llm:gpt-4o"
    assert platform_participant("llm-agent", "my-agent.v1") == "agent:my-agent.v1"
    with pytest.raises(ValueError, match="reserved"):
        check_participant("baseline-gnn", "baseline")
    with pytest.raises(ValueError, match="neither a GitHub login"):
        check_participant("llm:Bad Name", "llm-api")
