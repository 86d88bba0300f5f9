"""`gnncb site build --out DIR`: the static benchmark site (see evaluator/site)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from evaluator.ledger import Ledger
from evaluator.paths import competitions_dir, default_ledger


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("site", help="build the static benchmark site")
    ss = p.add_subparsers(dest="site_command", metavar="ACTION", required=True)
    b = ss.add_parser("build", help="write the site (HTML + inline SVG plots) into --out")
    b.add_argument("--out", type=Path, required=True, help="directory to write the site into")
    b.add_argument("--ledger", type=Path, help="default: leaderboard/ledger.jsonl")
    b.add_argument("--competitions", type=Path, help="default: competitions/")
    b.add_argument("--repo-url", default=os.environ.get("GNNCB_REPO_URL") or None,
                   help="https:// address of the repository, for links to READMEs and pull "
                        "requests (default: $GNNCB_REPO_URL; none: pages name the paths)")
    b.add_argument("--only", action="append", metavar="SLUG",
                   help="re-render only this competition (repeatable) plus index and results")
    b.add_argument("--boards", type=Path, metavar="DIR",
                   help="also write the markdown leaderboards (and their CSVs) into DIR from "
                        "the same ranking, as `gnncb leaderboard render --out DIR` would")
    b.add_argument("--jobs", type=int, choices=(1, 2), default=None,
                   help="2: draw the figures and compute the results in worker processes "
                        "beside the build; 1: everything in one process (default: 2 when two "
                        "cores are available; $GNNCB_SITE_JOBS)")
    b.set_defaults(func=cmd_site_build)


def cmd_site_build(args: argparse.Namespace) -> int:
    from evaluator.commands.core import load_all_specs
    from evaluator.progress import Progress
    from evaluator.site.build import build_site

    ledger_path = args.ledger or default_ledger()
    specs = load_all_specs(args.competitions or competitions_dir())
    bar: Progress | None = None

    def progress(done: int, total: int, note: str) -> None:
        nonlocal bar
        bar = bar or Progress(total, "building the site")  # after the workers are forked
        bar.update(note=note)

    try:
        written = build_site(specs, Ledger(ledger_path).rows(), args.out, ledger=ledger_path,
                             repo_url=args.repo_url, changed=args.only, jobs=args.jobs,
                             boards=args.boards, progress=progress)
    finally:
        if bar is not None:
            bar.close()
    site = [p for p in written if p.is_relative_to(args.out)]
    pages = sum(1 for p in site if p.suffix == ".html")
    print(f"wrote {pages} pages ({len(site)} files) into {args.out}")
    if args.boards is not None:
        print(f"wrote {len(written) - len(site)} board files into {args.boards}")
    print(f"open {args.out / 'index.html'}")
    return 0
