"""`gnncb code llm run|seed|score`: LLMs on the code track (registered by `commands.code`).

Why a module of its own: the verb's module grew past the size limit, and these three actions
share their own options (provider, protocol, hidden judge) and the rule that the process
running model-written code never holds the case secret (`seed` is the keyed step, which reads
the final solutions as data and runs nothing).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from evaluator.commands._options import (
    add_endpoint_options,
    add_sampling_options,
    context_tokens_option,
)
from evaluator.commands._options import code_board as _board
from evaluator.commands._options import code_board_folder as _board_folder
from evaluator.commands._options import csv_list as _csv
from evaluator.errors import ConfigError


def register_llm(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "llm", help="LLMs on the code track: prompt, visible-case repair, hidden judging")
    ls = p.add_subparsers(dest="code_llm_command", metavar="ACTION", required=True)

    r = ls.add_parser("run", help="one model on code-track problems, then the hidden judge")
    r.add_argument("--model", required=True, help="model id as the provider spells it")
    r.add_argument("--problems", type=_csv, help="comma-separated problem ids (default: all)")
    r.add_argument("--participant", help="ledger participant (default llm:<model>)")
    _provider_options(r)
    _protocol_options(r)
    _llm_judge_options(r)
    _scoring_options(r)
    r.add_argument("--allow-unsandboxed", action="store_true",
                   help="run model code even when this machine cannot isolate it (recorded)")
    r.add_argument("--no-score", action="store_true",
                   help="stop after the repair loops; judge later with `gnncb code llm score`")
    r.set_defaults(func=cmd_llm_run)

    d = ls.add_parser("seed", help="derive a model run's secret case seed (holds "
                                   "$GNNCB_CODE_SEED; reads the final solutions as data, "
                                   "runs nothing)")
    d.add_argument("--runs", type=Path, required=True, help="runs/<campaign>/<model> folder")
    d.add_argument("--problems", type=_csv, help="only these problems (default: all finished)")
    d.add_argument("--out", type=Path, required=True,
                   help="where to write the seed for `llm score --case-seed` (never the secret)")
    d.set_defaults(func=cmd_llm_seed)

    s = ls.add_parser("score", help="judge a model's final solutions on their hidden cases")
    s.add_argument("--runs", type=Path, required=True, help="runs/<campaign>/<model> folder")
    s.add_argument("--problems", type=_csv, help="only these problems (default: all finished)")
    s.add_argument("--case-seed", type=Path,
                   help="the seed `gnncb code llm seed` derived for these final solutions "
                        "(required when the board's version commits to secret cases)")
    _llm_judge_options(s)
    _scoring_options(s)
    s.add_argument("--allow-unsandboxed", action="store_true",
                   help="judge even when this machine cannot isolate the code (recorded)")
    s.set_defaults(func=cmd_llm_score)


def _provider_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("provider")
    add_endpoint_options(g, ["openai", "replay", "scripted"])
    add_sampling_options(g)


def _protocol_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("protocol")
    g.add_argument("--prompt", default="vanilla", help="prompt variant: vanilla (default) or ssd")
    g.add_argument("--repairs", type=int, default=5, help="repair attempts k, 0..5 (default 5)")
    g.add_argument("--visible-per-cell", type=int, default=2,
                   help="practice cases per published cell used as the visible test set "
                        "(default 2)")
    g.add_argument("--examples", type=int, default=3,
                   help="visible cases shown in the prompt (default 3, the smallest)")
    g.add_argument("--campaign", default="adhoc", help="campaign name (runs/<campaign>/)")
    g.add_argument("--runs", type=Path, default=Path("runs"), help="runs root (default runs/)")
    g.add_argument("--prices", type=Path, help="price table (YAML: model: {input, output} USD "
                                               "per million tokens)")


def _llm_judge_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("judge (visible and hidden cases)")
    g.add_argument("--timeout-factor", type=float, default=10.0,
                   help="case time limit = max(floor, factor x reference time)")
    g.add_argument("--timeout-floor", type=float, default=1.0, help="seconds (default 1)")
    g.add_argument("--memory-mb", type=int, default=1024, help="per worker process")
    g.add_argument("--jobs", type=int, default=2, help="processes for generation and judging")


def _scoring_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("hidden judging")
    g.add_argument("--per-cell", type=int, default=10,
                   help="hidden cases per published cell (default 10, as submit-score)")
    g.add_argument("--no-memory", action="store_true", help="skip the peak-memory pass")
    g.add_argument("--ledger", type=Path,
                   help="append the row here (default: only runs/.../code-submission/row.json)")


def _judge_config(args: argparse.Namespace) -> Any:
    from evaluator.codetrack.judge import JudgeConfig

    if args.timeout_factor <= 0 or args.timeout_floor <= 0 or args.memory_mb <= 0:
        raise ConfigError("--timeout-factor, --timeout-floor and --memory-mb must be positive")
    # Visible cases: verdicts and times only; memory matters for the hidden report alone.
    return JudgeConfig(timeout_factor=args.timeout_factor, timeout_floor=args.timeout_floor,
                       memory_bytes=args.memory_mb * 1024 * 1024, measure_memory=False,
                       require_sandbox=not args.allow_unsandboxed)


def _hidden_judge(args: argparse.Namespace) -> dict[str, Any]:
    """The same limits for the hidden judge as for any submission (`submit-score`'s)."""
    from evaluator.codetrack.judge import JudgeConfig

    if args.timeout_factor <= 0 or args.timeout_floor <= 0:
        raise ConfigError("--timeout-factor and --timeout-floor must be positive")
    config = JudgeConfig(timeout_factor=args.timeout_factor, timeout_floor=args.timeout_floor,
                         memory_bytes=args.memory_mb * 1024 * 1024,
                         measure_memory=not args.no_memory,
                         require_sandbox=not args.allow_unsandboxed)
    return {"config": config, "per_cell": args.per_cell, "jobs": args.jobs}


def _provider(args: argparse.Namespace) -> Any:
    from evaluator.llm.campaign import ProviderConfig, build_provider
    from evaluator.llm.loop import Decoding

    if args.max_tokens < 1:
        raise ConfigError(f"--max-tokens {args.max_tokens}: must be positive")
    config = ProviderConfig(
        kind=args.provider, base_url=args.base_url, api_key_env=args.api_key_env,
        timeout=args.timeout, retries=args.retries, record_dir=args.record,
        recordings_dir=args.recordings, strict_replay=args.strict_replay,
        allow_unlisted_model=args.allow_unlisted_model, script=args.script,
        decoding=Decoding(temperature=args.temperature, max_tokens=args.max_tokens,
                          seed=None if args.no_seed else args.seed))
    return build_provider(config), config.decoding


def _echo(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _print_row(row: dict[str, Any], ledger: Path | None) -> None:
    s = row["scores"]
    print(f"{row['participant']} ({row['entrant']}, {row['model']}): pass rate "
          f"{100 * s['pass_rate']:.2f} % on {s['cases']} hidden cases, "
          f"{s['problems_solved']}/{s['problems']} problems fully solved (seed {row['seed']})")
    for pid, info in row["per_problem"].items():
        print(f"  {pid:8s} {info['passed']:5d}/{info['cases']:<5d}")
    if ledger:
        print(f"recorded in {ledger}" if row.get("ledger_written") else
              f"already in {ledger} (same digest); nothing new recorded")


def _no_case_secret_here(verb: str) -> None:
    """A process that runs model-written code never holds the case secret (as the PR flow's
    judge job never does): the sandbox hides the environment from the code, but an escape
    would find the master of every version's cases."""
    from evaluator import settings

    if settings.code_seed():
        raise ConfigError(f"`gnncb code llm {verb}` runs model-written code and must not hold "
                          "the case secret: unset GNNCB_CODE_SEED here; derive the seed in a "
                          "separate step that runs no model code (`gnncb code llm seed`)")


def _committed_board(args: argparse.Namespace) -> tuple[Any, Path, str | None]:
    """(board, its folder, the commitment its current version draws cases under or None)."""
    from evaluator.codetrack.caseseed import current_commitment

    board = _board(args, "graph-coding")
    folder = _board_folder(args, board.slug)
    return board, folder, current_commitment(folder, board.slug, board.version)


def _llm_case_seed(args: argparse.Namespace) -> dict[str, Any] | None:
    """The case seed the hidden judge of `llm score` uses: the keyed step's answer when the
    board's current version commits to a secret (required then, and checked against the
    commitment; the digest is checked by the scorer), None on a digest-seeded board."""
    from evaluator.ci.code.seed import read_case_seed
    from evaluator.codetrack.caseseed import commitment_path

    board, folder, committed = _committed_board(args)
    if args.case_seed is None:
        if committed is not None:
            raise ConfigError(
                f"{commitment_path(folder)} commits {board.slug} version {board.version} to "
                "secret cases: derive this run's seed first, in a step that holds "
                "GNNCB_CODE_SEED and runs no model code (`gnncb code llm seed --runs "
                f"{shlex.quote(str(args.runs))} --out seed.json`), then pass --case-seed "
                "seed.json here")
        return None
    answer = read_case_seed(args.case_seed)
    if answer is None or answer.get("case_commitment") != committed:
        raise ConfigError(f"{args.case_seed}: not a case seed drawn under the commitment of "
                          f"{board.slug} version {board.version} "
                          f"({'none committed' if committed is None else committed[:16]}); "
                          "derive it again with `gnncb code llm seed`")
    return answer


def cmd_llm_seed(args: argparse.Namespace) -> int:
    """The keyed half of the LLM code track's hidden judging: the seed of the final
    solutions' digest under the committed secret, written for `llm score --case-seed`."""
    from evaluator.ci.code.seed import write_case_seed
    from evaluator.codetrack.caseseed import case_seed
    from evaluator.codetrack.llmrun.scoring import final_digest

    if not args.runs.is_dir():
        raise ConfigError(f"{args.runs}: not a folder; pass runs/<campaign>/<model>")
    board, folder, _ = _committed_board(args)
    answer = case_seed(folder, board.slug, board.version,
                       final_digest(args.runs, args.problems))
    write_case_seed(answer, args.out)
    print(f"{args.out}: the case seed of digest {answer['digest'][:12]} under {board.slug} "
          f"version {board.version}'s commitment; judge with `gnncb code llm score --runs "
          f"{shlex.quote(str(args.runs))} --case-seed {shlex.quote(str(args.out))}` in a "
          "process without GNNCB_CODE_SEED")
    return 0


def cmd_llm_run(args: argparse.Namespace) -> int:
    from evaluator.codetrack.cases import select_problems
    from evaluator.codetrack.llmrun.repair import CodeRunOptions, run_problem
    from evaluator.codetrack.llmrun.scoring import score_model
    from evaluator.codetrack.problem import all_problems
    from evaluator.llm.costs import load_prices
    from evaluator.llm.providers import OpenAIProvider
    from evaluator.llm.runlog import check_campaign_name, safe_component
    from evaluator.llm.session import check_isolation

    _no_case_secret_here("run")
    problems = select_problems(all_problems(), args.problems)
    options = CodeRunOptions(
        campaign=args.campaign, runs_root=args.runs, variant=args.prompt, repairs=args.repairs,
        visible_per_cell=args.visible_per_cell, examples=args.examples,
        judge=_judge_config(args), require_sandbox=not args.allow_unsandboxed,
        prices=load_prices(args.prices) if args.prices else None, participant=args.participant,
        context_tokens=context_tokens_option(args))
    options.check()
    if not args.model.strip():
        raise ConfigError("--model is empty; give the model id, e.g. gpt-4o-mini")
    provider, decoding = _provider(args)
    isolation = check_isolation(options.require_sandbox, _echo)
    states: dict[str, int] = {}
    try:
        for problem in problems:
            summary = run_problem(problem, args.model, provider, options, decoding=decoding,
                                  isolation=isolation, echo=_echo)
            states[summary["status"]] = states.get(summary["status"], 0) + 1
    finally:
        inner = getattr(provider, "inner", provider)
        if isinstance(inner, OpenAIProvider):
            inner.close()
    model_dir = args.runs / check_campaign_name(args.campaign) / safe_component(args.model)
    print(f"{args.model}: " + ", ".join(f"{n} {s}" for s, n in sorted(states.items()))
          + f"; runs in {model_dir}")
    if states.get("error"):
        return 2
    if not (states.get("sealed") or states.get("scored")):
        return 1
    if args.no_score:
        print(f"judge later: gnncb code llm score --runs {shlex.quote(str(model_dir))}")
        return 0
    board, _, committed = _committed_board(args)
    if committed is not None:
        # the hidden cases need the secret seed of the final files, which this process (it
        # ran the model's code) must not derive: the two remaining steps, in that order
        runs = shlex.quote(str(model_dir))
        print(f"{board.slug} version {board.version} judges on secret cases: derive the seed "
              f"where GNNCB_CODE_SEED is set (`gnncb code llm seed --runs {runs} --out "
              f"seed.json`), then judge without it (`gnncb code llm score --runs {runs} "
              "--case-seed seed.json`)")
        return 0
    row = score_model(model_dir, **_hidden_judge(args),
                      problems=[p.id for p in problems], ledger=args.ledger, echo=_echo)
    _print_row(row, args.ledger)
    return 0


def cmd_llm_score(args: argparse.Namespace) -> int:
    from evaluator.codetrack.llmrun.scoring import SUBMISSION_DIR, score_model

    _no_case_secret_here("score")
    if not args.runs.is_dir():
        raise ConfigError(f"{args.runs}: not a folder; pass runs/<campaign>/<model>")
    row = score_model(args.runs, **_hidden_judge(args), problems=args.problems,
                      ledger=args.ledger, case_seed=_llm_case_seed(args), echo=_echo)
    _print_row(row, args.ledger)
    print(f"row: {args.runs / SUBMISSION_DIR / 'row.json'}")
    return 0
