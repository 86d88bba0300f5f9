"""Final judging: a model's final solutions -> one code-track submission -> one ledger row.

Why through the code track's own scorer: an LLM must be judged exactly like a human
participant. Its final `solution.py` files are laid out as a participant's pull request would
hold them (`code-submission/solutions/<problem>.py` + `metadata.json` with entrant `llm-api`
and the model id) and scored by `evaluator.codetrack.submission.score_submission`, the function
`gnncb code submit-score` and the pull-request pipeline call: the hidden cases are generated
from the files' content digest (and, once the board's version commits to a case secret, from
`seed_for(secret, digest)`: the seed a keyed step derived for these files, `final_digest`),
judged in the sandbox, and the row has the same fields as every other code-track row (with
the commitment it was drawn under, so `gnncb verify` checks it after the reveal like a pull
request's). The LLM facts (prompt variant and template hash, tokens, repair depths) are added
under `declared.llm`, as the LLM track does. The hidden results are then written back
into each problem's run summary (status `scored`).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from evaluator.codetrack.judge import JudgeConfig
from evaluator.codetrack.llmrun.repair import ENTRANT, SOLUTION
from evaluator.codetrack.submission import score_submission, submission_digest
from evaluator.errors import ConfigError
from evaluator.ledger.store import Ledger
from evaluator.llm.runlog import SEALED, now_iso, read_summary, write_json, write_summary

SCORED = "scored"
SUBMISSION_DIR = "code-submission"
ROW_FILE = "row.json"


def code_runs(model_dir: Path, problems: Sequence[str] | None = None
              ) -> list[tuple[Path, dict[str, Any]]]:
    """The problem runs of one model folder that hold a final solution, sorted by problem."""
    out = []
    for path in sorted(Path(model_dir).glob("code-*/summary.json")):
        summary = read_summary(path.parent)
        if summary is None or summary.get("track") != "code":
            continue
        if problems and summary.get("problem") not in problems:
            continue
        if summary["status"] in (SEALED, SCORED) and (path.parent / SOLUTION).is_file():
            out.append((path.parent, summary))
    return out


def _protocol(runs: Sequence[tuple[Path, dict[str, Any]]]) -> dict[str, Any]:
    """The one protocol all runs followed; mixing prompts in one submission is refused."""
    keys = ("model", "prompt_variant", "template_hash", "campaign", "participant",
            "repairs_allowed")
    seen = {k: sorted({str(s.get(k)) for _, s in runs}) for k in keys}
    mixed = {k: v for k, v in seen.items() if len(v) > 1}
    if mixed:
        raise ConfigError(f"the runs in {runs[0][0].parent} mix protocols ({mixed}); score "
                          "each protocol from its own --campaign")
    first = runs[0][1]
    return {k: first.get(k) for k in keys}


def _decoding(runs: Sequence[tuple[Path, dict[str, Any]]]) -> dict[str, Any]:
    """The decoding settings of the runs (one value each when they agree, else sorted lists)."""
    out: dict[str, Any] = {}
    for key in ("temperature", "max_tokens", "max_tokens_applied", "seed", "seed_sent",
                "max_tokens_param"):
        values = sorted({json.dumps((s.get("decoding") or {}).get(key)) for _, s in runs})
        decoded = [json.loads(v) for v in values]
        out[key] = decoded[0] if len(decoded) == 1 else decoded
    return out


def _method(protocol: dict[str, Any], visible_per_cell: set[int]) -> str:
    per_cell = ",".join(str(v) for v in sorted(visible_per_cell))
    return (f"gnncb code track LLM: {protocol['prompt_variant']}, plan-then-code, repairs on "
            f"visible practice cases (k<={protocol['repairs_allowed']}, {per_cell}/cell)")


def final_runs(model_dir: Path, problems: Sequence[str] | None = None
               ) -> tuple[list[tuple[Path, dict[str, Any]]], dict[str, Any]]:
    """The runs whose final solutions form the model's submission and their one protocol,
    or a ConfigError naming what is missing."""
    runs = code_runs(model_dir, problems)
    if not runs:
        raise ConfigError(f"{model_dir}: no code-track run with a final solution "
                          "(code-<problem>/summary.json with status sealed or scored)")
    return runs, _protocol(runs)


def final_digest(model_dir: Path, problems: Sequence[str] | None = None) -> str:
    """The digest the submission of these final solutions will have (what `score_model`
    lays out as `solutions/<problem>.py`), computed from the files as data: the keyed step
    that derives the secret case seed reads the model's code but never runs it."""
    return submission_digest({f"{s['problem']}.py": run / SOLUTION
                              for run, s in final_runs(model_dir, problems)[0]})


def score_model(model_dir: Path, *, config: JudgeConfig | None = None, per_cell: int = 10,
                jobs: int = 2, problems: Sequence[str] | None = None,
                ledger: Path | None = None, case_seed: dict[str, Any] | None = None,
                echo: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Judge the final solutions of `model_dir` (runs/<campaign>/<model>) on their hidden
    cases; write `code-submission/row.json`, append it to `ledger` if given, and mark each
    problem run `scored`. `config`, `per_cell` and `jobs` are the hidden judge's limits, as
    for any submission. `case_seed`: {digest, seed, case_commitment} derived for
    `final_digest(model_dir, problems)` under the board's committed secret (the row then
    records the commitment, as a pull request's does); None: digest-seeded cases."""

    runs, protocol = final_runs(model_dir, problems)
    folder = Path(model_dir) / SUBMISSION_DIR
    if (folder / "solutions").exists():
        shutil.rmtree(folder / "solutions")
    (folder / "solutions").mkdir(parents=True)
    for run, summary in runs:
        shutil.copyfile(run / SOLUTION, folder / "solutions" / f"{summary['problem']}.py")
    method = _method(protocol, {s["visible"]["per_cell"] for _, s in runs})
    write_json(folder / "metadata.json",
               {"entrant": ENTRANT, "model": protocol["model"], "method": method})
    row = score_submission(folder / "solutions", participant=str(protocol["participant"]),
                           entrant=ENTRANT, method=method, model=str(protocol["model"]),
                           per_cell=per_cell, out=folder / "judge", config=config,
                           jobs=jobs, case_seed=case_seed).row
    row["declared"]["llm"] = {
        "provider": sorted({s["provider"] for _, s in runs}),
        "prompt_variant": protocol["prompt_variant"],
        "template_hash": protocol["template_hash"],
        "campaign": protocol["campaign"],
        "repairs_allowed": protocol["repairs_allowed"],
        "tokens_in": sum(s.get("tokens_in") or 0 for _, s in runs),
        "tokens_out": sum(s.get("tokens_out") or 0 for _, s in runs),
        "attempts": {s["problem"]: s.get("attempts") for _, s in runs},
        "repair_depth": {s["problem"]: s.get("repair_depth") for _, s in runs},
        "visible_passed": {s["problem"]: [s.get("visible_passed"), s["visible"]["cases"]]
                           for _, s in runs},
        "isolation": sorted({s["isolation"]["level"] for _, s in runs}),
        # Protocol facts for conformance checks and readers: what was asked and applied.
        "decoding": _decoding(runs),
        "calls": {s["problem"]: s.get("calls") for _, s in runs},
        "stop_reason": {s["problem"]: s.get("stop_reason") for _, s in runs},
        "served_model_verified": sorted({str((s.get("served_model_check") or {})
                                             .get("verified")) for _, s in runs}),
        "caveats": sorted({c for _, s in runs for c in s.get("caveats") or []}),
    }
    write_json(folder / ROW_FILE, row)
    written = Ledger(ledger).append(row) if ledger else None
    judged = json.loads((folder / "judge" / "run.json").read_text(encoding="utf-8"))
    for run, summary in runs:
        pid = summary["problem"]
        info = judged["problems"].get(pid, {})
        summary.update(status=SCORED, scored_at=now_iso(), hidden={
            "submission_digest": row["digest"],
            "seed": row["seed"],
            "per_cell": row["declared"]["per_cell"],
            "cases": info.get("cases"),
            "passed": info.get("passed"),
            "pass_rate": info.get("pass_rate"),
            "verdicts": info.get("verdicts"),
        })
        write_summary(run, summary)
        if echo:
            echo(f"  {pid}: hidden {info.get('passed')}/{info.get('cases')} passed "
                 f"(visible {summary.get('visible_passed')}/{summary['visible']['cases']})")
    row_out = dict(row)
    row_out["ledger_written"] = written
    return row_out
