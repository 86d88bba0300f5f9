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
    """One sentence: does the GNN baseline beat the features-only one on the ranking score?"""
    by = {r["participant"]: r for r in rows}
    if "baseline:gnn" not in by or "baseline:nongraph" not in by:
        return ""
    name = spec.primary_score
    gnn, flat = by["baseline:gnn"]["scores"][name], by["baseline:nongraph"]["scores"][name]
    gain = (gnn - flat) if spec.higher_is_better(name) else (flat - gnn)
    both = f"(`{name}` {gnn:.4f} for the GNN against {flat:.4f} without the graph)"
    if gain > 0.005:
        return f"**The graph helps**: the GNN baseline beats the features-only baseline {both}."
    if gain >= -0.005:
        return (f"**The graph gives no clear gain here**: both baselines score about the same "
                f"{both}. A stronger GNN has to use the structure better than these do.")
    return (f"**The graph does not help the baselines here**: the features-only baseline beats "
            f"the GNN baseline {both}. A GNN that wins must at least match a feature model "
            "on the node features before the structure can add anything.")


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
        "cpu_hours": f"{hours:g}",
        "resolution": Markup(found.sentence()) if (found := resolution(folder, spec)) else "",  # noqa: S704
    }


def render_readme(folder: Path, ledger_path: Path | None = None) -> str:
    spec = load_spec(folder)
    rows = Ledger(ledger_path or default_ledger()).rows()
    env = markdown_env(templates_dir())
    return env.get_template(README_TEMPLATE).render(**readme_context(folder, spec, rows))
