"""Where the repository's top-level folders are.

Why: the design card puts `templates/`, `competitions/`, `keys/` and `leaderboard/` at the top
of the repository. The repository a verb works on is the one the maintainer stands in, found
as git finds its own (`find_root`): the nearest folder, from the current directory upwards,
that holds both `competitions/` and `leaderboard/` (the MARKER; `competitions/` alone is too
common a name). `--root DIR` (every verb, `evaluator.commands._options`) and then $GNNCB_ROOT
override the walk. The folder the package is installed from is never the default: it used to
be, and a maintainer working in a copy of the repository then appended audit lines to the
ledger of the checkout gnncb was installed from. A wheel carries a copy of `templates/` inside
the package (`evaluator/_templates/`, put there by setup.py's build step), so an installed
`gnncb` renders boards and runs `gnncb demo` outside any checkout.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import NamedTuple

from evaluator import settings
from evaluator.errors import ConfigError

MARKER = ("competitions", "leaderboard")  # folders a gnncb repository holds at its top

_chosen: Path | None = None  # this command's --root (set by the CLI through `using_root`)


class RepoRoot(NamedTuple):
    path: Path
    how: str  # "--root", "$GNNCB_ROOT" or "found from the current folder"


def find_root(explicit: Path | str | None = None, *, start: Path | None = None
              ) -> RepoRoot | None:
    """The repository a command works on, and how it was chosen; None when there is none.

    In order: `explicit` (or the CLI's --root), $GNNCB_ROOT, then the nearest folder at or
    above `start` (default: the current directory) holding every MARKER folder. The single
    place the repository is located: every verb and every library default asks here.
    """
    given, how = ((explicit, "--root") if explicit is not None
                  else (_chosen, "--root") if _chosen is not None
                  else (settings.root(), "$GNNCB_ROOT"))
    if given:
        path = Path(given).expanduser()
        if not path.is_dir():
            raise ConfigError(f"{how} {path}: no such folder; give the top folder of a gnncb "
                              "repository (the one holding competitions/ and leaderboard/)")
        return RepoRoot(path, how)
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if all((folder / name).is_dir() for name in MARKER):
            return RepoRoot(folder, "found from the current folder")
    return None


def no_repository_message(start: Path | None = None) -> str:
    here = start or Path.cwd()
    return (f"no gnncb repository here: neither {here} nor any folder above it holds "
            f"{' and '.join(m + '/' for m in MARKER)}; cd into a checkout of the repository, "
            "or pass --root PATH (or set $GNNCB_ROOT) to name one")


def repo_root(explicit: Path | str | None = None) -> Path:
    """`find_root`'s folder; a clear ConfigError (what is missing, how to fix) when none."""
    found = find_root(explicit)
    if found is None:
        raise ConfigError(no_repository_message())
    return found.path


@contextmanager
def using_root(root: Path | str | None) -> Iterator[None]:
    """Within the block, `find_root` takes `root` (a command's --root) before anything else.

    Why a setting for the block rather than an argument to every function: the defaults
    (the ledger, keys/, competitions/, campaigns/) are read deep inside the library, and a
    verb's --root must reach all of them the same way. The CLI sets it for one command.
    """
    global _chosen
    before, _chosen = _chosen, (Path(root) if root is not None else None)
    try:
        yield
    finally:
        _chosen = before


def inside(root: Path, path: Path) -> bool:
    """Is `path` the root itself or under it (links resolved)?"""
    return Path(path).resolve().is_relative_to(Path(root).resolve())


def ensure_inside(root: Path, path: Path, what: str) -> None:
    """Refuse to write `what` at `path` when it lies outside the repository `root`."""
    if not inside(root, path):
        raise ConfigError(f"{what} {path} is outside the repository {root}; nothing written. "
                          "Run from inside the repository that holds it, or pass "
                          "--root PATH naming that repository")


def package_home() -> Path:
    """The folder the `evaluator` package is imported from (a checkout or site-packages):
    what a child process needs on PYTHONPATH to import the same gnncb, never a repository."""
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
    """The repository's `templates/` if there is one (--root, $GNNCB_ROOT or the folder the
    command runs in), else the package's checkout's `templates/`, else the copy a wheel
    carries inside the package.

    Why the repository's folder first: maintainers edit it and must see their edits without
    reinstalling; the package's own copy is the fallback because templates are part of the
    program (a repository may carry none), unlike the ledger, keys and competitions.
    """
    found = find_root()
    root, checkout = (found.path if found else None), package_checkout()
    candidates = [Path(top) / "templates" for top in (root, checkout) if top is not None]
    for folder in candidates:
        if folder.is_dir():
            return folder
    packaged = resources.files("evaluator") / PACKAGED_TEMPLATES
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged
    tried = ", ".join(str(f) for f in candidates) or "no checkout"
    raise ConfigError(f"templates folder not found ({tried}), and this installation of gnncb "
                      "carries no copy; run inside a gnncb repository holding templates/, "
                      "pass --root PATH, or install a wheel built from a checkout")


def competitions_dir() -> Path:
    return repo_root() / "competitions"


def default_ledger() -> Path:
    return repo_root() / "leaderboard" / "ledger.jsonl"


def default_public_key() -> Path:
    """The repository's `keys/platform-public.pem`; outside any repository the error also
    names --public-key (participants may encrypt anywhere with the key file at hand)."""
    found = find_root()
    if found is None:
        raise ConfigError(f"which platform key? {no_repository_message()}; or pass "
                          "--public-key PATH (the repository's keys/platform-public.pem)")
    return found.path / "keys" / "platform-public.pem"


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
    holds the slugs (default: `find_root`'s). A folder that exists as given is taken without
    any repository (`gnncb check --competition ./folder` works anywhere); a slug needs one.
    With `folders_only` any existing folder is accepted as it is (lint reports a folder
    without competition.yaml, and track boards such as graph-coding have none).
    """
    import difflib

    path = Path(value)
    if (path / "competition.yaml").is_file():
        return path
    found_root = find_root(root)
    if found_root is None:
        if folders_only and path.is_dir():
            return path
        raise ConfigError(f"competition {str(value)!r}: {path} holds no competition.yaml, and "
                          f"there is no repository to look the name up in ("
                          f"{no_repository_message()})")
    top = found_root.path
    base = top / "competitions"
    candidate = base / str(value)
    # as a slug, and relative to the repository (`competitions/gnn-cora` typed elsewhere)
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
    competitions/ (default: `find_root`'s; verbs that look the slug up there themselves)."""
    root = repo_root(root)
    folder = resolve_competition(value, root)
    if folder.resolve().parent != (Path(root) / "competitions").resolve():
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
    base = Path(root or repo_root()) / "campaigns"
    return sorted(p for p in base.glob("*/gnn") if p.is_dir())
