"""Write the static site: index, a page per competition and per listed entry, results, tracks.

Why an autoescaping environment of its own (not `evaluator.render`'s): the markdown renderer
escapes for Markdown *and* HTML in `finalize`; here the output is HTML only, so Jinja's own
autoescape is the right tool and every `{{ value }}` is HTML-escaped unless our code made it
`Markup` (the SVG plots). The Content-Security-Policy in every page allows scripts from the
site's own files only, so even an escaping slip could not run an injected inline script.

Incremental builds: `changed` = slugs re-renders those competitions' pages and entries plus the
index and the results (which read every competition); other pages are left as they are.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from evaluator import gcpause
from evaluator.boards import boards_for, is_board
from evaluator.errors import ConfigError
from evaluator.paths import templates_dir
from evaluator.ranking import standings_by_competition
from evaluator.render import ledger_label, standings_csv
from evaluator.site import views
from evaluator.site.views import KIND_LABEL, CompetitionView

ASSETS = ("site.css", "sort.js")


@dataclass(frozen=True)
class Source:
    label: str
    rows: int
    sha256: str


def _environment() -> Environment:
    return Environment(loader=FileSystemLoader(str(templates_dir())),
                       autoescape=select_autoescape(("html", "j2")), undefined=StrictUndefined,
                       trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def source_of(ledger: Path | str | None, rows: list[dict[str, Any]]) -> Source:
    """What the footer says about the ledger: its name, row count and the sha256 of its bytes
    (so a reader can tell which ledger a page was built from)."""
    sha = ""
    if isinstance(ledger, Path) and ledger.is_file():
        sha = hashlib.sha256(ledger.read_bytes()).hexdigest()
    return Source(label=ledger_label(ledger), rows=len(rows), sha256=sha)


def build_site(specs: list[Any], rows: list[dict[str, Any]], out: Path, *,
               ledger: Path | str | None = None, repo_url: str | None = None,
               changed: list[str] | None = None, shown: int = views.SHOWN) -> list[Path]:
    """Build the site into `out`; returns the files written (sorted)."""
    with gcpause.paused():  # see evaluator.gcpause: bulk passes over a large ledger
        return _build_site(specs, rows, Path(out), ledger=ledger, repo_url=repo_url,
                           changed=changed, shown=shown)


def _build_site(specs: list[Any], rows: list[dict[str, Any]], out: Path, *,
                ledger: Path | str | None, repo_url: str | None, changed: list[str] | None,
                shown: int) -> list[Path]:
    from evaluator.site import plots

    out = Path(out)
    boards = boards_for(specs, rows)
    comps = sorted((s for s in specs if not is_board(s)), key=lambda s: s.slug)
    slugs = {s.slug for s in comps} | {b.slug for b in boards}
    unknown = sorted({r["slug"] for r in rows if r.get("slug") and r["slug"] not in slugs})
    if unknown:
        raise ConfigError(f"ledger has rows for unknown competitions {unknown}; "
                          "pass the competitions folder that holds them")
    wanted = set(slugs if changed is None else changed)
    if wanted - slugs:
        raise ConfigError(f"cannot rebuild {sorted(wanted - slugs)}: not among {sorted(slugs)}")
    if repo_url is not None and not repo_url.startswith("https://"):
        raise ConfigError(f"--repo-url {repo_url!r}: give the repository's https:// address")
    env = _environment()
    source = source_of(ledger, rows)
    tables = standings_by_competition([*comps, *boards], rows)
    subs = views.submissions_by_competition([*comps, *boards], rows)
    cviews = [views.competition_view(s, tables[s.slug], subs[s.slug], shown) for s in comps]
    tracks = [(b, {"slug": b.slug, "title": b.title, "total": len(tables[b.slug]),
                   **b.site_page(rows, tables[b.slug], shown=shown)})
              for b in boards if callable(getattr(b, "site_page", None))]
    written: list[Path] = []
    common = {"source": source, "kinds": KIND_LABEL, "tracks": [t for _, t in tracks]}

    def page(path: str, template: str, root: str, **context: Any) -> None:
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        html = env.get_template(f"site/{template}").render(root=root, **common, **context)
        target.write_text(html, encoding="utf-8")
        written.append(target)

    def text(path: str, body: str) -> None:
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
        written.append(target)

    out.mkdir(parents=True, exist_ok=True)
    for name in ASSETS:
        (out / "assets").mkdir(exist_ok=True)
        shutil.copyfile(templates_dir() / "site" / "assets" / name, out / "assets" / name)
        written.append(out / "assets" / name)
    text(".nojekyll", "")
    page("index.html", "index.html.j2", "", title="Competitions", comps=cviews)
    for v in cviews:
        if v.slug not in wanted:
            continue
        text(f"competitions/{v.slug}.csv", standings_csv(v.spec, tables[v.slug]))
        page(f"competitions/{v.slug}.html", "competition.html.j2", "../", title=v.title, c=v,
             shown=shown, repo_url=repo_url,
             standings_svg=plots.standings_plot(v.entries, v.metric, v.higher,
                                                v.human_reference),
             spread_svg=plots.spread_plot(v.spread, v.metric, v.higher, v.human_reference))
        for e in v.entries:
            _entry_page(page, v.spec, v, e, repo_url)
    for b, t in tracks:
        if b.slug not in wanted:
            continue
        text(f"tracks/{b.slug}.csv", standings_csv(b, tables[b.slug]))
        page(f"tracks/{b.slug}.html", "track.html.j2", "../", title=t["title"], t=t)
        tv = CompetitionView(spec=b, slug=b.slug, title=b.title, metric=b.primary_score,
                             higher=True, scores=[], entries=t["entries"], total=t["total"],
                             submissions=0, best={}, spread={}, human_reference=None,
                             intervals=0)
        for e in t["entries"]:
            _entry_page(page, b, tv, e, repo_url)
    _results_page(page, comps, rows, plots)
    if changed is None:
        _remove_stale(out, written)
    return sorted(written)


def _results_page(page: Any, comps: list[Any], rows: list[dict[str, Any]], plots: Any) -> None:
    """Results from `evaluator.results` (the same numbers as `gnncb results ...`)."""
    from evaluator.results import api

    ds = api.dataset(comps, rows)
    humans, gaps = api.humans_result(ds), api.gaps_result(ds)
    cohort = [{"slug": s.slug, "title": s.title, **humans["competitions"][s.slug]}
              for s in comps if s.slug in humans["competitions"]]
    cells = [{"model": model, "slug": slug, **e} for slug, c in gaps["competitions"].items()
             for model, e in c["entries"].items()]
    models = sorted({c["model"] for c in cells})
    slugs = [s.slug for s in comps]
    gapped = {(c["model"], c["slug"]): c["gap"] for c in cells if c["gap"] is not None}
    tiers = [{"tier": t, "family": f, **v} for t, by in gaps["by_tier"].items()
             for f, v in by["families"].items()]
    versus = [{"slug": slug, **{k: c[k] for k in ("metric", "higher_is_better", "human_mean",
                                                  "llm_mean", "llm_mean_above_human_mean")}}
              for slug, c in gaps["competitions"].items()]
    page("results.html", "results.html.j2", "", title="Results", cohort=cohort, cells=cells,
         gaps=gaps, tiers=tiers, versus=versus, humans=humans,
         heatmap_svg=plots.heatmap(models, slugs, gapped,
                                   "Gap to the best human (positive = LLM at or above)",
                                   "competition", "model", "metric units")
         if gapped else "",
         bars_svg=plots.paired_bars([v["slug"] for v in versus],
                                    [v["llm_mean"] for v in versus],
                                    [v["human_mean"] for v in versus], "LLM mean",
                                    "human mean", "LLM mean vs human mean per competition",
                                    "score (each competition's metric)"))


def _entry_page(page: Any, spec: Any, v: CompetitionView, e: dict[str, Any],
                repo_url: str | None) -> None:
    row = e["row"]
    raw = row.get("declared") if isinstance(row.get("declared"), dict) else {}
    declared = {k: raw.get(k) for k in ("gnn_only", "seed", "training_time_minutes",
                                        "tuning_runs", "hardware", "notes")}
    raw_llm = raw.get("llm") if isinstance(raw.get("llm"), dict) else None
    llm = None if raw_llm is None else {
        k: raw_llm.get(k) for k in ("provider", "repair_depth", "tokens_in", "tokens_out",
                                    "prompt_hash", "prompt_variant", "campaign")}
    links = []
    pr = row.get("pr")
    if repo_url and isinstance(pr, int) and pr > 0:
        links.append({"href": f"{repo_url}/pull/{pr}", "text": f"pull request #{pr}"})
    run_log = None
    if repo_url and llm and llm.get("campaign") and all(
            ch.isalnum() or ch in "-_." for ch in str(llm["campaign"])):
        run_log = f"{repo_url}/tree/main/llm-runs/{llm['campaign']}"
    scores = [{"name": n, "higher": spec.higher_is_better(n), "value": e["scores"].get(n),
               "interval": views.interval_of(row, n)} for n in (v.scores or e["scores"])]
    page(f"entries/{e['id']}.html", "entry.html.j2", "../",
         title=f"{e['participant']} on {v.title}", e=e, c=v, scores=scores,
         protocol=_protocol(spec, row), declared=declared, llm=llm, links=links,
         back=f"../{'tracks' if is_board(spec) else 'competitions'}/{v.slug}.html",
         run_log=run_log)


def _protocol(spec: Any, row: dict[str, Any]) -> dict[str, Any] | None:
    """Whether the declared rules fit the protocol (evaluator.results.conformance)."""
    if not hasattr(spec, "rules"):
        return None
    from evaluator.results import conformance

    return conformance.check_row(spec, row)


def _remove_stale(out: Path, written: list[Path]) -> None:
    """After a full build, delete pages of ours that this build did not write (an entry that
    left the top N, a withdrawn submission) — only inside the folders the site owns."""
    keep = {p.resolve() for p in written}
    for folder in ("competitions", "entries", "tracks"):
        base = out / folder
        if not base.is_dir() or base.is_symlink():
            continue
        for path in base.iterdir():
            if path.is_file() and not path.is_symlink() and path.suffix in (".html", ".csv") \
                    and path.resolve() not in keep:
                path.unlink()
