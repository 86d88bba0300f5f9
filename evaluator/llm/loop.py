"""API mode: frozen prompt -> `<plan>`/`<code>` -> sandboxed run -> repair, at most k times.

Why this shape (GNN-CB Listing 2): one conversation per (model, competition); after a failed
attempt the traceback tail and the `gnncb check` message are appended as a user turn, and the
loop stops at the first attempt whose program exits cleanly AND leaves a valid predictions.csv.
A valid file written by a program that then crashed or timed out does not count: execution
failure triggers repair, as in the paper. Each attempt runs in a fresh workspace so a failed
attempt's leftovers cannot help or hurt the next one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.llm import session as sessions
from evaluator.llm.conversation import (
    ContextBudget,
    Overflow,
    RepeatGuard,
    answer_digest,
    ask,
)
from evaluator.llm.execute import SOLUTION, check_predictions, make_workspace, run_solution
from evaluator.llm.parse import parse_response
from evaluator.llm.providers import (
    DEFAULT_MAX_TOKENS,
    ContextOverflow,
    Provider,
    ProviderError,
    served_model_check,
)
from evaluator.llm.runlog import attempt_dir
from evaluator.sandbox import SandboxError


@dataclass(frozen=True)
class Decoding:
    """GNN-CB defaults: temperature 0, 10K output tokens, a seed where supported."""

    temperature: float = 0.0
    max_tokens: int = DEFAULT_MAX_TOKENS
    seed: int | None = 25


def run_api(competition: Path, model: str, provider: Provider, options: sessions.RunOptions,
            *, decoding: Decoding = Decoding(), echo: sessions.Echo | None = None  # noqa: B008
            ) -> dict[str, Any]:
    """Run the loop and return the run summary (status `sealed`, `failed` or `error`).

    The loop also ends, as the model's failure with every earlier attempt kept, when the
    conversation outgrows the context (`context_overflow`) and, with `options.stop_on_repeat`
    (off by default), when an answer repeats an earlier one byte for byte (`stop_reason:
    repeated_answer`; see conversation.py)."""
    session = sessions.begin(competition, model, entrant="llm-api", provider=provider.label,
                             options=options, echo=echo, max_tokens=decoding.max_tokens)
    session.describe_protocol(temperature=decoding.temperature,
                              max_tokens=decoding.max_tokens, seed=decoding.seed,
                              served=served_model_check(provider, model),
                              local=getattr(getattr(provider, "inner", provider), "local",
                                            None))
    messages = [{"role": "user", "content": session.prompt.text}]
    budget, repeats = ContextBudget(options.context_tokens), RepeatGuard()
    workspace: Path | None = None
    try:
        for index in range(1, session.max_attempts + 1):
            try:
                completion, _, trimmed = ask(
                    provider, budget, messages, model=model, temperature=decoding.temperature,
                    max_tokens=decoding.max_tokens, seed=decoding.seed)
            except (Overflow, ContextOverflow) as err:
                session.record_overflow(index, prompt=messages[-1]["content"],
                                        message=str(err))
                break
            parsed = parse_response(completion.text, completion.finish_reason)
            workspace = attempt_dir(session.run, index) / "workspace"
            result = check = None
            earlier = (repeats.check(answer_digest(parsed.code, completion.text), index)
                       if options.stop_on_repeat else None)
            if earlier is not None:
                session.record_attempt(
                    index, prompt=messages[-1]["content"], completion=completion,
                    parsed=parsed, code=parsed.code or None, result=None, check=None,
                    workspace=workspace, trimmed_turns=trimmed,
                    repeat_of=session.attempts[earlier - 1])
                break
            if parsed.runnable:
                make_workspace(workspace, session.competition)
                (workspace / SOLUTION).write_text(parsed.code, encoding="utf-8")
                result = run_solution(workspace, session.limits,
                                      require_sandbox=options.require_sandbox)
                check = check_predictions(session.competition, session.spec, workspace)
            record = session.record_attempt(
                index, prompt=messages[-1]["content"], completion=completion, parsed=parsed,
                code=parsed.code or None, result=result, check=check, workspace=workspace,
                trimmed_turns=trimmed)
            if record["valid"]:
                assert check is not None and check.checked is not None
                session.discard_workspace(workspace)
                return session.finish(check.checked)
            if index < session.max_attempts:
                feedback = session.feedback(index, parsed, result, check, workspace,
                                            completion)
                (attempt_dir(session.run, index) / "feedback.md").write_text(
                    feedback, encoding="utf-8")
                messages += [{"role": "assistant", "content": completion.text},
                             {"role": "user", "content": feedback}]
            session.discard_workspace(workspace)
        return session.finish(None)
    except (ProviderError, SandboxError) as err:
        session.discard_after_error(workspace)
        return session.error(err)
    except BaseException:
        session.discard_after_error(workspace)
        raise
