"""`gnncb leaderboard render`: the markdown leaderboards, from the ledger."""

from __future__ import annotations

import argparse
from pathlib import Path

from evaluator.commands import GROUPS
from evaluator.commands._options import announce
from evaluator.ledger.store import Ledger


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("leaderboard", help="render leaderboards from the ledger")
    ls = p.add_subparsers(dest="lb_command", metavar="ACTION", required=True)
    GROUPS["leaderboard"] = ls
    r = ls.add_parser("render", help="write leaderboard/<slug>.md and leaderboard/README.md")
    r.add_argument("--ledger", type=Path,
                   help="default: the repository's leaderboard/ledger.jsonl (see --root)")
    r.add_argument("--out", type=Path, help="default: the ledger's folder")
    r.add_argument("--competitions", type=Path,
                   help="default: the repository's competitions/")
    r.set_defaults(func=cmd_leaderboard_render)

def cmd_leaderboard_render(args: argparse.Namespace) -> int:
    from evaluator.codetrack.board import load_all_specs
    from evaluator.render.boards import write_leaderboards

    root = announce(args.root, ledger=args.ledger or True)
    ledger_path = args.ledger or root / "leaderboard" / "ledger.jsonl"
    out = args.out or ledger_path.parent
    specs = load_all_specs(args.competitions or root / "competitions")
    written = write_leaderboards(specs, Ledger(ledger_path).rows(), out, ledger=ledger_path)
    for path in written:
        print(f"wrote {path}")
    where = "beside the ledger" if args.out is None else "as --out asked"
    print(f"rendered {len(written)} page(s) from {ledger_path} into {out} ({where})")
    return 0
