"""Providers over real HTTP: request shape, retries, errors; recording and replay."""

from __future__ import annotations

import pytest

from evaluator.llm.providers import (
    OpenAIProvider,
    ProviderError,
    RecordingProvider,
    RecordingStore,
    ReplayProvider,
    Request,
)
from tests.helpers.llm import API_KEY, ScriptedLLM


def _request(*messages: str, seed: int | None = 25) -> Request:
    roles = ["user", "assistant"] * len(messages)
    return Request("test-model", tuple({"role": r, "content": m} for r, m in zip(roles, messages)),
                   temperature=0.0, max_tokens=10_000, seed=seed)


def test_openai_provider_sends_the_protocol_parameters(httpserver):
    llm = ScriptedLLM(httpserver, ["<plan>p</plan>"])
    provider = OpenAIProvider(llm.base_url, api_key=API_KEY, retries=0)
    completion = provider.complete(_request("hello"))
    body = llm.requests[0]
    assert body == {"model": "test-model", "messages": [{"role": "user", "content": "hello"}],
                    "temperature": 0.0, "max_tokens": 10_000, "seed": 25}
    assert llm.headers[0]["Authorization"] == f"Bearer {API_KEY}"
    assert completion.text == "<plan>p</plan>" and completion.finish_reason == "stop"
    assert completion.tokens_out == len("<plan>p</plan>") // 4 and completion.usage_reported
    assert completion.request_hash == _request("hello").hash()


def test_retries_server_errors_then_succeeds(httpserver):
    llm = ScriptedLLM(httpserver, [503, 500, "ok"])
    provider = OpenAIProvider(llm.base_url, retries=2, backoff_seconds=0)
    assert provider.complete(_request("x")).text == "ok"
    assert len(llm.requests) == 3


def test_gives_up_after_the_retry_budget(httpserver):
    llm = ScriptedLLM(httpserver, [503, 503])
    provider = OpenAIProvider(llm.base_url, retries=1, backoff_seconds=0)
    with pytest.raises(ProviderError, match="giving up after 2 tries: HTTP 503"):
        provider.complete(_request("x"))


def test_authentication_failure_is_not_retried_and_says_what_to_check(httpserver):
    llm = ScriptedLLM(httpserver, [401, "never reached"])
    provider = OpenAIProvider(llm.base_url, retries=3, backoff_seconds=0)
    with pytest.raises(ProviderError, match="HTTP 401.*API key environment variable"):
        provider.complete(_request("x"))
    assert len(llm.requests) == 1


def test_endpoint_that_rejects_seed_is_asked_again_without_it(httpserver):
    from werkzeug import Response

    bodies = []

    def handler(request):
        body = request.get_json()
        bodies.append(body)
        if "seed" in body:
            return Response('{"error": {"message": "Unrecognized request argument: seed"}}',
                            status=400, content_type="application/json")
        return Response('{"choices": [{"message": {"content": "fine"}, '
                        '"finish_reason": "stop"}]}', content_type="application/json")

    httpserver.expect_request("/v1/chat/completions").respond_with_handler(handler)
    provider = OpenAIProvider(httpserver.url_for("/v1"), retries=0)
    completion = provider.complete(_request("x"))
    assert completion.text == "fine" and not completion.usage_reported
    assert "seed" in bodies[0] and "seed" not in bodies[1]
    assert completion.notes == ("endpoint rejected 'seed'; sent without it",)


def test_unreachable_endpoint_is_a_provider_error():
    provider = OpenAIProvider("http://127.0.0.1:9/v1", retries=0, timeout=5)
    with pytest.raises(ProviderError, match="giving up after 1 tries"):
        provider.complete(_request("x"))


def test_recording_never_stores_the_key_and_replays_exactly(httpserver, tmp_path):
    llm = ScriptedLLM(httpserver, ["first answer"])
    store = RecordingStore(tmp_path / "rec")
    live = RecordingProvider(OpenAIProvider(llm.base_url, api_key=API_KEY, retries=0), store)
    live.complete(_request("question"))
    files = list((tmp_path / "rec").iterdir())
    assert len(files) == 1
    assert API_KEY not in files[0].read_text() and "Bearer" not in files[0].read_text()

    replay = ReplayProvider(RecordingStore(tmp_path / "rec"))
    again = replay.complete(_request("question"))
    assert (again.text, again.replay_match) == ("first answer", "exact")
    assert again.tokens_out == len("first answer") // 4
    assert len(llm.requests) == 1  # replay never touched the network


def test_replay_falls_back_to_the_turn_key_and_says_so(tmp_path):
    store = RecordingStore(tmp_path / "rec")
    from evaluator.llm.providers import Completion

    recorded = _request("prompt", "answer 1", "feedback from machine A")
    store.save(recorded, Completion("answer 2", "stop", 1, 2, 0.1, "m", recorded.hash()), "x")
    replay = ReplayProvider(RecordingStore(tmp_path / "rec"))
    # Same prompt and same model answers, different execution feedback (another machine):
    other = _request("prompt", "answer 1", "feedback from machine B")
    assert replay.complete(other).replay_match == "turn"
    with pytest.raises(ProviderError, match="no recorded response"):
        ReplayProvider(RecordingStore(tmp_path / "rec"), strict=True).complete(other)
    with pytest.raises(ProviderError, match="record it first"):
        replay.complete(_request("another prompt"))


def test_request_hash_covers_parameters_but_not_transport():
    assert _request("a").hash() == _request("a").hash()
    assert _request("a").hash() != _request("a", seed=None).hash()
    assert _request("a").hash() != _request("b").hash()
