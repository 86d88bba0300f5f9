"""`gnncb code llm run|score`: LLMs on the code track (issue 6, point 7).

`run` drives the LLM track's providers and repair loop over code-track problems (visible
practice cases as the test, failed visible cases as feedback), then judges the final solutions
on hidden digest-seeded cases exactly like `gnncb code submit-score`. `score` re-does only the
final judging of a model's run folder (e.g. after a resumed campaign added problems).

Exit codes: 0 a row was produced (or, with --no-score, every problem has a final solution or
was skipped as done), 1 no problem produced runnable code, 2 configuration, provider or sandbox
problems (nothing is blamed on the model).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from evaluator.errors import ConfigError


def _code_actions(sub: argparse._SubParsersAction) -> argparse._SubParsersAction:
    """The `gnncb code` verb group, registered by evaluator.commands.code (listed before this
    module in cli.PLUGINS)."""
    from evaluator.commands import GROUPS

    if "code" in GROUPS:
        return GROUPS["code"]
    parser = sub.choices.get("code")
    if parser is None:
        raise RuntimeError("evaluator.commands.code must be registered before code_llm")
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    raise RuntimeError("`gnncb code` has no sub-commands to extend")


def register(sub: argparse._SubParsersAction) -> None:
    p = _code_actions(sub).add_parser(
        "llm", help="LLMs on the code track: prompt, visible-case repair, hidden judging")
    ls = p.add_subparsers(dest="code_llm_command", metavar="ACTION", required=True)

    r = ls.add_parser("run", help="one model on code-track problems, then the hidden judge")
    r.add_argument("--model", required=True, help="model id as the provider spells it")
    r.add_argument("--problems", type=_csv, help="comma-separated problem ids (default: all)")
    r.add_argument("--participant", help="ledger participant (default llm-<model>)")
    _provider_options(r)
    _protocol_options(r)
    _judge_options(r)
    _scoring_options(r)
    r.add_argument("--allow-unsandboxed", action="store_true",
                   help="run model code even when this machine cannot isolate it (recorded)")
    r.add_argument("--no-score", action="store_true",
                   help="stop after the repair loops; judge later with `gnncb code llm score`")
    r.set_defaults(func=cmd_run)

    s = ls.add_parser("score", help="judge a model's final solutions on their hidden cases")
    s.add_argument("--runs", type=Path, required=True, help="runs/<campaign>/<model> folder")
    s.add_argument("--problems", type=_csv, help="only these problems (default: all finished)")
    _judge_options(s)
    _scoring_options(s)
    s.add_argument("--allow-unsandboxed", action="store_true",
                   help="judge even when this machine cannot isolate the code (recorded)")
    s.set_defaults(func=cmd_score)


def _csv(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _provider_options(p: argparse.ArgumentParser) -> None:
    from evaluator.commands.llm import add_endpoint_options, add_sampling_options

    g = p.add_argument_group("provider")
    add_endpoint_options(g, ["openai", "replay"])
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


def _judge_options(p: argparse.ArgumentParser) -> None:
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


def cmd_run(args: argparse.Namespace) -> int:
    from evaluator.codetrack.cases import select_problems
    from evaluator.codetrack.llmrun.repair import CodeRunOptions, run_problem
    from evaluator.codetrack.llmrun.scoring import score_model
    from evaluator.codetrack.problem import all_problems
    from evaluator.commands.llm import context_tokens_option
    from evaluator.llm.costs import load_prices
    from evaluator.llm.providers import OpenAIProvider
    from evaluator.llm.runlog import check_campaign_name, safe_component
    from evaluator.llm.session import check_isolation

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
    row = score_model(model_dir, **_hidden_judge(args),
                      problems=[p.id for p in problems], ledger=args.ledger, echo=_echo)
    _print_row(row, args.ledger)
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    from evaluator.codetrack.llmrun.scoring import SUBMISSION_DIR, score_model

    if not args.runs.is_dir():
        raise ConfigError(f"{args.runs}: not a folder; pass runs/<campaign>/<model>")
    row = score_model(args.runs, **_hidden_judge(args), problems=args.problems,
                      ledger=args.ledger, echo=_echo)
    _print_row(row, args.ledger)
    print(f"row: {args.runs / SUBMISSION_DIR / 'row.json'}")
    return 0

