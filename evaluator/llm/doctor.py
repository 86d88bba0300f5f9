"""`gnncb llm doctor`: check an OpenAI-compatible endpoint before spending a campaign on it.

Why: every problem a real local server caused (tests/fixtures/llm-recordings) was visible in
a minute with the right questions, and invisible in gnncb's results until a campaign ended:
llama-cpp-python's default context (2048 tokens) is smaller than every gnncb prompt; a GGUF
without a chat template is served in a silent llama-2 fallback and rambles; an output limit
beyond the context is clamped silently; `/v1/models` names what is really loaded. The doctor
asks exactly those questions, each with a verdict and advice, and never sends gnncb's prompts
or any competition data.
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import httpx

from evaluator.llm.providers import context_overflow_in, context_size_in, is_loopback

OK, WARN, FAIL = "ok", "warn", "fail"
PING = "Reply with exactly the word PONG and nothing else."
HUGE_MAX_TOKENS = 10_000_000
# gnncb's frozen prompts are 4-5K tokens (Qwen tokenizer), plus the repair turns and the
# output limit: 16K is the least that lets a k=5 conversation with modest answers fit.
DEFAULT_NEEDED_CONTEXT = 16_384
_ROLE_MARKERS = re.compile(r"\[/?INST\]|<\|im_start\|>|<\|im_end\|>|<start_of_turn>|"
                           r"<end_of_turn>|<\|user\|>|<\|assistant\|>|^\s*(?:user|assistant):",
                           re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class Finding:
    check: str
    verdict: str  # ok | warn | fail
    detail: str
    advice: str = ""


@dataclass
class Report:
    base_url: str
    model: str | None
    findings: list[Finding] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    def add(self, check: str, verdict: str, detail: str, advice: str = "") -> None:
        self.findings.append(Finding(check, verdict, detail, advice))

    @property
    def failed(self) -> bool:
        return any(f.verdict == FAIL for f in self.findings)

    def as_dict(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "model": self.model, "facts": self.facts,
                "findings": [asdict(f) for f in self.findings], "failed": self.failed}


def _chat(client: httpx.Client, url: str, model: str, content: str, max_tokens: int
          ) -> tuple[httpx.Response, float]:
    body = {"model": model, "messages": [{"role": "user", "content": content}],
            "temperature": 0, "max_tokens": max_tokens}
    started = time.monotonic()
    response = client.post(url + "/chat/completions", json=body)
    return response, time.monotonic() - started


def _content(response: httpx.Response) -> tuple[str, str | None, dict[str, Any]]:
    data = response.json()
    choice = data["choices"][0]
    return (choice.get("message") or {}).get("content") or "", choice.get("finish_reason"), \
        data.get("usage") or {}


def check_models(report: Report, client: httpx.Client, url: str) -> list[str]:
    try:
        response = client.get(url + "/models")
        ids = [str(m.get("id")) for m in response.json().get("data", [])] \
            if response.status_code == 200 else []
    except (httpx.HTTPError, ValueError, AttributeError, TypeError) as err:
        report.add("models", FAIL, f"GET {url}/models failed: {type(err).__name__}: {err}",
                   "is the server running, and is the base URL the one ending in /v1?")
        return []
    report.facts["models"] = ids
    if not ids:
        report.add("models", WARN, f"GET /models answered HTTP {response.status_code} with no "
                   "model", "the served model cannot be verified; runs will say so in their "
                   "caveats")
    elif report.model and report.model not in ids and not any(
            i.rsplit("/", 1)[-1].removesuffix(".gguf") == report.model for i in ids):
        report.add("models", FAIL, f"{report.model!r} is not listed; the endpoint serves: "
                   + ", ".join(ids[:5]), "pass the listed id as --model (llama-cpp-python: "
                   "start the server with --model_alias NAME to choose it)")
    else:
        report.add("models", OK, "serves " + ", ".join(ids[:5]))
    return ids


def check_completion(report: Report, client: httpx.Client, url: str, model: str) -> None:
    try:
        response, latency = _chat(client, url, model, PING, 16)
    except httpx.HTTPError as err:
        report.add("completion", FAIL, f"POST /chat/completions failed: {err}",
                   "check the base URL and that the server finished loading the model")
        return
    if response.status_code != 200:
        report.add("completion", FAIL, f"HTTP {response.status_code}: {response.text[:300]}",
                   "the endpoint refuses a minimal chat request; check --model and the key")
        return
    try:
        text, finish, usage = _content(response)
    except (ValueError, KeyError, IndexError, TypeError):
        report.add("completion", FAIL, "the answer is not an OpenAI chat completion: "
                   + response.text[:300])
        return
    report.facts.update(ping_reply=text[:200], ping_finish_reason=finish,
                        ping_latency_seconds=round(latency, 3), ping_usage=usage)
    tokens_out = usage.get("completion_tokens")
    rate = (f", {tokens_out / latency:.1f} output tokens/s including prompt evaluation"
            if tokens_out and latency > 0 else "")
    report.add("completion", OK, f"answered in {latency:.1f} s{rate}")
    if "prompt_tokens" not in usage or "completion_tokens" not in usage:
        report.add("usage", WARN, "the answer reports no token usage",
                   "token counts and the applied output limit cannot be recorded")
    if _ROLE_MARKERS.search(text) or "PONG" not in text.upper():
        report.add("chat template", FAIL, f"asked to reply PONG, the model answered "
                   f"{text[:120]!r}: no (or the wrong) chat template is applied, or the "
                   "model is not instruction-tuned",
                   "serve an instruction-tuned GGUF that carries its chat template, or set "
                   "it (llama-cpp-python: --chat_format chatml / qwen / gemma ...); "
                   "llama-cpp-python falls back to the llama-2 format silently")
    else:
        report.add("chat template", OK, "a one-line instruction was followed (PONG)")


def check_context(report: Report, client: httpx.Client, url: str, model: str,
                  needed: int) -> None:
    """Send about `needed` tokens (one word each) with max_tokens 1: an overflow answer
    names the context window; acceptance shows it is at least that large."""
    filler = "hello " * needed
    try:
        response, latency = _chat(client, url, model, filler + "\nReply OK.", 1)
    except httpx.TimeoutException:
        report.add("context", WARN, f"no answer to a {needed}-token prompt within the "
                   "timeout", "a CPU server needs minutes for a long prompt: raise --timeout")
        return
    except httpx.HTTPError as err:
        report.add("context", FAIL, f"the {needed}-token probe failed: {err}")
        return
    if response.status_code == 200:
        report.facts["context_tokens_at_least"] = needed
        report.add("context", OK, f"accepts a {needed}-token prompt ({latency:.0f} s)")
        return
    text = response.text
    if context_overflow_in(response.status_code, text):
        size = context_size_in(text)
        report.facts["context_tokens"] = size
        named = f"{size} tokens" if size else "smaller than the probe"
        report.add("context", FAIL, f"the context window is {named}; gnncb needs about "
                   f"{needed} (prompt 4-5K tokens, repairs, output limit)",
                   "restart the server with a larger context (llama-cpp-python: --n_ctx "
                   "32768; its default is 2048) and pass --context-tokens N to gnncb")
        return
    report.add("context", WARN, f"the {needed}-token probe got HTTP {response.status_code}: "
               f"{text[:200]}", "the endpoint's context window is unknown")


def check_clamping(report: Report, client: httpx.Client, url: str, model: str) -> None:
    try:
        response, _ = _chat(client, url, model, PING, HUGE_MAX_TOKENS)
    except httpx.HTTPError as err:
        report.add("clamping", WARN, f"probe failed: {err}")
        return
    if response.status_code == 200:
        report.add("clamping", WARN, f"max_tokens {HUGE_MAX_TOKENS:,} was accepted: the "
                   "server lowers an output limit it cannot honour silently (llama.cpp: to "
                   "n_ctx - prompt)", "gnncb records the limit a server applied from "
                   "finish_reason/usage; keep --max-tokens below the context minus the "
                   "prompt so the protocol's limit is the one applied")
    else:
        report.add("clamping", OK, f"an impossible max_tokens is refused (HTTP "
                   f"{response.status_code}), not clamped silently")


def diagnose(base_url: str, *, model: str | None = None, api_key: str = "",
             timeout: float = 600.0, needed_context: int = DEFAULT_NEEDED_CONTEXT,
             probe_context: bool = True, transport: httpx.BaseTransport | None = None
             ) -> Report:
    url = base_url.rstrip("/")
    report = Report(base_url=url, model=model)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    with httpx.Client(timeout=timeout, headers=headers, transport=transport) as client:
        ids = check_models(report, client, url)
        chosen = model or (ids[0] if ids else "")
        if not chosen:
            report.add("completion", FAIL, "no model to ask: pass --model",
                       "the endpoint lists none")
            return report
        report.model = chosen
        check_completion(report, client, url, chosen)
        if probe_context:
            check_context(report, client, url, chosen, needed_context)
        check_clamping(report, client, url, chosen)
    if is_loopback(url):
        report.add("timeouts", OK, "loopback endpoint: gnncb waits up to 3600 s per answer "
                   "by default and does not retry a timed-out call (the server would still be "
                   "generating it)")
    return report


def render(report: Report) -> str:
    lines = [f"gnncb llm doctor: {report.base_url} (model {report.model or '?'})"]
    for f in report.findings:
        lines.append(f"  [{f.verdict.upper():4s}] {f.check}: {f.detail}")
        if f.advice and f.verdict != OK:
            lines.append(f"         advice: {f.advice}")
    lines.append("verdict: " + ("NOT READY for a campaign" if report.failed else
                                "ready (read the warnings)" if any(
                                    f.verdict == WARN for f in report.findings) else "ready"))
    return "\n".join(lines)
