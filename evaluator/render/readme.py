"""A competition's participant README, rendered from competition.yaml and the ledger.

Why rendered and not written by hand: the README and the scorer can then never disagree about
the metric, the submission format or the rules, and the baselines' scores shown in it are the
ledger's. `gnncb competition readme` writes it, `gnncb competition lint` and
`tests/package/test_outputs_unchanged.py` check that the committed file is this rendering, and
`gnncb baseline run` re-renders it after recording on the official ledger.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from evaluator.competition.spec import CompetitionSpec, load_spec
from evaluator.errors import ConfigError
from evaluator.ledger.store import Ledger
from evaluator.metrics.registry import METRICS
from evaluator.paths import default_ledger, templates_dir
from evaluator.render.boards import fmt_score, md_escape
from evaluator.render.results.board import interval_of
from evaluator.render.results.claims import apart, test_size
from evaluator.scoring.resolution import resolution

README_TEMPLATE = "competition_README.md.j2"


def markdown_env(directory: Path) -> Environment:
    """Jinja for files we write ourselves (README, scaffolds): maintainer text is Markdown and
    stays as written; participant strings are escaped explicitly with `| md`."""
    env = Environment(loader=FileSystemLoader(str(directory)), undefined=StrictUndefined,
                      keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                      autoescape=False)  # noqa: S701 - Markdown/YAML/Python, not HTML
    env.filters["score"] = fmt_score
    env.filters["md"] = lambda v: Markup(md_escape(v))  # noqa: S704 - escaped
    return env


def decimal_size(n: int) -> str:
    for unit, scale in (("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def data_files(folder: Path) -> list[Path]:
    data = folder / "data"
    return sorted(p for p in data.rglob("*") if p.is_file()) if data.is_dir() else []


# ----------------------------------------------------------------------------- readme
def _allowed(target: Any) -> str:
    if target.type == "class":
        return ", ".join(f"`{c}`" for c in target.classes)
    if target.type == "probability":
        return f"a number in [0, 1]: the score of class `{target.positive}` (higher = more likely)"
    return "any finite number"


def _formula(spec: CompetitionSpec, name: str) -> str:
    metric = spec.metrics[name]
    record = METRICS[metric.fn]
    positive = spec.target_for(metric).positive if record.binary else ""
    arrow = "higher is better" if spec.higher_is_better(name) else "lower is better"
    return record.formula.format(positive=f"`{positive}`") + f" ({arrow})"


def baseline_rows(spec: CompetitionSpec, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Latest scored row of each baseline participant, GNN first."""
    from evaluator.ledger.ranking import standings

    found = [e.row for e in standings(spec, rows) if e.row.get("entrant") == "baseline"]
    return sorted(found, key=lambda r: (r["participant"] != "baseline:gnn", r["participant"]))


def verdict(spec: CompetitionSpec, rows: list[dict[str, Any]]) -> str:
    """One sentence: does the GNN baseline beat the features-only one on the ranking score?

    Why it reads the intervals, not the difference: on a public part of 4 graphs a GNN at
    1.0000 against 0.7333 without the graph is one graph's difference, and both 95 % intervals
    overlap; "the graph helps" would claim what was not measured. The sentence claims a
    difference only when the two intervals do not overlap, always states the test size, and
    flags a part too small to read (the interval record's `small`, fewer than 100 units)."""
    by = {r["participant"]: r for r in rows}
    if "baseline:gnn" not in by or "baseline:nongraph" not in by:
        return ""
    name = spec.primary_score
    g_row, f_row = by["baseline:gnn"], by["baseline:nongraph"]
    gnn, flat = g_row["scores"][name], f_row["scores"][name]
    both = f"(`{name}` {gnn:.4f} for the GNN against {flat:.4f} without the graph"
    g_iv, f_iv = interval_of(g_row, name), interval_of(f_row, name)
    if g_iv is None or f_iv is None:
        return (f"**No claim on the graph**: {both[1:]}; no 95 % interval was recorded for "
                "these scores, so whether the difference is more than chance is not known.")
    size = test_size(g_row, name)["text"]
    both += (f"; 95 % intervals [{g_iv['low']:.4f}, {g_iv['high']:.4f}] and "
             f"[{f_iv['low']:.4f}, {f_iv['high']:.4f}], on {size})")
    small = ""
    if g_iv.get("small") or f_iv.get("small"):
        small = (f" **Small test set**: {size} only; the intervals are wide and the private "
                 "part may rank the baselines differently.")
    gain = (gnn - flat) if spec.higher_is_better(name) else (flat - gnn)
    separated = bool(apart(g_iv, f_iv))
    if separated and gain > 0:
        return (f"**The graph helps**: the GNN baseline beats the features-only baseline {both}, "
                f"and the intervals do not overlap.{small}")
    if separated and gain < 0:
        return (f"**The graph does not help the baselines here**: the features-only baseline "
                f"beats the GNN baseline {both}, and the intervals do not overlap. A GNN that "
                "wins must at least match a feature model on the node features before the "
                f"structure can add anything.{small}")
    return (f"**No clear difference between the baselines**: the intervals overlap {both}, "
            f"so this test size cannot say whether the graph helps.{small}")


def humans_sentence(spec: CompetitionSpec, rows: list[dict[str, Any]]) -> str:
    """The reference cohort and the platform's own humans, each with its n and source, as
    `gnncb results humans` computes them: one participant here never replaces a paper's
    cohort (after one entry on diagraph, the README must still say 15 participants, 0.822)."""
    from evaluator.render.results import api

    c = api.humans_result(api.dataset([spec], rows))["competitions"][spec.slug]
    ref, here = c["reference"], c["platform"] or {}
    metric = f"`{spec.primary_score}`"
    if ref is None:
        first = "No published human reference for this competition."
    else:
        n = "" if ref["participants"] is None else f"{ref['participants']} participants, "
        first = (f"Reference ({ref['source']}): {n}best {fmt_score(ref['top'])}, mean "
                 f"{fmt_score(ref['mean'])}" + (f" ({c['note']['text']})" if c.get("note")
                                                else "") + ".")
    if not here.get("participants"):
        second = "No human has a counted entry here yet (n = 0)."
    else:
        second = (f"Humans on this platform: n = {here['participants']}, best "
                  f"{fmt_score(here['top'])}, mean {fmt_score(here['mean'])} ({metric}, "
                  "latest accepted submission each), shown beside the reference, never in it.")
    return f"{first} {second}"


def readme_context(folder: Path, spec: CompetitionSpec,
                   rows: list[dict[str, Any]]) -> dict[str, Any]:
    files = data_files(folder)
    rel = {p.relative_to(folder).as_posix(): p for p in files}
    listed_missing = sorted(set(spec.files) - set(rel))
    if listed_missing:
        raise ConfigError(f"{folder / 'competition.yaml'}: files {listed_missing} are described "
                          "but do not exist; run `gnncb competition build` first")
    undocumented = sorted(set(rel) - set(spec.files))
    if undocumented:
        raise ConfigError(f"{folder / 'competition.yaml'}: public files {undocumented} have no "
                          "description under `files:`; participants need to know what they hold")
    baselines = baseline_rows(spec, rows)
    hours = spec.rules.cpu_hours
    return {
        "spec": spec,
        "description": Markup(spec.description.strip()),  # noqa: S704 - maintainer Markdown
        "files": [{"path": path, "about": Markup(spec.files[path]),  # noqa: S704
                   "size": decimal_size(p.stat().st_size)} for path, p in rel.items()],
        "data_bytes_text": decimal_size(sum(p.stat().st_size for p in files)),
        "targets": [{"name": t.name, "type": t.type, "allowed": Markup(_allowed(t))}  # noqa: S704
                    for t in spec.targets],
        "header": ",".join([spec.id_column] + [t.name for t in spec.targets]),
        "metrics": [{"name": n, "split": m.split, "description": m.description,
                     "formula": _formula(spec, n)} for n, m in spec.metrics.items()],
        "derived": [{"name": n, "description": d.description,
                     "arrow": "higher is better" if d.higher_is_better else "lower is better",
                     "formula": (f"{n} = " + (" − ".join(d.of) if d.op == "subtract"
                                              else f"mean({', '.join(d.of)})"))}
                    for n, d in spec.derived.items()],
        "baselines": [{"participant": r["participant"], "method": r.get("method", ""),
                       "scores": r["scores"],
                       "training_time_minutes": r.get("declared", {}).get(
                           "training_time_minutes"),
                       "hardware": r.get("declared", {}).get("hardware", "")}
                      for r in baselines],
        "verdict": Markup(verdict(spec, baselines)),  # noqa: S704 - numbers and our words
        "humans": Markup(humans_sentence(spec, rows)),  # noqa: S704 - numbers and our words
        "cpu_hours": f"{hours:g}",
        "resolution": Markup(found.sentence()) if (found := resolution(folder, spec)) else "",  # noqa: S704
    }


def render_readme(folder: Path, ledger_path: Path | None = None) -> str:
    spec = load_spec(folder)
    rows = Ledger(ledger_path or default_ledger()).rows()
    env = markdown_env(templates_dir())
    return env.get_template(README_TEMPLATE).render(**readme_context(folder, spec, rows))
