"""A code-track submission scored: its solutions judged on cases seeded by its own digest, and
its ledger row.

Why a library function with typed arguments: `gnncb code submit-score`, the code-track pull-
request pipeline and the LLM code track all score submissions, and each used to build the CLI's
argv and read `feedback.json` back from disk to do it. Now the verb is a thin translation of its
options into this call, and the other two call it directly with the judge configuration they
mean.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.codetrack.cases import (
    PRACTICE_SEED,
    CaseSet,
    default_cache_dir,
    ensure_case_set,
    make_plan,
    seed_from_digest,
)
from evaluator.codetrack.caseseed import FIELD, SOURCE, cases_sha256
from evaluator.codetrack.intervals import case_counts, pass_rate_interval
from evaluator.codetrack.judge import JudgeConfig
from evaluator.codetrack.problem import Problem, all_problems
from evaluator.codetrack.rundir import Candidate, judge_case_set
from evaluator.errors import ConfigError, GnncbError, Rejection
from evaluator.ledger.store import SUBMISSION, now_iso
from evaluator.submission.identity import ENTRANTS

SLUG = "graph-coding"
VERSION = 1


@dataclass(frozen=True)
class ScoredSubmission:
    """The ledger row, the first failing cases per problem, and the judge's run folder."""

    row: dict[str, Any]
    feedback: dict[str, list[dict[str, Any]]]
    run_dir: Path


def submission_digest(files: dict[str, Path]) -> str:
    """sha256 over the submitted files (name and bytes, sorted): the submission's identity and
    the source of its leaderboard seed, so no solution can carry its cases' answers."""
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(name.encode() + b"\0" + files[name].read_bytes() + b"\0")
    return h.hexdigest()


def solution_files(folder: Path, wanted: list[str] | None, registry: dict[str, Any],
                   error: type[GnncbError] = ConfigError) -> dict[str, Path]:
    """`<problem>.py` files of a folder (or of its `solutions/`), checked against the registry.

    `error` is Rejection when the folder is a participant's submission (their fault, exit 1).
    """
    if not folder.is_dir():
        raise error(f"{folder} is not a folder of <problem>.py solutions")
    if (folder / "solutions").is_dir() and not any(folder.glob("*.py")):
        folder = folder / "solutions"
    found = {p.stem: p for p in sorted(folder.glob("*.py"))}
    unknown = sorted(set(found) - set(registry))
    if unknown:
        raise error(
            f"{folder}: {', '.join(f + '.py' for f in unknown)} match no problem; name files "
            f"after problem ids ({', '.join(list(registry)[:4])}, ...)"
        )
    if wanted:
        absent = [w for w in wanted if w not in found]
        if absent:
            raise error(f"{folder} has no solution for {', '.join(absent)}")
        found = {w: found[w] for w in wanted}
    if not found:
        raise error(f"{folder} holds no <problem>.py files")
    return found


def read_metadata(solutions: Path, path: Path | None = None) -> dict[str, Any]:
    """A submission's optional metadata.json (data only: entrant, method, model): `path`, else
    the one beside the solutions folder; {} when that one is absent."""
    found = path or Path(solutions).resolve().parent / "metadata.json"
    if not found.is_file():
        if path:
            raise Rejection(f"{found} not found")
        return {}
    try:
        data = json.loads(found.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise Rejection(f"{found}: not valid JSON ({err})") from None
    if not isinstance(data, dict):
        raise Rejection(f"{found}: expected an object with entrant, method, model")
    return data


def _strength_and_structures(problem: Problem, case_set: CaseSet, judged: dict[str, Any]
                             ) -> dict[str, Any]:
    """What the board shows beside a problem's pass rate: the suite's strength on this
    submission's cases (discrimination.suite_strength) and the structures of the minimal
    counterexample of its first failure (shrink.py), if it failed."""
    from evaluator.codetrack.discrimination import suite_strength

    suite = suite_strength(problem, case_set.cases(problem.id))
    minimal = judged.get("minimal") or {}
    return {"suite": suite, "features": minimal.get("features") if "size" in minimal else None}


def score_submission(solutions: Path, *, participant: str, entrant: str = "human",
                     method: str = "", model: str = "", pr: int | None = None,
                     per_cell: int = 10, practice: bool = False, out: Path | None = None,
                     config: JudgeConfig | None = None, jobs: int = 2,
                     case_seed: dict[str, Any] | None = None) -> ScoredSubmission:
    """Judge a submission's solutions on its own seeded cases and build its ledger row.

    `case_seed`: {digest, seed, case_commitment} from `caseseed.case_seed` (the keyed seed
    job's answer, or the caller holding GNNCB_CODE_SEED): the cases are drawn from that seed,
    which must be for these files' digest, and the row records the commitment and the cases'
    hashes so `gnncb verify` can regenerate them after the reveal. Without it the cases are
    seeded by the digest alone (predictable; boards without a committed secret).

    The pass rate is over the cases of *all* problems (a problem without a solution counts as
    failed), so submitting five easy problems cannot outrank a complete submission.
    """
    registry = all_problems()
    files = solution_files(Path(solutions), None, registry, error=Rejection)
    if entrant not in ENTRANTS:
        raise Rejection(f"metadata.json: entrant {entrant!r} is not one of {', '.join(ENTRANTS)}")
    digest = submission_digest({f"{pid}.py": path for pid, path in files.items()})
    seed = PRACTICE_SEED if practice else seed_from_digest(digest)
    if case_seed is not None and not practice:
        if case_seed.get("digest") != digest:
            raise ConfigError(f"the case seed was derived for digest "
                              f"{str(case_seed.get('digest'))[:12]}, these files hash to "
                              f"{digest[:12]}; derive it again for these files")
        seed = int(case_seed["seed"])
    plan = make_plan("paper", registry.values(), per_cell)
    planned = {pid: sum(cells.values()) for pid, cells in plan.items()}
    set_dir = default_cache_dir() / "cases" / f"leaderboard-{seed:015x}-n{per_cell}"
    if practice:
        set_dir = default_cache_dir() / "cases" / f"practice-n{per_cell}"
    case_set = ensure_case_set(set_dir, plan="paper", base_seed=seed, per_cell=per_cell,
                               problems=list(files), jobs=jobs)
    run_dir = out or default_cache_dir() / "judge" / f"submission-{digest[:16]}"
    summary = judge_case_set({pid: Candidate(path) for pid, path in files.items()}, case_set,
                             registry, out_dir=run_dir, config=config or JudgeConfig(),
                             jobs=jobs, label=f"{participant} ({entrant})")
    per_problem = {pid: info["passed"] for pid, info in summary["problems"].items()}
    judged = {pid: case_set.manifest["problems"][pid]["cases"] for pid in per_problem}
    total = sum(judged.get(pid, planned[pid]) for pid in registry)
    passed = sum(per_problem.values())
    solved = sum(1 for pid, n in per_problem.items() if n == judged[pid] and n > 0)
    # 95% interval over problems (clusters), from the same counts as the pass rate
    _, passed_by, cases_by = case_counts(
        {pid: {"passed": per_problem[pid], "cases": judged[pid]} for pid in per_problem},
        planned)
    interval = pass_rate_interval(passed_by, cases_by, slug=SLUG, version=VERSION)
    stamp = now_iso()
    source = "practice" if practice else (SOURCE if case_seed is not None else "digest")
    row = {
        "type": SUBMISSION,
        "digest": digest,
        "slug": SLUG,
        "version": VERSION,
        "participant": participant,
        "entrant": entrant,
        "method": method[:200],
        "model": model[:200],
        "team": "",
        "scores": {
            "pass_rate": passed / total if total else 0.0,
            "cases": total,
            "passed": passed,
            "problems": len(registry),
            "problems_solved": solved,
        },
        "per_problem": {pid: {"passed": per_problem[pid], "cases": judged[pid],
                              **_strength_and_structures(registry[pid], case_set,
                                                         summary["problems"][pid])}
                        for pid in per_problem},
        "intervals": {"pass_rate": interval},
        "declared": {"plan": "paper", "per_cell": per_cell,
                     "seed_source": source,
                     "isolation": summary["isolation"]},
        "seed": seed,
        "pr": pr,
        "submitted_at": stamp,
        "scored_at": stamp,
    }
    if case_seed is not None and source == SOURCE:
        # what `gnncb verify` checks after the reveal: the commitment the seed was drawn
        # under, the generator's code and the cases' content, per problem judged
        row[FIELD] = case_seed[FIELD]
        row["cases_sha256"] = cases_sha256(case_set.path, list(per_problem))
        row["generator"] = case_set.manifest.get("code_digest")
    return ScoredSubmission(row=row, feedback=summary["feedback"], run_dir=Path(run_dir))
