"""`gnncb results humans|gaps|families|standings|codetrack|import`: the papers' comparisons,
and the competitions' standings with statistical tiers.

Each verb reads the ledger (default) or an imported reference source (`--source NAME`) and
prints Markdown (default), CSV (`--format csv`) or JSON (`--format json` / `--json`), or writes
it to `--out FILE`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from evaluator.ledger.store import Ledger
from evaluator.paths import committed_campaigns, competitions_dir, default_ledger


def _specs(args: argparse.Namespace) -> list:
    from evaluator.competition.spec import load_specs

    return load_specs(args.competitions or competitions_dir())  # the repository's (--root)


def _sources_dir(args: argparse.Namespace) -> Path:
    return args.sources or (args.ledger or default_ledger()).parent / "sources"


def _emit(text: str, out: Path | None) -> None:
    if out is None:
        sys.stdout.write(text)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}")


def _dataset(args: argparse.Namespace) -> dict:
    from evaluator.render.results import api
    from evaluator.render.results.sources import load_source

    specs = _specs(args)
    if args.source:
        return api.dataset(specs, [], source=load_source(_sources_dir(args), args.source))
    from evaluator.llm.report import load_runs, low_scoring

    rows = Ledger(args.ledger or default_ledger()).rows()
    runs = args.runs
    if runs is None and args.ledger is None and not args.no_committed_runs:
        runs = committed_campaigns()
    _note_errors(runs or [], load_runs)
    return api.dataset(specs, rows, k_reading=args.k_reading, campaign_dirs=runs,
                       load_runs=load_runs, classify=low_scoring)


def _note_errors(campaign_dirs: list[Path], load_runs: Any) -> None:
    """Say on stderr which campaign runs are not counted because they ended in an error: a
    platform, provider or sandbox problem is not the model's failure (status `failed` is, and
    counts as a pair with no valid file), but it must not vanish silently either."""
    from evaluator.llm.report import error_kind
    from evaluator.render.results.entries import campaign_runs

    for folder in campaign_dirs:
        errors = [s for _, s in campaign_runs(Path(folder), load_runs)
                  if s.get("status") == "error"]
        for s in errors:
            print(f"note: {folder}: {s.get('model')} x {s.get('slug')} not counted: "
                  f"{error_kind(s)} error, not the model's failure: "
                  f"{str(s.get('error', '')).splitlines()[0] if s.get('error') else '?'}",
                  file=sys.stderr)


def cmd_table(args: argparse.Namespace) -> int:
    from evaluator.render.results import api
    from evaluator.render.results.render import render

    ds = _dataset(args)
    result = {"humans": api.humans_result, "gaps": api.gaps_result,
              "families": api.families_result}[args.table](ds)
    fmt = "json" if args.json else args.format
    _emit(render(args.table, result, fmt), args.out)
    return 0


def cmd_standings(args: argparse.Namespace) -> int:
    """Each competition's live standings, tier first and point rank second (issue 26)."""
    from evaluator.competition.spec import CompetitionSpec
    from evaluator.errors import ConfigError
    from evaluator.render.results.standings import render, standings_result

    specs = _specs(args)
    slugs = [Path(c).name for c in args.competition]  # a slug, or competitions/<slug>
    known = {s.slug for s in specs if isinstance(s, CompetitionSpec)}
    unknown = [s for s in slugs if s not in known]
    if unknown:
        raise ConfigError(f"no competition {unknown[0]!r} in "
                          f"{args.competitions or competitions_dir()} (competitions: "
                          f"{', '.join(sorted(known))})")
    rows = Ledger(args.ledger or default_ledger()).rows()
    fmt = "json" if args.json else args.format
    _emit(render(standings_result(specs, rows, slugs), fmt), args.out)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from evaluator.commands._options import announce
    from evaluator.render.results.sources import import_source, load_source

    if args.sources is None:  # stored in the repository: say which
        announce(args.root, ledger=args.ledger or True)
    out = import_source(args.path, args.source, _specs(args), _sources_dir(args),
                        percent=args.percent)
    source = load_source(out.parent, args.source)
    comps = sorted({r["competition"] for r in source["rows"]})
    print(f"imported {len(source['rows'])} rows on {len(comps)} competitions as source "
          f"{args.source!r} -> {out}")
    return 0


def cmd_codetrack(args: argparse.Namespace) -> int:
    from evaluator.codetrack.report import build_report
    from evaluator.render.results.codetrack import compare_runs
    from evaluator.render.results.render import to_json
    from evaluator.render.results.render_codetrack import codetrack_csv, codetrack_markdown

    result = compare_runs(args.runs, pairs=args.pair, build_report=build_report)
    fmt = "json" if args.json else args.format
    text = (to_json(result) if fmt == "json" else codetrack_csv(result) if fmt == "csv"
            else codetrack_markdown(result))
    _emit(text, args.out)
    return 0


def _common(p: argparse.ArgumentParser, *, ledger: bool = True) -> None:
    p.add_argument("--format", choices=("md", "csv", "json"), default="md")
    p.add_argument("--json", action="store_true", help="same as --format json")
    p.add_argument("--out", type=Path, help="write here instead of printing")
    if ledger:
        p.add_argument("--ledger", type=Path,
                       help="default: the repository's leaderboard/ledger.jsonl (see --root)")
        p.add_argument("--competitions", type=Path,
                       help="default: the repository's competitions/")
        p.add_argument("--sources", type=Path,
                       help="imported sources folder (default: sources/ beside the ledger)")
        p.add_argument("--source", help="use this imported reference source, not the ledger")
        p.add_argument("--runs", type=Path, action="append",
                       help="LLM campaign folder whose failed runs count as pairs with no valid "
                            "file: run folders (runs/NAME) or a committed campaign's summaries "
                            "(campaigns/NAME/gnn); repeatable. Default with the repository's "
                            "ledger: every campaigns/*/gnn")
        p.add_argument("--no-committed-runs", action="store_true",
                       help="do not read the committed campaigns by default")
        p.add_argument("--k-reading", choices=("repairs", "calls"), default="repairs",
                       help="GNN-CB's k <= 5 read as 5 repairs (default, the LLM track's "
                            "reading) or as 5 model calls in all")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("results", help="the papers' comparisons from the ledger or a source")
    rs = p.add_subparsers(dest="results_command", metavar="ACTION", required=True)
    helps = {"humans": "human cohort statistics per competition (GNN-CB Table 2)",
             "gaps": "LLM scores and gaps to the human top (GNN-CB Table 3)",
             "families": "best/mean/worst gap per model and family, by tier (GNN-CB Fig. 4)"}
    for name, text in helps.items():
        t = rs.add_parser(name, help=text)
        _common(t)
        t.set_defaults(func=cmd_table, table=name)
    s = rs.add_parser("standings", help="each competition's standings: statistical tier first, "
                                        "point rank second, with the test and its level")
    s.add_argument("competition", nargs="*", help="slugs or folders (default: every "
                                                  "competition)")
    _common(s, ledger=False)
    s.add_argument("--ledger", type=Path,
                   help="default: the repository's leaderboard/ledger.jsonl (see --root)")
    s.add_argument("--competitions", type=Path, help="default: the repository's competitions/")
    s.set_defaults(func=cmd_standings)
    i = rs.add_parser("import", help="import an external results table as a reference source")
    i.add_argument("path", type=Path, help="CSV: entrant,family,competition,score[,kind,metric,"
                                           "note]")
    i.add_argument("--source", required=True, help="name to store it under, e.g. gnncb-table3")
    i.add_argument("--percent", action="store_true",
                   help="classification scores are given in percent")
    i.add_argument("--ledger", type=Path, help="sources are stored beside this ledger")
    i.add_argument("--sources", type=Path, help="store here instead")
    i.add_argument("--competitions", type=Path,
                   help="default: the repository's competitions/")
    i.set_defaults(func=cmd_import)
    c = rs.add_parser("codetrack", help="several judged code-track runs side by side "
                                        "(GraphEval36K Tables 2, 3, 5)")
    c.add_argument("runs", type=Path, nargs="+", help="judged run folders (gnncb code judge)")
    c.add_argument("--pair", action="append", default=[],
                   help="VANILLA=SSD: compare two runs (by label or folder name) per problem "
                        "with a paired test (repeatable)")
    _common(c, ledger=False)
    c.set_defaults(func=cmd_codetrack)
