"""`gnncb ci code score|publish`: the two jobs of `.github/workflows/evaluate-code.yml`.

`score` (read-only token, no secret) judges a code-track pull request's solutions inside the
sandbox and writes the verdict JSON; it refuses to run participant code without full isolation,
so the workflow runs it as root (sudo). `publish` (write token) records, renders, commits,
answers, labels and closes, and runs no participant code. Exit codes as for `gnncb ci pr`: 0 a
verdict was written / published (a rejection is a successful run), 2 the platform failed
(nothing recorded; re-run later).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from evaluator.commands import GROUPS
from evaluator.commands.ci import _client, _common, _push_env, _run_url
from evaluator.errors import ConfigError
from evaluator.paths import repo_root


def register(sub: argparse._SubParsersAction) -> None:
    ci = GROUPS.get("ci")
    if ci is None:
        raise RuntimeError("evaluator.commands.ci must be registered before ci_code")
    p = ci.add_parser("code", help="judge a code-track submission pull request in two phases")
    ps = p.add_subparsers(dest="ci_code_command", metavar="PHASE", required=True)

    s = ps.add_parser("score", help="phase 1: policy, fetch as data, judge in the sandbox; "
                                    "write the verdict")
    _common(s)
    s.add_argument("--out", type=Path, required=True, help="where to write the result JSON")
    s.add_argument("--per-cell", type=int, default=None,
                   help="leaderboard cases per published cell (default: the board's, 10)")
    s.add_argument("--jobs", type=int, default=2, help="problems judged in parallel")
    s.set_defaults(func=cmd_code_score)

    s = ps.add_parser("publish", help="phase 2: record, render, commit, comment, label, close")
    _common(s)
    s.add_argument("--result", type=Path, required=True, help="the result JSON from phase 1")
    s.add_argument("--remote", default="origin")
    s.add_argument("--branch", default=None, help="default: the repository's default branch")
    s.add_argument("--run-url", default=None, help="default: built from GITHUB_* variables")
    s.set_defaults(func=cmd_code_publish)


def cmd_code_score(args: argparse.Namespace) -> int:
    from evaluator.ci.code.result import write_code_result
    from evaluator.ci.code.score import judge_code_pr
    from evaluator.ci.logs import say

    if args.per_cell is not None and args.per_cell < 1:
        raise ConfigError("--per-cell must be at least 1")
    result = judge_code_pr(_client(args), args.pr, root=args.root or repo_root(),
                           bot_login=args.bot_login, per_cell=args.per_cell, jobs=args.jobs)
    write_code_result(result, args.out)
    say(f"PR #{args.pr} by {result.author_login}: {result.status}"
        + (f" ({result.code}) {result.reason}" if result.code else ""))
    for p in result.problems:
        say(f"  {p.path!r}: {p.reason}")
    if result.row and not (result.duplicate or result.already_recorded):
        s = result.row["scores"]
        say(f"  pass rate {100 * s['pass_rate']:.2f} % ({s['passed']}/{s['cases']} cases)")
    return 0


def cmd_code_publish(args: argparse.Namespace) -> int:
    from evaluator.ci.code.publish import publish_code_result
    from evaluator.ci.code.result import read_code_result

    root = args.root or repo_root()
    result = read_code_result(args.result)
    if result.pr != args.pr:
        raise ConfigError(f"{args.result} is for PR #{result.pr}, not #{args.pr}")
    client = _client(args)
    git_env = _push_env(root, args.remote)
    publish_code_result(client, result, root=root, remote=args.remote,
                        branch=args.branch or client.default_branch(),
                        bot_login=args.bot_login, server_url=args.server_url,
                        run_url=_run_url(args), git_env=git_env)
    return 0
