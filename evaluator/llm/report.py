"""Campaign reports: outcomes, budgets and failure modes per model, from the run folders.

Why from run summaries and not the ledger: the ledger holds only accepted submissions, while a
benchmark report must also count the runs that never produced a valid file (GNN-CB's "severe
failures"). Scores come from the same summaries, which `score_run` filled from the pipeline's
outcome, so the two never disagree. Low-scoring runs are GNN-CB's severe under-performance:
at least 30 points below the best LLM on the same competition (bounded higher-is-better
scores only), classified by `taxonomy.classify_low_score`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from evaluator.llm import taxonomy
from evaluator.llm.runlog import find_runs, read_summary
from evaluator.render.boards import md_escape

VALID_STATES = ("scored", "sealed", "rejected")  # a valid predictions file was produced


def load_runs(campaign_dir: Path) -> list[tuple[Path, dict[str, Any]]]:
    runs = []
    for run in find_runs(campaign_dir):
        summary = read_summary(run)
        if summary is not None:
            runs.append((run, summary))
    return runs


def _final_code(run: Path, summary: dict[str, Any]) -> str:
    attempts = summary.get("attempts") or 0
    path = run / f"attempt-{attempts}" / "solution.py"
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""


def _final_stdout(run: Path, summary: dict[str, Any]) -> str:
    path = run / f"attempt-{summary.get('attempts') or 0}" / "stdout.txt"
    return path.read_text(encoding="utf-8", errors="replace")[-20000:] if path.is_file() else ""


def _file_notes(summary: dict[str, Any]) -> dict[str, str]:
    """The spec's description of each public file (e.g. "undirected ... each once")."""
    from evaluator.competition.spec import load_spec
    from evaluator.errors import ConfigError

    folder = Path(summary.get("competition_dir", ""))
    try:
        return dict(load_spec(folder).files) if (folder / "competition.yaml").is_file() else {}
    except (ConfigError, OSError):  # a moved or edited competition only loses the notes
        return {}


def _primary(summary: dict[str, Any]) -> float | None:
    if summary.get("track") == "code":  # the hidden pass rate of the final solution
        value = (summary.get("hidden") or {}).get("pass_rate")
    else:
        value = (summary.get("scores") or {}).get(summary.get("primary_score"))
    return float(value) if isinstance(value, int | float) else None


def error_kind(summary: dict[str, Any]) -> str:
    """platform (the job running the pair died: no run, or one never finished), provider (the
    model's endpoint) or sandbox; runs recorded before kinds were kept say "platform or
    provider"."""
    return str(summary.get("error_kind") or "platform or provider")


def attempt_modes_text(summary: dict[str, Any]) -> str:
    """Per attempt, its failure mode (`r` marks an answer that repeated an earlier one)."""
    parts = []
    for attempt in summary.get("attempt_log", []):
        mode = (attempt.get("failure") or {}).get("mode") or "ok"
        parts.append(f"{attempt.get('index')}:{mode}" + ("(r)" if attempt.get("repeat_of")
                                                         else ""))
    return " ".join(parts)


def low_scoring(runs: list[tuple[Path, dict[str, Any]]]) -> dict[Path, taxonomy.Classification]:
    """Runs >= SEVERE_GAP below the best LLM on the same competition (higher-is-better
    scores in [0, 1] only; a gap in points means nothing for MAE)."""
    best: dict[str, float] = {}
    for _, s in runs:
        value = _primary(s)
        if value is not None and s.get("higher_is_better") and 0.0 <= value <= 1.0:
            best[s["slug"]] = max(best.get(s["slug"], value), value)
    out = {}
    for run, s in runs:
        value = _primary(s)
        if value is None or s["slug"] not in best or not s.get("higher_is_better"):
            continue
        if round(best[s["slug"]] - value, 9) >= taxonomy.SEVERE_GAP:
            out[run] = taxonomy.classify_low_score(
                _final_code(run, s), s.get("data_files", []), stdout=_final_stdout(run, s),
                file_notes=_file_notes(s), score=value)
    return out


def build_report(campaign_dir: Path) -> dict[str, Any]:
    runs = load_runs(campaign_dir)
    severe = low_scoring(runs)
    models: dict[str, dict[str, Any]] = {}
    run_modes: dict[str, Counter[str]] = defaultdict(Counter)
    attempt_modes: dict[str, Counter[str]] = defaultdict(Counter)
    rows = []
    for run, s in runs:
        model = s.get("model", "?")
        m = models.setdefault(model, {"pairs": 0, "states": Counter(), "repair_depths": [],
                                      "tokens_in": 0, "tokens_out": 0, "cost_usd": None,
                                      "attempts": 0})
        m["pairs"] += 1
        m["states"][s["status"]] += 1
        m["attempts"] += s.get("attempts") or 0
        m["tokens_in"] += s.get("tokens_in") or 0
        m["tokens_out"] += s.get("tokens_out") or 0
        if s.get("cost_usd") is not None:
            m["cost_usd"] = round((m["cost_usd"] or 0) + s["cost_usd"], 6)
        if s["status"] in VALID_STATES and s.get("repair_depth") is not None:
            m["repair_depths"].append(s["repair_depth"])
        for attempt in s.get("attempt_log", []):
            if attempt.get("failure"):
                attempt_modes[model][attempt["failure"]["mode"]] += 1
        mode, evidence = "", ""
        if s["status"] == "failed" and s.get("failure"):
            mode, evidence = s["failure"]["mode"], s["failure"].get("evidence", "")
        elif run in severe:
            mode, evidence = severe[run].mode, severe[run].evidence
        if s["status"] == "error":  # evidence only: never counted as a failure mode
            evidence = f"{error_kind(s)} error, not the model's failure: {s.get('error', '')}"
        if mode:
            run_modes[model][mode] += 1
        rows.append({"model": model, "slug": s.get("slug"), "status": s["status"],
                     "primary_score": ("hidden_pass_rate" if s.get("track") == "code"
                                       else s.get("primary_score")), "score": _primary(s),
                     "attempt_modes": attempt_modes_text(s),
                     "stop_reason": s.get("stop_reason"),
                     "tokens_in_new": s.get("tokens_in_new"),
                     "attempts": s.get("attempts"), "repair_depth": s.get("repair_depth"),
                     "failure_mode": mode, "evidence": evidence,
                     "error_kind": error_kind(s) if s["status"] == "error" else None,
                     "isolation": (s.get("isolation") or {}).get("level"),
                     "template_hash": s.get("template_hash"), "run": str(run)})
    per_model = {}
    for model, m in sorted(models.items()):
        depths = m.pop("repair_depths")
        valid = sum(m["states"][k] for k in VALID_STATES)
        per_model[model] = {**m, "states": dict(m["states"]), "valid": valid,
                            "valid_rate": round(valid / m["pairs"], 4) if m["pairs"] else 0.0,
                            "mean_repair_depth": round(sum(depths) / len(depths), 3)
                            if depths else None,
                            "run_failure_modes": dict(run_modes[model]),
                            "attempt_failure_modes": dict(attempt_modes[model])}
    hashes = sorted({r["template_hash"] for r in rows if r["template_hash"]})
    modes = dict(taxonomy.MODES)
    seen = {mode for c in (*run_modes.values(), *attempt_modes.values()) for mode in c}
    for mode in sorted(seen - set(modes)):
        modes[mode] = MODE_NOTES.get(mode, "assigned outside the taxonomy")
    return {"campaign_dir": str(campaign_dir), "runs": rows, "models": per_model,
            "template_hashes": hashes, "modes": modes}


MODE_NOTES = {
    "context_overflow": "the conversation outgrew the model's context window (the server "
                        "refused it, or gnncb's budget did): the model's failure",
    "wrong_answer": "code track: the module loads but returns wrong answers",
}


def _cell(value: Any) -> str:
    if value is None or value == "":
        return "–"
    if isinstance(value, float):
        return f"{value:.4f}"
    return md_escape(value)


def render_markdown(report: dict[str, Any]) -> str:
    lines = [f"# LLM campaign report: {md_escape(Path(report['campaign_dir']).name)}", ""]
    if len(report["template_hashes"]) > 1:
        lines += ["**Warning:** runs used different prompt templates: "
                  + ", ".join(md_escape(h) for h in report["template_hashes"]), ""]
    lines += ["## Models", "",
              "| model | pairs | valid | failed | errors | mean repair depth | tokens in | "
              "tokens out | cost (USD) |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for model, m in report["models"].items():
        states = m["states"]
        lines.append(f"| {md_escape(model)} | {m['pairs']} | {m['valid']} | "
                     f"{states.get('failed', 0)} | {states.get('error', 0)} | "
                     f"{_cell(m['mean_repair_depth'])} | {m['tokens_in']} | {m['tokens_out']} | "
                     f"{_cell(m['cost_usd'])} |")
    modes = list(report["modes"])
    lines += ["", "## Failure modes per model (runs: failed or severely low-scoring)", "",
              "| model | " + " | ".join(md_escape(m) for m in modes) + " |",
              "|---|" + "---:|" * len(modes)]
    for model, m in report["models"].items():
        counts = m["run_failure_modes"]
        lines.append(f"| {md_escape(model)} | "
                     + " | ".join(str(counts.get(mode, 0)) for mode in modes) + " |")
    lines += ["", "## Runs", "",
              "| model | competition | status | score | attempts | stop | failure mode | "
              "per attempt | evidence |",
              "|---|---|---|---:|---:|---|---|---|---|"]
    for r in report["runs"]:
        score = f"{r['primary_score']}={r['score']:.4f}" if r["score"] is not None else "–"
        lines.append(f"| {md_escape(r['model'])} | {md_escape(r['slug'])} | "
                     f"{md_escape(r['status'])} | {md_escape(score)} | {_cell(r['attempts'])} | "
                     f"{_cell(r.get('stop_reason'))} | {_cell(r['failure_mode'])} | "
                     f"{_cell(r.get('attempt_modes'))} | {_cell(r['evidence'][:160])} |")
    lines += ["", "Failure modes are assigned by rules (evaluator/llm/taxonomy.py); the "
              "evidence column says why. Mode definitions:", ""]
    lines += [f"- `{mode}`: {md_escape(text)}" for mode, text in report["modes"].items()]
    return "\n".join(lines) + "\n"
