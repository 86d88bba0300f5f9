"""The `gnncb` verbs: argparse only, one module per top-level verb (`commands/<verb>.py`, each
with `register(subparsers)`), calling the library; `_options` holds what several verbs share.
Only `evaluator.cli` imports this package.

`GROUPS` holds the sub-parser of each verb group (`GROUPS["competition"]` holds
`gnncb competition ...`), so a caller can see which actions a group offers.
`cli.build_parser` clears it before each build.
"""

from __future__ import annotations

import argparse

GROUPS: dict[str, argparse._SubParsersAction] = {}
