"""Results as Markdown, CSV or JSON. Pure functions of the tables' plain data.

Why three formats from one structure: JSON is the contract for tools (and the site), CSV is for
spreadsheets and re-plotting the papers' figures, Markdown is for people. Every
participant-controlled string (entrant, family, note) goes through `md_escape` in Markdown; CSV
cells that a spreadsheet would run as a formula are prefixed with a quote.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from typing import Any

from evaluator.render.boards import md_escape
from evaluator.render.results import conformance

FORMATS = ("md", "csv", "json")


def num(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "–"
    return f"{value:.{digits}f}"


def signed(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "–"
    return f"{value:+.{digits}f}"


def _cell(value: Any) -> str:
    return md_escape("" if value is None else value)


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def to_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def _safe_csv(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        try:
            float(value)
        except ValueError:
            return "'" + value
    return value


def to_csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if v is None else _safe_csv(v) for v in row])
    return buf.getvalue()


def _provenance(data: dict[str, Any]) -> list[str]:
    source = data.get("source", "ledger")
    if source == "ledger":
        return ["Source: the ledger (accepted submissions, current competition versions)."]
    prov = data.get("provenance") or {}
    sha = _cell(str(prov.get("sha256", ""))[:16])
    return [f"Source: reference source {_cell(source)} (imported from {_cell(prov.get('file'))}, "
            f"sha256 {sha}…, {_cell(prov.get('imported_at'))}); "
            "published numbers, never mixed with ledger rows."]


def _campaigns(data: dict[str, Any]) -> list[str]:
    if not data.get("campaigns"):
        return []
    return ["", "LLM runs with no valid file read from: "
            + ", ".join(_cell(c) for c in data["campaigns"]) + "."]


# ----------------------------------------------------------------------------- humans
HUMANS_HEADER = ("competition", "gnncb_id", "difficulty", "participants", "mean", "std", "high",
                 "low", "top", "metric", "source", "note", "platform_participants",
                 "platform_mean", "platform_top")


def _note_text(note: dict[str, str] | None) -> str | None:
    return None if not note else f"{note['short']}: {note['text']}"


def _here(c: dict[str, Any]) -> dict[str, Any]:
    """The platform's own cohort of a humans row ({} for an imported source)."""
    return c.get("platform") or {}


def humans_rows(data: dict[str, Any]) -> list[list[Any]]:
    return [[cid, c.get("gnncb_id"), c["difficulty"], c["participants"], c["mean"], c["std"],
             c["high"], c["low"], c["top"], c["metric"], c["source"], _note_text(c.get("note")),
             _here(c).get("participants"), _here(c).get("mean"), _here(c).get("top")]
            for cid, c in data["competitions"].items()]


def platform_cell(c: dict[str, Any]) -> str:
    """The platform's cohort beside the reference: "n = 1: top 0.856, mean 0.856"."""
    here = _here(c)
    if not here:
        return "–"
    if not here.get("participants"):
        return "n = 0"
    return f"n = {here['participants']}: top {num(here['top'])}, mean {num(here['mean'])}"


def _not_like_for_like(notes: dict[str, dict[str, str] | None], what: str) -> list[str]:
    """Footnote for rows whose human figures come from the paper, not from this test data."""
    found = {cid: n for cid, n in notes.items() if n}
    if not found:
        return []
    lines = ["", f"\\* {what} from the paper's cohort, not measured on the data the scores here "
             "are measured on; compare with care:", ""]
    lines += [f"- {_cell(cid)} ({_cell(n['short'])}): {_cell(n['text'])}"
              for cid, n in found.items()]
    return lines


def humans_markdown(data: dict[str, Any]) -> str:
    ledger = data.get("source", "ledger") == "ledger"
    lines = ["# Human cohorts (GNN-CB Table 2)", "", *_provenance(data),
             "Std is the sample standard deviation (ddof = 1). Top is the best score (the "
             "lowest for lower-is-better metrics)."
             + (" P .. Source: the reference cohort (the paper's, where the competition "
                "replicates one; gaps are measured against it); Here: the humans scored on "
                "this platform, never mixed into the reference." if ledger else ""), ""]
    rows = [[_cell(cid), _cell(c.get("gnncb_id") or ""), c["difficulty"],
             "–" if c["participants"] is None else str(c["participants"]), num(c["mean"]),
             num(c["std"]), num(c["high"]), num(c["low"]), num(c["top"]), c["metric"],
             _cell(c["source"] or "no human results"),
             _cell(f"* {c['note']['short']}" if c.get("note") else "")]
            + ([platform_cell(c)] if ledger else [])
            for cid, c in data["competitions"].items()]
    lines += _table(["Competition", "GNN-CB", "Diff.", "P", "Mean", "Std", "High", "Low", "Top",
                     "Metric", "Source", "Note"] + (["Here"] if ledger else []), rows)
    lines += _not_like_for_like({cid: c.get("note") for cid, c in
                                 data["competitions"].items()}, "Human figures")
    lines += excluded_markdown(data.get("excluded", []))
    lines += _notes(data)
    return "\n".join(lines) + "\n"


def _notes(data: dict[str, Any]) -> list[str]:
    out = []
    if data.get("inconsistencies"):
        out += ["", "## Where the reference's own numbers disagree", ""]
        out += [f"- {_cell(x)}" for x in data["inconsistencies"]]
    return out


# ----------------------------------------------------------------------------- gaps
GAPS_HEADER = ("competition", "gnncb_id", "difficulty", "metric", "higher_is_better", "entrant",
               "family", "kind", "score", "sem", "runs", "gap", "human_top", "protocol",
               "failure", "human_top_note", "platform_top", "gap_platform")


def gaps_rows(data: dict[str, Any]) -> list[list[Any]]:
    out = []
    for cid, c in data["competitions"].items():
        for name, e in c["entries"].items():
            out.append([cid, c.get("gnncb_id"), c["difficulty"], c["metric"],
                        c["higher_is_better"], name, e["family"], e["kind"], e["score"],
                        e["sem"], e["runs"], e["gap"], c["human_top"], e["protocol"],
                        e["failure"], _note_text(c.get("human_top_note")),
                        c.get("platform_top"), e.get("gap_platform")])
    return out


def _score_cell(e: dict[str, Any]) -> str:
    if e["score"] is None:
        mode = e.get("failure")
        return "no valid file" + (f" ({_cell(mode)})" if mode and mode != "no valid file" else "")
    text = num(e["score"])
    if e.get("sem") is not None:
        listed = ", ".join(num(r["score"]) for r in e.get("run_list") or [])
        text += f" ± {num(e['sem'])} ({e['runs']} runs: {listed})"
    elif e.get("interval"):
        text += f" [{num(e['interval'][0])}, {num(e['interval'][1])}]"
    if e["gap"] is not None:
        text += f" ({signed(e['gap'])})"
    return text + conformance.mark(e["protocol"])


def gaps_markdown(data: dict[str, Any]) -> str:
    comps = data["competitions"]
    ids = list(comps)
    models = sorted({m for c in comps.values() for m in c["entries"]}, key=str.lower)
    lines = ["# Human vs LLM (GNN-CB Table 3)", "", *_provenance(data), "",
             f"Gap: {data['gap_rule']}. Tie rule: {data['tie_rule']}.", "",
             f"**{data['tie_or_beat']} of {data['pairs']}** model-competition pairs tie or beat "
             f"the human top; {data['failures']} pair(s) produced no valid file (counted as "
             "failures, not dropped"
             + (f"; {data['failures_without_human_top']} of them on competitions with no human "
                "top to compare" if data.get("failures_without_human_top") else "")
             + "). † = protocol not fully recorded (counted); rows outside the protocol "
             "are listed apart below.", *_campaigns(data), ""]
    header = ["Model", "Family"] + [_cell(c) for c in ids]
    rows = []
    for m in models:
        fam = next((c["entries"][m]["family"] for c in comps.values() if m in c["entries"]), "")
        rows.append([_cell(m), _cell(fam)] + [
            _score_cell(comps[c]["entries"][m]) if m in comps[c]["entries"] else "–"
            for c in ids])
    rows.append(["**Human top**", ""] + [
        num(comps[c]["human_top"]) + (" \\*" if comps[c].get("human_top_note") else "")
        for c in ids])
    if data.get("source", "ledger") == "ledger":
        rows.append(["Humans here", ""] + [
            "n = 0" if not comps[c].get("platform_participants")
            else f"n = {comps[c]['platform_participants']}: top {num(comps[c]['platform_top'])}"
            for c in ids])
    rows.append(["**Avg. gap**", ""] + [signed(comps[c]["avg_gap"]) for c in ids])
    rows.append(["Human mean", ""] + [num(comps[c]["human_mean"]) for c in ids])
    rows.append(["LLM mean", ""] + [num(comps[c]["llm_mean"]) for c in ids])
    lines += _table(header, rows)
    lines += ["", "Metric and difficulty: " + "; ".join(
        f"{_cell(c)} {comps[c]['metric']} ({'higher' if comps[c]['higher_is_better'] else 'lower'}"
        f" is better, {comps[c]['difficulty']})" for c in ids) + "."]
    lines += _not_like_for_like({c: comps[c].get("human_top_note") for c in ids},
                                "Human top (and human mean)")
    above = data["llm_mean_above_human_mean"]
    lines += ["", f"LLM mean above the human mean on {above['count']} of {above['of']} "
              "classification competitions."]
    sev = data["severe"]
    lines += ["", "## Severe under-performance", "", f"Rule: {sev['rule']}. "
              f"{sev['count']} case(s); by failure mode: "
              + (", ".join(f"{_cell(k)} {v}" for k, v in sorted(sev["modes"].items())) or "none")
              + "; by family: "
              + (", ".join(f"{_cell(k)} {v}" for k, v in sorted(sev["by_family"].items()))
                 or "none") + "."]
    if sev["cases"]:
        lines += [""] + _table(["Competition", "Model", "Score", "Best LLM", "Shortfall", "Mode"],
                               [[_cell(c["competition"]), _cell(c["entrant"]), num(c["score"]),
                                 num(c["best_llm"]), num(c["shortfall"]), _cell(c["mode"])]
                                for c in sev["cases"]])
    lines += excluded_markdown(data.get("excluded", []))
    lines += _notes(data)
    return "\n".join(lines) + "\n"


def excluded_markdown(excluded: list[dict[str, Any]]) -> list[str]:
    if not excluded:
        return []
    lines = ["", "## Outside the protocol (kept in the ledger, not counted here)", ""]
    lines += _table(["Competition", "Entrant", "Kind", "Score", "Why"],
                    [[_cell(x["competition"]), _cell(x["entrant"]), _cell(x["kind"]),
                      num(x["score"]), _cell("; ".join(x["deviations"]))] for x in excluded])
    return lines


# ----------------------------------------------------------------------------- families
FAMILIES_HEADER = ("tier", "group", "name", "family", "best", "mean", "worst", "n")


def families_rows(data: dict[str, Any]) -> list[list[Any]]:
    out = []
    for name, s in data["families"].items():
        out.append(["all", "family", name, name, s["best"], s["mean"], s["worst"], s["n"]])
    for name, s in data["models"].items():
        out.append(["all", "model", name, s["family"], s["best"], s["mean"], s["worst"], s["n"]])
    for tier, groups in data["by_tier"].items():
        for name, s in groups["families"].items():
            out.append([tier, "family", name, name, s["best"], s["mean"], s["worst"], s["n"]])
        for name, s in groups["models"].items():
            fam = data["models"].get(name, {}).get("family", "")
            out.append([tier, "model", name, fam, s["best"], s["mean"], s["worst"], s["n"]])
    return out


def families_markdown(data: dict[str, Any]) -> str:
    lines = ["# Best / mean / worst gap to the human top (GNN-CB Figures 4, 10-12)", "",
             *_provenance(data), f"Over {data['family_scope']}; gap < 0 = below the human top.",
             ""]
    rows = [[_cell(r[0]), r[1], _cell(r[2]), _cell(r[3]), signed(r[4]), signed(r[5]),
             signed(r[6]), str(r[7])] for r in families_rows(data)]
    lines += _table(["Tier", "Group", "Name", "Family", "Best", "Mean", "Worst", "Pairs"], rows)
    lines += excluded_markdown(data.get("excluded", []))
    return "\n".join(lines) + "\n"


def render(kind: str, data: dict[str, Any], fmt: str) -> str:
    """kind in humans|gaps|families; fmt in md|csv|json (standings: `standings.render`)."""
    if fmt == "json":
        return to_json(data)
    table = {"humans": (HUMANS_HEADER, humans_rows, humans_markdown),
             "gaps": (GAPS_HEADER, gaps_rows, gaps_markdown),
             "families": (FAMILIES_HEADER, families_rows, families_markdown)}[kind]
    if fmt == "csv":
        return to_csv(table[0], table[1](data))
    return table[2](data)
