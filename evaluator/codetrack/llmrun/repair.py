"""One model on one code-track problem: prompt -> `<plan>`/`<code>` -> visible judge -> repair.

Why this shape: it is the LLM track's execute-and-repair loop (GNN-CB section 3.3: one
conversation, k <= 5 repairs, every attempt logged) with GraphEval36K's feedback: the candidate
runs on the VISIBLE practice cases (public seed) in the sandboxed batch judge, and the first
failing ones (input, expected, actual, verdict) go back to the model. The loop stops at the
first attempt that passes every visible case. Hidden cases do not exist yet: they are generated
from the final submission's content digest afterwards (`scoring.py`), so nothing hidden can
leak into a conversation.

The final solution is the attempt that passed the most visible cases (the latest on a tie): a
model that never passes them all still submits its best program, as a human would.

Run folder: `runs/<campaign>/<model>/code-<problem>/` with `prompt.md`, `slots.json`,
`visible.json` (the visible set), `attempt-<i>/` (prompt.md = the user turn sent, response.md,
plan.md, solution.py, visible.json = per-case verdicts, feedback.md = the next turn,
attempt.json), the final `solution.py` and `summary.json` (written last).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.codetrack.cases import PRACTICE_SEED, Case, default_set_path, ensure_case_set
from evaluator.codetrack.judge import JudgeConfig, ProblemJudgement, judge_problem
from evaluator.codetrack.llmrun import feedback as fb
from evaluator.codetrack.llmrun.prompting import (
    get_code_variant,
    pick_examples,
    render_prompt,
    render_repair,
    slots_record,
)
from evaluator.codetrack.problem import Problem
from evaluator.errors import ConfigError
from evaluator.llm.conversation import (
    ContextBudget,
    Overflow,
    RepeatGuard,
    answer_digest,
    ask,
    overflow_failure,
    token_totals,
)
from evaluator.llm.costs import PriceTable, cost_of
from evaluator.llm.loop import Decoding
from evaluator.llm.parse import parse_response
from evaluator.llm.providers import (
    ContextOverflow,
    Provider,
    ProviderError,
    served_model_check,
)
from evaluator.llm.runlog import (
    ATTEMPT_RECORD,
    ERROR,
    FINISHED,
    SEALED,
    attempt_dir,
    now_iso,
    read_summary,
    run_dir,
    start_run,
    write_json,
    write_summary,
    write_text,
)
from evaluator.llm.session import MAX_REPAIRS, Echo, check_isolation, protocol_facts
from evaluator.llm.submit import check_llm_participant, participant_for
from evaluator.sandbox import Isolation, SandboxError

ENTRANT = "llm-api"
SOLUTION = "solution.py"
FAILED = "failed"


def _quiet(_: str) -> None:
    return None


@dataclass(frozen=True)
class CodeRunOptions:
    """Everything about a code-track run except the model, the problem and the provider."""

    campaign: str = "adhoc"
    runs_root: Path = Path("runs")
    variant: str = "vanilla"
    repairs: int = MAX_REPAIRS
    visible_per_cell: int = 2  # practice cases per published cell, the repair loop's test set
    examples: int = 3  # of them shown in the prompt
    judge: JudgeConfig = field(default_factory=JudgeConfig)
    require_sandbox: bool = True
    prices: PriceTable | None = None
    participant: str | None = None
    context_tokens: int | None = None  # the model's context window, when known

    def check(self) -> None:
        if not 0 <= self.repairs <= MAX_REPAIRS:
            raise ConfigError(f"--repairs {self.repairs}: the protocol allows 0 to "
                              f"{MAX_REPAIRS} repairs (GNN-CB: k <= 5)")
        if self.visible_per_cell < 1:
            raise ConfigError("--visible-per-cell must be at least 1 (the repair loop needs "
                              "visible test cases)")
        if self.examples < 0:
            raise ConfigError("--examples must not be negative")
        get_code_variant(self.variant)


def run_slug(problem_id: str) -> str:
    return f"code-{problem_id}"


def problem_run_dir(options: CodeRunOptions, model: str, problem_id: str) -> Path:
    return run_dir(options.runs_root, options.campaign, model, run_slug(problem_id))


def visible_cases(problem: Problem, per_cell: int) -> list[Case]:
    """The practice cases (public seed, paper plan at `per_cell`) of one problem: the same set
    `gnncb code judge --per-cell N` uses, cached and generated only for this problem."""
    path = default_set_path("paper", PRACTICE_SEED, per_cell)
    case_set = ensure_case_set(path, plan="paper", base_seed=PRACTICE_SEED, per_cell=per_cell,
                               problems=[problem.id])
    cases = case_set.cases(problem.id) if problem.id in case_set.problem_ids() else []
    if not cases:
        raise ConfigError(f"{problem.id}: the practice set {path} has no cases for it; "
                          "regenerate it with `gnncb code generate --force`")
    return cases


def best_attempt(passed: Sequence[int | None]) -> int | None:
    """1-based index of the attempt with the most visible passes (latest on a tie); None when
    no attempt had a valid module (runnable code that imports and defines the method: the
    loop passes None for the others)."""
    best: int | None = None
    for index, value in enumerate(passed, 1):
        if value is not None and (best is None or value >= (passed[best - 1] or 0)):
            best = index
    return best


@dataclass
class ProblemRun:
    """The state of one run while it is going; `summary` is what lands in summary.json."""

    problem: Problem
    model: str
    options: CodeRunOptions
    provider_label: str
    decoding: Decoding
    isolation: Isolation
    run: Path
    visible: list[Case]
    echo: Echo
    summary: dict[str, Any]
    attempts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def max_attempts(self) -> int:
        return 1 + self.options.repairs

    def totals(self) -> dict[str, Any]:
        costs = [a["cost_usd"] for a in self.attempts if a["cost_usd"] is not None]
        return {
            "attempts": len(self.attempts),
            **token_totals(self.attempts),
            **protocol_facts(self.summary, self.attempts),
            "cost_usd": round(sum(costs), 6) if costs else None,
            "llm_latency_seconds": round(sum(a["latency_seconds"] or 0
                                             for a in self.attempts), 3),
            "judge_seconds": round(sum(a["judge_seconds"] or 0 for a in self.attempts), 3),
            "attempt_log": [{k: a.get(k) for k in ("index", "parse_status", "visible_passed",
                                                    "visible_verdicts", "failure",
                                                    "replay_match", "valid_module",
                                                    "repeat_of", "trimmed_turns")}
                            for a in self.attempts],
        }


def _begin(problem: Problem, model: str, provider_label: str, options: CodeRunOptions,
           decoding: Decoding, isolation: Isolation, echo: Echo) -> ProblemRun:
    variant = get_code_variant(options.variant)
    participant = check_llm_participant(options.participant or participant_for(model, ENTRANT))
    visible = visible_cases(problem, options.visible_per_cell)
    examples = pick_examples(problem, visible, options.examples)
    prompt = render_prompt(variant, problem, examples)
    run = start_run(problem_run_dir(options, model, problem.id))
    write_text(run / "prompt.md", prompt.text)
    write_text(run / "slots.json", slots_record(problem, examples))
    write_json(run / "visible.json", {"seed": PRACTICE_SEED, "plan": "paper",
                                      "per_cell": options.visible_per_cell,
                                      "cases": [c.id for c in visible]})
    summary: dict[str, Any] = {
        "schema": 1,
        "track": "code",
        "status": "running",
        "campaign": options.campaign,
        "model": model,
        "entrant": ENTRANT,
        "provider": provider_label,
        "participant": participant,
        "slug": run_slug(problem.id),
        "problem": problem.id,
        "prompt_variant": variant.name,
        "template_hash": prompt.template_hash,
        "prompt_hash": prompt.prompt_hash,
        "repairs_allowed": options.repairs,
        "decoding": {"temperature": decoding.temperature, "max_tokens": decoding.max_tokens,
                     "seed": decoding.seed},
        "visible": {"seed": PRACTICE_SEED, "per_cell": options.visible_per_cell,
                    "cases": len(visible), "examples_in_prompt": len(examples)},
        "isolation": {"level": isolation.level, "mechanism": isolation.mechanism,
                      "sandboxed": isolation.sandboxed, "detail": isolation.detail},
        "started_at": now_iso(),
    }
    write_summary(run, summary)
    echo(f"{model} x {problem.id}: {run}")
    return ProblemRun(problem, model, options, provider_label, decoding, isolation, run,
                      visible, echo, summary)


def _overflow(state: ProblemRun, index: int, prompt: str, message: str) -> dict[str, Any]:
    """Attempt `index` was never answered: the conversation outgrew the model's context."""
    folder = attempt_dir(state.run, index)
    write_text(folder / "prompt.md", prompt)
    record: dict[str, Any] = {
        "index": index, "repair": index - 1, "parse_status": None, "code_source": None,
        "visible_cases": len(state.visible), "visible_passed": None, "visible_verdicts": None,
        "valid_module": False, "load_error": None, "outcome": f"not answered: {message}",
        "failure": overflow_failure(message, attempt=index), "repeat_of": None,
        "trimmed_turns": 0, "called": False, "judge_seconds": None, "judge_processes": None,
        "tokens_in": 0, "tokens_out": 0, "usage_reported": None, "latency_seconds": None,
        "finish_reason": None, "served_model": None, "request_hash": None,
        "replay_match": None, "provider_notes": [], "cost_usd": None,
        "isolation": state.isolation.level, "finished_at": now_iso()}
    write_json(folder / ATTEMPT_RECORD, record)
    state.attempts.append(record)
    state.echo(f"  attempt {index}/{state.max_attempts}: {record['outcome']} "
               "[context_overflow]")
    return record


def _attempt(state: ProblemRun, provider: Provider, messages: list[dict[str, str]],
             index: int, budget: ContextBudget, repeats: RepeatGuard
             ) -> tuple[dict[str, Any], ProblemJudgement | None, str]:
    """Ask, parse, judge on the visible cases, log. Returns (record, judgement, answer text).

    Raises Overflow / ContextOverflow when the conversation no longer fits."""
    folder = attempt_dir(state.run, index)
    d = state.decoding
    completion, _, trimmed = ask(provider, budget, messages, model=state.model,
                                 temperature=d.temperature, max_tokens=d.max_tokens,
                                 seed=d.seed)
    write_text(folder / "prompt.md", messages[-1]["content"])
    write_text(folder / "response.md", completion.text)
    parsed = parse_response(completion.text, completion.finish_reason)
    write_text(folder / "plan.md", parsed.plan)
    judgement = None
    earlier = repeats.check(answer_digest(parsed.code, completion.text), index)
    repeat = state.attempts[earlier - 1] if earlier is not None else None
    if repeat is not None and parsed.runnable:
        write_text(folder / SOLUTION, parsed.code)  # the same program: not judged again
    elif parsed.runnable:
        write_text(folder / SOLUTION, parsed.code)
        judgement = judge_problem(state.problem, folder / SOLUTION, state.visible,
                                  config=state.options.judge)
        write_json(folder / "visible.json", fb.verdict_rows(judgement))
    counts = judgement.counts() if judgement else None
    valid_module = bool(judgement is not None and not judgement.load_error)
    passed = judgement.passed if judgement else None
    if repeat is None:
        outcome = fb.outcome_text(parsed, judgement, d.max_tokens, state.problem.method,
                                  completion)
        failure = fb.failure_mode(parsed, judgement)
    else:
        outcome = (f"the same {'program' if parsed.code else 'answer'} as attempt "
                   f"{repeat['index']}, byte for byte: {repeat['outcome']}; not judged again, "
                   "and the loop stops (repeated answer)")
        failure, counts = repeat["failure"], repeat["visible_verdicts"]
        valid_module, passed = bool(repeat.get("valid_module")), repeat["visible_passed"]
    applied, clamped = completion.output_limit
    record: dict[str, Any] = {
        "index": index,
        "repair": index - 1,
        "parse_status": parsed.status,
        "code_source": parsed.code_source,
        "visible_cases": len(state.visible),
        "visible_passed": passed,
        "visible_verdicts": counts,
        "valid_module": valid_module,
        "load_error": fb.load_error_text(judgement) or None,
        "outcome": outcome,
        "failure": failure,
        "repeat_of": repeat["index"] if repeat else None,
        "trimmed_turns": trimmed,
        "judge_seconds": judgement.wall_seconds if judgement else None,
        "judge_processes": judgement.processes if judgement else None,
        "tokens_in": completion.tokens_in,
        "tokens_out": completion.tokens_out,
        "cached_tokens": completion.cached_tokens,
        "max_tokens_requested": completion.max_tokens_requested,
        "max_tokens_applied": applied,
        "max_tokens_clamped": clamped,
        "max_tokens_param": completion.max_tokens_param,
        "usage_reported": completion.usage_reported,
        "latency_seconds": round(completion.latency_seconds, 3),
        "finish_reason": completion.finish_reason,
        "served_model": completion.served_model,
        "request_hash": completion.request_hash,
        "replay_match": completion.replay_match,
        "provider_notes": list(completion.notes),
        "cost_usd": cost_of(state.options.prices, state.model, completion.tokens_in,
                            completion.tokens_out),
        "isolation": state.isolation.level,
        "finished_at": now_iso(),
    }
    write_json(folder / ATTEMPT_RECORD, record)
    state.attempts.append(record)
    state.echo(f"  attempt {index}/{state.max_attempts}: {record['outcome']}")
    return record, judgement, completion.text


def _finish(state: ProblemRun) -> dict[str, Any]:
    """Pick the final solution. Only a valid module counts: code that imports and defines
    `Solution.<method>` (a module that cannot even be loaded passes no case, visible or
    hidden, and is not submitted); without one the run is `failed`, with the last failure."""
    passed = [a["visible_passed"] if a.get("valid_module") and not a.get("repeat_of") else None
              for a in state.attempts]
    best = best_attempt(passed)
    summary = state.summary
    summary.update(state.totals(), finished_at=now_iso())
    if best is None:
        runnable = any(a.get("parse_status") in ("ok", "missing_plan") for a in state.attempts)
        why = ("no attempt gave a module that loads and defines Solution."
               f"{state.problem.method}" if runnable else "no runnable code")
        last = next((a["failure"] for a in reversed(state.attempts) if a["failure"]),
                    {"mode": "response_format", "evidence": "no attempt"})
        summary.update(status=FAILED, final_attempt=None, repair_depth=None,
                       visible_passed=None, all_visible_passed=False, valid=False,
                       failure={**last, "reason": f"{why} after {len(state.attempts)} "
                                                  "attempt(s)"})
        write_summary(state.run, summary)
        state.echo(f"  failed: {why}")
        return summary
    record = state.attempts[best - 1]
    shutil.copyfile(attempt_dir(state.run, best) / SOLUTION, state.run / SOLUTION)
    summary.update(status=SEALED, final_attempt=best, repair_depth=best - 1, valid=True,
                   visible_passed=record["visible_passed"],
                   all_visible_passed=record["visible_passed"] == len(state.visible),
                   failure=None)
    write_summary(state.run, summary)
    state.echo(f"  final solution: attempt {best} ({record['visible_passed']}/"
               f"{len(state.visible)} visible cases); awaiting the hidden judge")
    return summary


def run_problem(problem: Problem, model: str, provider: Provider, options: CodeRunOptions, *,
                decoding: Decoding = Decoding(), isolation: Isolation | None = None,  # noqa: B008
                echo: Echo | None = None) -> dict[str, Any]:
    """Run the loop for one problem; returns the run summary (`sealed` = a final solution is
    waiting for the hidden judge, `failed` = no runnable code, `error` = provider/sandbox).

    A problem whose run folder already holds a finished or sealed run is skipped (resume)."""
    echo = echo or _quiet
    options.check()
    existing = read_summary(problem_run_dir(options, model, problem.id))
    if existing is not None and existing["status"] in (*FINISHED, SEALED):
        variant = get_code_variant(options.variant).name
        if existing.get("prompt_variant") != variant:
            raise ConfigError(
                f"{problem_run_dir(options, model, problem.id)} holds a {existing['status']} run "
                f"with prompt {existing.get('prompt_variant')}, not {variant}; use another "
                "--campaign name")
        echo(f"{model} x {problem.id}: already {existing['status']}, skipped")
        return existing
    if isolation is None:
        isolation = check_isolation(options.require_sandbox, echo)
    state = _begin(problem, model, provider.label, options, decoding, isolation, echo)
    state.summary["served_model_check"] = served_model_check(provider, model)
    state.summary["endpoint"] = {"loopback": getattr(getattr(provider, "inner", provider),
                                                     "local", None)}
    variant = get_code_variant(options.variant)
    messages = [{"role": "user", "content": (state.run / "prompt.md").read_text("utf-8")}]
    budget, repeats = ContextBudget(options.context_tokens), RepeatGuard()
    try:
        for index in range(1, state.max_attempts + 1):
            try:
                record, judgement, answer = _attempt(state, provider, messages, index, budget,
                                                     repeats)
            except (Overflow, ContextOverflow) as err:
                _overflow(state, index, messages[-1]["content"], str(err))
                break
            if record["visible_passed"] == len(state.visible) or record["repeat_of"]:
                break
            if index < state.max_attempts:
                failures = [] if judgement is None or judgement.load_error else \
                    fb.failure_items(judgement)
                turn = render_repair(variant, attempt=index, max_attempts=state.max_attempts,
                                     outcome=record["outcome"],
                                     error=fb.load_error_text(judgement), failures=failures)
                write_text(attempt_dir(state.run, index) / "feedback.md", turn)
                messages += [{"role": "assistant", "content": answer},
                             {"role": "user", "content": turn}]
        return _finish(state)
    except (ProviderError, SandboxError) as err:
        state.summary.update(state.totals(), status=ERROR, error=str(err),
                             finished_at=now_iso())
        write_summary(state.run, state.summary)
        echo(f"  error: {str(err).splitlines()[0]}")
        return state.summary
