"""The `gnncb` verbs: argparse only. Each module registers its verbs (`register(subparsers)`)
and calls the library; only `evaluator.cli` imports this package.

`GROUPS` holds the sub-parser of each verb group shared between modules, e.g.
GROUPS["competition"] holds `gnncb competition ...` so that one module can add `reveal` beside
another's `lint`. `cli.build_parser` clears it before each build.
"""

from __future__ import annotations

import argparse

GROUPS: dict[str, argparse._SubParsersAction] = {}
