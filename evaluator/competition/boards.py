"""Boards that tracks contribute to the core renderers (markdown leaderboards, the site).

Why a registry: the core renderer must not import a track (a track imports the core, so the
other direction makes an import cycle and lets a track's dependencies leak into the scoring
path). A track module that has a leaderboard of its own (the code track's `CodeBoard`) calls
`register(board)` when it is imported; the CLI imports every track, so its boards are known to
`gnncb leaderboard render` and `gnncb site build`, and library callers pass boards explicitly.

What ranking and the renderers read of a competition is the `Rankable` Protocol (`slug`,
`version`, `title`, `task`, `difficulty`, `rank_by`, `primary_score`, `higher_is_better`): a
`CompetitionSpec` satisfies it, and so does every track board. A `Board` is a `Rankable` that
also renders its own page, `markdown_page(rows, **context) -> str`, names the scores of its
CSV, `csv_scores`, and checks its own folder, `lint_folder(folder) -> list[str]` (used by
`evaluator.authoring.lint`), and says what `gnncb ledger rescore` changes in one of its rows,
`rescore_row(row) -> dict | None`. What only a competition.yaml has (its metrics, rules, public
part) is read after `is_board` (or `isinstance(spec, CompetitionSpec)`) says which of the two a
value is, so mypy checks every such read instead of a `getattr` default hiding a misspelt name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, TypeVar, runtime_checkable

from evaluator.competition.spec import CompetitionSpec, RankKey

if TYPE_CHECKING:  # typing_extensions ships with mypy; at run time annotations are strings
    from typing_extensions import TypeIs


class Rankable(Protocol):
    """What ranking (`evaluator.ledger.ranking`) and the index page read of a competition.

    Read-only members (properties), so that a frozen dataclass and a pydantic model whose
    fields are narrower (`list[RankKey]`, a `Literal` task) both satisfy it."""

    @property
    def slug(self) -> str: ...

    @property
    def version(self) -> int: ...

    @property
    def title(self) -> str: ...

    @property
    def task(self) -> str: ...

    @property
    def difficulty(self) -> str: ...

    @property
    def rank_by(self) -> Sequence[RankKey]: ...

    @property
    def primary_score(self) -> str: ...

    def higher_is_better(self, score: str) -> bool: ...


@runtime_checkable
class Board(Rankable, Protocol):
    """A track's board: ranked like a competition, rendered by itself."""

    @property
    def csv_scores(self) -> Sequence[str]: ...

    def markdown_page(self, rows: list[dict[str, Any]], **context: Any) -> str: ...

    def lint_folder(self, folder: Path) -> list[str]: ...

    def rescore_row(self, row: dict[str, Any]) -> dict[str, Any] | None: ...


# What the renderers take: a competition.yaml's spec or a track's board.
Leaderboard: TypeAlias = "CompetitionSpec | Board"


_REGISTRY: dict[str, Board] = {}
B = TypeVar("B", bound=Board)


def register(board: B) -> B:
    """Make a track's board known to the renderers (idempotent per slug)."""
    _REGISTRY[board.slug] = board
    return board


def is_board(obj: object) -> TypeIs[Board]:
    """A track board (renders its own page), as opposed to a competition.yaml spec."""
    return callable(getattr(obj, "markdown_page", None))


def boards_for(specs: Iterable[Leaderboard], rows: Iterable[dict[str, Any]]) -> list[Board]:
    """Boards passed among `specs`, plus any registered board the ledger has rows for (so
    rendering never fails on a track's rows when the caller listed only competitions)."""
    found: dict[str, Board] = {s.slug: s for s in specs if is_board(s)}
    for r in rows:
        slug = r.get("slug")
        if slug in _REGISTRY and slug not in found:
            found[slug] = _REGISTRY[slug]
    return [found[s] for s in sorted(found)]


def board_of_folder(folder: Path) -> Board | None:
    """The registered board a competitions/<slug> folder belongs to: by name, and only when the
    folder has no competition.yaml (a prediction competition is never a track board)."""
    folder = Path(folder)
    if (folder / "competition.yaml").exists():
        return None
    return _REGISTRY.get(folder.resolve().name)


def final_submissions_per_version(spec: Rankable) -> int:
    """How many of a participant's latest submissions count when they chose none: what a
    competition.yaml's `rules` say; one (the latest) on a track board, which has no rules."""
    return spec.rules.final_submissions_per_version if isinstance(spec, CompetitionSpec) else 1
