"""`gnncb baseline run`: the reference solutions on the leaderboard through the normal
encrypt/evaluate path (evaluator.authoring.baselines)."""

from __future__ import annotations

import argparse
from pathlib import Path

from evaluator.commands import GROUPS
from evaluator.paths import resolve_competition


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("baseline", help="reference baselines")
    bs = p.add_subparsers(dest="baseline_command", metavar="ACTION", required=True)
    GROUPS["baseline"] = bs
    r = bs.add_parser("run", help="train baselines, encrypt, evaluate, record, render")
    r.add_argument("slug", help="competition slug or folder")
    r.add_argument("--smoke", action="store_true",
                   help="a few epochs only; not recorded unless --ledger is given")
    r.add_argument("--which", default="gnn,nongraph", help="comma list of gnn, nongraph")
    r.add_argument("--private-key", type=Path, action="append",
                   help="PEM file; default: $GNNCB_PRIVATE_KEY")
    r.add_argument("--public-key", type=Path, help="default: keys/platform-public.pem")
    r.add_argument("--ledger", type=Path,
                   help="default: the repository's leaderboard/ledger.jsonl (full runs; see "
                        "--root); none for --smoke")
    r.add_argument("--timeout-minutes", type=float, default=30.0)
    r.set_defaults(func=cmd_baseline_run)

def cmd_baseline_run(args: argparse.Namespace) -> int:
    from evaluator.authoring.baselines import run_baselines
    from evaluator.codetrack.board import boards_in

    folder = resolve_competition(args.slug)
    if args.ledger is not None or not args.smoke:  # records and renders: say where
        from evaluator.commands._options import announce
        from evaluator.paths import ensure_inside

        root = announce(args.root, ledger=args.ledger or True)
        if args.ledger is None:  # the repository's ledger and this folder's README
            ensure_inside(root, folder, "competition folder")
    which = [w.strip() for w in args.which.split(",") if w.strip()]
    results = run_baselines(folder, which=which, smoke=args.smoke,
                            private_key_paths=args.private_key, public_key=args.public_key,
                            ledger_path=args.ledger, timeout_minutes=args.timeout_minutes,
                            boards=boards_in(folder.parent))
    for r in results:
        shown = ", ".join(f"{k}={v:.4f}" for k, v in r.scores.items())
        print(f"{r.participant}: {shown}; {r.method}; {r.training_time_minutes:.2f} min")
    return 0
