"""`gnncb ci pr score|publish` and `gnncb ci code score|publish`: the pull-request pipelines.

`pr` is the two jobs of `.github/workflows/evaluate.yml`: `score` (key, read-only token) and
`publish` (write token, no key). `code` is the two jobs of `.github/workflows/evaluate-code.yml`:
`score` (read-only token, no secret) judges a code-track pull request's solutions inside the
sandbox and refuses to run participant code without full isolation, so the workflow runs it as
root (sudo); `publish` (write token) records, renders, commits, answers, labels and closes, and
runs no participant code. Exit codes: 0 when a verdict was written / published (a rejected
submission is a successful run of the pipeline), 2 when the platform failed (nothing recorded,
re-run later).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evaluator import settings
from evaluator.commands import GROUPS
from evaluator.commands._options import (
    PREVIOUS_KEY_ENV,
    add_root_option,
    announce,
    load_keys,
    push_env,
    token,
)
from evaluator.errors import ConfigError
from evaluator.paths import repo_root

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
    _event_options(s)
    s.set_defaults(func=cmd_pr_score)

    _publish_parser(ps, cmd_pr_publish)

    p = cs.add_parser("code", help="judge a code-track submission pull request in two phases")
    ps = p.add_subparsers(dest="ci_code_command", metavar="PHASE", required=True)

    s = ps.add_parser("score", help="phase 1: policy, fetch as data, judge in the sandbox; "
                                    "write the verdict")
    _common(s)
    s.add_argument("--out", type=Path, required=True, help="where to write the result JSON")
    s.add_argument("--per-cell", type=int, default=None,
                   help="leaderboard cases per published cell (default: the board's, 10)")
    s.add_argument("--jobs", type=int, default=2, help="problems judged in parallel")
    s.add_argument("--case-seed", type=Path, default=None,
                   help="the seed job's answer (`gnncb ci code seed --out`): required when "
                        "the board commits to secret cases")
    _event_options(s)
    s.set_defaults(func=cmd_code_score)

    s = ps.add_parser("seed", help="phase 0 (keyed: $GNNCB_CODE_SEED, runs no code): derive "
                                   "the PR's secret case seed for the judge")
    _common(s)
    s.add_argument("--out", type=Path, required=True, help="where to write the seed JSON")
    _event_options(s)
    s.set_defaults(func=cmd_code_seed)

    _publish_parser(ps, cmd_code_publish)


def _publish_parser(phases: argparse._SubParsersAction, func: Callable[..., int]) -> None:
    """Phase 2 takes the same options in both pipelines (it holds no key and judges nothing)."""
    s = phases.add_parser("publish",
                          help="phase 2: record, render, commit, comment, label, close")
    _common(s)
    s.add_argument("--result", type=Path, required=True, help="the result JSON from phase 1")
    s.add_argument("--remote", default="origin")
    s.add_argument("--branch", default=None, help="default: the repository's default branch")
    s.add_argument("--run-url", default=None, help="default: built from GITHUB_* variables")
    s.set_defaults(func=func)


def _event_options(p: argparse.ArgumentParser) -> None:
    """The event whose time is the submission's (evaluator.ci.event), in both keyed phases."""
    # only a pull_request_target run's payload: the suite's own CI run (push, pull_request)
    # has a payload too, and its time is no submission's
    ours = os.environ.get("GITHUB_EVENT_NAME") == "pull_request_target"
    p.add_argument("--event", type=Path,
                   default=(os.environ.get("GITHUB_EVENT_PATH") or None) if ours else None,
                   help="the triggering event's payload (default: $GITHUB_EVENT_PATH in a "
                        "pull_request_target run); a "
                        "pull-request event's time is the submission time, whenever the "
                        "queued run starts; without one (workflow_dispatch) the clock decides")
    p.add_argument("--run-id", default=os.environ.get("GITHUB_RUN_ID") or None,
                   help="this workflow run's id, to check the event against GitHub's API "
                        "(default: $GITHUB_RUN_ID)")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repo", required=True, help="OWNER/NAME")
    p.add_argument("--pr", type=int, required=True, help="pull request number")
    add_root_option(p)  # the base-branch checkout: the workflow's working directory
    p.add_argument("--api-url", default=os.environ.get("GITHUB_API_URL",
                                                       "https://api.github.com"))
    p.add_argument("--server-url", default=os.environ.get("GITHUB_SERVER_URL",
                                                          "https://github.com"))
    p.add_argument("--bot-login", default=settings.bot_login() or DEFAULT_BOT,
                   help="account whose comments carry the bot's answers (default: "
                        "$GNNCB_BOT_LOGIN or github-actions[bot])")


def _client(args: argparse.Namespace):
    from evaluator.ci.github import GitHubClient

    return GitHubClient(args.repo, token(), base_url=args.api_url)


def cmd_pr_score(args: argparse.Namespace) -> int:
    from evaluator.ci.event import read_event
    from evaluator.ci.logs import say
    from evaluator.ci.predictions.score import score_pr
    from evaluator.ci.result import write_result

    result = score_pr(_client(args), args.pr, root=repo_root(args.root),
                      load_keys=lambda: load_keys(args.private_key), bot_login=args.bot_login,
                      event=read_event(args.event, args.run_id))
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


def _publish(args: argparse.Namespace, read: Callable[[Path], Any],
             publish: Callable[..., Any]) -> int:
    """Phase 2 of either pipeline: the verdict file must be this PR's, then record and answer."""
    root = announce(args.root, ledger=True)
    result = read(args.result)
    if result.pr != args.pr:
        raise ConfigError(f"{args.result} is for PR #{result.pr}, not #{args.pr}")
    client = _client(args)
    git_env = push_env(root, args.remote)
    publish(client, result, root=root, remote=args.remote,
            branch=args.branch or client.default_branch(), bot_login=args.bot_login,
            server_url=args.server_url, run_url=_run_url(args), git_env=git_env)
    return 0


def cmd_pr_publish(args: argparse.Namespace) -> int:
    from evaluator.ci.predictions.publish import publish_result
    from evaluator.ci.result import read_result

    return _publish(args, read_result, publish_result)


def cmd_code_score(args: argparse.Namespace) -> int:
    from evaluator.ci.code.result import write_code_result
    from evaluator.ci.code.score import judge_code_pr
    from evaluator.ci.event import read_event
    from evaluator.ci.logs import say

    if args.per_cell is not None and args.per_cell < 1:
        raise ConfigError("--per-cell must be at least 1")
    from evaluator.ci.code.seed import read_case_seed

    seed = read_case_seed(args.case_seed) if args.case_seed else None
    result = judge_code_pr(_client(args), args.pr, root=repo_root(args.root),
                           bot_login=args.bot_login, per_cell=args.per_cell, jobs=args.jobs,
                           event=read_event(args.event, args.run_id), case_seed=seed)
    write_code_result(result, args.out)
    say(f"PR #{args.pr} by {result.author_login}: {result.status}"
        + (f" ({result.code}) {result.reason}" if result.code else ""))
    for p in result.problems:
        say(f"  {p.path!r}: {p.reason}")
    if result.row and not (result.duplicate or result.already_recorded):
        s = result.row["scores"]
        say(f"  pass rate {100 * s['pass_rate']:.2f} % ({s['passed']}/{s['cases']} cases)")
    return 0


def cmd_code_seed(args: argparse.Namespace) -> int:
    from evaluator.ci.code.seed import seed_code_pr, write_case_seed
    from evaluator.ci.event import read_event
    from evaluator.ci.logs import say

    answer = seed_code_pr(_client(args), args.pr, root=repo_root(args.root),
                          bot_login=args.bot_login, event=read_event(args.event, args.run_id))
    write_case_seed(answer, args.out)
    # the seed is not printed: it is handed to the judge job only
    say(f"PR #{args.pr}: " + (f"case seed derived for digest {answer['digest'][:12]}"
                              if "seed" in answer else
                              f"no case seed ({answer['status']} {answer.get('code', '')})"))
    return 0


def cmd_code_publish(args: argparse.Namespace) -> int:
    from evaluator.ci.code.publish import publish_code_result
    from evaluator.ci.code.result import read_code_result

    return _publish(args, read_code_result, publish_code_result)
