"""`gnncb competition lint | new | build | readme | reveal`: the life of a competition folder.

`new` scaffolds a folder, `build` runs its `build.py` into a staging folder
(evaluator.authoring.folders), `readme` renders the participant README from competition.yaml
and the ledger (evaluator.render.readme), `lint` checks the folder (evaluator.authoring.lint),
and `reveal` ends a version: it needs the private key (it opens every row's sealed
private-part scores) and is run by hand or by the `reveal` workflow, which only calls this verb.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from evaluator.commands import GROUPS
from evaluator.commands._options import (
    add_by_option,
    announce,
    audit_by,
    load_keys,
    push_env,
    track_boards,
)
from evaluator.competition.spec import TASKS
from evaluator.paths import (
    competition_slug,
    default_public_key,
    ensure_inside,
    find_root,
    resolve_competition,
)
from evaluator.submission import keys

# beside the --row-out file: the release the keyed job hands to the unkeyed one
RELEASE_FOLDER = "release"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("competition", help="maintain competition folders")
    cs = p.add_subparsers(dest="comp_command", metavar="ACTION", required=True)
    GROUPS["competition"] = cs

    lint = cs.add_parser("lint", help="check a competition folder for defects")
    lint.add_argument("folders", nargs="+", metavar="COMPETITION",
                      help="competition slugs (gnn-cora) or folders (competitions/gnn-cora)")
    lint.add_argument("--private-key", type=Path, action="append",
                      help="also decrypt hidden labels to check them against public files")
    lint.set_defaults(func=cmd_competition_lint)

    p = cs.add_parser("new", help="scaffold competitions/SLUG from templates (in the "
                                  "repository, --root)")
    p.add_argument("slug")
    p.add_argument("--task", default="node-classification", choices=TASKS,
                   help="the task type (competition.yaml `task`); sets the id column, target, "
                        "metric and public files of the scaffold (default node-classification)")
    p.set_defaults(func=cmd_new)

    p = cs.add_parser("build", help="run competitions/SLUG/build.py: raw data -> data/, hidden/")
    p.add_argument("slug", help="competition slug or folder")
    p.add_argument("--raw", type=Path, required=True, help="raw dataset folder")
    p.add_argument("--seed-file", type=Path, required=True, help="file holding the secret seed")
    p.add_argument("--public-key", type=Path, help="default: keys/platform-public.pem")
    p.add_argument("--out", type=Path, help="default: the competition folder itself")
    p.set_defaults(func=cmd_build)

    p = cs.add_parser("readme", help="render README.md from competition.yaml and the ledger")
    p.add_argument("slug", help="competition slug or folder")
    p.add_argument("--ledger", type=Path,
                   help="default: the repository's leaderboard/ledger.jsonl")
    p.add_argument("--check", action="store_true",
                   help="exit 1 if README.md differs from the rendering (CI)")
    p.set_defaults(func=cmd_readme)

    p = cs.add_parser("relabel", help="correct hidden labels of a split: a new label version "
                                      "(own commitment) of the same competition version; each "
                                      "id keeps its public/private part")
    p.add_argument("slug", metavar="COMPETITION", help="slug or folder")
    p.add_argument("--split", required=True, help="the split whose labels are corrected")
    p.add_argument("--labels", type=Path, required=True,
                   help="CSV with the id column and every target, for every id of the split")
    p.add_argument("--private-key", type=Path, action="append",
                   help="PEM file (repeatable); default: $GNNCB_PRIVATE_KEY")
    p.add_argument("--public-key", type=Path, default=None,
                   help="seal to this key (default: the repository's keys/platform-public.pem)")
    p.add_argument("--reason", default="hidden labels corrected",
                   help="why (kept with the new label version's commitment)")
    p.add_argument("--dry-run", action="store_true", help="check and count, write nothing")
    p.set_defaults(func=cmd_relabel)

    p = cs.add_parser("reveal", help="unseal the private-part scores, record the reveal, "
                                     "render the final standings")
    p.add_argument("slug", metavar="COMPETITION", help="slug or folder")
    p.add_argument("--private-key", type=Path, action="append",
                   help="PEM file (repeatable); default: $GNNCB_PRIVATE_KEY")
    add_by_option(p)
    p.add_argument("--early", action="store_true",
                   help="reveal before the last phase ends / before reveal_at")
    p.add_argument("--dry-run", action="store_true",
                   help="print the final standings, write nothing")
    p.add_argument("--row-out", type=Path,
                   help="keyed workflow job: write the reveal row to this file instead of "
                        "the ledger")
    p.add_argument("--from-row", type=Path,
                   help="unkeyed workflow job: check and record a row from --row-out "
                        "(no private key needed)")
    p.add_argument("--push", action="store_true",
                   help="with --from-row: commit and push to the default branch")
    p.add_argument("--remote", default="origin")
    p.add_argument("--branch", default="main")
    p.set_defaults(func=cmd_reveal)

def command_arg(folder: Path) -> str:
    """How a printed follow-up command names a competition: its slug when the slug resolves to
    this very folder, else the folder itself, shell-quoted (a pasted line must run as shown)."""
    found = find_root()
    try:
        same = found is not None and (
            (found.path / "competitions" / folder.name).resolve() == Path(folder).resolve())
    except OSError:
        same = False
    return folder.name if same else shlex.quote(str(folder))


def _root_suffix(root: Path) -> str:
    """` --root DIR` for a printed follow-up command, unless the repository was found from the
    current folder (a pasted line run there finds it again)."""
    found = find_root()
    if found is not None and found.how == "found from the current folder":
        return ""
    return f" --root {shlex.quote(str(root))}"


def cmd_new(args: argparse.Namespace) -> int:
    from evaluator.authoring.folders import NODE_BASELINES, TASK_LAYOUTS, scaffold

    root = announce(args.root)
    folder = scaffold(args.slug, root / "competitions", args.task)
    at, suffix = shlex.quote(str(folder)), _root_suffix(root)
    written = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    print(f"created {folder} ({args.task}) with {', '.join(written)}")
    if args.task not in NODE_BASELINES:
        examples = TASK_LAYOUTS[args.task]["examples"]
        seen = f" (see {', '.join(f'competitions/{e}/baseline/' for e in examples)})" \
            if examples else ""
        print(f"write baseline/gnn.py and baseline/nongraph.py for the built data{seen}")
    tests = folder / "tests"
    print("next: fill in competition.yaml and build.py, then\n"
          f"  gnncb competition build {at} --raw RAW --seed-file SEED{suffix}\n"
          f"  gnncb competition readme {at}{suffix}\n"
          f"  gnncb competition lint {at}{suffix}\n"
          f"  python -m pytest {shlex.quote(str(tests))} -q   # the checks to extend")
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    from evaluator.authoring.build import read_seed
    from evaluator.authoring.folders import run_build
    from evaluator.competition.spec import load_spec
    from evaluator.render.readme import decimal_size

    folder = resolve_competition(args.slug)
    load_spec(folder)  # a bad spec fails before any work
    if args.out is None and args.public_key is None:
        # sealed to the repository's key, into the folder itself: the folder must be its own
        ensure_inside(announce(args.root), folder, "competition folder")
    public = keys.read_public_key(args.public_key or default_public_key())
    _refuse_foreign_key(folder, args.out, public)
    seed = read_seed(args.seed_file)
    out = args.out or folder
    files = run_build(folder, args.raw, seed, public, out)
    total = sum(p.stat().st_size for p in files)
    for path in files:
        print(f"  {path.relative_to(out)}  {decimal_size(path.stat().st_size)}")
    print(f"built {folder.name} into {out}: {len(files)} public files, {decimal_size(total)}; "
          f"labels sealed for kid {keys.thumbprint(public)}")
    return 0


def _refuse_foreign_key(folder: Path, out: Path | None, public: Any) -> None:
    """A build into a repository's competition folder seals to the key that repository
    commits (keys/platform-public.pem): labels sealed to any other key passed lint and failed
    on the first submission. Building elsewhere (--out) with another key stays possible."""
    from evaluator.authoring.lint import committed_platform_key
    from evaluator.errors import ConfigError

    target = Path(out or folder)
    committed = committed_platform_key(target)
    if committed is None or keys.thumbprint(public) == committed[1]:
        return
    raise ConfigError(f"refusing to seal {target}/hidden to key {keys.thumbprint(public)}: the "
                      f"repository's committed platform key {committed[0]} is kid "
                      f"{committed[1]}, and the evaluator opens labels only with its private "
                      "key; drop --public-key (or give the committed one), or build into a "
                      "folder outside the repository with --out")


def cmd_readme(args: argparse.Namespace) -> int:
    from evaluator.render.readme import render_readme

    folder = resolve_competition(args.slug)
    if not args.check:  # a write: say where from; the repository's ledger, its own folders
        root = announce(args.root, ledger=args.ledger or True)
        if args.ledger is None:
            ensure_inside(root, folder, "competition folder")
    text = render_readme(folder, args.ledger)
    path = folder / "README.md"
    if args.check:
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
        if current != text:
            print(f"{path} is out of date; run "
                  f"`gnncb competition readme {command_arg(folder)}`", file=sys.stderr)
            return 1
        print(f"{path}: up to date")
        return 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0


def cmd_competition_lint(args: argparse.Namespace) -> int:
    import evaluator.codetrack.board  # noqa: F401 - registers the code track's board for lint
    from evaluator.authoring.lint import lint_competition
    from evaluator.render.readme import render_readme

    private = keys.private_keys_from(args.private_key) if args.private_key else None
    failed = 0
    for value in args.folders:
        folder = resolve_competition(value, folders_only=True)
        problems = lint_competition(folder, private_keys=private, render_readme=render_readme)
        if problems:
            failed += 1
            print(f"{folder}: {len(problems)} problem(s)")
            for p in problems:
                print(f"  - {p}")
        else:
            print(f"{folder}: OK")
    return 1 if failed else 0


def cmd_relabel(args: argparse.Namespace) -> int:
    from evaluator.authoring.relabel import relabel
    from evaluator.errors import ConfigError

    root = announce(args.root)
    folder = resolve_competition(args.slug, root)
    try:
        data = args.labels.read_bytes()
    except OSError as err:
        raise ConfigError(f"{args.labels}: cannot read the corrected labels: "
                          f"{err.strerror}") from None
    public = keys.read_public_key(args.public_key or default_public_key())
    done = relabel(folder, args.split, data, load_keys(args.private_key), public,
                   source=str(args.labels), dry_run=args.dry_run, reason=args.reason)
    verb = "would re-seal" if args.dry_run else "re-sealed"
    print(f"{verb} {done.path}: {done.changed} label(s) changed; parts kept "
          f"({done.public} public, {done.private} private ids)")
    if not args.dry_run:
        print(f"new label version committed in {folder / 'hidden' / 'commitments.json'} (the "
              "earlier one kept); next: gnncb ledger rescore "
              f"{folder.name} --reason ... --by ... (lint fails until every scored row is "
              "re-scored on it)")
    return 0


def cmd_reveal(args: argparse.Namespace) -> int:
    from evaluator.repo.release import write_release
    from evaluator.repo.reveal import reveal

    root = announce(args.root, ledger=True)
    args.slug = competition_slug(args.slug, root)
    if args.from_row is not None:
        return _record_row(args, root)
    if not args.dry_run:
        args.by = audit_by(args, root)
    report = reveal(root, args.slug, load_keys(args.private_key), by=args.by or "",
                    early=args.early, boards=track_boards(root),
                    dry_run=args.dry_run or args.row_out is not None,
                    with_release=not args.dry_run)
    print(f"{report.slug} v{report.version}: opened {report.row['submissions']} sealed "
          "submission score(s); final standings on the private part:")
    for e in report.standings:
        primary = e.row.get("scores", {})
        key = next(iter(e.private), None)
        shake = e.shake_up
        print(f"  {e.rank:>3}. {e.row['participant']}"
              + (f"  {key}={e.private[key]:.4f} (public {float(primary.get(key, 0)):.4f})"
                 if key else "")
              + f"  public rank {e.public_rank if e.public_rank is not None else '-'}"
              + (f", shake-up {shake:+d}" if shake is not None else ""))
    if args.row_out is not None:
        args.row_out.parent.mkdir(parents=True, exist_ok=True)
        args.row_out.write_text(json.dumps(report.row, sort_keys=True) + "\n",
                                encoding="utf-8")
        write_release(args.row_out.parent / RELEASE_FOLDER, report.release)
        print(f"wrote the reveal row to {args.row_out} and the release beside it in "
              f"{args.row_out.parent / RELEASE_FOLDER} (record both with --from-row)")
        return 0
    if args.dry_run:
        print("dry run: nothing written")
        return 0
    for path in report.pages:
        print(f"wrote {path}")
    print("appended the reveal row" if report.written else "already revealed: nothing new")
    return 0


def _record_row(args: argparse.Namespace, root: Path) -> int:
    from evaluator.errors import ConfigError
    from evaluator.repo.gitops import commit_and_push
    from evaluator.repo.reveal import record_reveal

    try:
        row = json.loads(args.from_row.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"{args.from_row}: cannot read the reveal row: {err}") from None
    if not isinstance(row, dict) or row.get("slug") != args.slug:
        raise ConfigError(f"{args.from_row}: not a reveal row for {args.slug}")
    release = args.from_row.parent / RELEASE_FOLDER
    release_arg = release if release.is_dir() else None
    if not args.push:
        change = record_reveal(root, row, boards=track_boards(root), release=release_arg)
        print("recorded the reveal row" if change else "already revealed: nothing new")
        return 0
    report = commit_and_push(root, lambda: record_reveal(root, row, boards=track_boards(root),
                                                         release=release_arg),
                             remote=args.remote,
                             branch=args.branch, env=push_env(root, args.remote))
    print(f"pushed the reveal of {args.slug} (attempts {report.attempts})"
          if report.pushed else "already revealed: nothing new")
    return 0
