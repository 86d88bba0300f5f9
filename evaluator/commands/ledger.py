"""`gnncb ledger rescore | withdraw | list | show | choose-final`: the ledger's audited
corrections and views.

Why audit lines and no deletion: the ledger is append-only; a correction is a new row that says
who did what and why. `choose-final` records a participant's final submissions when they ask a
maintainer instead of marking them in a later metadata.json.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from evaluator.commands import GROUPS
from evaluator.commands._options import (
    add_by_option,
    announce,
    audit_by,
    load_keys,
    track_boards,
)
from evaluator.errors import ConfigError
from evaluator.paths import competition_slug


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ledger", help="audited corrections to the ledger")
    ls = p.add_subparsers(dest="ledger_command", metavar="ACTION", required=True)
    GROUPS["ledger"] = ls
    r = ls.add_parser("rescore", help="re-score every active submission of a competition "
                                      "(after a hidden-label fix) and re-render")
    r.add_argument("slug", metavar="COMPETITION",
                   help="competition slug (gnn-cora) or folder (competitions/gnn-cora)")
    r.add_argument("--private-key", type=Path, action="append")
    r.add_argument("--reason", default="hidden labels corrected")
    add_by_option(r)
    r.add_argument("--skip-missing", action="store_true",
                   help="re-score the others when some envelopes are not stored")
    r.add_argument("--dry-run", action="store_true", help="report changes, write nothing")
    r.set_defaults(func=cmd_ledger_rescore)
    w = ls.add_parser("withdraw", help="withdraw a submission with an audit line (no deletion)")
    w.add_argument("digest", help="the submission's digest (or a unique prefix of >= 8 chars)")
    w.add_argument("--reason", required=True)
    add_by_option(w)
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

    c = ls.add_parser("choose-final", help="record which submissions of a participant "
                                           "count as final (audit line)")
    c.add_argument("slug", metavar="COMPETITION", help="slug or folder")
    c.add_argument("digests", nargs="+", help="digests (>= 8 characters) of the chosen "
                                              "submissions")
    c.add_argument("--participant", required=True)
    c.add_argument("--reason", required=True)
    add_by_option(c)
    c.set_defaults(func=cmd_choose_final)

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
    from evaluator.repo.corrections import rescore, rescore_board
    from evaluator.repo.record import rerender, rerender_readmes

    root = announce(args.root, ledger=True)
    if not args.dry_run:
        args.by = audit_by(args, root)
    board = _track_board(args.slug, root)
    if board is not None:  # a track's board (graph-coding): no hidden labels, no key needed
        report = rescore_board(root, board, by=args.by or "", dry_run=args.dry_run)
    else:
        slug = competition_slug(args.slug, root)
        report = rescore(root, slug, load_keys(args.private_key), reason=args.reason,
                         by=args.by or "", skip_missing=args.skip_missing, dry_run=args.dry_run)
    print(f"{report.slug} v{report.version}: re-scored {report.checked} active submission(s); "
          f"{len(report.changed)} changed")
    for row in report.changed:
        if row["previous"] == row["scores"]:
            print(f"  {row['target'][:12]} {row['participant']}: {row['reason']}")
        else:
            print(f"  {row['target'][:12]} {row['participant']}: {row['previous']} -> "
                  f"{row['scores']}")
    for digest, why in report.failed:
        marked = " (marked as scored on old labels)" if digest in report.stale else ""
        print(f"  could not re-score {digest[:12]}: {why}{marked}")
    if report.failed:
        unmarked = len([d for d, _ in report.failed if d not in report.stale])
        print(f"error: {len(report.failed)} active submission(s) of {report.slug} could not be "
              "re-scored (listed above); "
              + (f"{len(report.failed) - unmarked} marked as scored on old labels, nothing "
                 "else was written for them" if unmarked < len(report.failed)
                 else "nothing was written for them"), file=sys.stderr)
    for digest in report.missing:
        print(f"  skipped {digest[:12]}: no stored envelope (marked as scored on old labels)")
    if args.dry_run:
        print("dry run: nothing written")
        return 0
    for path in [*rerender(root, boards=track_boards(root)),
                 *rerender_readmes(root, [report.slug])]:
        print(f"wrote {path}")
    print(f"appended {report.written} rescore row(s); commit leaderboard/ and the "
          "competition's README.md through a PR")
    return 1 if report.failed else 0


def cmd_ledger_withdraw(args: argparse.Namespace) -> int:
    from evaluator.repo.corrections import describe, withdraw
    from evaluator.repo.record import rerender, rerender_readmes

    root = announce(args.root, ledger=True)
    args.by = audit_by(args, root)
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
    for path in [*rerender(root, boards=track_boards(root)),
                 *rerender_readmes(root, [row["slug"]])]:
        print(f"wrote {path}")
    return 0


def _ledger_rows(path: Path | None) -> tuple[Path, list]:
    from evaluator.ledger.store import Ledger
    from evaluator.paths import default_ledger

    path = path or default_ledger()  # the repository's (--root, $GNNCB_ROOT or the cwd's)
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

    from evaluator.paths import competition_slugs, find_root

    name = Path(value).name
    found = find_root()  # a --ledger read outside any repository knows the ledger's slugs only
    here = competition_slugs(found.path / "competitions") if found else []
    known = sorted({r["slug"] for r in rows if "slug" in r} | set(here))
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


def cmd_choose_final(args: argparse.Namespace) -> int:
    from evaluator.repo.reveal import choose_final

    root = announce(args.root, ledger=True)
    args.by = audit_by(args, root)
    slug = competition_slug(args.slug, root)
    row, written = choose_final(root, slug, args.participant, args.digests, by=args.by,
                                reason=args.reason, boards=track_boards(root))
    chosen = ", ".join(d[:12] for d in row["chosen"])
    print(f"{row['participant']} on {row['slug']} v{row['version']}: final = {chosen}"
          + ("" if written else " (already recorded)"))
    return 0
