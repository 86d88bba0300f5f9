"""Helpers several verbs share: the repository option, key loading, the push credentials,
the LLM endpoint options, the code-track board a `gnncb code` action works on.

Why one module: every verb must find and name its repository the same way (`--root`), `gnncb
ci`, `gnncb ledger` and `gnncb competition reveal` must load keys the same way (rotation
included), and `gnncb llm` and `gnncb code llm run` must spell and default their provider
options the same way; each verb's module stays importable on its own.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator import settings
from evaluator.errors import ConfigError
from evaluator.paths import find_root, repo_root
from evaluator.submission import keys

PREVIOUS_KEY_ENV = settings.PRIVATE_KEY_PREVIOUS.name

ROOT_HELP = ("the gnncb repository to work on (the folder holding competitions/ and "
             "leaderboard/); default: $GNNCB_ROOT, else the nearest such folder at or above "
             "the current directory, as git finds its repository")


def add_root_option(p: argparse.ArgumentParser) -> None:
    """The one `--root` every verb takes (same name, meaning and help everywhere)."""
    p.add_argument("--root", type=Path, default=None, metavar="DIR", help=ROOT_HELP)


def add_root_everywhere(parser: argparse.ArgumentParser) -> None:
    """`add_root_option` on every verb of `parser`: each leaf sub-parser (the parser of a
    command that runs), so no verb can miss it or spell it differently."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        if not any("--root" in a.option_strings for a in parser._actions):
            add_root_option(parser)
        return
    for action in subs:
        for child in dict.fromkeys(action.choices.values()):
            add_root_everywhere(child)


def announce(root: Path | None = None, ledger: Path | bool | None = None) -> Path:
    """Print the repository (and ledger: a path, or True for the repository's own) a writing
    verb uses, with how the repository was chosen; return the repository. Why: a maintainer
    must see where the write lands before reading what was written (a copy and the checkout
    gnncb is installed from look alike)."""
    found = find_root(root)
    path = repo_root(root) if found is None else found.path
    print(f"repository: {path} ({found.how})" if found else f"repository: {path}")
    if ledger is True:
        ledger = path / "leaderboard" / "ledger.jsonl"
    if isinstance(ledger, Path):
        print(f"ledger: {ledger}")
    return path


BY_HELP = ("who makes the correction, recorded in the audit line; default: $GITHUB_ACTOR "
           "(set in workflows), else git's user.name in the repository")


def add_by_option(p: argparse.ArgumentParser) -> None:
    """The one `--by` of every verb that appends an audit line (same name, default, help)."""
    p.add_argument("--by", default=None, metavar="NAME", help=BY_HELP)


def audit_by(args: argparse.Namespace, root: Path) -> str:
    """Who the audit line names: --by, else $GITHUB_ACTOR, else git's user.name (as git
    itself names a commit's author); never empty. Why: audit rows once said `"by": ""`, which
    answers nothing about who withdrew or re-scored a submission."""
    import subprocess

    by = (args.by or "").strip() or os.environ.get("GITHUB_ACTOR", "").strip()
    if not by:
        try:
            done = subprocess.run(["git", "-C", str(root), "config", "user.name"],
                                  capture_output=True, text=True, timeout=30, check=False)
            by = done.stdout.strip()
        except OSError:  # no git on the machine: the option is then the only source
            by = ""
    if not by:
        raise ConfigError("--by is required: the audit line records who made the correction "
                          "(give --by YOUR_NAME, or set git's user.name)")
    return by


def load_keys(paths: list[Path] | None) -> dict[str, rsa.RSAPrivateKey]:
    """Keys from files, else $GNNCB_PRIVATE_KEY plus the optional previous key (rotation)."""
    if paths:
        return keys.private_keys_from(paths)
    found = keys.private_keys_from(None)
    previous = settings.previous_private_key_pem()
    if previous.strip():
        found |= keys.load_private_keys(previous, source=f"${PREVIOUS_KEY_ENV}")
    return found


def token() -> str:
    token = os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or ""
    if not token:
        raise ConfigError("set GITHUB_TOKEN (the workflow passes github.token) to call the API")
    return token


def push_env(root: Path, remote: str) -> dict[str, str] | None:
    """Git environment that authenticates pushes to an https `remote` (or a loopback http
    stand-in) with the job's token.

    None for other remotes (ssh, local paths in tests): they bring their own credentials.
    """
    from evaluator.repo.gitops import Git, remote_auth_env

    return remote_auth_env(Git(root).out("remote", "get-url", remote), token)


def track_boards(root: Path) -> list[Any]:
    """The code track's boards, so re-rendered pages keep the track's board and index entry."""
    from evaluator.codetrack.board import boards_in

    return list(boards_in(Path(root) / "competitions"))


def add_endpoint_options(g: argparse._ArgumentGroup, providers: list[str]) -> None:
    """Which provider answers and how its exchanges are recorded or replayed.

    Shared with `gnncb code llm run` so both tracks spell and default these the same way.
    """
    g.add_argument("--provider", choices=providers, default="openai")
    g.add_argument("--base-url", default="https://api.openai.com/v1",
                   help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    g.add_argument("--api-key-env", default="OPENAI_API_KEY",
                   help="environment variable holding the API key (never stored)")
    g.add_argument("--record", type=Path, help="save every exchange here for replay")
    g.add_argument("--recordings", type=Path, help="replay: folder written by --record")
    g.add_argument("--strict-replay", action="store_true",
                   help="replay: exact request-hash matches only")
    g.add_argument("--script", type=Path, metavar="FILE",
                   help="--provider scripted: a JSON or YAML list of answers, one per model "
                        "call (a dry run of the whole loop without a model)")
    g.add_argument("--allow-unlisted-model", action="store_true",
                   help="call --model even when the endpoint's GET /models lists others "
                        "(refused otherwise; the run is marked: model not verified)")


def add_sampling_options(g: argparse._ArgumentGroup) -> None:
    """Sampling and API-call limits, shared with `gnncb code llm run` (same defaults)."""
    g.add_argument("--temperature", type=float, default=0.0)
    g.add_argument("--max-tokens", type=int, default=10_000)
    g.add_argument("--seed", type=int, default=25, help="sent where supported (default 25)")
    g.add_argument("--no-seed", action="store_true", help="do not send a seed")
    g.add_argument("--timeout", type=float, default=None,
                   help="seconds per API call (default 600; 3600 for a server on 127.0.0.1 "
                        "or localhost: CPU models are slow)")
    g.add_argument("--retries", type=int, default=3)
    g.add_argument("--context-tokens", type=int, default=None,
                   help="the model's context window (see `gnncb llm doctor`); the oldest "
                        "repair turns are dropped to fit it, and a conversation that cannot "
                        "fit ends as the model's context_overflow failure")


def context_tokens_option(args: argparse.Namespace) -> int | None:
    value = getattr(args, "context_tokens", None)
    if value is not None and value < 1:
        raise ConfigError(f"--context-tokens {value}: must be positive")
    return value


def csv_list(text: str) -> list[str]:
    """A comma-separated option value (problem ids, models) as a list, blanks dropped."""
    return [t.strip() for t in text.split(",") if t.strip()]


def code_board(args: argparse.Namespace, slug: str | None = None) -> Any:
    """The code-track board named by `slug` (else `--board`), or a ConfigError listing them
    (`gnncb code` and `gnncb code llm` share it)."""
    from evaluator.codetrack.board import BOARDS

    slug = slug or args.board
    if slug not in BOARDS:
        raise ConfigError(f"{slug!r} is not a code-track board; choose one of {sorted(BOARDS)}")
    return BOARDS[slug]


def code_board_folder(args: argparse.Namespace, slug: str) -> Path:
    """competitions/<slug> of the repository the command works on (--root)."""
    return repo_root(args.root) / "competitions" / slug
