"""The guards both pull-request pipelines share (`evaluator.ci.guards`) and the verdict base they
share (`evaluator.ci.result.ResultBase`): phase 1 of each pipeline reads the ledger only through
`ReadOnlyLedger`, a PR that moves while its files are listed is left to the run for its new
commit, and the two artifacts keep the exact bytes they had before the base existed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaluator.ci.code.result import CodeResult, write_code_result
from evaluator.ci.code.score import judge_code_pr
from evaluator.ci.github import GitHubClient
from evaluator.ci.guards import HeadMoved, ReadOnlyLedger
from evaluator.ci.predictions.score import score_pr
from evaluator.ci.result import ProblemItem, Result, ResultBase, write_result
from evaluator.errors import ConfigError, Rejection
from evaluator.ledger.store import Ledger
from tests.ci.helpers import PER_CELL, code_files
from tests.helpers.arena import Arena, client
from tests.helpers.fake_github import BOT_LOGIN, READ_TOKEN, FakeGitHub

PIPELINES = ("predictions", "code")
EARLIER = {"type": "submission", "digest": "e" * 64, "slug": "toy-nodes", "version": 1,
           "participant": "carol", "participant_id": 3, "entrant": "human", "method": "m",
           "scores": {"accuracy": 0.5, "macro_f1": 0.5}, "pr": 90,
           "submitted_at": "2020-01-01T00:00:00Z", "scored_at": "2020-01-01T00:00:00Z"}


def judge_stops(*args: Any, **kwargs: Any) -> Any:
    """The code track's judge, reached only after every ledger read of phase 1."""
    raise Rejection("the test's judge stops here", code="judged")


def open_pr(pipeline: str, arena: Arena, fake: FakeGitHub) -> None:
    files = arena.files("toy-nodes", "alice") if pipeline == "predictions" else code_files("alice")
    fake.open_pr(1, "alice", files, author_id=7)


def phase_one(pipeline: str, arena: Arena, github: GitHubClient, root: Path) -> ResultBase:
    if pipeline == "predictions":
        return score_pr(github, 1, root=root, load_keys=lambda: arena.keypair.private,
                        bot_login=BOT_LOGIN)
    return judge_code_pr(github, 1, root=root, bot_login=BOT_LOGIN, per_cell=PER_CELL, jobs=1,
                         judge=judge_stops)


@pytest.fixture
def ledgers(monkeypatch: pytest.MonkeyPatch) -> list[Ledger]:
    """Every ledger object made while the test runs."""
    made: list[Ledger] = []
    init = Ledger.__init__

    def spy(self: Ledger, path: Path) -> None:
        init(self, path)
        made.append(self)

    monkeypatch.setattr(Ledger, "__init__", spy)
    return made


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_phase_one_reads_the_ledger_only_through_the_read_only_ledger(
        pipeline: str, code_arena: Arena, fake: FakeGitHub, ledgers: list[Ledger]) -> None:
    code_arena.commit_rows([EARLIER])
    open_pr(pipeline, code_arena, fake)
    root = code_arena.clone()
    ledger = root / "leaderboard" / "ledger.jsonl"
    before = ledger.read_bytes()

    result = phase_one(pipeline, code_arena, client(fake, READ_TOKEN), root)

    assert (result.status, result.code) == (("accepted", "") if pipeline == "predictions"
                                            else ("rejected", "judged"))
    assert ledgers and all(type(made) is ReadOnlyLedger for made in ledgers), ledgers
    assert ledger.read_bytes() == before
    assert sorted(p.name for p in ledger.parent.iterdir()) == [".gitkeep", "ledger.jsonl"]
    # the predictions pipeline's append went to memory, not to the file
    captured = [row for made in ledgers for row in made.captured]  # type: ignore[attr-defined]
    assert captured == ([result.row] if pipeline == "predictions" else [])


def test_the_read_only_ledger_cannot_write(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    path.write_text(json.dumps(EARLIER) + "\n")
    before = path.read_bytes()
    ledger = ReadOnlyLedger(path)
    row = {**EARLIER, "digest": "f" * 64}
    assert ledger.append(row) and ledger.captured == [row]
    assert ledger.append_checked(row, lambda rows: None) is None
    assert path.read_bytes() == before and ledger.rows() == [EARLIER]
    assert [p.name for p in tmp_path.iterdir()] == ["ledger.jsonl"]  # no lock file either
    with pytest.raises(ConfigError, match="never writes"):
        ledger._write([json.dumps(row) + "\n"])
    assert path.read_bytes() == before


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_a_pr_pushed_to_while_its_files_are_listed_is_left_to_the_next_run(
        pipeline: str, code_arena: Arena, fake: FakeGitHub) -> None:
    open_pr(pipeline, code_arena, fake)
    github = client(fake, READ_TOKEN)
    listed = github.pull_files

    def listed_then_pushed(number: int) -> Any:
        files = listed(number)
        fake.push(number, code_files("alice", {"lc997": b"x = 1\n"}))
        return files

    github.pull_files = listed_then_pushed  # type: ignore[method-assign]
    verb = "evaluates" if pipeline == "predictions" else "judges"
    with pytest.raises(HeadMoved, match=f"the run for the new commit {verb} it"):
        phase_one(pipeline, code_arena, github, code_arena.clone())


# -- the artifacts keep their bytes -------------------------------------------------------------

RESULT_JSON = """{
  "schema_version": 1,
  "repo": "gnncb/arena",
  "pr": 4,
  "head_sha": null,
  "author_login": "bob",
  "author_id": null,
  "status": "rejected",
  "code": "extra-file",
  "reason": "no",
  "problems": [
    {
      "path": "x",
      "reason": "y"
    }
  ],
  "slug": null,
  "scores": {},
  "duplicate": false,
  "already_recorded": false,
  "remaining_version": null,
  "remaining_today": null,
  "row": null,
  "envelope_blob_sha": null,
  "digest": null
}
"""

CODE_RESULT_JSON = """{
  "schema_version": 1,
  "kind": "code",
  "repo": "gnncb/arena",
  "pr": 6,
  "head_sha": null,
  "author_login": "carol",
  "author_id": null,
  "status": "skipped",
  "code": "closed",
  "reason": "pull request #6 is closed; nothing to judge",
  "problems": [],
  "slug": null,
  "digest": null,
  "files": {},
  "row": null,
  "duplicate": false,
  "already_recorded": false,
  "remaining_version": null,
  "remaining_today": null,
  "feedback": []
}
"""


def test_both_artifacts_are_written_byte_for_byte_as_before(tmp_path: Path) -> None:
    write_result(Result(repo="gnncb/arena", pr=4, author_login="bob", status="rejected",
                        code="extra-file", reason="no",
                        problems=[ProblemItem(path="x", reason="y")]), tmp_path / "r.json")
    write_code_result(CodeResult(kind="code", repo="gnncb/arena", pr=6, author_login="carol",
                                 status="skipped", code="closed",
                                 reason="pull request #6 is closed; nothing to judge"),
                      tmp_path / "c.json")
    assert (tmp_path / "r.json").read_text() == RESULT_JSON
    assert (tmp_path / "c.json").read_text() == CODE_RESULT_JSON


def test_a_verdict_model_must_place_every_field_in_its_json() -> None:
    with pytest.raises(TypeError, match="JSON_ORDER"):
        class Forgetful(ResultBase):  # a new field that the artifact would silently drop
            JSON_ORDER = ResultBase.JSON_ORDER
            extra: int = 0
