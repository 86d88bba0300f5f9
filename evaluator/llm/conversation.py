"""What both LLM loops share about the conversation: context budget, repeats, token totals.

Why here and not in each loop: the GNN track (`loop.py`) and the code track
(`codetrack/llmrun/repair.py`) resend one growing conversation; real local models showed the
same three problems on both (measured in tests/fixtures/llm-recordings):

- **context**: every repair appends the answer and the feedback; a server with a small context
  answered HTTP 400 `context_length_exceeded` (or 500) and the run used to end as a platform
  error. `ContextBudget` estimates the next request's size from what the server reported for
  the previous one and, when a context size is known, drops the OLDEST repair turns (never the
  frozen prompt, never the latest answer and its feedback) until the request fits; when even
  that does not fit, or the server refuses anyway, the loop ends with the model's
  `context_overflow` failure and keeps every attempt before it.
- **repeats**: greedy decoding returned byte-identical answers six times; each repair was
  spent on the same program. `RepeatGuard` spots an answer whose code (or, without code, whose
  whole text) was already answered in this conversation; the loops then STOP (`stop_reason:
  repeated_answer`): the same code in the same sandbox gives the same outcome, and the same
  conversation prefix gives the same next answer.
- **tokens**: `tokens_in` summed over calls counts the resent conversation once per call (what
  a hosted API bills); `token_totals` adds what the server actually had to hold and evaluate.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluator.llm.providers import Completion, ContextOverflow, Provider, Request, conversation

CHARS_PER_TOKEN_GUESS = 3.0  # conservative before the server has reported any usage
CONTEXT_OVERFLOW = "context_overflow"
REPEATED_ANSWER = "repeated_answer"

Message = Mapping[str, str]


def _chars(messages: Sequence[Message]) -> int:
    return sum(len(m["content"]) for m in messages)


@dataclass
class ContextBudget:
    """Fits the conversation into `context_tokens` (None: unknown, nothing is trimmed until a
    server names its window in an overflow answer)."""

    context_tokens: int | None = None
    chars_per_token: float = CHARS_PER_TOKEN_GUESS
    # Per message overhead of chat templates (role markers): a few tokens each.
    overhead_per_message: int = 8

    def estimate(self, messages: Sequence[Message]) -> int:
        return int(_chars(messages) / self.chars_per_token) + \
            self.overhead_per_message * len(messages)

    def observe(self, sent: Sequence[Message], completion: Completion) -> None:
        """Calibrate characters per token from the server's own count for this request."""
        if completion.usage_reported and completion.tokens_in > 0:
            self.chars_per_token = max(1.0, _chars(sent) / completion.tokens_in)

    def learn(self, context_tokens: int | None) -> None:
        if context_tokens:
            self.context_tokens = context_tokens

    def fit(self, messages: list[dict[str, str]], max_tokens: int
            ) -> tuple[list[dict[str, str]], int, int]:
        """(messages to send, number of earlier repair turns dropped, estimated prompt tokens).

        Dropping is by (answer, feedback) pairs after the first prompt, oldest first; the
        latest pair is always kept. When nothing is known about the context, nothing is
        dropped. Raises `Overflow` when even the shortest form does not fit."""
        estimate = self.estimate(messages)
        if self.context_tokens is None or estimate + max_tokens <= self.context_tokens:
            return messages, 0, estimate
        head, pairs = messages[:1], [messages[i:i + 2] for i in range(1, len(messages), 2)]
        dropped = 0
        while len(pairs) > 1:
            pairs.pop(0)
            dropped += 1
            kept = head + [m for pair in pairs for m in pair]
            estimate = self.estimate(kept)
            if estimate + max_tokens <= self.context_tokens:
                return kept, dropped, estimate
        trimmed = (f"even with the {dropped} earlier repair turn(s) dropped" if dropped else
                   "and there is no earlier repair turn to drop")
        raise Overflow(
            f"the conversation needs about {estimate} prompt tokens + {max_tokens} output tokens "
            f"(--max-tokens), more than the model's context of {self.context_tokens} tokens, "
            f"{trimmed}", estimate)


class Overflow(Exception):  # noqa: N818 - a condition of the conversation, not a crash
    """The conversation does not fit, by the budget's own estimate."""

    def __init__(self, message: str, estimate: int) -> None:
        super().__init__(message)
        self.estimate = estimate


def ask(provider: Provider, budget: ContextBudget, messages: list[dict[str, str]], *,
        model: str, temperature: float, max_tokens: int, seed: int | None
        ) -> tuple[Completion, list[dict[str, str]], int]:
    """One call with the conversation fitted to the budget: (completion, messages sent,
    repair turns dropped). A server that refuses with an overflow naming its context size
    teaches the budget that size, and the call is tried once more, trimmed; otherwise the
    overflow (`Overflow` by estimate, `ContextOverflow` from the server) propagates."""
    for attempt in (1, 2):
        sent, trimmed, _ = budget.fit(messages, max_tokens)
        request = Request(model, conversation(sent), temperature, max_tokens, seed)
        try:
            completion = provider.complete(request)
        except ContextOverflow as err:
            known = budget.context_tokens
            if attempt == 2 or not err.context_tokens or err.context_tokens == known:
                raise
            budget.learn(err.context_tokens)
            try:
                budget.fit(messages, max_tokens)
            except Overflow as again:
                raise ContextOverflow(f"{err}; {again}", status=err.status,
                                      context_tokens=err.context_tokens) from None
            continue
        budget.observe(sent, completion)
        return completion, sent, trimmed
    raise AssertionError("unreachable")


def overflow_failure(message: str, *, attempt: int) -> dict[str, str]:
    """The failure record of a run ended by its own conversation's size."""
    return {"mode": CONTEXT_OVERFLOW,
            "evidence": f"attempt {attempt}: {message}"[:500]}


def answer_digest(code: str, text: str) -> str:
    """What makes two answers "the same": the program if there is one, else the whole text."""
    payload = ("code\x00" + code) if code.strip() else ("text\x00" + text)
    return "sha256:" + hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass
class RepeatGuard:
    """Remembers each answer's digest and the first attempt that gave it."""

    seen: dict[str, int] = field(default_factory=dict)

    def check(self, digest: str, index: int) -> int | None:
        """The earlier attempt this answer repeats, or None (and remember it)."""
        earlier = self.seen.get(digest)
        if earlier is None:
            self.seen[digest] = index
        return earlier


def token_totals(attempts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Token counts of a run, from what the server reported per call.

    - `tokens_in`: prompt tokens summed over calls. Every repair resends the whole
      conversation, so this counts the first prompt once per call: what a hosted API bills.
    - `tokens_in_conversation`: the largest single prompt (the conversation at its longest):
      what the model had to hold at once.
    - `tokens_in_new`: per call, the prompt tokens not already in the previous request plus its
      answer, summed: what a server with prefix caching (llama.cpp, vLLM) had to evaluate.
    - `tokens_cached`: the server's own `prompt_tokens_details.cached_tokens`, where reported.
    """
    calls = [a for a in attempts if a.get("tokens_in") is not None and a.get("called", True)]
    tokens_in = sum(int(a["tokens_in"] or 0) for a in calls)
    new, previous = 0, 0
    for a in calls:
        prompt = int(a["tokens_in"] or 0)
        new += max(0, prompt - previous) if not a.get("trimmed_turns") else prompt
        previous = prompt + int(a.get("tokens_out") or 0)
    cached = [a.get("cached_tokens") for a in calls if a.get("cached_tokens") is not None]
    return {
        "calls": len(calls),
        "tokens_in": tokens_in,
        "tokens_out": sum(int(a.get("tokens_out") or 0) for a in calls),
        "tokens_in_conversation": max((int(a["tokens_in"] or 0) for a in calls), default=0),
        "tokens_in_new": new,
        "tokens_cached": sum(cached) if cached else None,
        "token_accounting": "per call as the server reported it; tokens_in sums prompts over "
                            "calls (each repair resends the conversation: hosted-API billing); "
                            "tokens_in_new counts only what a prefix-caching server evaluates",
    }


def caveats(*, temperature: float, seed: int | None, seed_sent: bool,
            served: Mapping[str, Any] | None, clamped: bool, trimmed: bool,
            max_tokens_param: str, local: bool | None) -> list[str]:
    """What a reader must know before treating the run as reproducible."""
    out = []
    if temperature == 0:
        out.append("temperature 0 is greedy decoding, not a guarantee of identical answers: "
                   "server build, thread count, batch size and quantisation change the "
                   "arithmetic (a llama.cpp thread-count change changed an answer); replay "
                   "from the recordings reproduces a run, re-asking the model may not")
    if seed is None or not seed_sent:
        out.append("no seed was applied (not sent, or the endpoint rejected it)")
    if served is None or served.get("verified") is None:
        out.append("the served model could not be verified (the endpoint lists no models); "
                   "the answers' `model` field may only echo the request")
    elif served.get("verified") is False:
        out.append(str(served.get("note")))
    if clamped:
        out.append("the server applied a lower output limit than requested on some calls "
                   "(max_tokens_applied per attempt)")
    if trimmed:
        out.append("earlier repair turns were dropped to fit the context (trimmed_turns per "
                   "attempt): later answers saw a shorter conversation than the protocol's")
    if max_tokens_param != "max_tokens":
        out.append(f"the output limit was sent as {max_tokens_param} (the endpoint refused "
                   "max_tokens)")
    if local:
        out.append("served from this machine (loopback endpoint): the GGUF file, its "
                   "provenance and the server flags are part of the model's identity")
    return out
