"""`gnncb llm ...`: run, campaign, score and report the LLM track.

Exit codes follow the CLI's contract: 0 when the run produced a scored (or sealed, with
--no-score) submission, 1 when the model failed to produce a valid file or the submission was
rejected, 2 for configuration, provider or sandbox problems.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import shlex
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluator.commands._options import (
    add_endpoint_options,
    add_sampling_options,
    track_boards,
)
from evaluator.errors import ConfigError
from evaluator.ledger.store import Ledger
from evaluator.paths import default_public_key, resolve_competition
from evaluator.submission import keys

MIB = 1024**2


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("llm", help="LLM track: frozen prompt, sandboxed execute-and-repair")
    ls = p.add_subparsers(dest="llm_command", metavar="ACTION", required=True)

    r = ls.add_parser("run", help="one model on one competition, scored through the pipeline")
    r.add_argument("--competition", required=True, help="competitions/SLUG folder or a slug")
    r.add_argument("--model", required=True, help="model id as the provider spells it")
    r.add_argument("--participant", help="ledger participant (default llm:<model> / "
                                         "agent:<model>)")
    _run_options(r)
    r.set_defaults(func=cmd_run)

    c = ls.add_parser("campaign", help="models x competitions, process pool, resumable")
    c.add_argument("--models", required=True, action="append",
                   help="comma-separated model ids (repeatable)")
    c.add_argument("--competitions", required=True, nargs="+",
                   help="competition folders or slugs")
    c.add_argument("--workers", type=int, default=1, help="parallel pairs (default 1)")
    _run_options(c)
    c.set_defaults(func=cmd_campaign)

    s = ls.add_parser("score", help="score sealed runs of a campaign folder (merge step)")
    s.add_argument("--runs", type=Path, required=True, help="runs/<campaign> folder")
    s.add_argument("--private-key", type=Path, action="append",
                   help="PEM file (repeatable); default: $GNNCB_PRIVATE_KEY")
    s.add_argument("--ledger", type=Path,
                   help="default: a scratch ledger RUNS/ledger.jsonl; name "
                        "leaderboard/ledger.jsonl to record on the repository's")
    s.add_argument("--competitions", type=Path,
                   help="folder holding the competitions (default: the repository's "
                        "competitions/); a run's own record of its folder is never used")
    s.add_argument("--rows-out", type=Path,
                   help="write the ledger rows this step produced (JSONL), for `llm publish`")
    s.add_argument("--expect-models", metavar="M,M",
                   help="with --expect-competitions: the planned pairs; a pair without a "
                        "finished run (its job died) is recorded as a platform error")
    s.add_argument("--expect-competitions", metavar="SLUG,SLUG",
                   help="competition slugs of the planned pairs (see --expect-models)")
    s.set_defaults(func=cmd_score)

    pub = ls.add_parser("publish", help="commit scored rows + envelopes + leaderboards "
                                        "(workflow publish step; no private key)")
    pub.add_argument("--runs", type=Path, required=True, help="runs/<campaign> folder")
    pub.add_argument("--rows", type=Path, required=True, help="file from `llm score --rows-out`")
    pub.add_argument("--remote", default="origin")
    pub.add_argument("--branch", default="main")
    pub.set_defaults(func=cmd_publish)

    rep = ls.add_parser("report", help="outcomes and failure modes per model")
    rep.add_argument("--runs", type=Path, required=True, help="runs/<campaign> folder")
    rep.add_argument("--out", type=Path, help="write Markdown here instead of stdout")
    rep.add_argument("--json", type=Path, help="also write the report as JSON")
    rep.set_defaults(func=cmd_report)

    doc = ls.add_parser("doctor", help="check an endpoint before a campaign (models, context, "
                                       "a short completion, chat template, clamping)")
    doc.add_argument("--base-url", required=True, help="e.g. http://127.0.0.1:8000/v1")
    doc.add_argument("--model", help="the model id a campaign will send (default: the first "
                                     "one the endpoint lists)")
    doc.add_argument("--api-key-env", default="OPENAI_API_KEY")
    doc.add_argument("--timeout", type=float, default=600.0, help="seconds per probe")
    doc.add_argument("--needed-context", type=int, default=16_384,
                     help="prompt tokens the context probe sends (default 16384)")
    doc.add_argument("--skip-context-probe", action="store_true",
                     help="do not send the long prompt (it costs minutes on a CPU server)")
    doc.add_argument("--json", type=Path, help="also write the findings as JSON")
    doc.set_defaults(func=cmd_doctor)


def _run_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("provider")
    add_endpoint_options(g, ["openai", "replay", "scripted", "agent"])
    g.add_argument("--agent-command", help="agent mode: command run in the workspace")
    g.add_argument("--agent-mount", type=Path, action="append", default=[],
                   help="agent mode: host path made visible read-only (repeatable)")
    add_sampling_options(g)

    g = p.add_argument_group("protocol")
    g.add_argument("--prompt", default="frozen",
                   help="prompt variant: frozen (default), ssd, or frozen-solver (README slot "
                        "with only its task, data, evaluation and rules sections)")
    g.add_argument("--repairs", type=int, default=5, help="repair attempts k, 0..5 (default 5)")
    g.add_argument("--stop-on-repeat", action=argparse.BooleanOptionalAction, default=None,
                   help="end the loop when an answer repeats an earlier one byte for byte "
                        "(off by default: GNN-CB's protocol runs up to k repairs; when on, "
                        "the run's protocol records it and the row is marked outside it)")
    g.add_argument("--campaign", default="adhoc", help="campaign name (runs/<campaign>/)")
    g.add_argument("--runs", type=Path, default=Path("runs"), help="runs root (default runs/)")
    g.add_argument("--prices", type=Path, help="price table (YAML: model: {input, output} USD "
                                               "per million tokens)")

    g = p.add_argument_group("sandbox")
    g.add_argument("--wall-seconds", type=float, help="default: rules.cpu_hours")
    g.add_argument("--cpu-seconds", type=float, help="default: rules.cpu_hours")
    g.add_argument("--memory-mb", type=int, help="default: 4096")
    g.add_argument("--allow-unsandboxed", action="store_true",
                   help="run model code even when this machine cannot isolate it (recorded)")
    g.add_argument("--keep-workspaces", action="store_true")

    g = p.add_argument_group("scoring")
    g.add_argument("--public-key", type=Path, help="default: keys/platform-public.pem")
    g.add_argument("--private-key", type=Path, action="append",
                   help="PEM file (repeatable); default: $GNNCB_PRIVATE_KEY")
    g.add_argument("--ledger", type=Path,
                   help="default: a scratch ledger runs/CAMPAIGN/ledger.jsonl; name "
                        "leaderboard/ledger.jsonl to record on the repository's")
    g.add_argument("--no-score", action="store_true",
                   help="seal only; score later with `gnncb llm score` (no private key needed)")
    # None = not given: a replay takes the value recorded in RECORDINGS/campaign.json, any other
    # run the default (evaluator.llm.replay.DEFAULTS, the same as the help texts say).
    p.set_defaults(prompt=None, repairs=None, temperature=None, max_tokens=None, seed=None)


def _settings(args: argparse.Namespace) -> tuple[dict[str, Any], list[str],
                                                 dict[str, Any] | None]:
    """(values of the protocol, decoding, context and limit options; the explicit ones that
    differ from a replay's recorded campaign.json; the recorded settings or None).

    A replay (`--provider replay --recordings DIR`) reads DIR/campaign.json, written when DIR
    was recorded, for every option not given here, so it sends the recorded requests."""
    from evaluator.llm.replay import environment_notes, read_settings, resolve
    from evaluator.llm.slots import installed_libraries

    names = ("prompt", "repairs", "temperature", "max_tokens", "context_tokens",
             "wall_seconds", "cpu_seconds", "memory_mb", "stop_on_repeat")
    explicit = {k: getattr(args, k) for k in names if getattr(args, k, None) is not None}
    if args.no_seed:
        explicit["seed"] = None
    elif args.seed is not None:
        explicit["seed"] = args.seed
    recorded = None
    if args.provider == "replay" and args.recordings is not None:
        recorded = read_settings(args.recordings)
    values, differs = resolve(explicit, recorded)
    if recorded is not None:
        taken = ", ".join(f"{k}={recorded[k]}" for k in values if k not in explicit)
        _echo(f"replay: settings from {args.recordings}/campaign.json: {taken or 'none'}"
              + (f"; given here instead: {', '.join(differs)}" if differs else ""))
        notes = environment_notes(recorded, installed_libraries())
        if notes:
            _echo("replay: the prompt states the recorded environment; the recorded programs "
                  "run on this one, which differs: " + "; ".join(notes))
    return values, differs, recorded


def _options(args: argparse.Namespace, settings: tuple[dict[str, Any], list[str],
                                                       dict[str, Any] | None],
             participant: str | None = None):
    from evaluator.llm.costs import load_prices
    from evaluator.llm.execute import LimitOverrides
    from evaluator.llm.session import RunOptions
    from evaluator.llm.submit import check_llm_participant

    if participant is not None:
        check_llm_participant(participant)
    key_path = args.public_key or default_public_key()
    try:
        public_pem = key_path.read_bytes()
    except OSError as err:
        raise ConfigError(f"{key_path}: cannot read the platform public key: {err.strerror}"
                          ) from None
    keys.load_public_key(public_pem, source=str(key_path))
    values, _, recorded = settings
    memory_mb = values["memory_mb"]
    limits = LimitOverrides(
        wall_seconds=values["wall_seconds"], cpu_seconds=values["cpu_seconds"],
        memory_bytes=memory_mb * MIB if memory_mb is not None else None)
    if values["context_tokens"] is not None and values["context_tokens"] < 1:
        raise ConfigError(f"--context-tokens {values['context_tokens']}: must be positive")
    libraries = None if recorded is None else tuple(
        (str(n), str(v)) for n, v in recorded["libraries"])
    return RunOptions(
        public_key_pem=public_pem, campaign=args.campaign, runs_root=args.runs,
        variant=values["prompt"], repairs=values["repairs"], limits=limits,
        require_sandbox=not args.allow_unsandboxed, keep_workspaces=args.keep_workspaces,
        prices=load_prices(args.prices) if args.prices else None, participant=participant,
        context_tokens=values["context_tokens"], ledger=run_ledger(args), libraries=libraries,
        stop_on_repeat=bool(values["stop_on_repeat"]),
        python=None if recorded is None else recorded.get("python"))


def run_ledger(args: argparse.Namespace) -> Path:
    """The ledger a run or campaign is scored into and checked against before any model call:
    the one named with --ledger, else a scratch ledger beside the runs, so local experiments
    never touch the repository's ledger by accident."""
    if args.ledger is not None:
        return args.ledger
    return Path(args.runs) / args.campaign / "ledger.jsonl"


def _provider_config(args: argparse.Namespace, settings: tuple[dict[str, Any], list[str],
                                                               dict[str, Any] | None]):
    from evaluator.llm.agent import AgentCommand
    from evaluator.llm.campaign import ProviderConfig
    from evaluator.llm.loop import Decoding

    agent = None
    if args.provider == "agent":
        if not args.agent_command:
            raise ConfigError("--provider agent needs --agent-command 'CMD ARGS'")
        agent = AgentCommand(tuple(shlex.split(args.agent_command)),
                             tuple(p.resolve() for p in args.agent_mount))
    values, differs, _ = settings
    if values["max_tokens"] < 1:
        raise ConfigError(f"--max-tokens {values['max_tokens']}: must be positive")
    return ProviderConfig(
        kind=args.provider, base_url=args.base_url, api_key_env=args.api_key_env,
        timeout=args.timeout, retries=args.retries, record_dir=args.record,
        recordings_dir=args.recordings, strict_replay=args.strict_replay, agent=agent,
        allow_unlisted_model=args.allow_unlisted_model, script=args.script,
        decoding=Decoding(temperature=values["temperature"], max_tokens=values["max_tokens"],
                          seed=values["seed"]), replay_hints=tuple(differs))


def _scorer(args: argparse.Namespace):
    from evaluator.llm.submit import score_run

    if args.no_score:
        return None
    private = keys.private_keys_from(args.private_key)
    ledger = Ledger(run_ledger(args))
    return lambda run: score_run(run, private, ledger)


def _echo(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _exit_code(status: str) -> int:
    return {"scored": 0, "sealed": 0, "failed": 1, "rejected": 1}.get(status, 2)


def _print_outcome(summary: dict[str, Any]) -> None:
    status = summary["status"]
    where = f"{summary.get('model')} x {summary.get('slug')}"
    if status == "scored":
        scores = ", ".join(f"{k}={v:.4f}" for k, v in summary["scores"].items())
        note = " (already scored)" if summary.get("duplicate") else ""
        print(f"scored {where}: {scores}{note}")
        print(f"  participant {summary['participant']}, {summary['attempts']} attempt(s), "
              f"isolation {summary['isolation']['level']}, ledger {summary.get('ledger')}")
    elif status == "sealed":
        print(f"sealed {where}: submission in {summary.get('run_dir')}/submission; score it "
              "with `gnncb llm score`")
    elif status == "failed":
        failure = summary.get("failure") or {}
        print(f"failed {where}: {failure.get('reason')}; last failure mode "
              f"{failure.get('mode')}: {failure.get('evidence')}")
    elif status == "rejected":
        print(f"rejected {where}: {summary['rejection']['message']}")
    else:
        print(f"error {where}: {summary.get('error')}", file=sys.stderr)


def cmd_run(args: argparse.Namespace) -> int:
    from evaluator.llm.campaign import record_settings, run_pair
    from evaluator.llm.runlog import run_dir

    competition = resolve_competition(args.competition)
    settings = _settings(args)
    options = _options(args, settings, participant=args.participant)
    config = _provider_config(args, settings)
    scorer = _scorer(args)  # fail on a missing private key before spending tokens
    # with --record DIR: DIR/campaign.json, for replays
    record_settings(config, options, competitions=[competition])
    with _as_recorded([competition], args, settings) as (folder,):
        summary = run_pair(config, folder, args.model, options, echo=_echo)
        run = run_dir(options.runs_root, options.campaign, args.model, summary["slug"])
        if summary["status"] == "sealed" and scorer is not None:
            summary = scorer(run)
    summary["run_dir"] = str(run)
    _print_outcome(summary)
    return _exit_code(summary["status"])


@contextlib.contextmanager
def _as_recorded(competitions: list[Path], args: argparse.Namespace,
                 settings: tuple[dict[str, Any], list[str], dict[str, Any] | None]
                 ) -> Iterator[list[Path]]:
    """The competition folders a run reads its prompt slots from: for a replay whose
    campaign.json names the commit they were recorded at, the folders as that commit holds
    them (scratch copies, kept until the run is scored); otherwise the folders themselves."""
    from evaluator.llm.provenance import KEY, recorded_folders

    recorded = settings[2]
    if recorded is None or not recorded.get(KEY):
        yield competitions
        return
    with tempfile.TemporaryDirectory(prefix="gnncb-as-recorded-") as scratch:
        yield recorded_folders(competitions, recorded[KEY], Path(scratch),
                               f"{args.recordings}/campaign.json", _echo)


def cmd_campaign(args: argparse.Namespace) -> int:
    from evaluator.llm.campaign import run_campaign

    models = [m.strip() for group in args.models for m in group.split(",") if m.strip()]
    competitions = [resolve_competition(c) for c in args.competitions]
    settings = _settings(args)
    options = _options(args, settings)
    with _as_recorded(competitions, args, settings) as folders:
        results = run_campaign(models, folders, _provider_config(args, settings), options,
                               workers=args.workers, scorer=_scorer(args), echo=_echo)
    states: dict[str, int] = {}
    for summary in results:
        states[summary["status"]] = states.get(summary["status"], 0) + 1
    print(f"campaign {options.campaign}: " + ", ".join(f"{n} {s}" for s, n in
                                                      sorted(states.items())))
    runs = options.runs_root / options.campaign
    print(f"runs in {runs}; report: gnncb llm report --runs {shlex.quote(str(runs))}")
    return 2 if states.get("error") else 0


def _repository_competitions(args: argparse.Namespace) -> Path:
    """The repository's competitions/ folder: what the keyed merge step scores against.

    Why never the run's `competition_dir`: the runs come from matrix jobs that executed model
    code; a compromised one could ship a competition.yaml without `public_fraction` beside
    the real label ciphertext and have the keyed step score it on the whole split."""
    from evaluator.paths import find_root

    found = find_root(getattr(args, "root", None))
    if found is None:
        raise ConfigError("llm score needs the competitions to score against: run it in the "
                          "repository (or pass --competitions FOLDER)")
    return found.path / "competitions"


def cmd_score(args: argparse.Namespace) -> int:
    from evaluator.llm.runlog import SEALED, find_runs, read_summary
    from evaluator.llm.submit import score_run

    lost = _record_unfinished(args)
    runs = find_runs(args.runs)
    if not runs:
        raise ConfigError(f"{args.runs}: no run folders (*/*/summary.json) found")
    private = keys.private_keys_from(args.private_key)
    ledger = Ledger(args.ledger or Path(args.runs) / "ledger.jsonl")
    competitions = args.competitions or _repository_competitions(args)
    counts: dict[str, int] = {}
    rows: list[dict[str, Any]] = []
    for run in runs:
        before = read_summary(run) or {}
        summary = score_run(run, private, ledger, competitions_root=competitions,
                            rows_out=rows)
        if before.get("status") == SEALED:
            _print_outcome(summary)
        counts[summary["status"]] = counts.get(summary["status"], 0) + 1
    if args.rows_out:
        args.rows_out.parent.mkdir(parents=True, exist_ok=True)
        args.rows_out.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows),
                                 encoding="utf-8")
        print(f"wrote {len(rows)} row(s) to {args.rows_out}")
    print(f"{len(runs)} run(s): " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    if counts.get("error"):
        print(f"{counts['error']} run(s) ended in a platform, provider or sandbox error (not "
              f"the model's failure{f'; {len(lost)} recorded here' if lost else ''}); the "
              "others are scored and can be published")
    return 0


_SLUG = re.compile(r"[a-z0-9][a-z0-9-]{1,62}[a-z0-9]")


def _record_unfinished(args: argparse.Namespace) -> list[dict[str, Any]]:
    """`llm score --expect-*`: planned pairs with no finished run become platform errors."""
    from evaluator.llm.campaign import record_unfinished

    if (args.expect_models is None) != (args.expect_competitions is None):
        raise ConfigError("--expect-models and --expect-competitions go together (the planned "
                          "models x competitions)")
    if args.expect_models is None:
        return []
    models = [m.strip() for m in args.expect_models.split(",") if m.strip()]
    slugs = [c.strip() for c in args.expect_competitions.split(",") if c.strip()]
    bad = [c for c in slugs if not _SLUG.fullmatch(c)]
    if not models or not slugs or bad:
        raise ConfigError(f"--expect-models {args.expect_models!r} --expect-competitions "
                          f"{args.expect_competitions!r}: need comma-separated model ids and "
                          f"competition slugs{f' (not a slug: {bad})' if bad else ''}")
    lost = record_unfinished(args.runs, models, slugs)
    for summary in lost:
        print(f"error {summary['model']} x {summary['slug']}: platform error (not the "
              f"model's failure): {summary['error']}")
    return lost


def cmd_publish(args: argparse.Namespace) -> int:
    from evaluator.commands._options import announce, push_env
    from evaluator.llm.publish import publish_rows, read_rows

    root = announce(args.root, ledger=True)
    rows = read_rows(args.rows)
    git_env = push_env(root, args.remote)
    report = publish_rows(root, args.runs, rows, campaign=args.runs.name, remote=args.remote,
                          branch=args.branch, git_env=git_env,
                          boards=track_boards(root))
    if report is None or report.commit is None:
        print(f"nothing to publish ({len(rows)} row(s) already recorded)")
    else:
        print(f"published {len(rows)} row(s) in {report.commit[:12]} after "
              f"{report.attempts} attempt(s)")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from evaluator.llm.report import build_report, render_markdown

    if not args.runs.is_dir():
        raise ConfigError(f"{args.runs}: not a folder; pass runs/<campaign>")
    report = build_report(args.runs)
    text = render_markdown(report)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n",
                             encoding="utf-8")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    else:
        print(text, end="")
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    import os

    from evaluator.llm.doctor import diagnose, render

    if args.needed_context < 1:
        raise ConfigError(f"--needed-context {args.needed_context}: must be positive")
    report = diagnose(args.base_url, model=args.model,
                      api_key=os.environ.get(args.api_key_env, ""), timeout=args.timeout,
                      needed_context=args.needed_context,
                      probe_context=not args.skip_context_probe)
    print(render(report))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report.as_dict(), indent=2) + "\n", encoding="utf-8")
    return 1 if report.failed else 0
