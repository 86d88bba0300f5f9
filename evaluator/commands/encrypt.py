"""`gnncb encrypt`: check, then seal the checked predictions and write metadata.json.

The folder is written by `evaluator.submission.seal`, the one writer every entrant shares
(baselines, the LLM track and the demo too).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from evaluator.errors import ConfigError
from evaluator.paths import competition_arg, default_public_key
from evaluator.submission import keys
from evaluator.submission.metadata import Metadata


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("encrypt", help="check, then encrypt predictions and write metadata.json")
    p.add_argument("--competition", type=competition_arg, required=True,
                   help="a slug (gnn-cora) or a folder (competitions/gnn-cora)")
    p.add_argument("--participant", required=True, help="your GitHub login")
    p.add_argument("--public-key", type=Path, help="default: keys/platform-public.pem")
    p.add_argument("-o", "--output", default="predictions.csv.enc",
                   help="the envelope to write (metadata.json goes beside it); a folder "
                        "(a path ending in /) gets predictions.csv.enc; a "
                        "folder under submissions/ is written in your login's canonical "
                        "(lower-case) spelling")
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


def _outside_rules(spec: Any, meta: Metadata) -> list[str]:
    """Declarations that break the competition's rules, in the words the boards use (the one
    owner of the rules check is `render.results.conformance`): the entry is accepted but
    marked outside the rules and left out of the human-vs-LLM comparisons, which a
    participant should hear before the pull request, not after."""
    from evaluator.render.results.conformance import check_human

    row = {"method": meta.method, "declared": meta.model_dump(exclude_none=True)}
    return list(check_human(spec, row)["deviations"])


def _output_path(given: str, login: str) -> tuple[Path, str]:
    """The envelope path to write, and a note when it differs from what was given: a folder
    written with a trailing slash gets `predictions.csv.enc`; a folder
    `submissions/<Login>` in another case than the login's canonical lower case becomes
    `submissions/<login>` (the platform compares logins in lower case and names the folder
    so; a mixed-case folder would be a second folder for the same participant)."""
    output = Path(given)
    if given.endswith(("/", "\\")):  # a folder without the slash stays refused (a file)
        output = output / "predictions.csv.enc"
    folder = output.parent
    if (folder.parent.name == "submissions" and folder.name != login
            and folder.name.lower() == login):
        canonical = folder.parent / login / output.name
        return canonical, f"writing {canonical} ({folder.name} is spelled {login} in folders)"
    return output, ""


def _unwritable(output: Path, err: OSError) -> str:
    """What went wrong writing the submission folder, and the fix: an OSError's own text names
    only the path that failed (`File exists` for a parent that is a file)."""
    reason = err.strerror or str(err)
    if err.filename and Path(err.filename) != output:
        reason = f"{err.filename}: {reason}"
    if isinstance(err, (FileExistsError, NotADirectoryError)):
        reason += " (a file stands where a folder is needed)"
    if isinstance(err, IsADirectoryError) and Path(output).is_dir():
        fix = f"-o/--output names a folder; give a file in it, e.g. " \
              f"{shlex.quote(str(Path(output) / 'predictions.csv.enc'))}"
    else:
        fix = ("give -o/--output a path in a folder you can write (the envelope and "
               "metadata.json go there together)")
    return f"cannot write {output}: {reason}; {fix}"


def cmd_encrypt(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from evaluator.submission.seal import check_predictions, write_submission

    checked = check_predictions(args.competition, args.predictions)
    spec = checked.spec
    login = args.participant.lower()
    args.output, note = _output_path(str(args.output), login)
    if note:
        print(note)
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
    public = keys.read_public_key(args.public_key or default_public_key())
    try:
        sealed = write_submission(checked, public, meta, args.output)
    except OSError as err:  # a read-only folder, a file where a folder should be, a full disk
        raise ConfigError(_unwritable(args.output, err)) from None
    print(f"checked {sealed.rows} rows; wrote {sealed.envelope} (kid {sealed.kid}) and "
          f"{sealed.metadata}")
    for missing in _missing_declarations(spec, args):
        print(f"warning: not declared: {missing}", file=sys.stderr)
    for broken in _outside_rules(spec, meta):
        print(f"warning: outside the rules: {broken}; the entry will be scored but marked "
              "outside the rules and left out of the human-vs-LLM comparisons",
              file=sys.stderr)
    target = Path("competitions") / spec.slug / "submissions" / login
    resolved = args.output.parent.resolve()
    if resolved.parts[-3:] == target.parts[-3:]:
        print(f"ready to commit: git add {shlex.quote(str(args.output.parent))} and open a pull "
              "request that adds only these two files")
    else:
        print(f"next: copy both into {target}/ and open a pull request that adds only these two "
              "files")
    return 0
