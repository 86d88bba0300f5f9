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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from evaluator import gcpause
from evaluator.boards import is_board
from evaluator.errors import ConfigError
from evaluator.paths import templates_dir
from evaluator.render import Prepared, ledger_label, write_leaderboards
from evaluator.site import views
from evaluator.site.parallel import Drawer, Forked, Job, can_fork, jobs_wanted
from evaluator.site.plots import STANDINGS_LIMIT
from evaluator.site.views import KIND_LABEL, CompetitionView

ASSETS = ("site.css", "sort.js")


@dataclass(frozen=True)
class Source:
    label: str
    rows: int
    sha256: str


_ENVS: dict[str, Environment] = {}


def _environment() -> Environment:
    """The site's Jinja environment, one per templates folder (compiling the templates once
    per process, not once per build; templates are not reloaded while a build runs)."""
    folder = str(templates_dir())
    env = _ENVS.get(folder)
    if env is None:
        env = _ENVS[folder] = Environment(
            loader=FileSystemLoader(folder), autoescape=select_autoescape(("html", "j2")),
            undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
            keep_trailing_newline=True, auto_reload=False)
    return env


def source_of(ledger: Path | str | None, rows: list[dict[str, Any]]) -> Source:
    """What the footer says about the ledger: its name, row count and the sha256 of its bytes
    (so a reader can tell which ledger a page was built from)."""
    sha = ""
    if isinstance(ledger, Path) and ledger.is_file():
        sha = hashlib.sha256(ledger.read_bytes()).hexdigest()
    return Source(label=ledger_label(ledger), rows=len(rows), sha256=sha)


def build_site(specs: list[Any], rows: list[dict[str, Any]], out: Path, *,
               ledger: Path | str | None = None, repo_url: str | None = None,
               changed: list[str] | None = None, shown: int = views.SHOWN,
               prepared: Prepared | None = None, jobs: int | None = None,
               boards: Path | None = None,
               progress: Callable[[int, int, str], None] | None = None) -> list[Path]:
    """Build the site into `out`; returns the files written (sorted). `prepared`: the shared
    view of these specs and rows (`evaluator.render.prepare`) when the caller renders the
    markdown boards too; `boards`: also write the markdown boards into this folder
    (`write_leaderboards`, same `changed`) from the same view, while the workers run. `jobs`:
    2 computes the figures and the results in worker processes beside the build
    (evaluator.site.parallel), 1 everything in this process (default: `jobs_wanted()`); the
    bytes are the same. `progress(done, total, note)` is called as the build goes (the CLI
    shows it with evaluator.progress)."""
    if repo_url is not None and not repo_url.startswith("https://"):
        raise ConfigError(f"--repo-url {repo_url!r}: give the repository's https:// address")
    parallel = can_fork(jobs_wanted() if jobs is None else jobs)
    comps = sorted(prepared.specs if prepared else (s for s in specs if not is_board(s)),
                   key=lambda s: s.slug)
    with gcpause.paused():  # see evaluator.gcpause: bulk passes over a large ledger
        # the workers first, so they run while this process ranks (evaluator.site.parallel)
        results = Forked(lambda: _results_context(comps, rows), parallel, "results")
        drawer = Drawer(parallel)
        failed = True
        try:
            shared = prepared or Prepared(specs, rows)
            markdown = [] if boards is None else write_leaderboards(
                specs, rows, Path(boards), ledger=ledger, changed=changed, prepared=shared)
            built = _build_site(shared, Path(out), comps, drawer, results, ledger=ledger,
                                repo_url=repo_url, changed=changed, shown=shown,
                                progress=progress or (lambda done, total, note: None))
            failed = False
            return sorted(built + markdown)
        finally:
            drawer.close(kill=failed)
            results.close(kill=failed)


def _build_site(p: Prepared, out: Path, comps: list[Any], drawer: Drawer, results: Forked, *,
                ledger: Path | str | None, repo_url: str | None, changed: list[str] | None,
                shown: int, progress: Callable[[int, int, str], None]) -> list[Path]:
    rows, tables, subs, slugs = p.rows, p.tables, p.submissions, p.slugs
    wanted = set(slugs if changed is None else changed)
    if wanted - slugs:
        raise ConfigError(f"cannot rebuild {sorted(wanted - slugs)}: not among {sorted(slugs)}")
    cviews = [views.competition_view(s, tables[s.slug], subs[s.slug], shown) for s in comps]
    todo = [v for v in cviews if v.slug in wanted]
    drawer.send([job for v in todo for job in _figures(v)])
    # progress: ranking, entries and page of each competition, each track, the results
    total = 2 + 2 * len(todo) + sum(1 for b in p.boards if b.slug in wanted)
    done = [0]

    def step(note: str) -> None:
        done[0] += 1
        progress(done[0], total, note)

    step("ranked")
    env = _environment()
    source = source_of(ledger, rows)
    tracks = [(b, {"slug": b.slug, "title": b.title, "total": len(tables[b.slug]),
                   **b.site_page(rows, tables[b.slug], shown=shown)})
              for b in p.boards if callable(getattr(b, "site_page", None))]
    written: list[Path] = []
    common = {"source": source, "kinds": KIND_LABEL, "tracks": [t for _, t in tracks]}

    def page(path: str, template: str, root: str, **context: Any) -> None:
        target = out / path
        html = env.get_template(f"site/{template}").render(root=root, **common, **context)
        target.write_text(html, encoding="utf-8")
        written.append(target)

    def text(path: str, body: str) -> None:
        target = out / path
        target.write_text(body, encoding="utf-8")
        written.append(target)

    for folder in ("assets", "competitions", "entries", "tracks"):
        (out / folder).mkdir(parents=True, exist_ok=True)
    for name in ASSETS:
        shutil.copyfile(templates_dir() / "site" / "assets" / name, out / "assets" / name)
        written.append(out / "assets" / name)
    text(".nojekyll", "")
    page("index.html", "index.html.j2", "", title="Competitions", comps=cviews)
    for v in todo:  # everything but the pages that wait for a figure or the results
        text(f"competitions/{v.slug}.csv", p.csv(v.spec))
        for e in v.entries:
            _entry_page(page, v.spec, v, e, repo_url)
        step(f"{v.slug} entries")
    for b, t in tracks:
        if b.slug not in wanted:
            continue
        text(f"tracks/{b.slug}.csv", p.csv(b))
        page(f"tracks/{b.slug}.html", "track.html.j2", "../", title=t["title"], t=t)
        tv = CompetitionView(spec=b, slug=b.slug, title=b.title, metric=b.primary_score,
                             higher=True, scores=[], entries=t["entries"], total=t["total"],
                             submissions=0, best={}, spread={}, human_reference=None,
                             intervals=0)
        for e in t["entries"]:
            _entry_page(page, b, tv, e, repo_url)
        step(b.slug)
    context = dict(results.result())
    drawer.send(context.pop("figures"))
    heatmap = context.pop("has_heatmap")
    for v in todo:
        page(f"competitions/{v.slug}.html", "competition.html.j2", "../", title=v.title, c=v,
             shown=shown, repo_url=repo_url,
             standings_svg=drawer.get(f"standings:{v.slug}"),
             spread_svg=drawer.get(f"spread:{v.slug}"))
        step(v.slug)
    page("results.html", "results.html.j2", "", title="Results", **context,
         heatmap_svg=drawer.get("heatmap") if heatmap else "", bars_svg=drawer.get("bars"))
    step("results")
    if changed is None:
        _remove_stale(out, written)
    return sorted(written)


def _figures(v: CompetitionView) -> list[Job]:
    """The two figures of a competition page, as jobs for the drawing worker: only what the
    plots read (sent to the worker through a pipe when it draws beside the build)."""
    ref = v.human_reference
    ref = None if ref is None else SimpleNamespace(top=getattr(ref, "top", None),
                                                   mean=getattr(ref, "mean", None))
    top = [{k: e[k] for k in ("rank", "participant", "kind", "primary", "interval")}
           for e in v.entries[:STANDINGS_LIMIT]]
    return [(f"standings:{v.slug}", "standings_plot", (top, v.metric, v.higher, ref)),
            (f"spread:{v.slug}", "spread_plot", (v.spread, v.metric, v.higher, ref))]


def _results_context(comps: list[Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Results from `evaluator.results` (the same numbers as `gnncb results ...`), and the jobs
    drawing its two figures (`figures`)."""
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
    figures: list[Job] = [("bars", "paired_bars", (
        [v["slug"] for v in versus], [v["llm_mean"] for v in versus],
        [v["human_mean"] for v in versus], "LLM mean", "human mean",
        "LLM mean vs human mean per competition", "score (each competition's metric)"))]
    if gapped:
        figures.append(("heatmap", "heatmap", (
            models, slugs, gapped, "Gap to the best human (positive = LLM at or above)",
            "competition", "model", "metric units")))
    return {"cohort": cohort, "cells": cells, "gaps": gaps, "tiers": tiers, "versus": versus,
            "humans": humans, "has_heatmap": bool(gapped), "figures": figures}


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
    keep = set(written)  # every path written is `out / folder / name`, as built here
    for folder in ("competitions", "entries", "tracks"):
        base = out / folder
        if not base.is_dir() or base.is_symlink():
            continue
        for path in base.iterdir():
            if path.suffix in (".html", ".csv") and path not in keep \
                    and path.is_file() and not path.is_symlink():
                path.unlink()
