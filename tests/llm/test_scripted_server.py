"""The scripted model server the LLM tests talk to is a faithful OpenAI stand-in.

Why: every other LLM test reaches `tests.helpers.llm.ScriptedLLM` through gnncb's own httpx
provider; only the official client can show that what it serves is the real protocol.
"""

from __future__ import annotations

import pytest

from tests.helpers.llm import API_KEY, ScriptedLLM


@pytest.mark.slow
def test_scripted_server_speaks_openai_chat_completions(httpserver):
    """The official client accepts the server's answers, so it is a faithful stand-in."""
    openai = pytest.importorskip("openai")
    llm = ScriptedLLM(httpserver, ["<plan>p</plan><code>print(1)</code>"])
    client = openai.OpenAI(base_url=llm.base_url, api_key=API_KEY, max_retries=0)
    reply = client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}], temperature=0, max_tokens=5)
    assert reply.choices[0].message.content == "<plan>p</plan><code>print(1)</code>"
    assert reply.choices[0].finish_reason == "stop"
    assert reply.usage.completion_tokens > 0
    assert llm.requests[0]["messages"] == [{"role": "user", "content": "hi"}]
    assert llm.headers[0]["Authorization"] == f"Bearer {API_KEY}"
