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
    results = views.results_view(cviews)
    page("results.html", "results.html.j2", "", title="Results", r=results,
         provenance=("Computed at build time from the counted entries of the ledger "
                     "(latest accepted submission per participant)."),
         heatmap_svg=plots.heatmap(
             results["models"], results["slugs"],
             {(g["model"], g["slug"]): g["gap"] for g in results["gaps"]},
             "Gap to the human mean (positive = LLM better)", "competition", "model",
             "score difference") if results["gaps"] else "",
         bars_svg=plots.paired_bars(
             [x["slug"] for x in results["llm_vs_human"]],
             [x["llm_mean"] for x in results["llm_vs_human"]],
             [x["human_mean"] for x in results["llm_vs_human"]],
             "LLM mean", "human mean", "LLM mean vs human mean per competition",
             "score (each competition's metric)"))
    if changed is None:
        _remove_stale(out, written)
    return sorted(written)


def _entry_page(page: Any, spec: Any, v: CompetitionView, e: dict[str, Any],
                repo_url: str | None) -> None:
    row = e["row"]
    declared = row.get("declared") or {}
    llm = declared.get("llm") if isinstance(declared.get("llm"), dict) else None
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
         rules=views.conformance(spec, row), declared=declared, llm=llm, links=links,
         run_log=run_log)


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
