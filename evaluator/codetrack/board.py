"""The code track's leaderboard: a board the core renderer and linter understand.

Why not a `competition.yaml`: that schema describes prediction competitions (targets, splits,
hidden labels, envelopes) and every GNN tool reads it; a code-track folder has none of those. A
`CodeBoard` instead offers exactly what ranking and the index page use (`slug`, `version`,
`rank_by`, `title`, `task`, `difficulty`, `primary_score`, `higher_is_better`), so the ledger's
code-track rows rank with the same `evaluator.ranking.standings` as every other competition
(latest submission per participant counts, equal keys share a rank). A folder under
`competitions/` named after a board is a code-track competition: lint checks it with
`lint_code_folder`, and the pull-request pipeline for it is `.github/workflows/evaluate-code.yml`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markupsafe import Markup

from evaluator.ranking import standings
from evaluator.spec import Limits, RankKey, Submission

README_SECTIONS = ("## The problems", "## Submit", "## Rules", "## Scoring and ranking")
ALLOWED_TOP = {"README.md", "submissions", "__pycache__"}


@dataclass(frozen=True)
class CodeBoard:
    """One code-track competition: identity, ranking and submission bounds."""

    slug: str = "graph-coding"
    version: int = 1  # rows carry it; equals evaluator.commands.code.VERSION (tested)
    title: str = "Graph coding (GraphEval36K rebuilt)"
    task: str = "graph coding"
    difficulty: str = "mixed"
    per_cell: int = 10  # leaderboard cases per published cell (the README's 3,600 cases)
    rank_by: tuple[RankKey, ...] = (RankKey(score="pass_rate", order="desc"),
                                    RankKey(score="problems_solved", order="desc"))
    # Limits bound CI time and "seed shopping" (resubmitting trivial variants for luckier
    # cases); the same shape as a competition.yaml's, so pipeline.check_eligibility applies.
    # max_bytes bounds all solution files of one submission together.
    submission: Submission = field(default_factory=lambda: Submission(
        file="solutions/<problem id>.py", max_bytes=512 * 1024,
        limits=Limits(per_version=30, per_day=3)))
    max_solution_bytes: int = 64 * 1024
    max_metadata_bytes: int = 4 * 1024

    @property
    def primary_score(self) -> str:
        return self.rank_by[0].score

    def higher_is_better(self, score: str) -> bool:
        for key in self.rank_by:
            if key.score == score:
                return key.order == "desc"
        raise KeyError(f"{self.slug} ranks by {[k.score for k in self.rank_by]}, not {score!r}")

    @property
    def submissions(self) -> str:
        """Repository path of the submission folders, e.g. competitions/graph-coding/submissions."""
        return f"competitions/{self.slug}/submissions"


BOARDS: dict[str, CodeBoard] = {b.slug: b for b in (CodeBoard(),)}


def is_board(obj: object) -> bool:
    return isinstance(obj, CodeBoard)


def boards_in(competitions: Path) -> list[CodeBoard]:
    """The boards whose folder exists in a competitions folder (the repository opens them)."""
    return [b for slug, b in BOARDS.items() if (Path(competitions) / slug).is_dir()]


def boards_for(specs: Iterable[Any], rows: Iterable[dict[str, Any]]) -> list[CodeBoard]:
    """Boards passed among `specs`, plus any board the ledger has rows for (so rendering never
    fails on code-track rows even when the caller only listed prediction competitions)."""
    found = {s.slug: s for s in specs if is_board(s)}
    for r in rows:
        slug = r.get("slug")
        if slug in BOARDS and slug not in found:
            found[slug] = BOARDS[slug]
    return [found[s] for s in sorted(found)]


def code_board_of(folder: Path) -> CodeBoard | None:
    """The board a competition folder belongs to (by name, and only without competition.yaml)."""
    folder = Path(folder)
    if (folder / "competition.yaml").exists():
        return None
    return BOARDS.get(folder.resolve().name)


# -- rendering ----------------------------------------------------------------------------------


def _percent(value: Any) -> Markup:
    if value is None:
        return Markup("–")
    return Markup(f"{100 * float(value):.2f} %")  # noqa: S704 - a formatted float


def board_page(board: CodeBoard, rows: list[dict[str, Any]]) -> str:
    """Markdown of the board: every participant's latest submission, by pass rate."""
    from evaluator.render import render

    entries = []
    for e in standings(board, rows):  # type: ignore[arg-type] - duck-typed spec
        r = e.row
        s = r["scores"]
        entries.append({
            "rank": e.rank, "participant": r["participant"], "entrant": r["entrant"],
            "method": r.get("method", ""), "model": r.get("model", ""),
            "pass_rate": _percent(s.get("pass_rate")), "passed": int(s.get("passed", 0)),
            "cases": int(s.get("cases", 0)), "solved": int(s.get("problems_solved", 0)),
            "problems": int(s.get("problems", 0)), "submissions": e.submissions,
            "date": (r.get("submitted_at") or r.get("scored_at") or "")[:10],
        })
    return render("leaderboard_codetrack.md.j2", board=board, entries=entries)


# -- lint ---------------------------------------------------------------------------------------


def lint_code_folder(folder: Path, board: CodeBoard | None = None) -> list[str]:
    """Problems of a code-track competition folder (empty list = clean).

    It holds a participant-facing README and, at most, a `submissions/` tree in the PR layout;
    everything that defines the track (problems, generators, checkers) lives in the package.
    """
    folder = Path(folder)
    board = board or code_board_of(folder)
    if board is None:
        return [f"{folder}: not a code-track competition folder"]
    problems: list[str] = []
    for entry in sorted(folder.iterdir()):
        if entry.name not in ALLOWED_TOP:
            problems.append(f"{entry}: unexpected top-level entry in a code-track folder; "
                            f"allowed: {sorted(ALLOWED_TOP)}")
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            problems.append(f"{path}: symlinks are not allowed in competition folders")
    readme = folder / "README.md"
    if not readme.is_file():
        problems.append(f"{readme}: missing; it tells participants the problems, the layout "
                        "of a submission, the rules and the scoring")
    else:
        text = readme.read_text(encoding="utf-8")
        problems += [f"{readme}: missing section '{s}'" for s in README_SECTIONS
                     if s not in text]
    submissions = folder / "submissions"
    if submissions.is_dir():
        problems += _stray_submission_files(submissions)
    return problems


def _stray_submission_files(submissions: Path) -> list[str]:
    from evaluator.codetrack.problem import all_problems

    known = set(all_problems())
    out = []
    for path in sorted(p for p in submissions.rglob("*") if p.is_file()):
        parts: Sequence[str] = path.relative_to(submissions).parts
        ok = (len(parts) == 2 and parts[1] == "metadata.json") or (
            len(parts) == 3 and parts[1] == "solutions" and parts[2].endswith(".py")
            and parts[2][:-3] in known)
        if not ok and "__pycache__" not in parts:
            out.append(f"{path}: not <login>/solutions/<problem id>.py or <login>/metadata.json")
    return out


# -- routing ------------------------------------------------------------------------------------


def only_code_track(paths: Iterable[str | None]) -> bool:
    """True when there is at least one path and every path lies in a code-track competition's
    folder: such pull requests belong to evaluate-code.yml, and the encrypted-prediction
    pipeline leaves them alone. Any other path makes the PR the encrypted pipeline's (which
    then rejects what does not fit it)."""
    prefixes = tuple(f"competitions/{slug}/" for slug in BOARDS)
    seen = False
    for path in paths:
        if path is None:
            continue
        if not path.startswith(prefixes) or ".." in path.split("/"):
            return False
        seen = True
    return seen
