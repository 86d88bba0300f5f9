"""Verbs for the pull-request pipeline and for maintainers' ledger corrections.

`gnncb ci pr score` (key, read-only token) and `gnncb ci pr publish` (write token, no key) are
the two jobs of `.github/workflows/evaluate.yml`; `gnncb ledger rescore|withdraw` are the audited
corrections. Exit codes: 0 when a verdict was written / published (a rejected submission is a
successful run of the pipeline), 2 when the platform failed (nothing recorded, re-run later).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator import settings
from evaluator.commands import GROUPS
from evaluator.errors import ConfigError
from evaluator.paths import competition_slug, repo_root
from evaluator.submission import keys

PREVIOUS_KEY_ENV = settings.PRIVATE_KEY_PREVIOUS.name
DEFAULT_BOT = "github-actions[bot]"  # the author of comments made with GITHUB_TOKEN


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ci", help="the pull-request pipeline (used by GitHub Actions)")
    cs = p.add_subparsers(dest="ci_command", metavar="ACTION", required=True)
    GROUPS["ci"] = cs
    pr = cs.add_parser("pr", help="evaluate a submission pull request in two phases")
    ps = pr.add_subparsers(dest="ci_pr_command", metavar="PHASE", required=True)

    s = ps.add_parser("score", help="phase 1: policy, fetch as data, evaluate; write the verdict")
    _common(s)
    s.add_argument("--out", type=Path, required=True, help="where to write the result JSON")
    s.add_argument("--private-key", type=Path, action="append",
                   help="PEM file (repeatable); default: $GNNCB_PRIVATE_KEY and "
                        f"${PREVIOUS_KEY_ENV}")
    s.set_defaults(func=cmd_pr_score)

    s = ps.add_parser("publish", help="phase 2: record, render, commit, comment, label, close")
    _common(s)
    s.add_argument("--result", type=Path, required=True, help="the result JSON from phase 1")
    s.add_argument("--remote", default="origin")
    s.add_argument("--branch", default=None, help="default: the repository's default branch")
    s.add_argument("--run-url", default=None, help="default: built from GITHUB_* variables")
    s.set_defaults(func=cmd_pr_publish)

    p = sub.add_parser("ledger", help="audited corrections to the ledger")
    ls = p.add_subparsers(dest="ledger_command", metavar="ACTION", required=True)
    GROUPS["ledger"] = ls
    r = ls.add_parser("rescore", help="re-score every active submission of a competition "
                                      "(after a hidden-label fix) and re-render")
    r.add_argument("slug", metavar="COMPETITION",
                   help="competition slug (gnn-cora) or folder (competitions/gnn-cora)")
    r.add_argument("--root", type=Path, default=None, help="repository root (default: ours)")
    r.add_argument("--private-key", type=Path, action="append")
    r.add_argument("--reason", default="hidden labels corrected")
    r.add_argument("--by", default=os.environ.get("GITHUB_ACTOR", ""),
                   help="who runs the correction (recorded)")
    r.add_argument("--skip-missing", action="store_true",
                   help="re-score the others when some envelopes are not stored")
    r.add_argument("--dry-run", action="store_true", help="report changes, write nothing")
    r.set_defaults(func=cmd_ledger_rescore)
    w = ls.add_parser("withdraw", help="withdraw a submission with an audit line (no deletion)")
    w.add_argument("digest", help="the submission's digest (or a unique prefix of >= 8 chars)")
    w.add_argument("--reason", required=True)
    w.add_argument("--by", default=os.environ.get("GITHUB_ACTOR", ""))
    w.add_argument("--root", type=Path, default=None)
    w.set_defaults(func=cmd_ledger_withdraw)
    q = ls.add_parser("list", help="list submissions with their digests (filters combine)")
    q.add_argument("--competition", help="slug or folder (competitions/gnn-cora)")
    q.add_argument("--participant", help="login or platform entrant name")
    q.add_argument("--kind", choices=["human", "llm-api", "llm-agent", "baseline"])
    q.add_argument("--status", choices=["active", "rescored", "stale", "withdrawn"])
    q.add_argument("--since", help="scored on or after, e.g. 2026-12-01")
    q.add_argument("--until", help="scored on or before, e.g. 2026-12-31")
    q.add_argument("--ledger", type=Path, help="default: leaderboard/ledger.jsonl")
    q.add_argument("--json", action="store_true", help="one JSON object per line")
    q.set_defaults(func=cmd_ledger_list)
    q = ls.add_parser("show", help="one submission in full, with its withdrawal and re-scores")
    q.add_argument("digest", help="the digest or a unique prefix of >= 8 characters")
    q.add_argument("--ledger", type=Path, help="default: leaderboard/ledger.jsonl")
    q.set_defaults(func=cmd_ledger_show)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repo", required=True, help="OWNER/NAME")
    p.add_argument("--pr", type=int, required=True, help="pull request number")
    p.add_argument("--root", type=Path, default=None,
                   help="base-branch checkout (default: $GNNCB_ROOT or the package's repo)")
    p.add_argument("--api-url", default=os.environ.get("GITHUB_API_URL",
                                                       "https://api.github.com"))
    p.add_argument("--server-url", default=os.environ.get("GITHUB_SERVER_URL",
                                                          "https://github.com"))
    p.add_argument("--bot-login", default=settings.bot_login() or DEFAULT_BOT,
                   help="account whose comments carry the bot's answers (default: "
                        "$GNNCB_BOT_LOGIN or github-actions[bot])")


def _token() -> str:
    token = os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or ""
    if not token:
        raise ConfigError("set GITHUB_TOKEN (the workflow passes github.token) to call the API")
    return token


def _client(args: argparse.Namespace):
    from evaluator.ci.github import GitHubClient

    return GitHubClient(args.repo, _token(), base_url=args.api_url)


def load_keys(paths: list[Path] | None) -> dict[str, rsa.RSAPrivateKey]:
    """Keys from files, else $GNNCB_PRIVATE_KEY plus the optional previous key (rotation)."""
    if paths:
        return keys.private_keys_from(paths)
    found = keys.private_keys_from(None)
    previous = settings.previous_private_key_pem()
    if previous.strip():
        found |= keys.load_private_keys(previous, source=f"${PREVIOUS_KEY_ENV}")
    return found


def cmd_pr_score(args: argparse.Namespace) -> int:
    from evaluator.ci.logs import say
    from evaluator.ci.predictions.score import score_pr
    from evaluator.ci.result import write_result

    result = score_pr(_client(args), args.pr, root=args.root or repo_root(),
                      load_keys=lambda: load_keys(args.private_key), bot_login=args.bot_login)
    write_result(result, args.out)
    say(f"PR #{args.pr} by {result.author_login}: {result.status}"
        + (f" ({result.code}) {result.reason}" if result.code else ""))
    for p in result.problems:
        say(f"  {p.path!r}: {p.reason}")
    return 0


def _run_url(args: argparse.Namespace) -> str | None:
    if args.run_url:
        return args.run_url
    run_id, repo = os.environ.get("GITHUB_RUN_ID"), os.environ.get("GITHUB_REPOSITORY")
    if run_id and repo and run_id.isdigit():
        return f"{args.server_url.rstrip('/')}/{repo}/actions/runs/{run_id}"
    return None


def _push_env(root: Path, remote: str) -> dict[str, str] | None:
    """Git environment that authenticates pushes to an https `remote` with the job's token.

    None for other remotes (ssh, local paths in tests): they bring their own credentials.
    """
    from evaluator.repo.gitops import Git, auth_env

    url = Git(root).out("remote", "get-url", remote)
    if not url.startswith("https://"):
        return None
    return auth_env(_token(), urlparse(url).hostname or "github.com")


def cmd_pr_publish(args: argparse.Namespace) -> int:
    from evaluator.ci.predictions.publish import publish_result
    from evaluator.ci.result import read_result

    root = args.root or repo_root()
    result = read_result(args.result)
    if result.pr != args.pr:
        raise ConfigError(f"{args.result} is for PR #{result.pr}, not #{args.pr}")
    client = _client(args)
    git_env = _push_env(root, args.remote)
    publish_result(client, result, root=root, remote=args.remote,
                   branch=args.branch or client.default_branch(), bot_login=args.bot_login,
                   server_url=args.server_url, run_url=_run_url(args), git_env=git_env)
    return 0


def _track_board(value: str, root: Path) -> Any | None:
    """The registered track board `value` names (slug or competitions/<slug> folder) when that
    board's folder exists under `root`; None for everything else (competitions included)."""
    import evaluator.codetrack.board  # noqa: F401 - registers the code track's board
    from evaluator.competition.boards import board_of_folder

    path = Path(value)
    for folder in (path, Path(root) / "competitions" / path.name):
        board = board_of_folder(folder) if folder.is_dir() else None
        if board is not None and hasattr(board, "rescore_row"):
            return board
    return None


def cmd_ledger_rescore(args: argparse.Namespace) -> int:
    from evaluator.codetrack.board import boards_in
    from evaluator.repo.corrections import rescore, rescore_board
    from evaluator.repo.record import rerender

    root = args.root or repo_root()
    board = _track_board(args.slug, root)
    if board is not None:  # a track's board (graph-coding): no hidden labels, no key needed
        report = rescore_board(root, board, by=args.by, dry_run=args.dry_run)
    else:
        slug = competition_slug(args.slug, args.root)
        report = rescore(root, slug, load_keys(args.private_key), reason=args.reason,
                         by=args.by, skip_missing=args.skip_missing, dry_run=args.dry_run)
    print(f"{report.slug} v{report.version}: re-scored {report.checked} active submission(s); "
          f"{len(report.changed)} changed")
    for row in report.changed:
        if row["previous"] == row["scores"]:
            print(f"  {row['target'][:12]} {row['participant']}: {row['reason']}")
        else:
            print(f"  {row['target'][:12]} {row['participant']}: {row['previous']} -> "
                  f"{row['scores']}")
    for digest, why in report.failed:
        print(f"  could not re-score {digest[:12]}: {why}")
    for digest in report.missing:
        print(f"  skipped {digest[:12]}: no stored envelope (marked as scored on old labels)")
    if args.dry_run:
        print("dry run: nothing written")
        return 0
    for path in rerender(root, boards=boards_in(Path(root) / "competitions")):
        print(f"wrote {path}")
    print(f"appended {report.written} rescore row(s); commit leaderboard/ through a PR")
    return 1 if report.failed else 0


def cmd_ledger_withdraw(args: argparse.Namespace) -> int:
    from evaluator.codetrack.board import boards_in
    from evaluator.repo.corrections import describe, withdraw
    from evaluator.repo.record import rerender

    root = args.root or repo_root()
    row, written = withdraw(root, args.digest, reason=args.reason, by=args.by)
    if not written:
        from evaluator.ledger.store import WITHDRAWAL, Ledger
        from evaluator.repo.record import ledger_path

        first = next(r for r in Ledger(ledger_path(root)).rows()
                     if r["type"] == WITHDRAWAL and r["digest"] == row["digest"])
        print(f"already withdrawn on {first['at']} by {first.get('by') or 'unknown'}: "
              f"{first['reason']} (nothing written; the new reason was not recorded)")
        return 0
    print("appended " + describe(row))
    for path in rerender(root, boards=boards_in(Path(root) / "competitions")):
        print(f"wrote {path}")
    return 0


def _ledger_rows(path: Path | None) -> tuple[Path, list]:
    from evaluator.ledger.store import Ledger
    from evaluator.paths import default_ledger

    path = path or default_ledger()
    if not path.exists():
        raise ConfigError(f"{path}: no ledger there (give --ledger PATH)")
    return path, Ledger(path).rows()


def _scores_text(scores: dict) -> str:
    """Scores at 4 decimals; counts (integers, e.g. the code track's passed/cases) as counts."""
    return ", ".join(f"{k}={v}" if isinstance(v, int) else f"{k}={v:.4f}"
                     for k, v in scores.items())


def _ledger_slug(value: str, rows: list) -> str:
    """`--competition` as a slug or a folder; a name neither the ledger nor competitions/ knows
    gets the closest ones and the list instead of an empty listing."""
    import difflib

    from evaluator.paths import competition_slugs

    name = Path(value).name
    known = sorted({r["slug"] for r in rows if "slug" in r} | set(competition_slugs()))
    if name in known:
        return name
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise ConfigError(f"competition {value!r} not found in the ledger or competitions/{hint}\n"
                      f"  competitions: {', '.join(known) or '(none)'}")


def cmd_ledger_list(args: argparse.Namespace) -> int:
    import json

    from evaluator.ledger.views import select

    path, rows = _ledger_rows(args.ledger)
    competition = _ledger_slug(args.competition, rows) if args.competition else None
    found = select(rows, competition=competition, participant=args.participant,
                   kind=args.kind, since=args.since, until=args.until, status=args.status)
    for state in found:
        r = state.row
        if args.json:
            print(json.dumps({"digest": r["digest"], "slug": r["slug"], "version": r["version"],
                              "participant": r["participant"], "entrant": r.get("entrant"),
                              "scored_at": r["scored_at"], "status": state.status,
                              "scores": state.scores}, sort_keys=True))
        else:
            print(f"{r['digest'][:16]}  {r['scored_at']}  {r['slug']} v{r['version']}  "
                  f"{r['participant']} ({r.get('entrant', 'human')})  {state.status}  "
                  f"{_scores_text(state.scores)}")
    if not args.json:
        print(f"{len(found)} submission(s) in {path}")
    return 0


def cmd_ledger_show(args: argparse.Namespace) -> int:
    import json

    from evaluator.ledger.views import states
    from evaluator.repo.corrections import find_submission

    path, rows = _ledger_rows(args.ledger)
    target = find_submission(rows, args.digest)
    state = next(s for s in states(rows) if s.row["digest"] == target["digest"])
    print(json.dumps(target, indent=2, sort_keys=True, ensure_ascii=True))
    print(f"status: {state.status} (in {path})")
    if state.withdrawal:
        w = state.withdrawal
        print(f"withdrawn on {w['at']} by {w.get('by') or 'unknown'}: {w['reason']}")
    if state.stale:
        print(f"scored on old labels: {state.stale['reason']} ({state.stale['at']})")
    for r in state.rescores:
        print(f"re-scored on {r['at']} by {r.get('by') or 'unknown'} ({r['reason']}): "
              f"{_scores_text(r['previous'])} -> {_scores_text(r['scores'])}")
    return 0
