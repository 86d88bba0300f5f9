"""The `gnncb` command line.

Each top-level verb is registered by its own module, `evaluator.commands.<verb>`
(`register(subparsers)`), so this file stays a thin dispatcher. Exit codes: 0 ok/accepted,
1 rejected (the submission is at fault), 2 usage or configuration error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from evaluator.commands import GROUPS
from evaluator.errors import GnncbError

# Each top-level verb, its one-line help, and the module that registers it: one module per verb,
# `evaluator.commands.<verb>`, defining register(subparsers) -> None. Why a table: `gnncb VERB`
# imports only VERB's module (`check` never loads networkx or the code-track problems) and
# `gnncb --help` / `--version` import none of them, so start-up takes tens of milliseconds, not
# seconds. tests/cli/test_user_messages.py checks the table against what the modules really
# register.
VERBS: dict[str, tuple[str, tuple[str, ...]]] = {
    "keys": ("manage key pairs", ("evaluator.commands.keys",)),
    "check": ("validate a predictions CSV (no key needed)", ("evaluator.commands.check",)),
    "encrypt": ("check, then encrypt predictions and write metadata.json",
                ("evaluator.commands.encrypt",)),
    "evaluate": ("decrypt, validate and score a submission folder",
                 ("evaluator.commands.evaluate",)),
    "rehearse": ("dry-run your pull request through the bot's score -> publish jobs on a local "
                 "copy (no key needed)", ("evaluator.commands.rehearse",)),
    "leaderboard": ("render leaderboards from the ledger", ("evaluator.commands.leaderboard",)),
    "competition": ("maintain competition folders", ("evaluator.commands.competition",)),
    "demo": ("end-to-end demo on real data shipped with scikit-learn",
             ("evaluator.commands.demo",)),
    "baseline": ("reference baselines", ("evaluator.commands.baseline",)),
    "ci": ("the pull-request pipeline (used by GitHub Actions)", ("evaluator.commands.ci",)),
    "ledger": ("audited corrections to the ledger", ("evaluator.commands.ledger",)),
    "llm": ("LLM track: frozen prompt, sandboxed execute-and-repair",
            ("evaluator.commands.llm",)),
    "code": ("graph-coding track: generate cases, judge, report", ("evaluator.commands.code",)),
    "results": ("the papers' comparisons from the ledger or a source",
                ("evaluator.commands.results",)),
    "site": ("build the static benchmark site", ("evaluator.commands.site",)),
    "verify": ("recompute what the repository publishes, with no key",
               ("evaluator.commands.verify",)),
}

# Every module that contributes verbs, in the order `gnncb --help` lists them.
PLUGINS: tuple[str, ...] = tuple(dict.fromkeys(m for _, mods in VERBS.values() for m in mods))


def _parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    from evaluator import __version__

    parser = argparse.ArgumentParser(
        prog="gnncb",
        description="GNN competitions for humans and LLMs, scored on hidden labels.",
    )
    parser.add_argument("--version", action="version", version=f"gnncb {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    return parser, sub


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or (with `verb`) one holding only what that verb needs."""
    GROUPS.clear()
    parser, sub = _parser()
    wanted = VERBS[verb][1] if verb in VERBS else PLUGINS
    for name in PLUGINS:
        if name in wanted:
            importlib.import_module(name).register(sub)
    from evaluator.commands._options import add_root_everywhere

    add_root_everywhere(parser)  # one --root on every verb (evaluator.paths finds the default)
    return parser


def _summary_parser() -> argparse.ArgumentParser:
    """For `gnncb`, `gnncb --help` and `--version`: the verb list from the table, no imports."""
    parser, sub = _parser()
    for name, (help_text, _) in VERBS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def _verb(argv: Sequence[str]) -> str | None:
    """The first word that is not an option: the top-level parser takes no option values."""
    return next((a for a in argv if not a.startswith("-")), None)


def _root_given(argv: Sequence[str]) -> str | None:
    """`--root DIR` wherever it stands: it must hold before parsing, since `--competition SLUG`
    is looked up while the command line is read."""
    pre = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    pre.add_argument("--root", nargs="?")  # a missing value is the real parser's to report
    known, _ = pre.parse_known_args(argv)
    return known.root


def main(argv: Sequence[str] | None = None) -> int:
    from evaluator.paths import using_root

    argv = list(sys.argv[1:] if argv is None else argv)
    verb = _verb(argv)
    try:
        with using_root(_root_given(argv) if verb is not None else None):
            parser = _summary_parser() if verb is None else build_parser(verb)
            args = parser.parse_args(argv)
            return int(args.func(args) or 0)
    except GnncbError as err:
        print(f"error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `gnncb code problems | head`: the reader left; not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
