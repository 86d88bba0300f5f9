"""`gnncb competition reveal SLUG` and `gnncb ledger choose-final SLUG`: the end of a version.

Why here and not in the PR workflow: both are maintainer acts with an audit line. `reveal`
needs the private key (it opens every row's sealed private-part scores) and is run by hand or
by the `reveal` workflow, which only calls this verb; `choose-final` records a participant's
final submissions when they ask a maintainer instead of marking them in a later metadata.json.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from evaluator.commands import GROUPS
from evaluator.paths import competition_slug, repo_root


def register(sub: argparse._SubParsersAction) -> None:
    cs = GROUPS.get("competition")
    if cs is not None:
        p = cs.add_parser("reveal", help="unseal the private-part scores, record the reveal, "
                                         "render the final standings")
        p.add_argument("slug", metavar="COMPETITION", help="slug or folder")
        p.add_argument("--root", type=Path, default=None, help="repository root (default: ours)")
        p.add_argument("--private-key", type=Path, action="append",
                       help="PEM file (repeatable); default: $GNNCB_PRIVATE_KEY")
        p.add_argument("--by", default=os.environ.get("GITHUB_ACTOR", ""),
                       help="who reveals (recorded)")
        p.add_argument("--early", action="store_true",
                       help="reveal before the last phase ends / before reveal_at")
        p.add_argument("--dry-run", action="store_true",
                       help="print the final standings, write nothing")
        p.add_argument("--row-out", type=Path,
                       help="keyed workflow job: write the reveal row to this file instead of "
                            "the ledger")
        p.add_argument("--from-row", type=Path,
                       help="unkeyed workflow job: check and record a row from --row-out "
                            "(no private key needed)")
        p.add_argument("--push", action="store_true",
                       help="with --from-row: commit and push to the default branch")
        p.add_argument("--remote", default="origin")
        p.add_argument("--branch", default="main")
        p.set_defaults(func=cmd_reveal)
    ls = GROUPS.get("ledger")
    if ls is not None:
        c = ls.add_parser("choose-final", help="record which submissions of a participant "
                                               "count as final (audit line)")
        c.add_argument("slug", metavar="COMPETITION", help="slug or folder")
        c.add_argument("digests", nargs="+", help="digests (>= 8 characters) of the chosen "
                                                  "submissions")
        c.add_argument("--participant", required=True)
        c.add_argument("--reason", required=True)
        c.add_argument("--by", default=os.environ.get("GITHUB_ACTOR", ""))
        c.add_argument("--root", type=Path, default=None)
        c.set_defaults(func=cmd_choose_final)


def cmd_reveal(args: argparse.Namespace) -> int:
    from evaluator.commands.ci import load_keys
    from evaluator.repo.reveal import reveal

    root = args.root or repo_root()
    args.slug = competition_slug(args.slug, args.root)
    if args.from_row is not None:
        return _record_row(args, root)
    report = reveal(root, args.slug, load_keys(args.private_key), by=args.by, early=args.early,
                    boards=_boards(root),
                    dry_run=args.dry_run or args.row_out is not None)
    print(f"{report.slug} v{report.version}: opened {report.row['submissions']} sealed "
          "submission score(s); final standings on the private part:")
    for e in report.standings:
        primary = e.row.get("scores", {})
        key = next(iter(e.private), None)
        shake = e.shake_up
        print(f"  {e.rank:>3}. {e.row['participant']}"
              + (f"  {key}={e.private[key]:.4f} (public {float(primary.get(key, 0)):.4f})"
                 if key else "")
              + f"  public rank {e.public_rank if e.public_rank is not None else '-'}"
              + (f", shake-up {shake:+d}" if shake is not None else ""))
    if args.row_out is not None:
        args.row_out.parent.mkdir(parents=True, exist_ok=True)
        args.row_out.write_text(json.dumps(report.row, sort_keys=True) + "\n",
                                encoding="utf-8")
        print(f"wrote the reveal row to {args.row_out} (record it with --from-row)")
        return 0
    if args.dry_run:
        print("dry run: nothing written")
        return 0
    for path in report.pages:
        print(f"wrote {path}")
    print("appended the reveal row" if report.written else "already revealed: nothing new")
    return 0


def _record_row(args: argparse.Namespace, root: Path) -> int:
    from evaluator.commands.ci import _push_env
    from evaluator.errors import ConfigError
    from evaluator.repo.gitops import commit_and_push
    from evaluator.repo.reveal import record_reveal

    try:
        row = json.loads(args.from_row.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"{args.from_row}: cannot read the reveal row: {err}") from None
    if not isinstance(row, dict) or row.get("slug") != args.slug:
        raise ConfigError(f"{args.from_row}: not a reveal row for {args.slug}")
    if not args.push:
        change = record_reveal(root, row, boards=_boards(root))
        print("recorded the reveal row" if change else "already revealed: nothing new")
        return 0
    report = commit_and_push(root, lambda: record_reveal(root, row, boards=_boards(root)),
                             remote=args.remote,
                             branch=args.branch, env=_push_env(root, args.remote))
    print(f"pushed the reveal of {args.slug} (attempts {report.attempts})"
          if report.pushed else "already revealed: nothing new")
    return 0


def cmd_choose_final(args: argparse.Namespace) -> int:
    from evaluator.repo.reveal import choose_final

    slug = competition_slug(args.slug, args.root)
    root = args.root or repo_root()
    row, written = choose_final(root, slug, args.participant, args.digests, by=args.by,
                                reason=args.reason, boards=_boards(root))
    chosen = ", ".join(d[:12] for d in row["chosen"])
    print(f"{row['participant']} on {row['slug']} v{row['version']}: final = {chosen}"
          + ("" if written else " (already recorded)"))
    return 0


def _boards(root: Path) -> list[Any]:
    """The code track's boards, so re-rendered pages keep the track's board and index entry."""
    from evaluator.codetrack.board import boards_in

    return list(boards_in(Path(root) / "competitions"))
