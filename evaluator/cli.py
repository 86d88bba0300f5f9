"""The `gnncb` command line.

Each track registers its own verbs from its own module (`register(subparsers)`), so this file
stays a thin dispatcher and tracks never edit each other's code. Exit codes: 0 ok/accepted,
1 rejected (the submission is at fault), 2 usage or configuration error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from evaluator.errors import GnncbError

# Verb groups shared between modules, e.g. GROUPS["competition"] holds `gnncb competition ...`
# actions so that a later plugin can add `competition build` beside the core's `lint`.
GROUPS: dict[str, argparse._SubParsersAction] = {}

# Modules that contribute verbs; each defines register(subparsers) -> None. Order matters:
# "evaluator.commands.core" creates the shared GROUPS first.
PLUGINS: tuple[str, ...] = (
    "evaluator.commands.core",
    "evaluator.commands.competition",
    "evaluator.commands.ci",
    "evaluator.commands.llm",
    "evaluator.commands.code",
    "evaluator.commands.code_llm",
    "evaluator.commands.ci_code",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gnncb",
        description="GNN competitions for humans and LLMs, scored on hidden labels.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in PLUGINS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except GnncbError as err:
        print(f"error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
