"""Ledger rows -> plain data for the site's pages (no HTML, no plotting here).

Why a separate layer: the pages, the plots and the tests read the same numbers, and the rules
(which submission counts, what "best human" means, whether declared rules conform) live in one
place. Everything here is a pure function of (specs, rows); output order is fixed (rank, then
slug, then digest), so the site built from the same ledger is the same bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from evaluator.competition.boards import Leaderboard
from evaluator.competition.spec import CompetitionSpec, HumanReference
from evaluator.ledger.ranking import Entry, board_tiers, final_standings, final_tiers, shake_up
from evaluator.render.results import conformance
from evaluator.render.results.board import interval_of as board_interval
from evaluator.render.results.board import overlaps, tier_cell, tier_note
from evaluator.render.results.claims import test_size

KINDS = ("human", "llm", "baseline")
KIND_LABEL = {"human": "human", "llm": "LLM", "baseline": "baseline"}
SHOWN = 100  # entries listed (and given a page) per competition; the CSV holds all


def kind_of(row: dict[str, Any]) -> str:
    """human / llm / baseline, from the entrant the metadata declared (and the pipeline checked
    against the participant: baselines are recorded by `gnncb baseline run` only)."""
    entrant = row.get("entrant", "human")
    kind = _KINDS.get(entrant) if type(entrant) is str else None
    if kind is None:
        kind = _kind_of_entrant(str(entrant))
        if type(entrant) is str and len(_KINDS) < 64:  # the few entrant strings there are
            _KINDS[entrant] = kind
    return kind


_KINDS: dict[str, str] = {}


def _kind_of_entrant(entrant: str) -> str:
    if entrant.startswith("llm"):
        return "llm"
    return "baseline" if entrant == "baseline" else "human"


def entry_id(row: dict[str, Any]) -> str:
    """File-name-safe id of a submission: its envelope digest (sha256 hex, unique per row)."""
    digest = str(row.get("digest", ""))
    return "".join(ch for ch in digest.lower() if ch in "0123456789abcdef")[:64] or "unknown"


def interval_bounds(row: dict[str, Any], score: str) -> tuple[float, float] | None:
    """The 95 % interval the scorer recorded for `score`, if the row has one.

    Rows carry it as `intervals: {score: [low, high]}` (or `{"low":, "high":}`); rows scored
    before intervals existed have none, and the site says so instead of inventing one."""
    raw = (row.get("intervals") or {}).get(score)
    if isinstance(raw, dict):
        raw = [raw.get("low", raw.get("lo")), raw.get("high", raw.get("hi"))]
    if isinstance(raw, list | tuple) and len(raw) == 2:
        try:
            lo, hi = float(raw[0]), float(raw[1])
        except (TypeError, ValueError):
            return None
        if math.isfinite(lo) and math.isfinite(hi) and lo <= hi:
            return lo, hi
    return None


def score_names(spec: Leaderboard) -> list[str]:
    names = (list(spec.metrics) + list(spec.derived) if isinstance(spec, CompetitionSpec)
             else [])
    return names or [k.score for k in spec.rank_by]


@dataclass
class CompetitionView:
    spec: Leaderboard
    slug: str
    title: str
    metric: str
    higher: bool
    scores: list[str]
    entries: list[dict[str, Any]]  # the shown standings (top SHOWN, plus every baseline/LLM best)
    total: int  # ranked entries (latest per participant)
    submissions: int  # accepted submissions (all, not only the counted ones)
    best: dict[str, dict[str, Any] | None]  # best entry of each kind
    spread: dict[str, list[float]]  # primary score of every accepted submission, per kind
    human_reference: HumanReference | None
    intervals: int  # shown entries that carry an interval
    overlaps: int = 0  # shown entries whose interval overlaps a neighbour's (marked ≈)
    extra: dict[str, Any] = field(default_factory=dict)


def _entry(spec: CompetitionSpec, e: Entry, primary: str) -> dict[str, Any]:
    r = e.row
    return {
        "rank": e.rank, "id": entry_id(r), "participant": r.get("participant", ""),
        "kind": kind_of(r), "entrant": r.get("entrant", ""), "method": r.get("method", ""),
        "model": r.get("model", ""), "team": r.get("team", ""),
        "scores": {n: r.get("scores", {}).get(n) for n in score_names(spec)},
        "primary": r.get("scores", {}).get(primary),
        "interval": interval_bounds(r, primary), "submissions": e.submissions,
        "size": test_size(r, primary),
        "date": (r.get("submitted_at") or r.get("scored_at") or "")[:10], "row": r,
    }


def competition_view(spec: CompetitionSpec, table: list[Entry], subs: list[dict[str, Any]],
                     shown: int = SHOWN, *, reveal: dict[str, Any] | None = None,
                     rows: list[dict[str, Any]] | None = None,
                     resolution: str = "") -> CompetitionView:
    """`table` = standings of the competition, `subs` = its active submissions (all versions'
    rows of the current version, in ledger order).

    Each shown entry also carries what the markdown board marks beside a rank: `overlap` (its
    95 % interval of the ranked score overlaps that of the entry ranked just above or just
    below it in the full standings: not separable on this test set) and `protocol` (the
    conformance verdict of `evaluator.render.results.conformance`, with its mark), and its
    statistical `tier` (`evaluator.ledger.ranking.tiers`, over the full standings).
    `reveal`: the version's reveal row, whose final standings (`rows`: the ledger) the page
    shows with the public rank and the shake-up; `resolution`: the competition's resolution
    note (`evaluator.scoring.resolution`)."""
    primary = spec.primary_score
    best: dict[str, dict[str, Any] | None] = dict.fromkeys(KINDS)
    keep: list[int] = []
    for i, e in enumerate(table):
        kind = kind_of(e.row)
        first_of_kind = best[kind] is None
        if first_of_kind:
            best[kind] = _entry(spec, e, primary)
        if i < shown or (first_of_kind and kind != "human") or kind == "baseline":
            keep.append(i)
    spread: dict[str, list[float]] = {k: [] for k in KINDS}
    empty: dict[str, Any] = {}
    isfinite, kinds = math.isfinite, _KINDS
    for r in subs:  # every accepted submission: the one per-row loop of a page
        v = r.get("scores", empty).get(primary)
        if v is not None:
            v = float(v)
            if isfinite(v):
                # kind_of, with its cache of entrant strings looked up here
                entrant = r.get("entrant", "human")
                cached = kinds.get(entrant) if type(entrant) is str else None
                spread[cached or kind_of(r)].append(v)
    entries = []
    found = board_tiers(spec, table[:max(keep) + 1] if keep else [])
    for i in keep:
        entry = _entry(spec, table[i], primary)
        entry["tier"] = tier_cell(found[i])
        near = [table[j].row for j in (i - 1, i + 1) if 0 <= j < len(table)]
        own = board_interval(table[i].row, primary)
        entry["overlap"] = any(overlaps(own, board_interval(r, primary)) for r in near)
        entry["protocol"] = protocol_of(spec, table[i].row)
        entries.append(entry)
    return CompetitionView(
        spec=spec, slug=spec.slug, title=spec.title, metric=primary,
        higher=spec.higher_is_better(primary), scores=score_names(spec), entries=entries,
        total=len(table), submissions=len(subs), best=best, spread=spread,
        human_reference=spec.human_reference,
        intervals=sum(1 for e in entries if e["interval"]),
        overlaps=sum(1 for e in entries if e["overlap"]),
        extra={"tier_note": tier_note(spec, [e["row"] for e in entries], found),
               "resolution": resolution,
               "final": final_view(spec, rows or [], reveal) if reveal else None})


def final_view(spec: CompetitionSpec, rows: list[dict[str, Any]], reveal: dict[str, Any]
               ) -> dict[str, Any]:
    """The final standings of a revealed version, as the markdown final page shows them: tier,
    private rank, public rank and places moved per entry, and the shake-up summary."""
    table = final_standings(spec, rows, reveal["private"])
    found = final_tiers(spec, table, reveal)
    primary = spec.primary_score
    entries = [{"tier": tier_cell(t), "rank": e.rank, "participant": e.row["participant"],
                "id": entry_id(e.row), "kind": kind_of(e.row),
                "private": e.private.get(primary), "public": e.row["scores"].get(primary),
                "public_rank": e.public_rank, "moved": e.shake_up}
               for e, t in zip(table, found, strict=True)]
    return {"entries": entries, "shake": shake_up(table),
            "tier_note": tier_note(spec, [reveal], found, part="private")}


def competition_summary(spec: CompetitionSpec, table: list[Entry]) -> CompetitionView:
    """What the index shows of a competition this build does not rebuild (`--only`, a
    publish): its title, metric, ranked entries and best entry of each kind, as in
    `competition_view`, without the shown entries and the spread of every submission, which
    only its own pages read (they were most of a publish's views at 100,000 rows)."""
    primary = spec.primary_score
    best: dict[str, dict[str, Any] | None] = dict.fromkeys(KINDS)
    missing = len(KINDS)
    for e in table:
        kind = kind_of(e.row)
        if best[kind] is None:
            best[kind] = _entry(spec, e, primary)
            missing -= 1
            if not missing:
                break
    return CompetitionView(
        spec=spec, slug=spec.slug, title=spec.title, metric=primary,
        higher=spec.higher_is_better(primary), scores=score_names(spec), entries=[],
        total=len(table), submissions=0, best=best, spread={},
        human_reference=spec.human_reference, intervals=0)


def protocol_of(spec: Leaderboard, row: dict[str, Any]) -> dict[str, Any] | None:
    """Whether the declared rules fit the protocol (`render.results.conformance`), with the
    mark the boards print ('' ok, '†' unverified, '✗' outside); None for a board without
    rules (a track)."""
    if not isinstance(spec, CompetitionSpec):  # only a competition.yaml has rules
        return None
    verdict = conformance.check_row(spec, row)
    return {**verdict, "mark": conformance.mark(verdict["status"]),
            "why": "; ".join(verdict["deviations"] or verdict["unverified"])}


# -- code-track pages: judged runs and paired prompt comparisons (render.results.codetrack) --

TABLE2_TITLE = "Pass rate per category × sub-category"


def _pct(cell: dict[str, Any] | None, key: str = "rate") -> str:
    if not cell or cell.get(key) is None:
        return "–"
    return f"{100 * float(cell[key]):.1f}"


def _p(value: float | None) -> str:
    return "–" if value is None else f"{value:.3g}"


def _signed(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:+.1f}"


def _pairs_rows(pairs: list[dict[str, Any]]) -> list[list[str]]:
    return [[p["a"], p["b"], str(p["problems"]), _pct(p, "mean_a"), _pct(p, "mean_b"),
             _signed(p["mean_difference"]), str(p["b_better"]), str(p["a_better"]),
             str(p["ties"]), _p((p.get("wilcoxon") or {}).get("p")), _p(p.get("sign_test_p"))]
            for p in pairs]


PAIR_HEADER = ["A", "B", "problems", "mean A (%)", "mean B (%)", "B − A (points)",
               "B better", "A better", "ties", "Wilcoxon p", "sign test p"]


def _isolation(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(str(x) for x in value) or "none recorded"
    return "none recorded" if value in (None, "") else str(value)


def judged_sections(judged: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The category x sub-category table ("directed | undirected", GraphEval36K Table 2) and
    the paired tests of judged runs (`evaluator.render.results.codetrack.compare_runs`), or a
    section saying why they are not shown."""
    if not judged or not judged.get("runs"):
        return [{"title": TABLE2_TITLE, "header": [], "rows": [], "svg": "", "caption": "",
                 "note": "Not shown in this build: the ledger keeps passes per problem, not "
                 "per case, and this build was given no judged run folder. Build with "
                 "gnncb site build --code-runs RUN_DIR [--code-runs RUN_DIR2 --code-pair "
                 "VANILLA=SSD] (folders written by gnncb code judge) to show it here; gnncb "
                 "results codetrack RUN_DIR ... prints the same table."}]
    runs = list(judged["runs"])
    overview = [[label, _pct(v["overall"]), _pct(v["overall"], "baseline"),
                 _pct(v["directions"].get("directed")),
                 _pct(v["directions"].get("undirected")), str(v["cases"]),
                 _isolation(v.get("isolation"))] for label, v in judged["runs"].items()]
    table2 = []
    for row in judged["table2"]:
        cells = []
        for label in runs:
            got = row["runs"].get(label)
            cells.append("–" if not got else
                         f"{_pct(got['directed'])} | {_pct(got['undirected'])} (trivial "
                         f"{_pct(got['directed'], 'baseline')} | "
                         f"{_pct(got['undirected'], 'baseline')})")
        table2.append([row["category"], row["abbrev"], *cells])
    out = [
        {"title": "Judged runs", "header": ["run", "pass rate (%)", "trivial baseline (%)",
                                            "directed (%)", "undirected (%)", "cases",
                                            "isolation"],
         "rows": overview, "svg": "", "note": "",
         "caption": "Judged runs given to this build (gnncb code judge folders): pass rate "
         "against the true answers, beside the trivial baseline (the best constant answer)"},
        {"title": TABLE2_TITLE, "header": ["category", "sub-category", *runs],
         "rows": table2, "svg": "", "note": "",
         "caption": "Pass rate in percent per category and sub-category, directed | "
         "undirected (GraphEval36K Table 2), with the trivial baseline of each cell in "
         "brackets"},
    ]
    out.append({
        "title": "Paired comparisons of judged runs (e.g. vanilla vs SSD)",
        "header": PAIR_HEADER if judged["pairs"] else [], "rows": _pairs_rows(judged["pairs"]),
        "svg": "", "caption": judged["test"],
        "note": "" if judged["pairs"] else "No pair of runs was named for a paired test "
        "(gnncb site build ... --code-pair VANILLA=SSD)."})
    return out


def _variant(llm: dict[str, Any]) -> str:
    name = str(llm.get("prompt_variant") or "vanilla").lower()
    return "ssd" if "ssd" in name else "vanilla"


def prompt_pairs(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Vanilla vs SSD for each model that has both on the board (its latest active submission
    of each), tested per problem on the ledger's per-problem counts
    (`evaluator.render.results.codetrack.paired_test`: the unit is the problem)."""
    from evaluator.render.results.codetrack import paired_test

    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for r in rows:
        llm = (r.get("declared") or {}).get("llm")
        if kind_of(r) == "llm" and isinstance(llm, dict) and isinstance(
                r.get("per_problem"), dict):
            latest[(str(r.get("model") or r.get("participant")), _variant(llm))] = r

    def report(row: dict[str, Any]) -> dict[str, Any]:
        problems = {pid: {"rate": got["passed"] / got["cases"]}
                    for pid, got in row["per_problem"].items()
                    if isinstance(got, dict) and got.get("cases")}
        return {"corrected": {"problems": problems}}

    out = []
    for model in sorted({m for m, _ in latest}):
        a, b = latest.get((model, "vanilla")), latest.get((model, "ssd"))
        if a is not None and b is not None:
            out.append({"a": f"{model} vanilla", "b": f"{model} SSD",
                        **paired_test(report(a), report(b))})
    return out


def ledger_pair_section(rows: list[dict[str, Any]]) -> dict[str, Any]:
    pairs = prompt_pairs(rows)
    return {
        "title": "Vanilla vs SSD, paired per problem (from the ledger)",
        "header": PAIR_HEADER if pairs else [], "rows": _pairs_rows(pairs), "svg": "",
        "caption": "Per model, its latest vanilla and latest SSD submission on this board, "
        "compared problem by problem on the problems both were judged on: Wilcoxon "
        "signed-rank (scipy, zero_method='zsplit') and an exact sign test on per-problem "
        "pass rates; the unit is the problem, not the case",
        "note": "" if pairs else "No model has both a vanilla and an SSD submission on this "
        "board yet, so there is no paired test: the table above only groups the counted LLM "
        "entries by the prompt they used, which says nothing about whether SSD helps."}


def track_sections(sections: list[dict[str, Any]], rows: list[dict[str, Any]],
                   judged: dict[str, Any] | None) -> list[dict[str, Any]]:
    """A code-track page's sections with the results the track's own page cannot compute:
    the paired vanilla-vs-SSD test after the prompt grouping, then the judged runs' category
    x sub-category table (or the section saying why it is not shown)."""
    out: list[dict[str, Any]] = []
    for section in sections:
        out.append(section)
        if section["title"].lower().startswith("vanilla vs ssd"):
            out.append(ledger_pair_section(rows))
    return out + judged_sections(judged)
