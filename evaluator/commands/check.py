"""`gnncb check`: is a predictions CSV a valid submission? (No key needed.)"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from evaluator.errors import Rejection
from evaluator.paths import competition_arg


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="validate a predictions CSV (no key needed)")
    p.add_argument("--competition", type=competition_arg, required=True,
                   help="a slug (gnn-cora) or a folder (competitions/gnn-cora)")
    p.add_argument("predictions", type=Path)
    p.add_argument("--json", action="store_true",
                   help="print {valid, problems, rows, ...} as JSON, each problem an object "
                        "{file, line, column, code, count, lines, message} (exit 0 valid, "
                        "1 invalid)")
    p.set_defaults(func=cmd_check)

def cmd_check(args: argparse.Namespace) -> int:
    from evaluator.submission.seal import check_predictions

    if not args.json:
        checked = check_predictions(args.competition, args.predictions)
        spec = checked.spec
        print(f"OK: {args.predictions} is a valid submission for {spec.slug} v{spec.version} "
              f"({checked.rows} rows, every test id exactly once)")
        return 0
    from evaluator.competition.spec import load_spec

    report: dict[str, Any] = {"file": str(args.predictions), "competition": None,
                              "version": None}
    try:
        spec = load_spec(args.competition)
        report.update(competition=spec.slug, version=spec.version)
        n = check_predictions(args.competition, args.predictions).rows
    except Rejection as err:
        problems = err.problems or [{"file": str(args.predictions), "line": None,
                                     "column": None, "code": err.code, "count": 1,
                                     "lines": [], "message": str(err)}]
        print(json.dumps({**report, "valid": False, "code": err.code, "problems": problems},
                         sort_keys=True))
        return 1
    print(json.dumps({**report, "valid": True, "rows": n, "problems": []}, sort_keys=True))
    return 0

