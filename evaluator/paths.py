"""Where the repository's top-level folders are.

Why: the design card puts `templates/`, `competitions/`, `keys/` and `leaderboard/` at the top
of the repository, beside the package, and the tools run from a checkout (`pip install -e .`).
`GNNCB_ROOT` overrides the location for tools run elsewhere. A wheel also carries a copy of
`templates/` inside the package (`evaluator/_templates/`, put there by setup.py's build step),
so an installed `gnncb` renders boards and runs `gnncb demo` outside any checkout.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from evaluator import settings
from evaluator.errors import ConfigError


def repo_root() -> Path:
    env = settings.root()
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent


PACKAGED_TEMPLATES = "_templates"  # where setup.py's build step copies templates/ in a wheel


def package_checkout() -> Path | None:
    """The repository the package is imported from when that is a checkout (an editable
    install, or the checkout on PYTHONPATH); None for a wheel installed in site-packages,
    whose parent folder is no repository (another distribution may have put a `templates/`
    there)."""
    top = Path(__file__).resolve().parent.parent
    return top if (top / "pyproject.toml").is_file() else None


def templates_dir() -> Path:
    """`$GNNCB_ROOT/templates` if there is one, else the package's checkout's `templates/`,
    else the copy a wheel carries inside the package.

    Why the top-level folders first: maintainers edit them and must see their edits without
    reinstalling.
    """
    root, checkout = settings.root(), package_checkout()
    candidates = [Path(top) / "templates" for top in (root, checkout) if top is not None]
    for folder in candidates:
        if folder.is_dir():
            return folder
    packaged = resources.files("evaluator") / PACKAGED_TEMPLATES
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged
    tried = ", ".join(str(f) for f in candidates) or "no checkout"
    raise ConfigError(f"templates folder not found ({tried}), and this installation of gnncb "
                      "carries no copy; run from a gnncb checkout installed with "
                      "`pip install -e .`, install a wheel built from one, or set GNNCB_ROOT")


def competitions_dir() -> Path:
    return repo_root() / "competitions"


def default_ledger() -> Path:
    return repo_root() / "leaderboard" / "ledger.jsonl"


def default_public_key() -> Path:
    return repo_root() / "keys" / "platform-public.pem"


def competition_slugs(root: Path | None = None) -> list[str]:
    """Slugs of the competitions in the repository (folders holding a competition.yaml)."""
    base = root or competitions_dir()
    return sorted(p.parent.name for p in base.glob("*/competition.yaml"))


def resolve_competition(value: str | Path, root: Path | None = None, *,
                        folders_only: bool = False) -> Path:
    """A competition given as a folder (`competitions/gnn-cora`) or as a slug (`gnn-cora`).

    Why both: participants copy the slug from the README's table, maintainers tab-complete a
    path; every verb takes either. An unknown name gets the closest slugs and the full list, so
    a typo never ends in a bare "not found". `root` is the repository whose `competitions/`
    holds the slugs (the verbs' `--root`; default: this checkout). With `folders_only` any
    existing folder is accepted as it is (lint reports a folder without competition.yaml, and
    track boards such as graph-coding have none).
    """
    import difflib

    top = Path(root) if root is not None else repo_root()
    base = top / "competitions"
    path = Path(value)
    candidate = base / str(value)
    # as given (relative to the working directory), as a slug, and relative to the repository
    # (`competitions/gnn-cora` typed outside the checkout)
    tries = [path, *([candidate] if "/" not in str(value) else []),
             *([top / path] if not path.is_absolute() else [])]
    found = next((f for f in tries if (f / "competition.yaml").is_file()), None)
    if found is None and folders_only:
        found = next((f for f in tries if f.is_dir()), None)
    if found is not None:
        return found
    slugs = competition_slugs(base)
    close = difflib.get_close_matches(path.name, slugs, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    listing = ", ".join(slugs) if slugs else f"(none found under {base})"
    raise ConfigError(f"competition {str(value)!r} not found: neither {path} nor {candidate} "
                      f"holds a competition.yaml{hint}\n  competitions: {listing}")


def competition_slug(value: str | Path, root: Path | None = None) -> str:
    """The slug of a competition given as a slug or a folder, checked against `root`'s
    competitions/ (verbs that take `--root` and look the slug up there themselves)."""
    folder = resolve_competition(value, root)
    if root is not None and folder.resolve().parent != (Path(root) / "competitions").resolve():
        # a folder path outside --root: its slug must still name one of root's competitions
        folder = resolve_competition(folder.name, root)
    return folder.name


def competition_arg(value: str) -> Path:
    """argparse `type=` for --competition: errors become usage errors (exit 2) naming the
    option, not tracebacks."""
    import argparse

    try:
        return resolve_competition(value)
    except ConfigError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def committed_campaigns(root: Path | None = None) -> list[Path]:
    """The GNN-track campaigns committed with the repository (`campaigns/NAME/gnn`, summaries
    only). Why by default: they belong with the repository's ledger; a model that produced no
    valid file there has no ledger row, and leaving it out would drop its failures."""
    base = (root or repo_root()) / "campaigns"
    return sorted(p for p in base.glob("*/gnn") if p.is_dir())
