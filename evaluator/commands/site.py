"""`gnncb site build --out DIR`: the static benchmark site (see evaluator/render/site)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from evaluator import settings
from evaluator.commands._options import announce
from evaluator.errors import ConfigError
from evaluator.ledger.store import Ledger

if TYPE_CHECKING:
    from evaluator.render.site.build import LlmRuns
    from evaluator.render.site.parallel import Drawer


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("site", help="build the static benchmark site")
    ss = p.add_subparsers(dest="site_command", metavar="ACTION", required=True)
    b = ss.add_parser("build", help="write the site (HTML + inline SVG plots) into --out")
    b.add_argument("--out", type=Path, required=True, help="directory to write the site into")
    b.add_argument("--ledger", type=Path,
                   help="default: the repository's leaderboard/ledger.jsonl (see --root)")
    b.add_argument("--competitions", type=Path,
                   help="default: the repository's competitions/")
    b.add_argument("--repo-url", default=settings.repo_url(),
                   help="https:// address of the repository, for links to READMEs and pull "
                        "requests (default: $GNNCB_REPO_URL; none: pages name the paths)")
    b.add_argument("--only", action="append", metavar="SLUG",
                   help="re-render only this competition (repeatable) plus index and results")
    b.add_argument("--boards", type=Path, metavar="DIR",
                   help="also write the markdown leaderboards (and their CSVs) into DIR from "
                        "the same ranking, as `gnncb leaderboard render --out DIR` would")
    b.add_argument("--code-runs", type=Path, action="append", default=[], metavar="RUN_DIR",
                   help="a judged code-track run folder (gnncb code judge; repeatable): the "
                        "code-track page then shows the category x sub-category table "
                        "(directed | undirected) of each run")
    b.add_argument("--code-pair", action="append", default=[], metavar="A=B",
                   help="compare two of those runs (by label or folder name, e.g. "
                        "VANILLA=SSD) per problem with a paired test (repeatable)")
    b.add_argument("--runs", type=Path, action="append", metavar="DIR",
                   help="LLM campaign folder whose runs the results page counts (failures "
                        "included), as `gnncb results --runs`: run folders (runs/NAME) or a "
                        "committed campaign's summaries (campaigns/NAME/gnn); repeatable. "
                        "Default with the repository's ledger: every campaigns/*/gnn; with "
                        "--ledger: none")
    b.add_argument("--jobs", type=int, choices=(1, 2), default=None,
                   help="2: draw the figures and compute the results in worker processes "
                        "beside the build; 1: everything in one process (default: 2 when two "
                        "cores are available; $GNNCB_SITE_JOBS)")
    b.set_defaults(func=cmd_site_build)


def cmd_site_build(args: argparse.Namespace) -> int:
    import importlib.util

    from evaluator.codetrack.board import load_all_specs
    from evaluator.competition.boards import is_board
    from evaluator.render.site.parallel import Drawer, wanted

    if importlib.util.find_spec("matplotlib") is None:  # an optional extra: say which
        raise ConfigError("gnncb site build draws its plots with matplotlib, which is not "
                          "installed here (the site's optional extra); install it with "
                          ".venv/bin/pip install -e \".[site]\" (or pip install "
                          "'gnncb[site]'), then build again")
    root = announce(args.root, ledger=args.ledger or True)
    ledger_path = args.ledger or root / "leaderboard" / "ledger.jsonl"
    specs = load_all_specs(args.competitions or root / "competitions")
    comps = [s for s in specs if not is_board(s) and (not args.only or s.slug in args.only)]
    # the drawing worker starts first: it imports matplotlib while the ledger is read
    drawer = Drawer(wanted(args.jobs, 2 + 2 * len(comps)))
    try:
        return _build(args, specs, ledger_path, drawer, root)
    finally:
        drawer.close()


def _llm_runs(args: argparse.Namespace, root: Path) -> LlmRuns | None:
    """The LLM campaigns the results page counts, as `gnncb results` reads them: with the
    repository's ledger, every committed campaign (a model that produced no valid file has no
    ledger row; without them the site showed "0 of 0" where the CLI listed five failures);
    with another --ledger, none (those campaigns belong to the repository's ledger) unless
    --runs names them."""
    from evaluator.llm.report import load_runs, low_scoring
    from evaluator.paths import committed_campaigns
    from evaluator.render.site.build import LlmRuns

    folders = args.runs
    if folders is None:
        folders = [] if args.ledger is not None else committed_campaigns(root)
    return LlmRuns(list(folders), load_runs, low_scoring) if folders else None


def _build(args: argparse.Namespace, specs: list, ledger_path: Path, drawer: Drawer,
           root: Path) -> int:
    from evaluator.render.site.build import build_site
    from evaluator.util.progress import Progress

    judged = None
    if args.code_runs or args.code_pair:
        from evaluator.codetrack.board import BOARDS
        from evaluator.codetrack.report import build_report
        from evaluator.render.results.codetrack import compare_runs

        if not args.code_runs:
            raise ConfigError("--code-pair needs the judged runs it names (--code-runs DIR)")
        result = compare_runs(args.code_runs, pairs=args.code_pair, build_report=build_report)
        judged = dict.fromkeys(BOARDS, result)
    bar: Progress | None = None

    def progress(done: int, total: int, note: str) -> None:
        nonlocal bar
        bar = bar or Progress(total, "building the site")
        bar.update(note=note)

    try:
        written = build_site(specs, Ledger(ledger_path).rows(), args.out, ledger=ledger_path,
                             repo_url=args.repo_url, changed=args.only, jobs=args.jobs,
                             boards=args.boards, judged=judged, progress=progress,
                             drawer=drawer, llm_runs=_llm_runs(args, root))
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
