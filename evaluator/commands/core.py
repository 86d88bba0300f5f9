"""Core verbs: keys, check, encrypt, evaluate, leaderboard, competition, demo.

This contract is what participants, maintainers and workflows rely on: extend it, never rename.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from evaluator.commands import GROUPS
from evaluator.errors import ConfigError, Rejection
from evaluator.ledger.store import Ledger
from evaluator.paths import competition_arg, competitions_dir, default_ledger, default_public_key
from evaluator.submission import envelope, keys
from evaluator.submission.metadata import Metadata, dump_metadata


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("keys", help="manage key pairs")
    ks = p.add_subparsers(dest="keys_command", metavar="ACTION", required=True)
    k = ks.add_parser("init", help="create private.pem (0600) and public.pem; print the kid")
    k.add_argument("--out", type=Path, required=True, help="directory to write the pair into")
    k.add_argument("--bits", type=int, default=4096)
    k.set_defaults(func=cmd_keys_init)
    k = ks.add_parser("kid", help="print the kid (RFC 7638 thumbprint) of a public key")
    k.add_argument("public_key", type=Path)
    k.set_defaults(func=cmd_keys_kid)
    k = ks.add_parser("reseal", help="re-encrypt hidden labels to a new key (rotation) or to the "
                      "current competition version, without the raw data or the build seed")
    k.add_argument("competitions", nargs="+", type=competition_arg,
                   help="slugs or folders (default key: keys/platform-public.pem)")
    k.add_argument("--private-key", type=Path, action="append",
                   help="PEM that opens the labels now (repeatable); default: $GNNCB_PRIVATE_KEY")
    k.add_argument("--public-key", type=Path, help="the new public key; default: "
                   "keys/platform-public.pem")
    k.add_argument("--dry-run", action="store_true", help="open and re-seal in memory only")
    k.set_defaults(func=cmd_keys_reseal)

    p = sub.add_parser("check", help="validate a predictions CSV (no key needed)")
    p.add_argument("--competition", type=competition_arg, required=True,
                   help="a slug (gnn-cora) or a folder (competitions/gnn-cora)")
    p.add_argument("predictions", type=Path)
    p.add_argument("--json", action="store_true",
                   help="print {valid, problems, rows, ...} as JSON (exit 0 valid, 1 invalid)")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("encrypt", help="check, then encrypt predictions and write metadata.json")
    p.add_argument("--competition", type=competition_arg, required=True,
                   help="a slug (gnn-cora) or a folder (competitions/gnn-cora)")
    p.add_argument("--participant", required=True, help="your GitHub login")
    p.add_argument("--public-key", type=Path, help="default: keys/platform-public.pem")
    p.add_argument("-o", "--output", type=Path, default=Path("predictions.csv.enc"))
    p.add_argument("--entrant", default="human",
                   choices=["human", "llm-api", "llm-agent", "baseline"])
    p.add_argument("--method", required=True, help="short description, e.g. '2-layer GCN'")
    p.add_argument("--model", default="", help="LLM model id (LLM entrants)")
    p.add_argument("--team", default="")
    p.add_argument("--hardware", default="")
    p.add_argument("--training-time-minutes", type=float)
    p.add_argument("--tuning-runs", type=int)
    p.add_argument("--seed", type=int)
    p.add_argument("--gnn-only", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("--notes", default="")
    p.add_argument("predictions", type=Path)
    p.set_defaults(func=cmd_encrypt)

    p = sub.add_parser("evaluate", help="decrypt, validate and score a submission folder")
    p.add_argument("--competition", type=competition_arg, required=True,
                   help="a slug (gnn-cora) or a folder (competitions/gnn-cora)")
    p.add_argument("--submission", type=Path, required=True,
                   help="folder with predictions.csv.enc and metadata.json")
    p.add_argument("--participant", required=True)
    p.add_argument("--private-key", type=Path, action="append",
                   help="PEM file (repeatable for rotation); default: $GNNCB_PRIVATE_KEY")
    p.add_argument("--ledger", type=Path, help="append the accepted row to this ledger")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("leaderboard", help="render leaderboards from the ledger")
    ls = p.add_subparsers(dest="lb_command", metavar="ACTION", required=True)
    GROUPS["leaderboard"] = ls
    r = ls.add_parser("render", help="write leaderboard/<slug>.md and leaderboard/README.md")
    r.add_argument("--ledger", type=Path)
    r.add_argument("--out", type=Path)
    r.add_argument("--competitions", type=Path, help="default: competitions/")
    r.set_defaults(func=cmd_leaderboard_render)

    p = sub.add_parser("competition", help="maintain competition folders")
    cs = p.add_subparsers(dest="comp_command", metavar="ACTION", required=True)
    GROUPS["competition"] = cs  # its verbs (new, build, readme, lint) are in commands.competition

    p = sub.add_parser("demo", help="end-to-end demo on real data shipped with scikit-learn")
    p.add_argument("--workdir", type=Path)
    p.set_defaults(func=cmd_demo)


def cmd_keys_init(args: argparse.Namespace) -> int:
    kid = keys.generate(args.out, bits=args.bits)
    print(f"wrote {args.out / 'private.pem'} (mode 0600, keep it secret) and "
          f"{args.out / 'public.pem'}")
    print(f"kid: {kid}")
    return 0


def cmd_keys_kid(args: argparse.Namespace) -> int:
    print(keys.thumbprint(keys.load_public_key(args.public_key.read_bytes(),
                                               source=str(args.public_key))))
    return 0


def cmd_keys_reseal(args: argparse.Namespace) -> int:
    from evaluator.submission.reseal import reseal_competition

    private = keys.private_keys_from(args.private_key)
    key_path = args.public_key or default_public_key()
    try:
        public = keys.load_public_key(key_path.read_bytes(), source=str(key_path))
    except OSError as err:
        raise ConfigError(f"{key_path}: cannot read public key: {err.strerror}") from None
    for folder in args.competitions:
        for r in reseal_competition(folder, private, public, dry_run=args.dry_run):
            verb = "would re-seal" if args.dry_run else "re-sealed"
            print(f"{verb} {r.path}: key {r.old_kid[:12]}... -> {r.new_kid[:12]}..., "
                  f"version {r.old_version} -> {r.new_version}")
    if not args.dry_run:
        print("commit the changed hidden/*.jwe files; the old private key is no longer needed "
              "for them")
    return 0


def _check(competition: Path, predictions: Path) -> tuple[Any, int, bytes]:
    """(spec, rows, the bytes checked): encrypt seals exactly these bytes (a pipe can be read
    once), and reading stops at the competition's size limit (`/dev/zero` ends in a
    rejection, not in the OOM killer)."""
    from evaluator.competition.spec import load_spec
    from evaluator.pipeline.evaluate import read_limited
    from evaluator.submission.validate import all_ids, competition_ids, validate_predictions

    spec = load_spec(competition)
    ids = all_ids(competition_ids(competition, spec))
    data = read_limited(predictions, spec.submission.max_bytes, what="predictions file")
    table = validate_predictions(data, spec, ids, filename=str(predictions))
    return spec, len(table), data


def cmd_check(args: argparse.Namespace) -> int:
    if not args.json:
        spec, n, _ = _check(args.competition, args.predictions)
        print(f"OK: {args.predictions} is a valid submission for {spec.slug} v{spec.version} "
              f"({n} rows, every test id exactly once)")
        return 0
    from evaluator.competition.spec import load_spec

    report: dict[str, Any] = {"file": str(args.predictions), "competition": None,
                              "version": None}
    try:
        spec = load_spec(args.competition)
        report.update(competition=spec.slug, version=spec.version)
        _, n, _ = _check(args.competition, args.predictions)
    except Rejection as err:
        print(json.dumps({**report, "valid": False, "code": err.code,
                          "problems": _problem_lines(str(err))}, sort_keys=True))
        return 1
    print(json.dumps({**report, "valid": True, "rows": n, "problems": []}, sort_keys=True))
    return 0


def _problem_lines(message: str) -> list[str]:
    """A rejection lists its problems as '  - ...' lines under a heading; JSON gets the list."""
    items = [line.strip()[2:] for line in message.splitlines() if line.strip().startswith("- ")]
    return items or [message]


def _missing_declarations(spec: Any, args: argparse.Namespace) -> list[str]:
    """Declarations the competition's rules ask for that the command line did not give: the
    submission is still accepted, but a row without them cannot be checked for conformance."""
    rules = spec.rules
    missing = []
    if rules.gnn_only and args.gnn_only is None:
        missing.append("--gnn-only (the rules say GNN models only; say --no-gnn-only if yours "
                       "is not one)")
    if args.seed is None:
        missing.append(f"--seed (the rules fix the seed to {rules.seed})")
    if args.tuning_runs is None:
        missing.append(f"--tuning-runs (at most {rules.max_tuning_runs} allowed)")
    if args.training_time_minutes is None:
        missing.append(f"--training-time-minutes (at most {rules.cpu_hours:g} CPU hours)")
    if not args.hardware:
        missing.append("--hardware (e.g. 'laptop, 4 cores')")
    return missing


def cmd_encrypt(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    spec, n, data = _check(args.competition, args.predictions)
    login = args.participant.lower()
    try:
        meta = Metadata(
            participant=login, team=args.team, entrant=args.entrant,
            method=args.method, model=args.model, hardware=args.hardware,
            training_time_minutes=args.training_time_minutes, tuning_runs=args.tuning_runs,
            seed=args.seed, gnn_only=args.gnn_only, notes=args.notes)
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'metadata'}: "
                             f"{e['msg'].removeprefix('Value error, ')}" for e in err.errors())
        raise ConfigError(f"cannot write metadata.json: {problems}") from None
    key_path = args.public_key or default_public_key()
    try:
        public = keys.load_public_key(key_path.read_bytes(), source=str(key_path))
    except OSError as err:
        raise ConfigError(f"{key_path}: cannot read public key: {err.strerror}") from None
    sealed = envelope.seal(data, public,
                           envelope.prediction_claims(spec.slug, spec.version, login))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_bytes(sealed)
    meta_path = args.output.parent / "metadata.json"
    meta_path.write_text(dump_metadata(meta), encoding="utf-8")
    print(f"checked {n} rows; wrote {args.output} (kid {keys.thumbprint(public)}) and {meta_path}")
    for missing in _missing_declarations(spec, args):
        print(f"warning: not declared: {missing}", file=sys.stderr)
    target = Path("competitions") / spec.slug / "submissions" / login
    resolved = args.output.parent.resolve()
    if resolved.parts[-3:] == target.parts[-3:]:
        print(f"ready to commit: git add {shlex.quote(str(args.output.parent))} and open a pull "
              "request that adds only these two files")
    else:
        print(f"next: copy both into {target}/ and open a pull request that adds only these two "
              "files")
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from evaluator.pipeline.evaluate import evaluate_dir

    private = keys.private_keys_from(args.private_key)
    ledger = Ledger(args.ledger) if args.ledger else None
    try:
        outcome = evaluate_dir(args.competition, args.submission, participant=args.participant,
                               keys=private, ledger=ledger)
    except Rejection as err:
        if args.json:
            print(json.dumps({"accepted": False, "code": err.code, "reason": str(err)}))
        else:
            print(f"rejected: {err}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"accepted": True, "duplicate": outcome.duplicate,
                          "slug": outcome.slug, "participant": outcome.participant,
                          "scores": outcome.scores,
                          "scored_on": (outcome.row or {}).get("scored_on", "all"),
                          "digest": outcome.row["digest"] if outcome.row else None,
                          "remaining_version": outcome.remaining_version,
                          "remaining_today": outcome.remaining_today}, sort_keys=True))
        return 0
    note = " (already scored; nothing new recorded)" if outcome.duplicate else ""
    print(f"accepted: {outcome.participant} on {outcome.slug}{note}")
    if (outcome.row or {}).get("scored_on") == "public":
        print("  scores on the public part of the hidden labels; the private part is sealed "
              "in the ledger row until the reveal")
    for name, value in outcome.scores.items():
        print(f"  {name}: {value:.6f}")
    if ledger and not outcome.duplicate:
        print(f"recorded in {args.ledger}")
    if ledger:
        from evaluator.competition.spec import load_spec
        from evaluator.ledger.ranking import standing_of

        rank, entries = standing_of(load_spec(args.competition), ledger.rows(),
                                    outcome.participant)
        if rank is not None:
            print(f"rank: {rank} of {entries} in {args.ledger}")
    if outcome.remaining_version is not None:
        print(f"remaining: {outcome.remaining_version} submissions for this version, "
              f"{outcome.remaining_today} in the next 24 hours")
    return 0


def load_all_specs(root: Path) -> list[Any]:
    from evaluator.codetrack.board import boards_in
    from evaluator.competition.spec import load_spec

    return [load_spec(p.parent) for p in sorted(root.glob("*/competition.yaml"))] + boards_in(root)


def cmd_leaderboard_render(args: argparse.Namespace) -> int:
    from evaluator.render.boards import write_leaderboards

    ledger_path = args.ledger or default_ledger()
    out = args.out or ledger_path.parent
    specs = load_all_specs(args.competitions or competitions_dir())
    written = write_leaderboards(specs, Ledger(ledger_path).rows(), out, ledger=ledger_path)
    for path in written:
        print(f"wrote {path}")
    where = "beside the ledger" if args.out is None else "as --out asked"
    print(f"rendered {len(written)} page(s) from {ledger_path} into {out} ({where})")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from evaluator.authoring.demo import run_demo

    return run_demo(args.workdir)
