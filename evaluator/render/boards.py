"""Jinja rendering of markdown leaderboards (and, for other tracks, any markdown page).

Why escaping lives in the environment, not in templates: every `{{ value }}` passes through
`finalize`, which escapes for Markdown and HTML unless the value was explicitly marked safe by
our own code (numbers, ranks). A template author cannot forget to escape a participant's method
name, and GitHub can never render a participant's string as a link, image, table break,
mention, emoji, math or HTML.

Why only what CommonMark needs, at that position: a backslash before every punctuation mark
(`GNN\\-CoRA\\:`, `Parkinson&#x27;s`) is safe but unreadable wherever the markdown is read as
text (the raw file, an editor, a diff). `md_escape` escapes a character only where it could
start or end a construct there: `*`, `` ` ``, `[`, `]`, `|`, `~`, `$`, `\\` anywhere; `_` at a
word boundary (CommonMark never makes an intraword `_` emphasis); `<`/`>` as entities; `&` only
where it would begin an entity; `:` only in `scheme://` or a `:shortcode:`; the `.` of `www.`;
and a block marker (`#`, `>`, `-`, `+`, `=`, `1.`) only at the very start of the value.

Why boards stop at the top N: a 100,000-row ledger gave 1.2 MB pages GitHub does not display
usefully. A board shows the first `TOP` entries, and the full standings go to a CSV beside the
page (and to the site, `gnncb site build`).
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from evaluator import settings
from evaluator.competition.boards import Leaderboard, Rankable, boards_for, is_board
from evaluator.competition.schedule import REVEAL, revealed
from evaluator.competition.spec import CompetitionSpec
from evaluator.errors import ConfigError
from evaluator.ledger.ranking import (
    FINAL_CHOICE,
    Entry,
    board_tiers,
    final_standings,
    final_tiers,
    shake_up,
    standings_by_competition,
    standings_routed,
)
from evaluator.ledger.store import RESCORE, STALE, SUBMISSION, WITHDRAWAL, apply_audits
from evaluator.paths import find_root, templates_dir
from evaluator.util import gcpause

# GitHub links `@login` and `@org/team` only when a login character follows the "@".
MENTION_BREAK = "@\u200d"
# GitHub links `#12`, `GH-12` and `owner/repo#12` to issues and pull requests only when the
# number follows at once; a zero-width joiner before the number leaves the text unlinkable.
_ISSUE_REF = re.compile(r"(#|(?<![A-Za-z0-9])[Gg][Hh]-)(?=[0-9])")
TOP = 20  # entries shown on a markdown board; the CSV beside it holds all of them

_ALWAYS = re.compile(r"([\\`*\[\]|~$])")
_UNDERSCORE_EDGE = re.compile(r"(?:(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
_ENTITY_LIKE = re.compile(r"&(?=#[0-9]{1,7};?|#[xX][0-9a-fA-F]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};)")
_SCHEME_COLON = re.compile(r"(?<=[A-Za-z0-9])(:)(?=//)")
_SHORTCODE_COLON = re.compile(r":(?=[A-Za-z0-9_+\-]+:)")
_WWW_DOT = re.compile(r"(?i)(?<![A-Za-z0-9])(www)\.")
_BLOCK_START = re.compile(r"^(#|>|-|\+|=|[0-9]{1,9}(?=[.)]))")


def md_escape(value: object) -> str:
    """Plain text -> Markdown/HTML-inert text on one line, escaping only what is needed."""
    text = re.sub(r"[\r\n\t\v\f]+", " ", str(value))
    text = "".join(ch for ch in text if ch.isprintable())
    text = _ALWAYS.sub(r"\\\1", text)
    text = _UNDERSCORE_EDGE.sub(r"\\_", text)
    text = _ENTITY_LIKE.sub("&amp;", text)
    text = text.replace("<", "&lt;").replace(">", "&gt;")
    text = _SCHEME_COLON.sub(r"\\:", text)
    text = _SHORTCODE_COLON.sub(r"\\:", text)
    text = _WWW_DOT.sub(r"\1\\.", text)
    # `&#64;` is not enough: CommonMark decodes it back to "@" in the rendered text, where
    # GitHub links mentions. A zero-width joiner after "@" leaves it visible but unlinkable.
    text = text.replace("@", MENTION_BREAK)
    # a participant's "fixes #1 and GH-2" must not reference (and notify) our issues
    text = _ISSUE_REF.sub("\\1\u200d", text)
    m = _BLOCK_START.match(text)
    if m:
        text = text[:m.end()] + "\\" + text[m.end():] if m.group(1)[0].isdigit() \
            else "\\" + text
    return text


def _finalize(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, Markup):
        return value
    if isinstance(value, bool | int | float):
        return Markup(str(value))  # noqa: S704 - a number has nothing to escape
    return Markup(md_escape(value))  # noqa: S704 - escaped just now


def fmt_score(value: float | None, digits: int = 4) -> Markup:
    if value is None:
        return Markup("–")
    return Markup(f"{float(value):.{digits}f}")  # noqa: S704 - a formatted float


def environment(directory: Path | None = None) -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(directory or templates_dir())),
        finalize=_finalize,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        # finalize escapes for Markdown and HTML at once; autoescape would escape twice
        autoescape=False,  # noqa: S701
    )
    env.filters["score"] = fmt_score
    env.filters["md"] = lambda v: Markup(md_escape(v))  # noqa: S704 - escaped
    return env


_ENV: Environment | None = None


def render(template: str, **context: Any) -> str:
    global _ENV
    # union-attr: `environment()` always gives the Environment a FileSystemLoader
    if _ENV is None or templates_dir() != Path(_ENV.loader.searchpath[0]):  # type: ignore[union-attr]
        _ENV = environment()
    return _ENV.get_template(template).render(**context)


def ledger_label(path: Path | str | None) -> str:
    """How pages name the ledger they came from: repository-relative when inside the checkout
    (`leaderboard/ledger.jsonl`), else the path as given (a temporary ledger says so). A str is
    the caller's own repository-relative name and is used as it is."""
    if path is None:
        return "rows passed in memory (no ledger file)"
    if isinstance(path, str):
        return path
    path = Path(path)
    found = find_root()
    try:
        if found is None:
            raise ValueError("no repository")
        return path.resolve().relative_to(found.path.resolve()).as_posix()
    except ValueError:
        return str(path)


def site_url() -> str | None:
    """Base URL of the published site, for links from markdown boards: `GNNCB_SITE_URL` when
    set (`none` for no link); else, inside GitHub Actions on github.com, the repository's
    GitHub Pages address, where `.github/workflows/pages.yml` publishes the site
    (`https://OWNER.github.io/REPO/`, from the `GITHUB_REPOSITORY` every job has), so the
    boards the publish jobs commit link to the site with no configuration; else None."""
    url = settings.site_url()
    if not url:
        url = pages_url() or ""
    if not re.fullmatch(r"https?://[A-Za-z0-9.\-]+(:[0-9]+)?(/[A-Za-z0-9._~\-/]*)?", url):
        return None  # unset, `none`, or not a plain URL a markdown link can hold as it is
    return Markup(url.rstrip("/") + "/")  # noqa: S704 - checked to be a plain URL just now


def pages_url() -> str | None:
    """The GitHub Pages address of the repository this GitHub Actions job runs for."""
    env = os.environ
    if env.get("GITHUB_ACTIONS") != "true" or env.get("GITHUB_SERVER_URL") != "https://github.com":
        return None
    owner, _, name = env.get("GITHUB_REPOSITORY", "").partition("/")
    if not re.fullmatch(r"[A-Za-z0-9-]+", owner) or not re.fullmatch(r"[A-Za-z0-9._-]+", name):
        return None
    host = f"{owner.lower()}.github.io"
    return f"https://{host}/" if name.lower() == host else f"https://{host}/{name}/"


def _entry_view(spec: CompetitionSpec, entry: Entry) -> dict[str, Any]:
    r = entry.row
    return {
        "rank": entry.rank,
        "participant": r["participant"],
        "entrant": r["entrant"],
        "method": r.get("method", ""),
        "model": r.get("model", ""),
        "scores": {name: r["scores"].get(name) for name in spec.metrics | spec.derived},
        "submissions": entry.submissions,
        "date": (r.get("submitted_at") or r["scored_at"])[:10],
        "stale": bool(r.get("stale_since")),  # `ledger rescore` could not reach it
    }


def _standings(spec: Rankable, rows: list[dict[str, Any]],
               table: list[Entry] | None) -> list[Entry]:
    return table if table is not None else standings_by_competition([spec], rows)[spec.slug]


def board_context(slug: str, entries: int, source: str, top: int = TOP) -> dict[str, Any]:
    """What every markdown board says about itself: its ledger, how many entries it shows, and
    where the rest are (the CSV beside it; the site when its address is known, `site_url`)."""
    base = site_url()
    # a slug is [a-z0-9-] (spec.SLUG_RE) and base a checked plain URL: nothing to escape
    site = Markup(f"{base}competitions/{slug}.html") if base else None  # noqa: S704
    return {"source": source, "top": top, "total": entries, "csv": f"{slug}.csv", "site": site}


def competition_page(spec: CompetitionSpec, rows: list[dict[str, Any]],
                     final_page: str | None = None, *, source: str | None = None,
                     top: int = TOP, table: list[Entry] | None = None) -> str:
    from evaluator.render.results.board import annotate, interval_note, tier_cell, tier_note

    entries = _standings(spec, rows, table)
    score_names = list(spec.metrics) + list(spec.derived)
    shown = entries[:top]
    found = board_tiers(spec, shown)  # a tier depends only on the entries above it
    views = []
    for e, extra, tier in zip(shown, annotate(spec, [e.row for e in shown]), found, strict=True):
        iv = extra["interval"]
        views.append({**_entry_view(spec, e), "protocol_mark": extra["mark"],
                      "tier": Markup(tier_cell(tier)),  # noqa: S704 - a number and our mark
                      "protocol_why": extra["why"], "overlap": extra["overlap"],
                      "ci": Markup(f"[{iv['low']:.3f}, {iv['high']:.3f}]")  # noqa: S704
                      if iv else None})
    return render("leaderboard_competition.md.j2", spec=spec, entries=views,
                  interval_note=interval_note(spec, [e.row for e in shown]),
                  tier_note=tier_note(spec, [e.row for e in shown], found),
                  score_names=score_names, final_page=final_page,
                  arrows={n: "↑" if spec.higher_is_better(n) else "↓" for n in score_names},
                  **board_context(spec.slug, len(entries), source or ledger_label(None), top))


def standings_csv(spec: Leaderboard, entries: list[Entry]) -> str:
    """Full standings as CSV (every entry; scores at full precision). Participant strings are
    data here; a cell that a spreadsheet would run as a formula is prefixed with `'`. The last
    column, `scored_on`, says which part of the hidden labels the scores are from (`public`
    for a split competition's live board, `all` for a whole split), so a CSV read on its own
    cannot be mistaken for the final standings."""
    if is_board(spec):
        score_names = list(spec.csv_scores)
    else:
        score_names = list(spec.metrics) + list(spec.derived)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["rank", "participant", "entrant", "method", "model", *score_names,
                "submissions", "date", "digest", "scored_on"])
    cell = _cell

    def line(e: Entry) -> list[Any]:
        r = e.row
        scores = r["scores"]
        values = [scores.get(n) for n in score_names]
        return [e.rank, cell(r.get("participant", "")), cell(r.get("entrant", "")),
                cell(r.get("method", "")), cell(r.get("model", "")),
                *(repr(float(v)) if v is not None else "" for v in values),
                e.submissions, (r.get("submitted_at") or r.get("scored_at") or "")[:10],
                r.get("digest", ""), r.get("scored_on", "all")]  # the ledger default

    w.writerows(map(line, entries))  # one pass, one writer call
    return out.getvalue()


def _cell(value: object) -> str:
    text = value if type(value) is str else str(value)
    if "\r" in text or "\n" in text:  # the common case skips the regex (100k cells a page)
        text = re.sub(r"[\r\n]+", " ", text)
    return "'" + text if text[:1] in _FORMULA_START else text


_FORMULA_START = frozenset(("=", "+", "-", "@", "\t"))


FINAL_DIR = "final"


def final_page(spec: CompetitionSpec, rows: list[dict[str, Any]], *,
               reveal: dict[str, Any] | None | bool = True) -> str | None:
    """The final standings once the private part is revealed (None before): private rank,
    public rank and shake-up side by side, from the latest `reveal` row of the version
    (`reveal`: that row, or None, when the caller looked it up already)."""
    if reveal is True:
        reveal = revealed(rows, spec.slug, spec.version)
    if not isinstance(reveal, dict):
        return None
    from evaluator.render.results.board import tier_cell, tier_note

    table = final_standings(spec, rows, reveal["private"])
    found = final_tiers(spec, table, reveal)
    score_names = list(spec.metrics) + list(spec.derived)
    entries = []
    for e, tier in zip(table, found, strict=True):
        view = _entry_view(spec, Entry(e.rank, e.row, e.submissions))
        shake = e.shake_up
        view |= {
            "tier": Markup(tier_cell(tier)),  # noqa: S704 - a number and our mark
            "private": {n: e.private.get(n) for n in score_names},
            "public_primary": e.row["scores"].get(spec.primary_score),
            "public_rank": e.public_rank,
            # our own symbols and an integer: nothing to escape
            "shake": Markup("=" if shake == 0 else f"▲ {shake}" if shake and shake > 0  # noqa: S704
                            else f"▼ {-shake}" if shake else "–"),
        }
        entries.append(view)
    return render("final_standings.md.j2", spec=spec, entries=entries,
                  score_names=score_names, reveal=reveal, shake=shake_up(table),
                  tier_note=tier_note(spec, [reveal], found, part="private"),
                  percent_private=round((1 - float(reveal["public_fraction"] or 0)) * 100),
                  arrows={n: "↑" if spec.higher_is_better(n) else "↓" for n in score_names})


def index_page(specs: Sequence[Rankable], rows: list[dict[str, Any]], *,
               source: str | None = None,
               tables: dict[str, list[Entry]] | None = None) -> str:
    tables = tables if tables is not None else standings_by_competition(specs, rows)
    items = []
    for spec in sorted(specs, key=lambda s: s.slug):
        table = tables[spec.slug]
        leader = table[0] if table else None
        items.append({
            "spec": spec,
            "metric": spec.primary_score,
            "arrow": "↑" if spec.higher_is_better(spec.primary_score) else "↓",
            "leader": leader.row["participant"] if leader else None,
            "leader_score": leader.row["scores"][spec.primary_score] if leader else None,
            "entries": len(table),
        })
    return render("leaderboard_index.md.j2", items=items,
                  source=source or ledger_label(None), rows=len(rows), site=site_url())


class Prepared:
    """The per-row work both renderers need, done once for a ledger: boards found, unknown
    slugs refused, audit lines applied once, rows routed to their competition
    (`submissions`: active rows of each competition's current version, late ones included),
    standings ranked (`tables`), reveal rows looked up, and each full-standings CSV written
    once (`csv`; the boards and the site hold the same file).

    Why: at 100,000 rows the boards and the site each repeated these passes; the site build
    and the markdown boards now share one `Prepared` when a caller renders both
    (`write_leaderboards(..., prepared=p)`, `build_site(..., prepared=p)`). It is a pure
    function of (specs, rows): the output is byte for byte what each renderer computes alone.
    """

    def __init__(self, specs: Iterable[Leaderboard], rows: list[dict[str, Any]]) -> None:
        specs = list(specs)
        self.rows = rows
        # one pass over the ledger: every slug it names, the audit lines, the reveal rows,
        # the rows that may carry a final choice, and each submission routed by (slug,
        # version) (the rows of a version no competition renders are dropped afterwards)
        seen: set[Any] = set()
        reveals: dict[tuple[str | None, int | None], dict[str, Any]] = {}
        choice_rows: list[dict[str, Any]] = []
        routes: dict[tuple[Any, Any], list[dict[str, Any]]] = {}
        withdrawn: set[str] = set()
        rescored: dict[str, dict[str, Any]] = {}
        stale: dict[str, dict[str, Any]] = {}
        late = False
        for r in rows:
            slug = r.get("slug")
            seen.add(slug)
            kind = r["type"]
            if kind == SUBMISSION:
                key = (slug, r.get("version"))
                found = routes.get(key)
                if found is None:
                    routes[key] = [r]
                else:
                    found.append(r)
                if r.get("final_choice") is not None:
                    choice_rows.append(r)  # as `ranking.carries_choice`, inline
                late = late or bool(r.get("late"))
            elif kind == WITHDRAWAL:  # the audit lines as `active_submissions` reads them
                withdrawn.add(r["digest"])
            elif kind == RESCORE:
                rescored[r["target"]] = r
                stale.pop(r["target"], None)
            elif kind == STALE:
                stale[r["target"]] = r
            elif kind == REVEAL:  # the latest reveal row of a version counts
                reveals[(slug, r.get("version"))] = r
            elif kind == FINAL_CHOICE:
                choice_rows.append(r)
        self.boards = boards_for(specs, ({"slug": slug} for slug in seen))
        self.specs = [s for s in specs if not is_board(s)]
        self.slugs = {s.slug for s in self.specs} | {b.slug for b in self.boards}
        unknown = sorted(slug for slug in seen if slug and slug not in self.slugs)
        if unknown:
            raise ConfigError(f"ledger has rows for unknown competitions {unknown}; "
                              "pass the competitions folder that holds them")
        every: list[Leaderboard] = [*self.specs, *self.boards]
        # active rows of each competition's current version, late ones included: the rows
        # `active_submissions` keeps, routed (tested against it)
        self.submissions: dict[str, list[dict[str, Any]]] = {
            s.slug: apply_audits(routes.get((s.slug, s.version), []), withdrawn, rescored,
                                 stale) for s in every}
        wanted: dict[tuple[str | None, int | None], str] = {(s.slug, s.version): s.slug
                                                            for s in every}
        choices: dict[str, list[dict[str, Any]]] = {s.slug: [] for s in every}
        for r in choice_rows:
            slug = wanted.get((r.get("slug"), r.get("version")))
            if slug is not None:
                choices[slug].append(r)
        self.reveals = {s.slug: reveals.get((s.slug, s.version)) for s in every}
        # ranked from the rows routed just now (late rows never count)
        self.tables = standings_routed(every, {
            slug: [r for r in subs if not r.get("late")] if late else subs
            for slug, subs in self.submissions.items()}, choices)
        self._csv: dict[str, str] = {}

    def csv(self, spec: Leaderboard) -> str:
        """`standings_csv` of a competition (written once, then reused)."""
        text = self._csv.get(spec.slug)
        if text is None:
            text = self._csv[spec.slug] = standings_csv(spec, self.tables[spec.slug])
        return text


def prepare(specs: Iterable[Leaderboard], rows: list[dict[str, Any]]) -> Prepared:
    """`Prepared(specs, rows)` with the cyclic collector paused (see evaluator.util.gcpause)."""
    with gcpause.paused():
        return Prepared(specs, rows)


def write_leaderboards(specs: Sequence[Leaderboard], rows: list[dict[str, Any]], out_dir: Path, *,
                       ledger: Path | str | None = None,
                       changed: Iterable[str] | None = None,
                       top: int = TOP, prepared: Prepared | None = None) -> list[Path]:
    """Render competition pages (+ a CSV of each) and the index; returns the paths written.

    `ledger` names the file the rows came from (every page says so). `changed` limits the work
    to those competitions plus the index: a published submission re-renders only its own page.
    Track boards (`competition.boards`) may be passed among `specs`; a registered board the ledger
    has rows for is added even when not passed, so its rows never make this fail. `prepared`:
    the shared view of these specs and rows (`prepare`), when the caller also builds the site.
    """
    with gcpause.paused():  # see evaluator.util.gcpause: bulk passes over a large ledger
        return _write_leaderboards(prepared or Prepared(specs, rows), out_dir, ledger=ledger,
                                   changed=changed, top=top)


def _write_leaderboards(p: Prepared, out_dir: Path, *, ledger: Path | str | None,
                        changed: Iterable[str] | None, top: int) -> list[Path]:
    rows, specs, boards, tables = p.rows, p.specs, p.boards, p.tables
    wanted = None if changed is None else set(changed)
    if wanted is not None and wanted - p.slugs:
        raise ConfigError(f"cannot re-render {sorted(wanted - p.slugs)}: not among the "
                          f"competitions {sorted(p.slugs)}")
    source = ledger_label(ledger)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def write(path: Path, text: str) -> None:
        path.write_text(text, encoding="utf-8")
        written.append(path)

    every: list[Leaderboard] = [*specs, *boards]
    for spec in every:
        if wanted is not None and spec.slug not in wanted:
            continue
        table = tables[spec.slug]
        if is_board(spec):
            page = spec.markdown_page(rows, table=table,
                                      **board_context(spec.slug, len(table), source, top))
        else:
            final = final_page(spec, rows, reveal=p.reveals[spec.slug])
            link = None
            if final is not None:  # the private part is revealed: final standings beside
                (out_dir / FINAL_DIR).mkdir(exist_ok=True)
                write(out_dir / FINAL_DIR / f"{spec.slug}.md", final)
                link = f"{FINAL_DIR}/{spec.slug}.md"
            page = competition_page(spec, rows, link, source=source, top=top, table=table)
        write(out_dir / f"{spec.slug}.md", page)
        write(out_dir / f"{spec.slug}.csv", p.csv(spec))
    write(out_dir / "README.md", index_page(every, rows, source=source, tables=tables))
    return written
