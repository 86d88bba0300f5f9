"""Write the static site: index, a page per competition and per listed entry, results, tracks.

Why an autoescaping environment of its own (not `evaluator.render.boards`'s): the markdown renderer
escapes for Markdown *and* HTML in `finalize`; here the output is HTML only, so Jinja's own
autoescape is the right tool and every `{{ value }}` is HTML-escaped unless our code made it
`Markup` (the SVG plots). The Content-Security-Policy in every page allows scripts from the
site's own files only, so even an escaping slip could not run an injected inline script.

Incremental builds: `changed` = slugs re-renders those competitions' pages and entries plus the
index and the results (which read every competition); other pages are left as they are.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Protocol, runtime_checkable

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from evaluator.competition.boards import Leaderboard, is_board
from evaluator.competition.spec import CompetitionSpec
from evaluator.errors import ConfigError
from evaluator.ledger.ranking import Entry
from evaluator.paths import find_root, templates_dir
from evaluator.render.boards import Prepared, ledger_label, write_leaderboards
from evaluator.render.site import parallel, views
from evaluator.render.site.parallel import Drawer, Job
from evaluator.render.site.plots import STANDINGS_LIMIT
from evaluator.render.site.views import KIND_LABEL, CompetitionView
from evaluator.util import gcpause
from evaluator.util.urls import is_loopback_http

ASSETS = ("site.css", "sort.js")
EXCLUDED_LISTED = 500  # rows outside the protocol listed on the results page (all are counted)


@dataclass(frozen=True)
class Source:
    label: str
    rows: int
    sha256: str


@runtime_checkable
class SitePage(Protocol):
    """A track board with a page of its own on the site (`tracks/<slug>.html`)."""

    def site_page(self, rows: list[dict[str, Any]], table: list[Entry], *,
                  shown: int = ...) -> dict[str, Any]: ...


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


def _campaigns_dir(given: Path | None) -> Path | None:
    """The committed campaigns shown beside the ledger: `given`, else the repository's
    campaigns/ (--root, $GNNCB_ROOT or the current folder's), else none."""
    if given is not None:
        return Path(given)
    found = find_root()
    return found.path / "campaigns" if found else None


def build_site(specs: Sequence[Leaderboard], rows: list[dict[str, Any]], out: Path, *,
               ledger: Path | str | None = None, repo_url: str | None = None,
               changed: list[str] | None = None, shown: int = views.SHOWN,
               prepared: Prepared | None = None, jobs: int | None = None,
               boards: Path | None = None, campaigns: Path | None = None,
               judged: dict[str, dict[str, Any]] | None = None,
               progress: Callable[[int, int, str], None] | None = None,
               drawer: Drawer | None = None,
               llm_runs: LlmRuns | None = None,
               releases: Path | None = None) -> list[Path]:
    """Build the site into `out`; returns the files written (sorted). `prepared`: the shared
    view of these specs and rows (`evaluator.render.boards.prepare`) when the caller renders the
    markdown boards too; `boards`: also write the markdown boards into this folder
    (`write_leaderboards`, same `changed`) from the same view. `jobs`: 2 draws the figures of
    a full build in a worker process beside it (evaluator.render.site.parallel), 1 everything in
    this process (default: `jobs_wanted()`); the bytes are the same. `drawer`: a worker the
    caller started already (before reading the ledger), closed here. `campaigns`: the
    committed LLM campaign folders entry pages link to (default: the repository's
    `campaigns/`). `judged`: track board slug -> judged runs side
    by side (`evaluator.render.results.codetrack.compare_runs`, computed by the caller, which may
    import the track), shown on that board's page. `progress(done, total, note)` is called
    as the build goes (the CLI shows it with evaluator.util.progress). `llm_runs`: the LLM
    campaign folders whose runs the results count (failures included) with the track's reader
    and classifier, as `gnncb results` reads them (`LlmRuns`; passed in by the caller, which
    may import the LLM track), so the site counts every LLM outcome the CLI counts. `releases`: the
    folder of the reveals' releases (default: the repository's `leaderboard/releases/`): each
    revealed competition's evidence is copied into the site and offered beside each entry."""
    if repo_url is not None and not (repo_url.startswith("https://")
                                     or is_loopback_http(repo_url)):
        raise ConfigError(f"--repo-url {repo_url!r}: give the repository's https:// address "
                          "(plain http only for a local stand-in on this machine)")
    shared_specs = prepared.specs if prepared else [s for s in specs if not is_board(s)]
    comps = sorted(shared_specs, key=lambda s: s.slug)
    figures = 2 + 2 * len([s for s in comps if changed is None or s.slug in changed])
    with gcpause.paused(), (drawer or Drawer(parallel.wanted(jobs, figures))) as drawer:
        # the drawing worker (if any) imports matplotlib while this process ranks
        shared = prepared or Prepared(specs, rows)
        markdown = [] if boards is None else write_leaderboards(
            specs, rows, Path(boards), ledger=ledger, changed=changed, prepared=shared)
        built = _build_site(shared, Path(out), comps, drawer, ledger=ledger, repo_url=repo_url,
                            changed=changed, shown=shown,
                            campaigns=campaign_folders(_campaigns_dir(campaigns)),
                            judged=judged or {}, llm_runs=llm_runs,
                            progress=progress or (lambda done, total, note: None),
                            releases=_releases_dir(releases))
        return sorted(built + markdown)


def _releases_dir(given: Path | None) -> Path | None:
    if given is not None:
        return Path(given)
    found = find_root()
    return found.path / "leaderboard" / "releases" if found else None


def _copy_release(releases: Path | None, spec: Leaderboard, out: Path,
                  written: list[Path]) -> dict[str, dict[str, Any]]:
    """Copy a revealed competition's release (repo.release: labels, predictions, per-item
    results, index.json) into the site; digest -> the links its entry page offers."""
    folder = (releases / spec.slug / f"v{spec.version}") if releases else None
    if folder is None or not (folder / "index.json").is_file():
        return {}
    try:
        index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    except ValueError as err:
        raise ConfigError(f"{folder / 'index.json'}: not JSON ({err}); restore it from "
                          "git") from None
    base = f"releases/{spec.slug}/v{spec.version}"
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        target = _own(out, f"{base}/{path.relative_to(folder).as_posix()}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        written.append(target)
    labels = [e["file"] for e in index.get("labels", {}).values() if isinstance(e, dict)]
    links = {}
    for item in index.get("submissions", []):
        if isinstance(item, dict) and item.get("file"):
            digest = item["digest"]
            links[digest] = {
                "predictions": f"../{base}/{item['file']}",
                "items": [{"split": split, "href": f"../{base}/items/{split}/{digest}.csv"}
                          for split in sorted(index.get("labels", {}))],
                "labels": [f"../{base}/{f}" for f in labels],
                "index": f"../{base}/index.json"}
    return links


def _resolution(spec: CompetitionSpec) -> str:
    """The competition's resolution note as plain text (its folder in this repository), or ""
    when the folder or its public ids are not there (a site built from specs alone)."""
    from evaluator.paths import competitions_dir
    from evaluator.scoring.resolution import resolution

    try:
        folder = competitions_dir() / spec.slug
    except ConfigError:
        return ""
    found = resolution(folder, spec) if (folder / "competition.yaml").is_file() else None
    return found.sentence(markdown=False) if found else ""


def _own(out: Path, path: str) -> Path:
    """`out / path`, refused when it or a folder on the way inside `out` is a symbolic link.

    Why: a link already in the output folder (`entries -> /somewhere`) made the build write
    through it, outside the site; the site is written only into real folders under `out`."""
    target = out / path
    for step in [*reversed(target.relative_to(out).parents[:-1]), target.relative_to(out)]:
        if (out / step).is_symlink():
            raise ConfigError(f"{out / step} is a symbolic link; the site is written only into "
                              f"real files and folders under {out}: remove the link (or build "
                              "into an empty folder) and run again")
    return target


def _build_site(p: Prepared, out: Path, comps: list[CompetitionSpec], drawer: Drawer, *,
                ledger: Path | str | None, repo_url: str | None, changed: list[str] | None,
                shown: int, campaigns: dict[str, str], judged: dict[str, Any],
                progress: Callable[[int, int, str], None],
                llm_runs: LlmRuns | None = None,
                releases: Path | None = None) -> list[Path]:
    rows, tables, subs, slugs = p.rows, p.tables, p.submissions, p.slugs
    wanted = set(slugs if changed is None else changed)
    if wanted - slugs:
        raise ConfigError(f"cannot rebuild {sorted(wanted - slugs)}: not among {sorted(slugs)}")
    cviews = [views.competition_view(s, tables[s.slug], subs[s.slug], shown,
                                     reveal=p.reveals.get(s.slug), rows=rows,
                                     resolution=_resolution(s))
              if s.slug in wanted else views.competition_summary(s, tables[s.slug])
              for s in comps]  # the index reads only a summary of the others
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
    tracks = []
    for b in p.boards:
        if isinstance(b, SitePage):
            t = {"slug": b.slug, "title": b.title, "total": len(tables[b.slug]),
                 **b.site_page(rows, tables[b.slug], shown=shown)}
            t["sections"] = views.track_sections(t.get("sections", []), p.submissions[b.slug],
                                                 judged.get(b.slug))
            tracks.append((b, t))
    written: list[Path] = []
    common = {"source": source, "kinds": KIND_LABEL, "tracks": [t for _, t in tracks]}

    def page(path: str, template: str, root: str, **context: Any) -> None:
        target = _own(out, path)
        html = env.get_template(f"site/{template}").render(root=root, **common, **context)
        target.write_text(html, encoding="utf-8")
        written.append(target)

    def text(path: str, body: str) -> None:
        target = _own(out, path)
        target.write_text(body, encoding="utf-8")
        written.append(target)

    for folder in ("assets", "competitions", "entries", "tracks"):
        _own(out, folder).mkdir(parents=True, exist_ok=True)
    for name in ASSETS:
        shutil.copyfile(templates_dir() / "site" / "assets" / name, out / "assets" / name)
        written.append(out / "assets" / name)
    text(".nojekyll", "")
    context = _results_context(comps, rows, subs, llm_runs,
                               counted={s.slug: {e.row["digest"] for e in tables[s.slug]}
                                        for s in comps})
    cohorts = context["humans"]["competitions"]
    attempts = attempt_logs(llm_runs)
    page("index.html", "index.html.j2", "", title="Competitions", comps=cviews,
         cohorts=context["humans"]["competitions"], llm_outcomes=context["llm_outcomes"])
    for v in todo:  # everything but the pages that wait for a figure or the results
        text(f"competitions/{v.slug}.csv", p.csv(v.spec))
        evidence = _copy_release(releases, v.spec, out, written)
        for e in v.entries:
            _entry_page(page, v.spec, v, e, repo_url, campaigns,
                        cohort=cohorts.get(v.slug), attempts=attempts,
                        evidence=evidence.get(e["row"].get("digest", "")))
        step(f"{v.slug} entries")
    for b, t in tracks:
        if b.slug not in wanted:
            continue
        text(f"tracks/{b.slug}.csv", p.csv(b))
        for extra in t.get("files", []):  # the track's own data downloads, linked on its page
            text(f"tracks/{extra['name']}", extra["body"])
        page(f"tracks/{b.slug}.html", "track.html.j2", "../", title=t["title"], t=t)
        tv = CompetitionView(spec=b, slug=b.slug, title=b.title, metric=b.primary_score,
                             higher=True, scores=[], entries=t["entries"], total=t["total"],
                             submissions=0, best={}, spread={}, human_reference=None,
                             intervals=0)
        for e in t["entries"]:
            _entry_page(page, b, tv, e, repo_url, campaigns)
        step(b.slug)
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
    plain = None if ref is None else SimpleNamespace(top=ref.top, mean=ref.mean)
    top = [{k: e[k] for k in ("rank", "participant", "kind", "primary", "interval")}
           for e in v.entries[:STANDINGS_LIMIT]]
    return [(f"standings:{v.slug}", "standings_plot", (top, v.metric, v.higher, plain)),
            (f"spread:{v.slug}", "spread_plot", (v.spread, v.metric, v.higher, plain))]


@dataclass(frozen=True)
class LlmRuns:
    """LLM campaign folders and the LLM track's readers (`evaluator.llm.report.load_runs`,
    `low_scoring`), as `gnncb results` passes them to `api.dataset`."""

    folders: list[Path]
    load_runs: Any
    classify: Any = None


def _results_context(comps: list[CompetitionSpec], rows: list[dict[str, Any]],
                     routed: dict[str, list[dict[str, Any]]] | None = None,
                     llm_runs: LlmRuns | None = None,
                     counted: dict[str, set[str]] | None = None) -> dict[str, Any]:
    """Results from `render.results` (the same numbers as `gnncb results ...`), and the jobs
    drawing its two figures (`figures`). `routed`: the shared view's submissions per
    competition (`Prepared.submissions`): the dataset is built from them, without routing the
    ledger again, and without the per-human run records no page shows (tested equal to the
    dataset of `gnncb results`); `counted`: the digests its boards show per competition."""
    from evaluator.render.results import api

    runs = llm_runs if llm_runs is not None and llm_runs.folders else None
    ds = api.dataset(comps, rows, routed=routed, human_runs=routed is None, counted=counted,
                     campaign_dirs=runs.folders if runs else None,
                     load_runs=runs.load_runs if runs else None,
                     classify=runs.classify if runs else None)
    humans = api.humans_result(ds)
    gaps = api.gaps_result(ds, humans)
    cohort = [{"slug": s.slug, "title": s.title, **humans["competitions"][s.slug]}
              for s in comps if s.slug in humans["competitions"]]
    cells = [{"model": model, "slug": slug, **e} for slug, c in gaps["competitions"].items()
             for model, e in c["entries"].items()]
    models = sorted({c["model"] for c in cells})
    # one chart, one unit and one direction: the classification competitions (bounded,
    # higher-is-better fractions) only; an MAE gap beside an F1 gap on one colour scale (or an
    # MAE bar beside an accuracy bar on one axis) reads as the same kind of number
    charted = [s.slug for s in comps if gaps["competitions"].get(s.slug, {}).get("classification")
               and gaps["competitions"][s.slug]["higher_is_better"]]
    left_out = [s.slug for s in comps if s.slug not in charted]
    gapped = {(c["model"], c["slug"]): c["gap"] for c in cells
              if c["gap"] is not None and c["slug"] in charted}
    tiers = [{"tier": t, "family": f, **v} for t, by in gaps["by_tier"].items()
             for f, v in by["families"].items()]
    versus = [{"slug": slug, **{k: c[k] for k in ("metric", "higher_is_better", "human_mean",
                                                  "llm_mean", "llm_mean_above_human_mean")}}
              for slug, c in gaps["competitions"].items()]
    barred = [v for v in versus if v["slug"] in charted]
    figures: list[Job] = [("bars", "paired_bars", (
        [v["slug"] for v in barred], [v["llm_mean"] for v in barred],
        [v["human_mean"] for v in barred], "LLM mean", "human mean",
        "LLM mean vs human mean (classification competitions)",
        "score (fraction, higher is better)"))]
    if gapped:
        figures.append(("heatmap", "heatmap", (
            sorted({m for m, _ in gapped}), [s for s in charted
                                             if any(c == s for _, c in gapped)], gapped,
            "Gap to the best human (classification; positive = LLM at or above)",
            "competition", "model", "fraction (metric units)")))
    valid = sum(1 for c in cells if c["score"] is not None)
    return {"cohort": cohort, "cells": cells, "gaps": gaps, "tiers": tiers, "versus": versus,
            "humans": humans, "has_heatmap": bool(gapped), "figures": figures,
            "excluded": gaps["excluded"][:EXCLUDED_LISTED], "charted": charted,
            "left_out": left_out, "models": models,
            "llm_outcomes": {"entries": len(cells), "valid": valid,
                             "failures": len(cells) - valid}}


def attempt_logs(llm_runs: LlmRuns | None) -> dict[str, list[dict[str, Any]]]:
    """Ledger digest -> the attempt log of the LLM run that produced it (each attempt's parse
    status, exit reason, validity and classified failure), read from the campaigns' run
    summaries: the ledger row records only how many repairs were used, not what failed."""
    from evaluator.render.results.entries import campaign_runs

    out: dict[str, list[dict[str, Any]]] = {}
    if llm_runs is None:
        return out
    for folder in llm_runs.folders:
        for _, summary in campaign_runs(Path(folder), llm_runs.load_runs):
            digest, log = summary.get("digest"), summary.get("attempt_log")
            if isinstance(digest, str) and isinstance(log, list):
                out[digest] = [a for a in log if isinstance(a, dict)]
    return out


def _failed_attempts(log: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Each attempt that did not give a valid file, as text: what the reader needs beside
    "repairs 1"."""
    out = []
    for a in log:
        if a.get("valid"):
            continue
        found = a.get("failure")
        failure: dict[str, Any] = found if isinstance(found, dict) else {}
        out.append({"index": str(a.get("index", "?")),
                    "what": "; ".join(str(x) for x in (
                        failure.get("mode"), failure.get("evidence"),
                        f"parse {a['parse_status']}" if a.get("parse_status") not in (None, "ok")
                        else None,
                        f"exit {a['exit_reason']}" if a.get("exit_reason") not in (None, "ok")
                        else None) if x) or "no valid file"})
    return out


def _gap(value: float | None, top: float | None, higher: bool) -> float | None:
    from evaluator.render.results.tables import signed_gap

    return None if value is None or top is None else signed_gap(value, top, higher)


def _entry_page(page: Callable[..., None], spec: Leaderboard, v: CompetitionView, e: dict[str, Any],
                repo_url: str | None, campaigns: dict[str, str], *,
                cohort: dict[str, Any] | None = None,
                attempts: dict[str, list[dict[str, Any]]] | None = None,
                evidence: dict[str, Any] | None = None) -> None:
    from evaluator.render.results.claims import test_size
    from evaluator.render.results.conformance import llm_items

    row = e["row"]
    raw = row.get("declared") if isinstance(row.get("declared"), dict) else {}
    declared = {k: raw.get(k) for k in ("gnn_only", "seed", "training_time_minutes",
                                        "tuning_runs", "hardware", "notes")}
    kind = e.get("kind")
    # only the LLM track records how an LLM made a submission: an `llm` block a participant
    # declared in their own metadata.json is their word, never shown as the track's record
    # nor linked to a campaign (kind comes from the entrant the pipeline checked)
    raw_llm = raw.get("llm") if isinstance(raw.get("llm"), dict) and kind == "llm" else None
    llm = None if raw_llm is None else llm_facts(raw_llm, row, campaigns, repo_url)
    links = []
    pr = row.get("pr")
    if repo_url and isinstance(pr, int) and pr > 0:
        links.append({"href": f"{repo_url}/pull/{pr}", "text": f"pull request #{pr}"})
    scores = [{"name": n, "higher": spec.higher_is_better(n), "value": e["scores"].get(n),
               "interval": views.interval_bounds(row, n)} for n in (v.scores or e["scores"])]
    ref = (cohort or {}).get("reference") or {}
    here = (cohort or {}).get("platform") or {}
    primary = e.get("primary")
    versus = None if cohort is None else {
        "reference": _gap(primary, ref.get("top"), v.higher), "reference_top": ref.get("top"),
        "reference_source": ref.get("source"), "reference_n": ref.get("participants"),
        "platform": _gap(primary, here.get("top"), v.higher), "platform_top": here.get("top"),
        "platform_n": here.get("participants") or 0, "note": (cohort or {}).get("note")}
    failed = _failed_attempts((attempts or {}).get(str(row.get("digest", "")), []))
    page(f"entries/{e['id']}.html", "entry.html.j2", "../",
         title=f"{e['participant']} on {v.title}", e=e, c=v, scores=scores,
         protocol=e["protocol"] if "protocol" in e else views.protocol_of(spec, row),
         declared=declared, llm=llm, links=links, evidence=evidence, size=test_size(row, v.metric),
         llm_rules=llm_items(row) if kind == "llm" and isinstance(spec, CompetitionSpec)
         else None, versus=versus, failed_attempts=failed,
         back=f"../{'tracks' if is_board(spec) else 'competitions'}/{v.slug}.html")


def _plain(value: Any) -> str | None:
    """A recorded fact as a reader reads it: a list as "a, b", a mapping as "k: v, ..."."""
    if value is None or value == "" or value == [] or value == {}:
        return None
    if isinstance(value, list | tuple):
        return ", ".join(str(x) for x in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_plain(x) or '–'}" for k, x in sorted(value.items()))
    return str(value)


def _repairs(llm: dict[str, Any]) -> str | None:
    """Repairs used: a number (a prediction run), or one per problem (a code-track run)."""
    used, allowed = llm.get("repair_depth"), llm.get("repairs_allowed")
    if isinstance(used, dict) and used:
        counts = [x for x in used.values() if isinstance(x, int | float)]
        text = (f"at most {max(counts):g} per problem ({_plain(used)})" if counts
                else _plain(used))
    else:
        text = _plain(used)
    if text is not None and allowed is not None:
        text += f"; {allowed} allowed"
    return text


def llm_facts(llm: dict[str, Any], row: dict[str, Any], campaigns: dict[str, str],
              repo_url: str | None) -> dict[str, Any]:
    """The LLM run facts an entry page shows, as text: prediction rows record `prompt_hash`,
    code-track rows `template_hash` (the prompt template's); provider and repairs may be
    lists or per-problem mappings. `run_log`: the committed campaign folder the run belongs
    to (`campaign_folders`), linked when the repository's address is known; run folders that
    were never committed get no link."""
    digest = "prompt_hash" if llm.get("prompt_hash") else "template_hash"
    folder = campaigns.get(str(row.get("digest", ""))) or campaigns.get(
        str(llm.get("campaign") or ""))
    return {
        "provider": _plain(llm.get("provider")), "repairs": _repairs(llm),
        "hash": _plain(llm.get(digest)),
        "hash_label": "prompt hash" if digest == "prompt_hash" else "prompt template hash",
        "prompt_variant": _plain(llm.get("prompt_variant")),
        "tokens_in": llm.get("tokens_in"), "tokens_out": llm.get("tokens_out"),
        "campaign": _plain(llm.get("campaign")),
        "folder": f"campaigns/{folder}/" if folder else None,
        "run_log": f"{repo_url}/tree/main/campaigns/{folder}" if folder and repo_url else None,
    }


def campaign_folders(campaigns: Path | None) -> dict[str, str]:
    """Campaign name or ledger digest -> folder under `campaigns/` (committed campaigns:
    `campaigns/<folder>/campaign.json` names its parts' campaigns and digests)."""
    found: dict[str, str] = {}
    if campaigns is None or not campaigns.is_dir():
        return found
    for path in sorted(campaigns.glob("*/campaign.json")):
        folder = path.parent.name
        if not folder or not all(ch.isalnum() or ch in "-_." for ch in folder):
            continue  # only names that are safe in a URL as they are
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        found.setdefault(folder, folder)
        parts = [data, *(v for v in data.values() if isinstance(v, dict))] \
            if isinstance(data, dict) else []
        for part in parts:
            for key in ("campaign", "digest"):
                if isinstance(part.get(key), str) and part[key]:
                    found.setdefault(part[key], folder)
    return found


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
