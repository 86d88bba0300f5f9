"""Ledger rows (or an imported source) -> one comparable entry per entrant and competition.

Why one shape for both: every table (humans, gaps, families) is computed by the same code from
either the ledger or a reference source, so a paper's table and our own results are read the
same way. Entries are plain dicts:

    {"competition", "entrant", "kind", "family", "score" (None = no valid file), "sem",
     "runs" (the scored runs behind a mean), "interval", "protocol", "deviations", "failure"}

Humans and baselines: the submission each participant's board entry shows (their chosen final
submissions, else their latest; never a late one). LLMs: every accepted, on-time run of the
same model on the competition's current version is a repeated run (e.g. `--seed`), aggregated
as mean +- SEM with the runs listed. Rows outside the protocol are kept apart in `excluded`,
never averaged in.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from evaluator.competition.boards import Leaderboard
from evaluator.competition.spec import CompetitionSpec
from evaluator.ledger.ranking import counted as counted_rows
from evaluator.ledger.store import active_submissions
from evaluator.render.results import conformance
from evaluator.render.results.sources import LLM_KINDS, competition_meta

# Model id -> family, for ledger rows (a source names its families itself).
_FAMILIES = (
    (re.compile(r"claude|gpt|\bo[134]\b|gemini|grok|mistral-(?:large|medium)", re.I),
     "Proprietary"),
    (re.compile(r"llama|qwen|deepseek|kimi|mistral|mixtral|phi|gemma|olmo|starcoder|smol|"
                r"granite|yi-|codellama", re.I), "Open-source"),
)


def family_of(model: str) -> str:
    for pattern, family in _FAMILIES:
        if pattern.search(model):
            return family
    return "Other"


_ENTRANTS = frozenset(("human", "llm-api", "llm-agent", "baseline"))


def _kind(row: dict[str, Any]) -> str:
    entrant = row.get("entrant") or "human"
    return entrant if entrant in _ENTRANTS else "human"


def _interval(row: dict[str, Any], score: str) -> list[float] | None:
    found = (row.get("intervals") or {}).get(score)
    if isinstance(found, dict) and "low" in found and "high" in found:
        return [float(found["low"]), float(found["high"])]
    return None


def _run(row: dict[str, Any], score: str) -> dict[str, Any]:
    llm = (row.get("declared") or {}).get("llm") or {}
    return {"digest": row["digest"][:12], "participant": row["participant"],
            "score": float(row["scores"][score]), "interval": _interval(row, score),
            "seed": llm.get("seed"), "campaign": llm.get("campaign", ""),
            "scored_at": row.get("scored_at", "")}


def mean_sem(values: list[float]) -> tuple[float, float | None]:
    """Mean and standard error of the mean (sample standard deviation, ddof=1, over sqrt(n):
    scipy.stats.sem's definition, tested equal to it); no SEM for one run.

    From the standard library's `statistics` rather than SciPy: the site and `gnncb results`
    compute these on every build, and importing scipy.stats (about 0.5 s) cost more than the
    SEMs of a whole 100,000-row ledger."""
    import math
    import statistics

    mean = float(sum(values) / len(values))
    if len(values) < 2:
        return mean, None
    return mean, statistics.stdev(values) / math.sqrt(len(values))


def from_ledger(specs: Sequence[Leaderboard], rows: list[dict[str, Any]], *,
                k_reading: str = "repairs",
                failures: list[dict[str, Any]] | None = None,
                modes: dict[str, str] | None = None,
                routed: dict[str, list[dict[str, Any]]] | None = None,
                human_runs: bool = True,
                counted: Mapping[str, Collection[str]] | None = None) -> dict[str, Any]:
    """The ledger's current-version submissions as a results dataset.

    A human's or baseline's entry is the row their board entry shows (`counted`: slug -> the
    digests of the board's entries, the site passes its ranked tables; computed with
    `ledger.ranking.standings` otherwise). Why: taking the latest row let a late submission
    or one the participant did not choose stand for them in the results, unlike on the board.

    `failures`: LLM runs that never produced a valid file (from run folders, see
    `failed_runs`), as {"slug", "model", "entrant", "mode"}; each becomes an entry with no
    score unless the model has a valid run there. `routed`: slug -> the active submissions of
    each competition's current version in ledger order (late ones included), when the caller
    routed the rows already (`evaluator.render.boards.Prepared.submissions`: the site); `rows` is
    then not read. `human_runs=False` leaves out the run record of each human and baseline
    entry (`runs: []`): no table reads it (`tables` reads the runs of LLM entries only), and
    at 100,000 rows the site would build tens of thousands of them for nothing."""
    if routed is not None:
        by_version = {(s.slug, s.version): routed.get(s.slug, []) for s in specs}
    else:
        by_version = _by_version(rows)
    if counted is None:
        counted = {s.slug: _on_board(s, rows if routed is None else routed.get(s.slug, []))
                   for s in specs if isinstance(s, CompetitionSpec)}
    competitions: dict[str, dict[str, Any]] = {}
    entries: list[dict[str, Any]] = []
    excluded: list[dict[str, Any]] = []
    for spec in specs:
        if not isinstance(spec, CompetitionSpec):
            continue  # code-track boards have their own results (`results codetrack`)
        meta = competition_meta(spec)
        reference = spec.human_reference
        meta["reference"] = ({"top": reference.top, "mean": reference.mean,
                              "note": reference.note} if reference else None)
        competitions[spec.slug] = meta
        score = spec.primary_score
        latest: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {}
        llm_runs: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        check, check_human, out = conformance.check_row, conformance.check_human, conformance.OUT
        empty: dict[str, Any] = {}
        on_board = counted.get(spec.slug, ())
        for r in by_version.get((spec.slug, spec.version), ()):  # the one per-row loop
            if score not in (r.get("scores") or empty) or r.get("late"):
                continue  # no score to compare, or never counted (as on the boards)
            entrant = r.get("entrant") or "human"  # as check_row and _kind, looked up once
            if entrant not in LLM_KINDS and r["digest"] not in on_board:
                continue  # not the row the participant's board entry shows
            if entrant == "human":
                verdict, kind = check_human(spec, r), "human"
            else:
                verdict = check(spec, r, k_reading=k_reading)
                kind = entrant if entrant in _ENTRANTS else "human"
            if verdict["status"] == out:
                excluded.append({"competition": spec.slug, "entrant": _name(r), "kind": kind,
                                 "score": float(r["scores"][score]),
                                 "digest": r["digest"][:12], **verdict})
                continue
            if kind in LLM_KINDS:
                llm_runs[(_name(r), kind)].append({**_run(r, score), **verdict})
            else:
                latest[r["participant"].lower()] = (r, verdict, kind)  # no per-row copy
        for r, verdict, kind in latest.values():
            entries.append({"competition": spec.slug, "entrant": r["participant"],
                            "kind": kind, "family": "", "score": float(r["scores"][score]),
                            "sem": None, "runs": [_run(r, score)] if human_runs else [],
                            "interval": _interval(r, score), "protocol": verdict["status"],
                            "deviations": verdict["deviations"],
                            "unverified": verdict["unverified"], "failure": None})
        for (model, kind), runs in llm_runs.items():
            mean, sem = mean_sem([run["score"] for run in runs])
            status = (conformance.UNVERIFIED if any(run["status"] != conformance.OK
                                                    for run in runs) else conformance.OK)
            entries.append({"competition": spec.slug, "entrant": model, "kind": kind,
                            "family": family_of(model), "score": mean, "sem": sem,
                            "runs": [{k: v for k, v in run.items()
                                      if k not in ("status", "deviations")} for run in runs],
                            "interval": runs[0]["interval"] if len(runs) == 1 else None,
                            "protocol": status, "deviations": [],
                            "unverified": sorted({u for run in runs for u in run["unverified"]}),
                            "failure": None, "mode": _mode(runs, modes or {})})
        for f in failures or []:
            if f["slug"] != spec.slug or f.get("version") not in (None, spec.version):
                continue  # another competition, or a run on an earlier version
            if any(e["competition"] == spec.slug and e["entrant"] == f["model"]
                   for e in entries):
                continue
            # one protocol rule for every run: a failure is checked as a scored run is
            kind = f.get("entrant", "llm-api")
            verdict = (check(spec, {"entrant": kind, "model": f["model"],
                                    "declared": {"llm": f["protocol"]}}, k_reading=k_reading)
                       if "protocol" in f else
                       {"status": conformance.OK, "deviations": [], "unverified": []})
            failure = f.get("mode") or "no valid file"
            if verdict["status"] == out:
                excluded.append({"competition": spec.slug, "entrant": f["model"],
                                 "kind": kind, "score": None, "digest": "",
                                 "failure": failure, **verdict})
                continue
            entries.append({"competition": spec.slug, "entrant": f["model"],
                            "kind": kind, "family": family_of(f["model"]),
                            "score": None, "sem": None, "runs": [], "interval": None,
                            "protocol": verdict["status"], "deviations": verdict["deviations"],
                            "unverified": verdict["unverified"], "failure": failure})
    return {"source": "ledger", "competitions": competitions, "entries": entries,
            "excluded": excluded}


def _on_board(spec: CompetitionSpec, rows: list[dict[str, Any]]) -> set[str]:
    """Digests of the rows the competition's board shows: each participant's counted
    submissions (`ledger.ranking.counted`: chosen final ones, else the latest; never late),
    the best of them on the primary score (the one score the results compare; the board
    breaks its ties further)."""
    score = spec.primary_score
    pick = max if spec.higher_is_better(score) else min
    out = set()
    for subs in counted_rows(spec, rows)[0].values():
        usable = [r for r in subs if score in (r.get("scores") or {})]
        if usable:
            out.add(pick(usable, key=lambda r: float(r["scores"][score]))["digest"])
    return out


def _by_version(rows: list[dict[str, Any]]) -> dict[tuple[str, int], list[dict[str, Any]]]:
    """(slug, version) -> active submissions, in ledger order: one routing pass, not one scan
    per competition."""
    by_version: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for r in active_submissions(rows):
        key = (r["slug"], r["version"])
        found = by_version.get(key)
        if found is None:
            by_version[key] = [r]
        else:
            found.append(r)
    return by_version


RunLoader = Callable[[Path], list[tuple[Path, dict[str, Any]]]]


def _mode(runs: list[dict[str, Any]], modes: dict[str, str]) -> str | None:
    """The most frequent classified failure mode among an entry's runs, if any."""
    found = [modes[r["digest"]] for r in runs if r["digest"] in modes]
    return max(sorted(set(found)), key=found.count) if found else None


def _name(row: dict[str, Any]) -> str:
    name: str = (row.get("model") or row["participant"] if _kind(row) in LLM_KINDS
                 else row["participant"])
    return name


SUMMARY_FIELDS = ("model", "slug", "status")


def campaign_runs(folder: Path, load_runs: RunLoader) -> list[tuple[Path, dict[str, Any]]]:
    """Every LLM run summary of a campaign, in either layout.

    Why two layouts: a live campaign writes run folders (`MODEL/SLUG/summary.json`, read by the
    LLM track's `load_runs`); a committed campaign keeps only the summaries, one flat JSON file
    per run (`campaigns/NAME/gnn/summaries/SLUG.json`), without the workspaces. Both name the
    model and the competition inside the summary, so the file name is never trusted. `folder`
    may be the campaign folder (holding run folders or `summaries/`) or the summaries folder.
    """
    import json

    from evaluator.errors import ConfigError

    folder = Path(folder)
    if not folder.is_dir():
        raise ConfigError(f"--runs {folder}: not a folder; give a campaign folder (runs/NAME or "
                          "campaigns/NAME/gnn)")
    found = list(load_runs(folder))
    for flat in (folder / "summaries", folder):
        for path in sorted(flat.glob("*.json")):
            try:
                summary = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(summary, dict) and all(isinstance(summary.get(k), str)
                                                 for k in SUMMARY_FIELDS):
                found.append((path, summary))
    if not found:
        raise ConfigError(f"--runs {folder}: no LLM run summaries: expected run folders "
                          "(MODEL/SLUG/summary.json) or a flat summaries folder "
                          "(summaries/SLUG.json)")
    return found


def failed_runs(campaign_dirs: list[Path], load_runs: RunLoader) -> list[dict[str, Any]]:
    """LLM runs with no valid predictions (status `failed`) in campaign folders. `load_runs`
    is the LLM track's own reader of run folders (`evaluator.llm.report.load_runs`), passed in
    by the caller: a core module never imports a track."""
    out = []
    for folder in campaign_dirs:
        for _, summary in load_runs(Path(folder)):
            if summary.get("status") == "failed":
                # a run folder is an LLM run whatever its summary says about itself: a claimed
                # `human` or `baseline` became a scoreless human entry and crashed the tables
                claimed = summary.get("entrant")
                out.append({"slug": summary.get("slug"), "model": str(summary.get("model", "?")),
                            "entrant": claimed if claimed in LLM_KINDS else "llm-api",
                            "version": summary.get("competition_version"),
                            "mode": (summary.get("failure") or {}).get("mode"),
                            "protocol": summary_protocol(summary)})
    return out


def summary_protocol(summary: dict[str, Any]) -> dict[str, Any]:
    """A run summary's protocol facts in the shape a ledger row keeps them (metadata.LLMRun):
    a failed run has no row, and is checked by the same rule as a scored one (overridden
    execution limits put a failure outside the protocol exactly as they do a success)."""
    raw_limits, raw_isolation = summary.get("limits"), summary.get("isolation")
    limits: dict[str, Any] = raw_limits if isinstance(raw_limits, dict) else {}
    isolation: dict[str, Any] = raw_isolation if isinstance(raw_isolation, dict) else {}
    attempts = [a for a in summary.get("attempt_log") or [] if isinstance(a, dict)]
    served = summary.get("served_model_check")
    facts = {
        "decoding": summary.get("decoding"),
        "repairs_allowed": summary.get("repairs_allowed"),
        "repair_depth": summary.get("repairs_used"),
        "calls": len([a for a in attempts if a.get("called", True)]) if attempts else None,
        "limit_overrides": ({k: v for k, v in limits.items() if v is not None}
                            if "limits" in summary else None),
        "sandboxed": isolation.get("sandboxed"), "isolation": isolation.get("level"),
        "model_listed": served.get("verified") if isinstance(served, dict) else None,
        "stop_on_repeat": True if summary.get("stop_on_repeat") else None}
    return {k: v for k, v in facts.items() if v is not None}


Classifier = Callable[[list[tuple[Path, dict[str, Any]]]], dict[Path, Any]]


def low_score_modes(campaign_dirs: list[Path], load_runs: RunLoader,
                    classify: Classifier) -> dict[str, str]:
    """Ledger digest -> failure mode of the valid runs the LLM track classifies as severe
    under-performance (`evaluator.llm.report.low_scoring`, passed in by the caller)."""
    out: dict[str, str] = {}
    for folder in campaign_dirs:
        runs = load_runs(Path(folder))
        by_run = {run: summary for run, summary in runs}
        for run, found in classify(runs).items():
            digest = by_run[run].get("digest")
            if digest:
                out[digest[:12]] = getattr(found, "mode", str(found))
    return out


def from_source(source: dict[str, Any]) -> dict[str, Any]:
    """An imported source as a results dataset (its own competitions' metrics and tiers)."""
    competitions: dict[str, dict[str, Any]] = {}
    entries = []
    for r in source["rows"]:
        competitions.setdefault(r["competition"], {
            "id": r["competition"], "gnncb_id": r.get("gnncb_id"), "title": r.get("title", ""),
            "score": r["metric"], "metric": r["metric"], "higher_is_better": r["higher_is_better"],
            "difficulty": r["difficulty"], "classification": r["classification"],
            "reference": None})
        entries.append({"competition": r["competition"], "entrant": r["entrant"],
                        "kind": r["kind"], "family": r.get("family", ""), "score": r["score"],
                        "sem": None, "runs": [], "interval": None, "protocol": conformance.OK,
                        "deviations": [], "unverified": [],
                        "failure": None if r["score"] is not None else "no valid file",
                        "note": r.get("note", "")})
    return {"source": source["name"], "provenance": source.get("provenance", {}),
            "competitions": competitions, "entries": entries, "excluded": []}


def finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)
