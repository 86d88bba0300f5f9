"""The code track's leaderboard: a board the core renderer and linter understand.

Why not a `competition.yaml`: that schema describes prediction competitions (targets, splits,
hidden labels, envelopes) and every GNN tool reads it; a code-track folder has none of those. A
`CodeBoard` instead offers exactly what ranking and the index page use (`slug`, `version`,
`rank_by`, `title`, `task`, `difficulty`, `primary_score`, `higher_is_better`), so the ledger's
code-track rows rank with the same `evaluator.ledger.ranking.standings` as every other competition
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

from evaluator.competition.boards import register
from evaluator.competition.spec import RankKey, Submission, SubmissionLimits, load_specs
from evaluator.ledger.ranking import Entry, standings

README_SECTIONS = ("## The problems", "## Submit", "## Rules", "## Scoring and ranking")
ALLOWED_TOP = {"README.md", "submissions", "__pycache__", "case-seed.json", "release"}


@dataclass(frozen=True)
class CodeBoard:
    """One code-track competition: identity, ranking and submission bounds."""

    slug: str = "graph-coding"
    version: int = 1  # rows carry it; equals evaluator.codetrack.submission.VERSION (tested)
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
        limits=SubmissionLimits(per_version=30, per_day=3)))
    max_solution_bytes: int = 64 * 1024
    max_metadata_bytes: int = 4 * 1024
    csv_scores: tuple[str, ...] = ("pass_rate", "passed", "cases", "problems_solved", "problems")

    @property
    def primary_score(self) -> str:
        return self.rank_by[0].score

    def higher_is_better(self, score: str) -> bool:
        for key in self.rank_by:
            if key.score == score:
                return key.order == "desc"
        raise KeyError(f"{self.slug} ranks by {[k.score for k in self.rank_by]}, not {score!r}")

    def lint_folder(self, folder: Path) -> list[str]:
        """Problems of this board's competitions/<slug> folder (called by authoring.lint)."""
        return lint_code_folder(folder, self)

    def markdown_page(self, rows: list[dict[str, Any]], **context: Any) -> str:
        """This board's markdown leaderboard (called by render.boards.write_leaderboards)."""
        return board_page(self, rows, **context)

    def site_page(self, rows: list[dict[str, Any]], table: list[Entry], *,
                  shown: int = 100) -> dict[str, Any]:
        """Plain data of this board's site page (called by evaluator.render.site.build)."""
        return site_page(self, table, shown)

    def rescore_row(self, row: dict[str, Any]) -> dict[str, Any] | None:
        """What `gnncb ledger rescore graph-coding` changes in one active row (None: nothing).

        Rows scored before the pass rate had an interval get it from their own per-problem
        counts (the interval depends on nothing else), so no solution is re-judged and the
        score stays as it is."""
        if (row.get("intervals") or {}).get("pass_rate"):
            return None
        from evaluator.codetrack.intervals import row_interval

        return {"scores": row["scores"], "basis": "pass-rate-interval-v1",
                "intervals": {"pass_rate": row_interval(row, slug=self.slug,
                                                        version=self.version)},
                "reason": "adds the 95% pass-rate interval over problems, computed from the "
                          "row's own per-problem counts (scores unchanged, nothing re-judged)"}

    @property
    def submissions(self) -> str:
        """Repository path of the submission folders, e.g. competitions/graph-coding/submissions."""
        return f"competitions/{self.slug}/submissions"


BOARDS: dict[str, CodeBoard] = {b.slug: register(b) for b in (CodeBoard(),)}


def is_board(obj: object) -> bool:
    return isinstance(obj, CodeBoard)


def boards_in(competitions: Path) -> list[CodeBoard]:
    """The boards whose folder exists in a competitions folder (the repository opens them)."""
    return [b for slug, b in BOARDS.items() if (Path(competitions) / slug).is_dir()]


def load_all_specs(competitions: Path) -> list[Any]:
    """Everything a competitions folder ranks: each competition's spec, then the code track's
    boards whose folder is there (what `gnncb leaderboard render` and `gnncb site build` draw).
    """
    return [*load_specs(competitions), *boards_in(competitions)]


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


def board_page(board: CodeBoard, rows: list[dict[str, Any]], *, table: list[Entry] | None = None,
               **context: Any) -> str:
    """Markdown of the board: the top participants' latest submissions, by pass rate.

    `context` is `evaluator.render.boards.board_context` (ledger, top N, CSV); `table` the standings
    when the caller ranked already."""
    from evaluator.render.boards import TOP, board_context, ledger_label, render
    from evaluator.render.results.board import annotate, interval_note

    table = table if table is not None else standings(board, rows)
    context = {**board_context(board.slug, len(table), ledger_label(None), TOP), **context}
    shown = table[:context["top"]]
    entries = []
    for e, extra in zip(shown, annotate(board, [e.row for e in shown]), strict=True):
        r = e.row
        s = r["scores"]
        iv = extra["interval"]
        entries.append({
            "ci": Markup(f"[{100 * iv['low']:.2f}, {100 * iv['high']:.2f}] %")  # noqa: S704
            if iv else Markup("–"), "overlap": extra["overlap"],
            "rank": e.rank, "participant": r["participant"], "entrant": r["entrant"],
            "method": r.get("method", ""), "model": r.get("model", ""),
            "pass_rate": _percent(s.get("pass_rate")), "passed": int(s.get("passed", 0)),
            "cases": int(s.get("cases", 0)), "solved": int(s.get("problems_solved", 0)),
            "problems": int(s.get("problems", 0)), "submissions": e.submissions,
            "date": (r.get("submitted_at") or r.get("scored_at") or "")[:10],
            "digest_seeded": digest_seeded(r),
        })
    return render("leaderboard_codetrack.md.j2", board=board, entries=entries,
                  interval_note=interval_note(board, [e.row for e in shown]), **context)


def digest_seeded(row: dict[str, Any]) -> bool:
    """Was the row judged on cases seeded by its files' digest alone (before its version
    committed to a case secret)? Such cases were computable by whoever held the files, so the
    board marks the row instead of presenting it as judged like the rest."""
    return (row.get("declared") or {}).get("seed_source") == "digest"


def site_page(board: CodeBoard, table: list[Entry], shown: int) -> dict[str, Any]:
    """Standings plus pass rates per direction, concept and difficulty (from the ledger's
    per-problem counts of every counted entry) and per prompt variant (vanilla vs SSD)."""
    from evaluator.codetrack.problem import all_problems
    from evaluator.render.results.board import annotate
    from evaluator.render.site.views import entry_id, interval_bounds, kind_of

    problems = all_problems()
    entries = []
    for e, extra in zip(table[:shown], annotate(board, [e.row for e in table[:shown]]),
                        strict=True):
        r, s = e.row, e.row.get("scores", {})
        entries.append({"overlap": extra["overlap"],
            "rank": e.rank, "id": entry_id(r), "participant": r.get("participant", ""),
            "kind": kind_of(r), "entrant": r.get("entrant", ""), "method": r.get("method", ""),
            "model": r.get("model", ""), "team": r.get("team", ""), "row": r,
            "scores": {k.score: s.get(k.score) for k in board.rank_by},
            "primary": s.get("pass_rate"), "interval": interval_bounds(r, "pass_rate"),
            "submissions": e.submissions,
            "date": (r.get("submitted_at") or r.get("scored_at") or "")[:10],
            "cells": [f"{100 * float(s.get('pass_rate', 0)):.2f} %"
                      + (" ᵈ" if digest_seeded(r) else ""),
                      (f"{100 * iv[0]:.2f} – {100 * iv[1]:.2f} %"
                       if (iv := interval_bounds(r, "pass_rate")) else "not recorded"),
                      f"{int(s.get('passed', 0))} / {int(s.get('cases', 0))}",
                      f"{int(s.get('problems_solved', 0))} / {int(s.get('problems', 0))}"]})
    groups: dict[str, dict[str, list[int]]] = {"direction": {}, "concept": {}, "difficulty": {}}
    variants: dict[str, list[float]] = {}
    for e in table:
        r = e.row
        for pid, got in (r.get("per_problem") or {}).items():
            p = problems.get(pid)
            if p is None or not isinstance(got, dict):
                continue
            for name, key in (("direction", "directed" if p.directed else "undirected"),
                              ("concept", p.concept), ("difficulty", p.difficulty)):
                acc = groups[name].setdefault(key, [0, 0])
                acc[0] += int(got.get("passed", 0))
                acc[1] += int(got.get("cases", 0))
        llm = (r.get("declared") or {}).get("llm") or {}
        if kind_of(r) == "llm":
            variant = str(llm.get("prompt_variant") or "vanilla")
            variants.setdefault(variant, []).append(float(r["scores"].get("pass_rate", 0)))
    sections = []
    for name in ("direction", "concept", "difficulty"):
        rows_ = [[key, f"{passed} / {cases}", f"{100 * passed / cases:.2f} %" if cases else "–"]
                 for key, (passed, cases) in sorted(groups[name].items())]
        sections.append({"title": f"Pass rate per {name}", "header": [name, "passed / cases",
                                                                       "pass rate"],
                         "rows": rows_, "svg": "", "note": "" if rows_ else
                         "No judged submission yet.",
                         "caption": f"Cases passed per {name}, over every counted entry's "
                         "solutions (problems an entry left unsolved are not counted here, "
                         "unlike the pass rate of the standings)"})
    sections.append({
        "title": "Vanilla vs SSD prompting (LLM entries)", "header": ["prompt variant",
                                                                     "entries", "mean pass rate"],
        "rows": [[v, str(len(xs)), f"{100 * sum(xs) / len(xs):.2f} %"]
                 for v, xs in sorted(variants.items())], "svg": "",
        "note": "" if variants else "No LLM entry on this board yet.",
        "caption": "Counted LLM entries by the prompt variant their run recorded"})
    sections += strength_and_structure_sections(table)
    csv_text, json_text = problem_data(table)
    return {"files": [{"name": f"{board.slug}-problems.csv", "body": csv_text},
                      {"name": f"{board.slug}-problems.json", "body": json_text}],
            "files_note": "Per-problem solve rates (entries that pass every case of a problem, "
            "and the share of cases passed) with suite strength, as data:",
            "about": f"Code track {board.slug} version {board.version}: each submission is "
            "judged on its own generated cases, drawn from its files' sha256 and the version's "
            "secret (committed in advance, revealed after the version closes); ranked by pass "
            "rate, then problems solved." + (
                " ᵈ: judged on cases seeded by the sha256 of its files alone, before the "
                "version committed to a case secret (cases anyone holding the files could "
                "compute)." if any(digest_seeded(e.row) for e in table[:shown]) else ""),
            "columns": ["pass rate", "95 % interval (problems resampled)", "passed / cases",
                        "problems solved"], "entries": entries,
            "sections": sections}


PROBLEM_DATA_HEADER = ("problem", "title", "direction", "concept", "difficulty", "entries",
                       "entries_solved", "solve_rate", "cases_passed", "cases", "pass_rate",
                       "mutants_killed", "best_constant")


def problem_figures(table: list[Entry]) -> dict[str, dict[str, Any]]:
    """Per problem, over the counted entries that submitted it: entries, entries that passed
    every case (solved), cases passed and judged, and the suite figures recorded with each."""
    out: dict[str, dict[str, Any]] = {}
    for e in table:
        for pid, got in (e.row.get("per_problem") or {}).items():
            if not isinstance(got, dict):
                continue
            f = out.setdefault(pid, {"entries": 0, "solved": 0, "passed": 0, "cases": 0,
                                     "killed": [], "constant": []})
            passed, cases = int(got.get("passed", 0)), int(got.get("cases", 0))
            f["entries"] += 1
            f["solved"] += bool(cases) and passed == cases
            f["passed"] += passed
            f["cases"] += cases
            suite = got.get("suite") or {}
            for name in ("killed", "constant"):
                if isinstance(suite.get(name), int | float):
                    f[name].append(float(suite[name]))
    return out


def problem_data(table: list[Entry]) -> tuple[str, str]:
    """The per-problem solve rates as downloadable data: (CSV, JSON) with one row per problem
    of the track (problems no entry submitted have empty rates). Why: the page's tables are for
    reading; a reader who wants to compare problems or plot them needs the numbers."""
    import csv
    import io
    import json

    from evaluator.codetrack.problem import all_problems

    figures = problem_figures(table)

    def ratio(a: float, b: float) -> float | None:
        return round(a / b, 6) if b else None

    def mean(xs: list[float]) -> float | None:
        return round(sum(xs) / len(xs), 6) if xs else None

    records = []
    for pid, p in sorted(all_problems().items()):
        f = figures.get(pid, {"entries": 0, "solved": 0, "passed": 0, "cases": 0,
                              "killed": [], "constant": []})
        records.append(dict(zip(PROBLEM_DATA_HEADER, (
            pid, p.title, "directed" if p.directed else "undirected", p.concept, p.difficulty,
            f["entries"], f["solved"], ratio(f["solved"], f["entries"]), f["passed"],
            f["cases"], ratio(f["passed"], f["cases"]), mean(f["killed"]),
            mean(f["constant"])), strict=True)))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(PROBLEM_DATA_HEADER)
    for r in records:
        writer.writerow(["" if v is None else v for v in r.values()])
    return buffer.getvalue(), json.dumps(records, indent=1, ensure_ascii=False) + "\n"


def _family(row: dict[str, Any]) -> tuple[str, str]:
    """(model, family) of an entry: an LLM's model id and its family (the id up to the first
    '-', e.g. qwen2.5 of qwen2.5-coder-7b-instruct); humans are their own family."""
    model = str(row.get("model") or "")
    if not model:
        return str(row.get("participant", "")), str(row.get("entrant") or "human")
    return model, model.split("/")[-1].split("-")[0]


def strength_and_structure_sections(table: list[Entry]) -> list[dict[str, Any]]:
    """Suite strength beside the pass rates (per problem and category: the share of mutants
    the entries' cases kill and the best constant answer's pass rate, flagged above
    discrimination.TRIVIAL_FLAG) and failure structures per model and family (how often a
    minimal counterexample needs a self-loop, an isolated node, ...; shrink.FEATURES)."""
    from evaluator.codetrack.discrimination import TRIVIAL_FLAG
    from evaluator.codetrack.shrink import FEATURES

    strength: dict[str, dict[str, list[float]]] = {}
    by_category: dict[str, dict[str, list[float]]] = {}
    rates = {pid: [f["passed"], f["cases"]] for pid, f in problem_figures(table).items()}
    structures: dict[tuple[str, str], list[int]] = {}
    for e in table:
        model, family = _family(e.row)
        for pid, got in (e.row.get("per_problem") or {}).items():
            if not isinstance(got, dict):
                continue
            suite = got.get("suite") or {}
            for target, key, figures in ((strength, pid, suite),
                                         *((by_category, cat, f) for cat, f in
                                           (suite.get("categories") or {}).items())):
                slot = target.setdefault(key, {"killed": [], "constant": []})
                for name in ("killed", "constant"):
                    if isinstance(figures.get(name), int | float):
                        slot[name].append(float(figures[name]))
            found = got.get("features")
            if isinstance(found, list):
                counts = structures.setdefault((model, family), [0] * (len(FEATURES) + 1))
                counts[0] += 1
                for k, name in enumerate(FEATURES, 1):
                    counts[k] += name in found

    def mean(xs: list[float]) -> float | None:
        return sum(xs) / len(xs) if xs else None

    def pct(x: float | None) -> str:
        return "–" if x is None else f"{100 * x:.1f} %"

    def strength_rows(figures: dict[str, dict[str, list[float]]], with_rate: bool
                      ) -> list[list[str]]:
        out = []
        for key, f in sorted(figures.items()):
            constant = mean(f["constant"])
            row = [key]
            if with_rate:
                passed, cases = rates.get(key, [0, 0])
                row.append(f"{100 * passed / cases:.2f} %" if cases else "–")
            out.append([*row, pct(mean(f["killed"])), pct(constant),
                        "trivial answer passes too much" if constant is not None
                        and constant > TRIVIAL_FLAG else ""])
        return out

    flag = (f"flagged where the best constant answer passes more than {TRIVIAL_FLAG:.0%} of "
            "the cases, so the pass rate says little")
    problem_rows = strength_rows(strength, True)
    category_rows = strength_rows(by_category, False)
    structure_rows = [[model, family, str(c[0]), *(str(x) for x in c[1:])]
                      for (model, family), c in sorted(structures.items())]
    return [
        {"title": "Suite strength per problem", "svg": "",
         "header": ["problem", "pass rate", "mutants killed", "best constant passes", "flag"],
         "rows": problem_rows, "note": "" if problem_rows else "No suite figures recorded yet.",
         "caption": "Beside each problem's pass rate: the share of its classic wrong solutions "
         "(mutants) that the entries' cases kill and the best constant answer's pass rate, "
         "means over counted entries; " + flag},
        {"title": "Suite strength per category", "svg": "",
         "header": ["category", "mutants killed", "best constant passes", "flag"],
         "rows": category_rows, "note": "" if category_rows else
         "No suite figures recorded yet.",
         "caption": "The same figures per graph category, over every problem; " + flag},
        {"title": "Failure structures per model", "svg": "",
         "header": ["model", "family", "failures shrunk", *FEATURES],
         "rows": structure_rows, "note": "" if structure_rows else
         "No failure has been shrunk yet.",
         "caption": "How many of each entry's minimal counterexamples (each failing problem's "
         "first failure, shrunk in the sandbox) have each structure, summed per model"},
    ]


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
    problems += _case_seed_problems(folder, board)
    return problems


def _case_seed_problems(folder: Path, board: CodeBoard) -> list[str]:
    """The case-seed commitment never changes once a row was judged under it (the rows of the
    repository's ledger beside `competitions/`)."""
    from evaluator.codetrack.caseseed import commitment_problems
    from evaluator.ledger.store import Ledger

    ledger = folder.resolve().parent.parent / "leaderboard" / "ledger.jsonl"
    rows = Ledger(ledger).rows() if ledger.is_file() else []
    return commitment_problems(folder, board.slug, board.version, rows)


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
