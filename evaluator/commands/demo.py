"""`gnncb demo`: the whole life of a competition in a temporary folder
(evaluator.authoring.demo)."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="end-to-end demo on real data shipped with scikit-learn")
    p.add_argument("--workdir", type=Path)
    p.set_defaults(func=cmd_demo)

def cmd_demo(args: argparse.Namespace) -> int:
    from evaluator.authoring.demo import run_demo

    return run_demo(args.workdir)
