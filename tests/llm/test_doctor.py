"""`gnncb llm doctor` against local endpoints: one configured like llama-cpp-python's defaults
with a base model (small context, no chat template, silent clamping, a GGUF path as model
id), one configured well. Real HTTP (pytest-httpserver), OpenAI chat-completions protocol."""

from __future__ import annotations

import json

from werkzeug import Request, Response

from evaluator.cli import main

RAMBLE = "[INST] Reply with exactly the word PONG and nothing else. [/INST] Sure! Here is a"


class Endpoint:
    def __init__(self, httpserver, *, context: int, template: bool, clamps: bool,
                 models: list[str]) -> None:
        self.context, self.template, self.clamps, self.models = context, template, clamps, models
        self.requests: list[dict] = []
        httpserver.expect_request("/v1/models").respond_with_handler(self._models)
        httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_handler(
            self._chat)
        self.base_url = httpserver.url_for("/v1")

    def _models(self, _: Request) -> Response:
        return Response(json.dumps({"object": "list", "data": [{"id": m} for m in self.models]}),
                        content_type="application/json")

    def _chat(self, request: Request) -> Response:
        body = request.get_json()
        self.requests.append(body)
        prompt = len(" ".join(m["content"] for m in body["messages"]).split())
        if prompt > self.context:  # llama-cpp-python's own words and code
            return Response(json.dumps({"error": {
                "message": f"Requested tokens ({prompt}) exceed context window of "
                           f"{self.context}", "type": "invalid_request_error",
                "code": "context_length_exceeded"}}), status=400,
                content_type="application/json")
        if body["max_tokens"] > self.context - prompt and not self.clamps:
            return Response(json.dumps({"error": {"message": "max_tokens is too large"}}),
                            status=400, content_type="application/json")
        text = "PONG" if self.template else RAMBLE
        finish = "stop" if self.template else "length"
        return Response(json.dumps({
            "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": len(text.split()),
                      "total_tokens": prompt + len(text.split())}}),
            content_type="application/json")


def test_doctor_reports_a_badly_configured_endpoint(httpserver, tmp_path, capsys):
    endpoint = Endpoint(httpserver, context=2048, template=False, clamps=True,
                        models=["/models/gemma-3-270m.gguf"])
    code = main(["llm", "doctor", "--base-url", endpoint.base_url, "--model", "qwen-coder",
                 "--needed-context", "4000", "--json", str(tmp_path / "doctor.json")])
    out = capsys.readouterr().out
    assert code == 1
    assert "[FAIL] models: 'qwen-coder' is not listed" in out and "gemma-3-270m" in out
    assert "[FAIL] context: the context window is 2048 tokens" in out
    assert "--n_ctx 32768" in out and "--context-tokens" in out
    assert "[FAIL] chat template:" in out and "--chat_format" in out
    assert "[WARN] clamping: max_tokens 10,000,000 was accepted" in out
    assert "NOT READY" in out
    report = json.loads((tmp_path / "doctor.json").read_text())
    assert report["facts"]["context_tokens"] == 2048 and report["failed"] is True
    verdicts = {f["check"]: f["verdict"] for f in report["findings"]}
    assert verdicts == {"models": "fail", "completion": "ok", "chat template": "fail",
                        "context": "fail", "clamping": "warn", "timeouts": "ok"}


def test_doctor_passes_a_well_configured_endpoint(httpserver, capsys):
    endpoint = Endpoint(httpserver, context=32768, template=True, clamps=False,
                        models=["qwen2.5-coder-0.5b-instruct"])
    code = main(["llm", "doctor", "--base-url", endpoint.base_url, "--needed-context", "4000"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "(model qwen2.5-coder-0.5b-instruct)" in out
    assert "[OK  ] chat template: a one-line instruction was followed" in out
    assert "[OK  ] context: accepts a 4000-token prompt" in out
    assert "[OK  ] clamping: an impossible max_tokens is refused" in out
    assert "verdict: ready" in out
    # the probes never carry gnncb prompts or competition data
    assert all("competition" not in json.dumps(r) for r in endpoint.requests)
