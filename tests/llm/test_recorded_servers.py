"""What real local models and servers did to gnncb, replayed over real HTTP through the CLI.

The answers come from tests/fixtures/llm-recordings (real Qwen2.5-Coder-0.5B / Gemma 3 270M
output to gnncb's prompts); the server behaviours (context overflow as HTTP 400 or 500, a
silently clamped output limit, a stall past the client's timeout, `max_tokens` refused in
favour of `max_completion_tokens`, a `/v1/models` listing another model) are the ones seen on
llama-cpp-python and OpenAI, served by a local pytest-httpserver speaking the chat-completions
protocol (tests/llm/test_scripted_server.py proves it with the official client).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from werkzeug import Request, Response

from evaluator.cli import main
from evaluator.llm.conversation import ContextBudget, Overflow, token_totals
from tests.helpers import paths
from tests.helpers.llm import API_KEY, BROKEN, MAJORITY, cli_args, read_json

FIXTURES = paths.FIXTURES / "llm-recordings"
MODEL = "qwen2.5-coder-0.5b-instruct"


def recorded(folder: str, prefix: str) -> dict[str, Any]:
    """The response of one recording: text, finish_reason, tokens."""
    [path] = (FIXTURES / folder / "recordings").glob(f"sha256-{prefix}*.json")
    return json.loads(path.read_text(encoding="utf-8"))["response"]


class FakeServer:
    """A chat-completions endpoint that plays a script of behaviours, one per request.

    A step is {"text", "finish", "out", "in"} (an answer with that usage), {"status", "body"}
    (an error answer), or {"sleep": s, ...} (answer after s seconds). `models` is what GET
    /v1/models lists (None: 404, as some servers do)."""

    def __init__(self, httpserver, steps: list[dict[str, Any]],
                 models: list[str] | None = None, reject: str | None = None) -> None:
        self.steps, self.requests, self.models = list(steps), [], models
        self.reject = reject  # a body parameter answered with the OpenAI 400 naming it
        httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_handler(
            self._chat)
        httpserver.expect_request("/v1/models", method="GET").respond_with_handler(
            self._models)
        self.base_url = httpserver.url_for("/v1")

    def _models(self, _: Request) -> Response:
        if self.models is None:
            return Response("not found", status=404)
        return Response(json.dumps({"object": "list", "data": [
            {"id": m, "object": "model", "owned_by": "me"} for m in self.models]}),
            content_type="application/json")

    def _chat(self, request: Request) -> Response:
        body = request.get_json()
        self.requests.append(body)
        if self.reject and self.reject in body:
            return Response(json.dumps({"error": {
                "message": f"Unsupported parameter: '{self.reject}' is not supported with "
                           "this model. Use 'max_completion_tokens' instead.",
                "type": "invalid_request_error", "param": self.reject,
                "code": "unsupported_parameter"}}), status=400,
                content_type="application/json")
        step = self.steps.pop(0) if self.steps else {"text": "<plan>out of script</plan>"}
        if "sleep" in step:
            time.sleep(step["sleep"])
        if "status" in step:
            return Response(json.dumps(step["body"]), status=step["status"],
                            content_type="application/json")
        text = step["text"]
        usage = {"prompt_tokens": step.get("in", 1000), "completion_tokens":
                 step.get("out", max(1, len(text) // 4))}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return Response(json.dumps({
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 0,
            "model": body["model"], "usage": usage,
            "choices": [{"index": 0, "finish_reason": step.get("finish", "stop"),
                         "message": {"role": "assistant", "content": text}}]}),
            content_type="application/json")


def run(keypair, competition: Path, tmp_path: Path, server: FakeServer, monkeypatch,
        *extra: str) -> int:
    monkeypatch.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
    return main(cli_args(keypair, competition, tmp_path, server.base_url, "--model", MODEL,
                         *extra))


def run_folder(tmp_path: Path) -> Path:
    return tmp_path / "runs" / "adhoc" / MODEL / "demo-cancer-knn"


def attempt(tmp_path: Path, index: int) -> dict[str, Any]:
    return read_json(run_folder(tmp_path) / f"attempt-{index}" / "attempt.json")


def ledger_rows(tmp_path: Path) -> list[str]:
    path = tmp_path / "ledger.jsonl"
    return path.read_text().splitlines() if path.exists() else []


OVERFLOW_400 = {"status": 400, "body": {"error": {
    "message": "Requested tokens (4900) exceed context window of 4864",
    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}}
OVERFLOW_500 = {"status": 500, "body": {"error": {
    "message": "llama_decode returned 1", "type": "internal_server_error"}}}


def test_recorded_park_answers_stop_at_the_first_repeat_as_the_models_failure(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch, capsys):
    """Qwen answered `python solution.py` + prose six times, byte for byte (qwen-park)."""
    answer = recorded("qwen-park", "946bc26d")
    steps = [{"text": answer["text"], "in": answer["tokens_in"], "out": answer["tokens_out"]}
             for _ in range(6)]
    server = FakeServer(httpserver, steps, models=[MODEL])
    assert run(keypair, demo_competition, tmp_path, server, monkeypatch,
               "--stop-on-repeat") == 1
    assert len(server.requests) == 2  # the repeat ended the loop instead of 4 more calls
    summary = read_json(run_folder(tmp_path) / "summary.json")
    assert summary["status"] == "failed" and summary["stop_reason"] == "repeated_answer"
    assert summary["failure"]["mode"] == "response_format"
    first, second = attempt(tmp_path, 1), attempt(tmp_path, 2)
    assert first["parse_status"] == "missing_code" and "unclosed <code>" in first["outcome"]
    assert second["repeat_of"] == 1 and "same answer as attempt 1" in second["outcome"]
    # the model was told what was wrong with its answer, not "no <code> block"
    assert "not Python" in server.requests[1]["messages"][2]["content"]
    assert summary["served_model_check"]["verified"] is True
    assert ledger_rows(tmp_path) == []


def test_context_overflow_400_is_the_models_failure_and_keeps_earlier_attempts(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch, capsys):
    server = FakeServer(httpserver, [{"text": BROKEN, "in": 4666}, OVERFLOW_400])
    assert run(keypair, demo_competition, tmp_path, server, monkeypatch) == 1  # not 2
    summary = read_json(run_folder(tmp_path) / "summary.json")
    assert summary["status"] == "failed" and summary["stop_reason"] == "context_overflow"
    assert summary["failure"]["mode"] == "context_overflow"
    assert "context window of 4864" in summary["failure"]["evidence"]
    modes = [a["failure"]["mode"] for a in summary["attempt_log"]]
    assert modes == ["indexing_data_reading", "context_overflow"]  # attempt 1 kept
    assert summary["calls"] == 1 and summary["repairs_used"] == 0
    assert "context_overflow" in capsys.readouterr().err


def test_context_overflow_500_from_llama_cpp_is_recognised(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch):
    server = FakeServer(httpserver, [{"text": BROKEN}, OVERFLOW_500, OVERFLOW_500])
    assert run(keypair, demo_competition, tmp_path, server, monkeypatch) == 1
    summary = read_json(run_folder(tmp_path) / "summary.json")
    assert summary["failure"]["mode"] == "context_overflow"
    assert len(server.requests) == 2  # an overflow is not retried like a flaky 500


def test_known_context_trims_oldest_repair_turns_then_overflows_by_estimate(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch):
    """With --context-tokens the conversation is fitted before sending; when even the
    frozen prompt + the latest turn cannot fit, no request is sent at all."""
    steps = [{"text": BROKEN.replace("edge_list", f"edges{i}"), "in": 0} for i in range(6)]
    server = FakeServer(httpserver, steps)
    assert run(keypair, demo_competition, tmp_path, server, monkeypatch,
               "--context-tokens", "200", "--max-tokens", "100") == 1
    assert server.requests == []
    summary = read_json(run_folder(tmp_path) / "summary.json")
    assert summary["failure"]["mode"] == "context_overflow"
    assert "more than the model's context of 200 tokens" in summary["failure"]["evidence"]


def test_context_budget_drops_the_oldest_repair_turns_first():
    prompt = {"role": "user", "content": "p" * 300}
    turns = [{"role": r, "content": f"{r}{i}" * 50} for i in range(3)
             for r in ("assistant", "user")]
    budget = ContextBudget(context_tokens=None, chars_per_token=3.0)
    assert budget.fit([prompt, *turns], 10)[1] == 0  # unknown context: nothing dropped
    need = budget.estimate([prompt, *turns[-2:]])
    budget.learn(need + 10)
    sent, dropped, _ = budget.fit([prompt, *turns], 10)
    assert dropped == 2 and sent == [prompt, *turns[-2:]]
    budget.learn(need)
    try:
        budget.fit([prompt, *turns], 10)
    except Overflow as err:
        assert "even with the 2 earlier repair turn(s) dropped" in str(err)
    else:
        raise AssertionError("expected an overflow")


def test_clamped_output_limit_is_recorded_and_told_as_applied(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch):
    """Gemma's answer stopped for `length` after 662 tokens of the 10,000 asked (qwen: the
    server clamps max_tokens to n_ctx - prompt)."""
    clamp = recorded("gemma-clamp", "3ad1a54f")
    server = FakeServer(httpserver, [{"text": clamp["text"], "finish": "length", "out": 662,
                                      "in": 1386}, {"text": MAJORITY}])
    assert run(keypair, demo_competition, tmp_path, server, monkeypatch,
               "--max-tokens", "10000") == 0
    first = attempt(tmp_path, 1)
    assert first["parse_status"] == "truncated"
    assert (first["max_tokens_requested"], first["max_tokens_applied"]) == (10000, 662)
    assert first["max_tokens_clamped"] is True
    feedback = server.requests[1]["messages"][2]["content"]
    assert "output limit of 662 tokens that the server applied (10000 were requested" in feedback
    summary = read_json(run_folder(tmp_path) / "summary.json")
    assert summary["decoding"]["max_tokens"] == 10000
    assert summary["decoding"]["max_tokens_applied"] == 662
    assert any("lower output limit" in c for c in summary["caveats"])


def test_a_stalled_local_server_times_out_once_with_advice(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch, capsys):
    server = FakeServer(httpserver, [{"sleep": 3, "text": MAJORITY}] * 3)
    assert run(keypair, demo_competition, tmp_path, server, monkeypatch,
               "--timeout", "1", "--retries", "2") == 2
    err = capsys.readouterr().err
    assert "no answer within 1 s (--timeout)" in err and "raise --timeout" in err
    assert len(server.requests) == 1  # no retries queued behind the abandoned generation
    assert read_json(run_folder(tmp_path) / "summary.json")["status"] == "error"


def test_max_completion_tokens_fallback_is_driven_by_the_servers_400(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch):
    server = FakeServer(httpserver, [{"text": BROKEN}, {"text": MAJORITY}],
                        reject="max_tokens")
    assert run(keypair, demo_competition, tmp_path, server, monkeypatch,
               "--max-tokens", "3000") == 0
    assert "max_tokens" in server.requests[0]
    later = server.requests[1:]
    assert len(later) == 2 and all(
        r.get("max_completion_tokens") == 3000 and "max_tokens" not in r for r in later)
    summary = read_json(run_folder(tmp_path) / "summary.json")
    assert summary["decoding"]["max_tokens_param"] == "max_completion_tokens"
    assert any("max_completion_tokens" in n for n in summary["provider_notes"])


def test_served_model_is_checked_against_v1_models(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch):
    server = FakeServer(httpserver, [{"text": MAJORITY}], models=["/models/gemma-3-270m.gguf"])
    assert run(keypair, demo_competition, tmp_path, server, monkeypatch,
               "--allow-unlisted-model") == 0
    summary = read_json(run_folder(tmp_path) / "summary.json")
    check = summary["served_model_check"]
    assert check["verified"] is False and "gemma-3-270m" in check["note"]
    assert any("not among the models the endpoint lists" in c for c in summary["caveats"])
    assert any("temperature 0 is greedy decoding" in c for c in summary["caveats"])


def test_token_totals_do_not_pretend_the_resent_conversation_was_evaluated_again():
    calls = [{"tokens_in": 4303, "tokens_out": 515}, {"tokens_in": 4927, "tokens_out": 515},
             {"tokens_in": 5551, "tokens_out": 515}]
    totals = token_totals(calls)
    assert totals["tokens_in"] == 4303 + 4927 + 5551  # billed: resent each call
    assert totals["tokens_in_conversation"] == 5551
    assert totals["tokens_in_new"] == 4303 + (4927 - 4818) + (5551 - 5442)
    assert totals["calls"] == 3
