"""`gnncb evaluate`: decrypt, validate and score a submission folder (the maintainer's view)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evaluator.errors import Rejection
from evaluator.ledger.store import Ledger
from evaluator.paths import competition_arg
from evaluator.submission import keys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("evaluate", help="decrypt, validate and score a submission folder")
    p.add_argument("--competition", type=competition_arg, required=True,
                   help="a slug (gnn-cora) or a folder (competitions/gnn-cora)")
    p.add_argument("--submission", type=Path, required=True,
                   help="folder with predictions.csv.enc and metadata.json")
    p.add_argument("--participant", required=True)
    p.add_argument("--private-key", type=Path, action="append",
                   help="PEM file (repeatable for rotation); default: $GNNCB_PRIVATE_KEY")
    p.add_argument("--ledger", type=Path, help="append the accepted row to this ledger")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")
    p.set_defaults(func=cmd_evaluate)

def cmd_evaluate(args: argparse.Namespace) -> int:
    from evaluator.pipeline.evaluate import evaluate_dir

    private = keys.private_keys_from(args.private_key)
    ledger = Ledger(args.ledger) if args.ledger else None
    if ledger is not None and not args.json:
        print(f"ledger: {args.ledger}")
    try:
        outcome = evaluate_dir(args.competition, args.submission, participant=args.participant,
                               keys=private, ledger=ledger)
    except Rejection as err:
        if args.json:
            print(json.dumps({"accepted": False, "code": err.code, "reason": str(err)}))
        else:
            print(f"rejected: {err}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"accepted": True, "duplicate": outcome.duplicate,
                          "slug": outcome.slug, "participant": outcome.participant,
                          "scores": outcome.scores,
                          "scored_on": (outcome.row or {}).get("scored_on", "all"),
                          "digest": outcome.row["digest"] if outcome.row else None,
                          "remaining_version": outcome.remaining_version,
                          "remaining_today": outcome.remaining_today}, sort_keys=True))
        return 0
    note = " (already scored; nothing new recorded)" if outcome.duplicate else ""
    print(f"accepted: {outcome.participant} on {outcome.slug}{note}")
    if (outcome.row or {}).get("scored_on") == "public":
        print("  scores on the public part of the hidden labels; the private part is sealed "
              "in the ledger row until the reveal")
    for name, value in outcome.scores.items():
        print(f"  {name}: {value:.6f}")
    if ledger and not outcome.duplicate:
        print(f"recorded in {args.ledger}")
    if ledger:
        from evaluator.competition.spec import load_spec
        from evaluator.ledger.ranking import standing_of

        rank, entries = standing_of(load_spec(args.competition), ledger.rows(),
                                    outcome.participant)
        if rank is not None:
            print(f"rank: {rank} of {entries} in {args.ledger}")
    if outcome.remaining_version is not None:
        print(f"remaining: {outcome.remaining_version} submissions for this version, "
              f"{outcome.remaining_today} in the next 24 hours")
    return 0
