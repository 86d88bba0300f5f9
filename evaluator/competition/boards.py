"""Boards that tracks contribute to the core renderers (markdown leaderboards, the site).

Why a registry: the core renderer must not import a track (a track imports the core, so the
other direction makes an import cycle and lets a track's dependencies leak into the scoring
path). A track module that has a leaderboard of its own (the code track's `CodeBoard`) calls
`register(board)` when it is imported; the CLI imports every track, so its boards are known to
`gnncb leaderboard render` and `gnncb site build`, and library callers pass boards explicitly.

A board is duck-typed like a `CompetitionSpec` for ranking (`slug`, `version`, `title`, `task`,
`difficulty`, `rank_by`, `primary_score`, `higher_is_better`) and renders its own page:
`markdown_page(rows, **context) -> str`, and checks its own folder:
`lint_folder(folder) -> list[str]` (used by `evaluator.authoring.lint`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Board(Protocol):
    slug: str
    version: int
    title: str
    task: str
    difficulty: str

    @property
    def primary_score(self) -> str: ...

    def higher_is_better(self, score: str) -> bool: ...

    def markdown_page(self, rows: list[dict[str, Any]], **context: Any) -> str: ...


_REGISTRY: dict[str, Board] = {}


def register(board: Board) -> Board:
    """Make a track's board known to the renderers (idempotent per slug)."""
    _REGISTRY[board.slug] = board
    return board


def is_board(obj: object) -> bool:
    """A track board (renders its own page), as opposed to a competition.yaml spec."""
    return callable(getattr(obj, "markdown_page", None))


def boards_for(specs: Iterable[Any], rows: Iterable[dict[str, Any]]) -> list[Any]:
    """Boards passed among `specs`, plus any registered board the ledger has rows for (so
    rendering never fails on a track's rows when the caller listed only competitions)."""
    found = {s.slug: s for s in specs if is_board(s)}
    for r in rows:
        slug = r.get("slug")
        if slug in _REGISTRY and slug not in found:
            found[slug] = _REGISTRY[slug]
    return [found[s] for s in sorted(found)]


def board_of_folder(folder: Path) -> Any | None:
    """The registered board a competitions/<slug> folder belongs to: by name, and only when the
    folder has no competition.yaml (a prediction competition is never a track board)."""
    folder = Path(folder)
    if (folder / "competition.yaml").exists():
        return None
    return _REGISTRY.get(folder.resolve().name)
