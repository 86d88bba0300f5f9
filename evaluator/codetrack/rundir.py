"""Many problems -> a run directory: judge a case set, one candidate per problem, and write
what the report, the ledger row and the feedback are built from.

Why apart from `judge.py`: the judge answers "how did this solution do on these cases"; this
module runs it over many problems and writes the run directory (`run.json` summary,
`verdicts.jsonl` one line per case, `feedback.json` the first failing cases per problem) that
`report.py` and the LLM code track read.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evaluator.codetrack.cases import Case, CaseSet
from evaluator.codetrack.judge import PASS, JudgeConfig, ProblemJudgement, judge_problem
from evaluator.codetrack.limits import calibrate
from evaluator.codetrack.problem import Problem
from evaluator.codetrack.shrink import Budget, shrink_judgement
from evaluator.errors import ConfigError


@dataclass
class Candidate:
    """What to judge for one problem: a solution file (and files it needs in the workspace)."""

    solution: Path
    extra_files: dict[str, Path] = field(default_factory=dict)
    site_packages: bool = False  # only for trusted code (the references)


def judge_case_set(
    candidates: Mapping[str, Candidate],
    case_set: CaseSet,
    problems: Mapping[str, Problem],
    *,
    out_dir: Path,
    config: JudgeConfig = JudgeConfig(),  # noqa: B008 - frozen dataclass
    jobs: int = 1,
    label: str = "",
    progress: Callable[[ProblemJudgement], None] | None = None,
    shrink: Budget | None = Budget(),  # noqa: B008 - frozen dataclass
) -> dict[str, Any]:
    """Judge each candidate on its problem's cases in `case_set`; write the run directory.

    Each problem's time limits are calibrated on this machine first (limits.py), and its first
    failure is shrunk to a minimal counterexample within the `shrink` budget (shrink.py; None:
    not shrunk). Writes `run.json` (summary), `verdicts.jsonl` (one line per case, everything
    the report needs), `feedback.json` (first failing cases per problem, the minimal
    counterexample with the first) and `counterexamples.json`. Returns the summary.
    """
    missing = [pid for pid in candidates if pid not in case_set.manifest["problems"]]
    if missing:
        raise ConfigError(f"the case set {case_set.path} has no cases for {', '.join(missing)}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    began = time.monotonic()
    started_at = datetime.now(UTC).replace(microsecond=0).isoformat()

    def one(pid: str) -> tuple[ProblemJudgement, list[Case]]:
        cand = candidates[pid]
        cases, limits = calibrate(problems[pid], case_set.cases(pid), config)
        judgement = judge_problem(problems[pid], cand.solution, cases, config=config,
                                  extra_files=cand.extra_files,
                                  site_packages=cand.site_packages)
        judgement.limits = limits
        if shrink is not None:
            shrink_judgement(judgement, problems[pid], cand.solution, cases, config=config,
                             budget=shrink, extra_files=cand.extra_files,
                             site_packages=cand.site_packages)
        if progress:
            progress(judgement)
        return judgement, cases

    order = sorted(candidates, key=lambda pid: -case_set.manifest["problems"][pid]["cases"])
    results: dict[str, tuple[ProblemJudgement, list[Case]]] = {}
    if jobs > 1:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for pid, res in zip(order, pool.map(one, order), strict=True):
                results[pid] = res
    else:
        for pid in order:
            results[pid] = one(pid)

    summary = write_run(out_dir, results, problems, case_set, config, label=label,
                        started_at=started_at, seconds=time.monotonic() - began)
    return summary


def write_run(
    out_dir: Path,
    results: Mapping[str, tuple[ProblemJudgement, list[Case]]],
    problems: Mapping[str, Problem],
    case_set: CaseSet,
    config: JudgeConfig,
    *,
    label: str,
    started_at: str,
    seconds: float,
) -> dict[str, Any]:
    ordered = [pid for pid in problems if pid in results]
    tmp = out_dir / "verdicts.jsonl.part"
    with tmp.open("w", encoding="utf-8") as fh:
        for pid in ordered:
            judgement, cases = results[pid]
            problem = problems[pid]
            for case, v in zip(cases, judgement.verdicts, strict=True):
                row = {
                    "id": case.id, "problem": pid, "direction": case.direction,
                    "category": case.category, "subcategory": case.subcategory,
                    "cell": case.cell, "source": case.source, "concept": problem.concept,
                    "difficulty": problem.difficulty, "verdict": v.verdict,
                    "published": v.published, "flag": case.flag or None,
                    "in_contract": case.in_contract, "wall": v.wall, "cpu": v.cpu,
                    "memory": v.memory, "ran": v.ran,
                    "limit": config.case_seconds(case), "ref_seconds": case.ref_seconds,
                }
                fh.write(json.dumps(row, separators=(",", ":")) + "\n")
    os.replace(tmp, out_dir / "verdicts.jsonl")
    fb = {pid: results[pid][0].feedback for pid in ordered}
    (out_dir / "feedback.json").write_text(json.dumps(fb, indent=1) + "\n", encoding="utf-8")
    minimal = {pid: results[pid][0].minimal for pid in ordered if results[pid][0].minimal}
    (out_dir / "counterexamples.json").write_text(json.dumps(minimal, indent=1) + "\n",
                                                  encoding="utf-8")
    per_problem = {}
    for pid in ordered:
        j = results[pid][0]
        truth = [v for v in j.verdicts if v.verdict is not None]
        published = [v for v in j.verdicts if v.published is not None]
        per_problem[pid] = {
            "cases": len(j.verdicts),
            "passed": j.passed,
            "pass_rate": (j.passed / len(truth)) if truth else None,
            "published_pass_rate": (sum(v.published == PASS for v in published) / len(published)
                                    if published else None),
            "verdicts": j.counts(),
            "solution_digest": j.solution_digest,
            "processes": j.processes,
            "restarts": j.restarts,
            "wall_seconds": j.wall_seconds,
            "peak_rss_bytes": j.peak_rss_bytes,
            "memory_mechanism": j.memory_mechanism,
            "hardening": j.hardening,
            "load_error": j.load_error[-2000:],
            "limits": j.limits,
            "minimal": j.minimal,
        }
    total = sum(p["cases"] for p in per_problem.values())
    judged = sum(1 for pid in ordered for v in results[pid][0].verdicts if v.verdict is not None)
    passed = sum(p["passed"] for p in per_problem.values())
    isolation = {results[pid][0].isolation for pid in ordered}
    mechanisms = {results[pid][0].memory_mechanism for pid in ordered} - {""}
    summary = {
        "label": label,
        "case_set": str(case_set.path.resolve()),
        "case_set_name": case_set.name,
        "case_set_kind": case_set.kind,
        "case_set_version": case_set.version,
        "base_seed": case_set.manifest.get("base_seed"),
        "config": {k: v for k, v in asdict(config).items() if k != "python"},
        "isolation": sorted(isolation),
        "memory_mechanism": sorted(mechanisms),
        "started": started_at,
        "seconds": round(seconds, 3),
        "cases": total,
        "passed": passed,
        "pass_rate": passed / judged if judged else None,
        "problems": per_problem,
    }
    (out_dir / "run.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return {**summary, "feedback": fb}  # callers get feedback.json's content without re-reading it


def load_verdict_rows(run_dir: Path) -> list[dict[str, Any]]:
    path = Path(run_dir) / "verdicts.jsonl"
    if not path.is_file():
        raise ConfigError(f"{run_dir} is not a judge run (no verdicts.jsonl); run "
                          "`gnncb code judge --out DIR` first")
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
