"""The code track on the shared leaderboards and in lint; the CLI wiring it relies on; the
artifact's plausibility rules (no sandbox needed here)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from evaluator.authoring.lint import lint_competition
from evaluator.ci.code.fetch import digest_of
from evaluator.ci.code.result import CodeResult, read_code_result
from evaluator.cli import GROUPS, build_parser, main
from evaluator.codetrack import submission as code_submission
from evaluator.codetrack.board import BOARDS, board_page, only_code_track
from evaluator.codetrack.cases import make_plan
from evaluator.codetrack.problem import all_problems
from evaluator.competition.spec import parse_spec
from evaluator.errors import ConfigError
from evaluator.render.boards import write_leaderboards
from tests.helpers.codetrack import code_row
from tests.helpers.paths import REPO
from tests.helpers.spec import GOOD

ROOT = REPO
BOARD = BOARDS["graph-coding"]


def cases_of(pid: str, per_cell: int = 1) -> int:
    return sum(make_plan("paper", all_problems().values(), per_cell)[pid].values())


# -- leaderboard --------------------------------------------------------------------------------


def test_rows_of_the_code_track_never_break_rendering(tmp_path: Path) -> None:
    """Even a caller that lists only prediction competitions gets the board, not an error."""
    rows = [code_row("alice", {"lc997": cases_of("lc997")})]
    written = write_leaderboards([parse_spec(GOOD)], rows, tmp_path)
    assert tmp_path / "graph-coding.md" in written
    assert "alice" in (tmp_path / "graph-coding.md").read_text()
    assert "(graph-coding.md)" in (tmp_path / "README.md").read_text()


def test_board_ranks_by_pass_rate_and_ties_share_a_rank() -> None:
    full = cases_of("lc997")
    rows = [code_row("low", {"lc997": 1}, participant_id=1),  # four accounts: four entries
            code_row("tie-a", {"lc997": full}, participant_id=2),
            code_row("tie-b", {"lc997": full}, participant_id=3),
            code_row("top", {"lc997": full, "lc1557": cases_of("lc1557")}, participant_id=4)]
    lines = [ln for ln in board_page(BOARD, rows).splitlines() if ln.startswith("| ")][2:]
    # (the helper's rows are digest-seeded, so each name carries the board's ᵈ mark)
    ranks = [(ln.split("|")[1].strip(), ln.split("|")[2].strip().removesuffix(" ᵈ"))
             for ln in lines]
    assert ranks == [("1", "top"), ("2", "tie-a"), ("2", "tie-b"), ("4", "low")]


def test_latest_submission_of_a_participant_counts() -> None:
    rows = [code_row("alice", {"lc997": cases_of("lc997")}, at="2026-01-01T00:00:00Z"),
            code_row("alice", {"lc997": 1}, at="2026-01-02T00:00:00Z")]
    page = board_page(BOARD, rows)
    assert "1 / " + str(rows[1]["scores"]["cases"]) in page and "| 2 |" in page


def test_leaderboard_render_cli_includes_the_board(tmp_path: Path) -> None:
    competitions = tmp_path / "competitions"
    shutil.copytree(ROOT / "competitions" / "graph-coding", competitions / "graph-coding")
    ledger = tmp_path / "leaderboard" / "ledger.jsonl"
    ledger.parent.mkdir()
    ledger.write_text("")
    argv = ["leaderboard", "render", "--ledger", str(ledger), "--competitions",
            str(competitions)]
    assert main(argv) == 0  # an open track with no entries yet has its page
    assert "No accepted submissions yet" in (ledger.parent / "graph-coding.md").read_text()
    ledger.write_text(json.dumps(code_row("bob", {"lc997": 2})) + "\n")
    assert main(argv) == 0
    assert "bob" in (ledger.parent / "graph-coding.md").read_text()
    index = (ledger.parent / "README.md").read_text()
    assert "(graph-coding.md)" in index and "bob" in index


def test_rows_judged_before_the_case_secret_are_marked(tmp_path: Path) -> None:
    """A row judged on digest-seeded cases (computable by whoever held the files: graph-coding
    v1's rows before its case-seed commitment) is marked ᵈ on the markdown board and the site
    page; a row drawn under the commitment is not, and without a marked row no note is
    shown."""
    from evaluator.ledger.ranking import standings

    competitions = tmp_path / "competitions"
    shutil.copytree(ROOT / "competitions" / "graph-coding", competitions / "graph-coding")
    ledger = tmp_path / "leaderboard" / "ledger.jsonl"
    ledger.parent.mkdir()
    old = code_row("early", {"lc997": 2}, participant_id=1)
    new = code_row("later", {"lc997": 1}, participant_id=2)
    new["declared"]["seed_source"] = "secret+digest"
    new["case_commitment"] = "c" * 64
    argv = ["leaderboard", "render", "--ledger", str(ledger), "--competitions",
            str(competitions)]
    for rows, marked in (([old, new], True), ([new], False)):
        ledger.write_text("".join(json.dumps(r) + "\n" for r in rows))
        assert main(argv) == 0
        page = (ledger.parent / "graph-coding.md").read_text()
        assert "| later |" in page
        assert ("| early ᵈ |" in page) is marked
        assert ("ᵈ judged on cases seeded by the sha256 of its files alone" in page) is marked
        site = BOARD.site_page(rows, standings(BOARD, rows))
        cells = {e["participant"]: e["cells"][0] for e in site["entries"]}
        assert not cells["later"].endswith("ᵈ")
        assert ("ᵈ" in site["about"]) is marked
        if marked:
            assert cells["early"].endswith(" ᵈ")


# -- lint ---------------------------------------------------------------------------------------


def test_lint_passes_on_the_shipped_code_track_folder() -> None:
    assert lint_competition(ROOT / "competitions" / "graph-coding") == []


def test_lint_catches_a_broken_code_track_folder(tmp_path: Path) -> None:
    folder = tmp_path / "graph-coding"
    folder.mkdir()
    (folder / "README.md").write_text("# Graph coding\n\n## Submit\n")
    (folder / "answers.json").write_text("{}")
    stray = folder / "submissions" / "alice" / "solutions"
    stray.mkdir(parents=True)
    (stray / "lc99999.py").write_text("")
    (folder / "submissions" / "alice" / "link").symlink_to("/etc/passwd")
    problems = "\n".join(lint_competition(folder))
    assert "missing section '## Rules'" in problems
    assert "answers.json: unexpected top-level entry" in problems
    assert "lc99999.py" in problems and "symlinks are not allowed" in problems


# -- CLI wiring and constants -------------------------------------------------------------------


def test_code_group_is_shared_and_ci_code_is_registered() -> None:
    build_parser()
    assert {"submit-score", "llm", "judge"} <= set(GROUPS["code"].choices)
    assert {"pr", "code"} <= set(GROUPS["ci"].choices)


def test_board_matches_what_submit_score_writes() -> None:
    assert (BOARD.slug, BOARD.version) == (code_submission.SLUG, code_submission.VERSION)


def test_digest_is_the_submit_score_digest(tmp_path: Path) -> None:
    sources = {"lc997.py": b"class Solution: pass\n", "lc207.py": b"x = 1\n"}
    for name, data in sources.items():
        (tmp_path / name).write_bytes(data)
    assert digest_of(sources) == code_submission.submission_digest(
        {name: tmp_path / name for name in sources})


def test_routing_only_whole_code_track_prs() -> None:
    assert only_code_track(["competitions/graph-coding/submissions/a/solutions/lc997.py"])
    assert not only_code_track([])
    assert not only_code_track(["competitions/graph-coding/submissions/a/x.py",
                                "competitions/toy/submissions/a/metadata.json"])
    assert not only_code_track(["competitions/graph-coding/../gnn-cora/x"])


# -- the artifact's plausibility rules ----------------------------------------------------------


def accepted(row: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"kind": "code", "repo": "gnncb/arena", "pr": 1, "author_login": "alice",
            "author_id": 7, "status": "accepted", "slug": "graph-coding",
            "digest": row["digest"], "row": row,
            "files": {f"{p}.py": "a" * 40 for p in row["per_problem"]}, **extra}


def test_a_consistent_artifact_reads_back(tmp_path: Path) -> None:
    data = accepted(code_row("alice", {"lc997": 3}))
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    assert read_code_result(path).row["scores"]["passed"] == 3


FORGERIES = {
    "pass rate inflated": (lambda r: r["scores"].update(pass_rate=1.0), "pass_rate"),
    "passes beyond the cases": (lambda r: r["per_problem"]["lc997"].update(passed=10**6),
                                "out of range"),
    "seed chosen, not derived": (lambda r: r.update(seed=42), "seeded by its digest"),
    "judged without the sandbox": (lambda r: r["declared"].update(isolation=["none"]),
                                   "not fully sandboxed"),
    "baseline entrant": (lambda r: r.update(entrant="baseline"), "entrant"),
    "someone else's row": (lambda r: r.update(participant="bob"), "participant"),
    "malformed counts": (lambda r: r["per_problem"].update(lc997=[1, 2]), "malformed row"),
    "interval narrowed": (lambda r: r["intervals"]["pass_rate"].update(low=0.01, high=0.011),
                          "interval is not the one its counts give"),
    "interval dropped": (lambda r: r.pop("intervals"), "interval is not the one"),
}


@pytest.mark.parametrize("name", list(FORGERIES))
def test_implausible_artifacts_are_refused(tmp_path: Path, name: str) -> None:
    row = code_row("alice", {"lc997": 3})
    forge, message = FORGERIES[name]
    forge(row)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(accepted(row)))
    with pytest.raises(ConfigError, match=message):
        read_code_result(path)


def test_an_encrypted_pipeline_artifact_is_not_a_code_result(tmp_path: Path) -> None:
    data = accepted(code_row("alice", {"lc997": 3}))
    del data["kind"]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match="kind"):
        read_code_result(path)
    with pytest.raises(ValueError):
        CodeResult.model_validate({**accepted(code_row("alice", {"lc997": 3})),
                                   "status": "rejected"})
