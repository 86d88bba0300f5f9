"""Jinja rendering of leaderboards (and, for other tracks, any markdown page).

Why escaping lives in the environment, not in templates: every `{{ value }}` passes through
`finalize`, which escapes Markdown and HTML unless the value was explicitly marked safe by our
own code (numbers, ranks). A template author cannot forget to escape a participant's method name,
and GitHub can never render a participant's string as a link, image, table break or mention.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from evaluator.errors import ConfigError
from evaluator.paths import templates_dir
from evaluator.ranking import Entry, standings
from evaluator.spec import CompetitionSpec

# GitHub links `@login` and `@org/team` only when a login character follows the "@".
MENTION_BREAK = "@\u200d"
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~$:])")


def md_escape(value: object) -> str:
    """Plain text -> Markdown/HTML-inert text on one line."""
    text = re.sub(r"[\r\n\t\v\f]+", " ", str(value))
    text = "".join(ch for ch in text if ch.isprintable())
    text = _MD_SPECIAL.sub(r"\\\1", text)
    # `&#64;` is not enough: CommonMark decodes it back to "@" in the rendered text, where
    # GitHub links mentions. A zero-width joiner after "@" leaves it visible but unlinkable.
    return html.escape(text, quote=True).replace("@", MENTION_BREAK)


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


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


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
    }


def competition_page(spec: CompetitionSpec, rows: list[dict[str, Any]],
                     final_page: str | None = None) -> str:
    entries = [_entry_view(spec, e) for e in standings(spec, rows)]
    score_names = list(spec.metrics) + list(spec.derived)
    return render("leaderboard_competition.md.j2", spec=spec, entries=entries,
                  score_names=score_names, final_page=final_page,
                  arrows={n: "↑" if spec.higher_is_better(n) else "↓" for n in score_names})


def index_page(specs: list[CompetitionSpec], rows: list[dict[str, Any]]) -> str:
    items = []
    for spec in sorted(specs, key=lambda s: s.slug):
        table = standings(spec, rows)
        leader = table[0] if table else None
        items.append({
            "spec": spec,
            "metric": spec.primary_score,
            "arrow": "↑" if spec.higher_is_better(spec.primary_score) else "↓",
            "leader": leader.row["participant"] if leader else None,
            "leader_score": leader.row["scores"][spec.primary_score] if leader else None,
            "entries": len(table),
        })
    return render("leaderboard_index.md.j2", items=items)


def write_leaderboards(specs: list[CompetitionSpec], rows: list[dict[str, Any]],
                       out_dir: Path) -> list[Path]:
    """Render every competition page and the index; returns the paths written.

    Code-track boards (evaluator.codetrack.board) may be passed among `specs`; a board the
    ledger has rows for is added even when not passed, so its rows never make this fail.
    """
    from evaluator.codetrack.board import board_page, boards_for, is_board

    boards = boards_for(specs, rows)
    specs = [s for s in specs if not is_board(s)]
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    slugs = {s.slug for s in specs} | {b.slug for b in boards}
    unknown = sorted({r["slug"] for r in rows if r.get("slug") and r["slug"] not in slugs})
    if unknown:
        raise ConfigError(f"ledger has rows for unknown competitions {unknown}; "
                          "pass the competitions folder that holds them")
    for spec in specs:
        path = out_dir / f"{spec.slug}.md"
        path.write_text(competition_page(spec, rows), encoding="utf-8")
        written.append(path)
    for board in boards:
        path = out_dir / f"{board.slug}.md"
        path.write_text(board_page(board, rows), encoding="utf-8")
        written.append(path)
    index = out_dir / "README.md"
    index.write_text(index_page([*specs, *boards], rows), encoding="utf-8")
    written.append(index)
    return written
