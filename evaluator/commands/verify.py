"""`gnncb verify`: check the repository's published numbers with no key (evaluator.repo.verify).

Exit codes: 0 everything agrees, 1 a mismatch (the first one is named first), 2 usage or
configuration error. The `ci` workflow runs it on every push to main.
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaluator import settings
from evaluator.commands._options import track_boards
from evaluator.paths import repo_root

if TYPE_CHECKING:
    from evaluator.repo.verify import VerifyReport


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="recompute what the repository publishes, with no key",
                       description="Check with no key: the ledger's hash chain, every stored "
                       "envelope, the label commitments, the boards (and --site) rebuilt from "
                       "the ledger byte for byte and, after a reveal, every released file, "
                       "score, interval and final rank recomputed. Exit 1 names the first "
                       "mismatch.")
    p.add_argument("--site", type=Path, metavar="DIR",
                   help="also rebuild the static site and compare it byte for byte with DIR "
                        "(a downloaded or built site; needs the [site] extra)")
    p.add_argument("--repo-url", default=settings.repo_url(),
                   help="with --site: the --repo-url the site was built with (default: "
                        "$GNNCB_REPO_URL)")
    p.set_defaults(func=cmd_verify)


def _verify_code_cases(root: Path, boards: list[Any], report: VerifyReport) -> None:
    """The code track's secret cases (evaluator.codetrack.caseseed.verify_cases): checked here,
    above the tracks, since `repo.verify` sits below them."""
    from evaluator.codetrack.board import CodeBoard
    from evaluator.codetrack.caseseed import verify_cases
    from evaluator.errors import GnncbError
    from evaluator.ledger.store import Ledger
    from evaluator.repo.record import ledger_path

    path = ledger_path(root)
    try:
        rows = Ledger(path).rows() if path.is_file() else []
    except GnncbError:
        return  # verify_repository named the unreadable ledger already
    for board in boards:
        if isinstance(board, CodeBoard):
            problems, notes = verify_cases(root / "competitions" / board.slug, board.slug,
                                           board.version, rows)
            report.problems += problems
            report.notes += notes
            report.checked.append(f"{board.slug}: secret case seeds and judged cases")


def cmd_verify(args: argparse.Namespace) -> int:
    from evaluator.repo.verify import verify_repository

    root = repo_root(args.root)
    print(f"repository: {root}")
    build = None
    if args.site is not None:
        from evaluator.render.site.build import build_site

        build = functools.partial(build_site, repo_url=args.repo_url)
    boards = track_boards(root)
    report = verify_repository(root, boards=boards, site=args.site, build_site=build)
    _verify_code_cases(root, boards, report)
    for line in report.checked:
        print(f"checked {line}")
    for note in report.notes:
        print(f"note: {note}")
    if report.ok:
        print("verified: everything published agrees with the ledger and its evidence")
        return 0
    print(f"MISMATCH: {report.problems[0]}")
    for problem in report.problems[1:]:
        print(f"also: {problem}")
    print(f"{len(report.problems)} problem(s); the first is named first")
    return 1
