"""Model providers behind one small interface: OpenAI-compatible HTTP, recording, replay.

Why replay keyed by a request hash: a campaign is only reproducible offline if the exact
responses can be served again, and a hash of the request (model, messages, decoding parameters;
never the API key or the URL) says unambiguously which response belongs to which question.
When execution feedback differs slightly on a new machine (library versions, a timing printed
by the solution), an exact lookup misses; replay then falls back to the *turn key* (same model,
parameters, first prompt and the model's own previous answers) and says so in the attempt log
(`replay_match: "turn"`), so nobody mistakes an approximate replay for a bit-for-bit one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx

from evaluator.errors import ConfigError

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MAX_TOKENS = 10_000  # GNN-CB: max_output_tokens = 10K per call
DEFAULT_TIMEOUT = 600.0
DEFAULT_RETRIES = 3
RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
MAX_BACKOFF_SECONDS = 60.0
ERROR_EXCERPT = 500


class ProviderError(ConfigError):
    """The model could not be asked (network, authentication, a missing recording)."""


@dataclass(frozen=True)
class Request:
    """One chat-completions call: the conversation so far and the decoding parameters."""

    model: str
    messages: tuple[Mapping[str, str], ...]
    temperature: float = 0.0
    max_tokens: int = DEFAULT_MAX_TOKENS
    seed: int | None = None

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m["role"], "content": m["content"]} for m in self.messages],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.seed is not None:
            body["seed"] = self.seed
        return body

    def hash(self) -> str:
        canonical = json.dumps(self.body(), sort_keys=True, separators=(",", ":"),
                               ensure_ascii=False)
        return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def turn_key(self) -> str:
        """Model, parameters, the first prompt and the model's own answers so far: what stays
        the same when only execution feedback (user turns after the first) differs."""
        body = self.body()
        messages = body.pop("messages")
        stable = [messages[0]] + [m for m in messages[1:] if m["role"] == "assistant"]
        key = {"params": body, "stable": stable, "turn": len(messages)}
        canonical = json.dumps(key, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Completion:
    text: str
    finish_reason: str | None
    tokens_in: int
    tokens_out: int
    latency_seconds: float
    served_model: str
    request_hash: str
    usage_reported: bool = True
    replay_match: str | None = None  # "exact" | "turn" when replayed
    notes: tuple[str, ...] = field(default_factory=tuple)


class Provider(Protocol):
    label: str  # recorded as metadata.llm.provider, e.g. "openai-compatible"

    def complete(self, request: Request) -> Completion: ...


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text[:ERROR_EXCERPT] + ("…" if len(text) > ERROR_EXCERPT else "")


def parse_chat_response(data: Any, request: Request, latency: float,
                        notes: tuple[str, ...] = ()) -> Completion:
    """An OpenAI chat-completions JSON object -> Completion (content None counts as empty)."""
    try:
        choice = data["choices"][0]
        message = choice.get("message") or {}
        text = message.get("content") or ""
        finish = choice.get("finish_reason")
    except (KeyError, IndexError, TypeError, AttributeError):
        raise ProviderError("the endpoint answered without choices[0].message; is it an "
                            f"OpenAI-compatible chat-completions API? Got: "
                            f"{_excerpt(json.dumps(data)[:2000])}") from None
    if not isinstance(text, str):
        text = json.dumps(text)
    usage = data.get("usage") or {}
    tokens_in, tokens_out = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return Completion(
        text=text, finish_reason=finish,
        tokens_in=int(tokens_in or 0), tokens_out=int(tokens_out or 0),
        latency_seconds=latency, served_model=str(data.get("model") or request.model),
        request_hash=request.hash(),
        usage_reported=tokens_in is not None and tokens_out is not None, notes=notes)


class OpenAIProvider:
    """Any OpenAI-compatible `/chat/completions` endpoint (OpenAI, Together, vLLM, ...)."""

    label = "openai-compatible"

    def __init__(self, base_url: str = DEFAULT_BASE_URL, *, api_key: str = "",
                 timeout: float = DEFAULT_TIMEOUT, retries: int = DEFAULT_RETRIES,
                 backoff_seconds: float = 2.0, transport: httpx.BaseTransport | None = None
                 ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.retries = max(0, retries)
        self.backoff = max(0.0, backoff_seconds)
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        # The key lives only in this client's headers: never logged, never recorded.
        self._client = httpx.Client(timeout=timeout, headers=headers, transport=transport)
        self._seed_supported = True

    @classmethod
    def from_env(cls, base_url: str, api_key_env: str, **kwargs: Any) -> OpenAIProvider:
        return cls(base_url, api_key=os.environ.get(api_key_env, ""), **kwargs)

    def close(self) -> None:
        self._client.close()

    def _sleep(self, attempt: int, response: httpx.Response | None) -> None:
        delay = self.backoff * (2 ** attempt)
        if response is not None:
            with contextlib.suppress(ValueError):
                delay = max(delay, float(response.headers.get("retry-after", "0")))
        time.sleep(min(delay, MAX_BACKOFF_SECONDS))

    def complete(self, request: Request) -> Completion:
        body = request.body()
        notes: list[str] = []
        if not self._seed_supported:
            body.pop("seed", None)
        last_error = ""
        started = time.monotonic()
        failures = 0
        while failures <= self.retries:
            response = None
            try:
                response = self._client.post(self.url, json=body)
            except httpx.TimeoutException:
                last_error = f"no answer within {self._client.timeout.read} s"
            except httpx.HTTPError as err:
                last_error = f"{type(err).__name__}: {err}"
            else:
                if response.status_code == 200:
                    try:
                        data = response.json()
                    except ValueError:
                        raise ProviderError(f"{self.url} answered 200 with a body that is not "
                                            f"JSON: {_excerpt(response.text)}") from None
                    return parse_chat_response(data, request, time.monotonic() - started,
                                               tuple(notes))
                text = response.text
                if (response.status_code == 400 and "seed" in body
                        and "seed" in text.lower()):
                    # Some endpoints reject `seed`; GNN-CB sends it only "where supported".
                    body.pop("seed")
                    self._seed_supported = False
                    notes.append("endpoint rejected 'seed'; sent without it")
                    continue
                last_error = f"HTTP {response.status_code}: {_excerpt(text)}"
                if response.status_code not in RETRY_STATUS:
                    hint = (" (check the API key environment variable)"
                            if response.status_code in (401, 403) else "")
                    raise ProviderError(f"{self.url} refused the request: {last_error}{hint}")
            if failures < self.retries:
                self._sleep(failures, response)
            failures += 1
        raise ProviderError(f"{self.url}: giving up after {self.retries + 1} tries: {last_error}")


class RecordingStore:
    """A folder of recorded exchanges, one JSON file per request hash (no secrets inside)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._by_hash: dict[str, dict[str, Any]] | None = None
        self._by_turn: dict[str, dict[str, Any]] = {}

    def _path(self, request_hash: str) -> Path:
        return self.folder / (request_hash.replace(":", "-") + ".json")

    def save(self, request: Request, completion: Completion, provider: str) -> Path:
        record = {
            "request_hash": request.hash(),
            "turn_key": request.turn_key(),
            "provider": provider,
            "request": request.body(),
            "response": {
                "text": completion.text, "finish_reason": completion.finish_reason,
                "tokens_in": completion.tokens_in, "tokens_out": completion.tokens_out,
                "usage_reported": completion.usage_reported,
                "served_model": completion.served_model,
                "latency_seconds": round(completion.latency_seconds, 3),
            },
        }
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self._path(record["request_hash"])
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n",
                       encoding="utf-8")
        tmp.replace(path)
        self._by_hash = None
        return path

    def _load(self) -> dict[str, dict[str, Any]]:
        if self._by_hash is None:
            self._by_hash, self._by_turn = {}, {}
            for path in sorted(self.folder.glob("sha256-*.json")):
                try:
                    record = json.loads(path.read_text(encoding="utf-8"))
                    self._by_hash[record["request_hash"]] = record
                    self._by_turn.setdefault(record["turn_key"], record)
                except (ValueError, KeyError, TypeError) as err:
                    raise ConfigError(f"{path}: not a gnncb recording: {err}") from None
        return self._by_hash

    def lookup(self, request: Request, *, allow_turn: bool = True
               ) -> tuple[dict[str, Any], str] | None:
        by_hash = self._load()
        record = by_hash.get(request.hash())
        if record is not None:
            return record, "exact"
        if allow_turn and request.turn_key() in self._by_turn:
            return self._by_turn[request.turn_key()], "turn"
        return None

    def __len__(self) -> int:
        return len(self._load())


class RecordingProvider:
    """Wraps a live provider and saves every exchange for later replay."""

    def __init__(self, inner: Provider, store: RecordingStore) -> None:
        self.inner, self.store = inner, store
        self.label = inner.label

    def complete(self, request: Request) -> Completion:
        completion = self.inner.complete(request)
        self.store.save(request, completion, self.inner.label)
        return completion


class ReplayProvider:
    """Serves recorded responses; never touches the network."""

    def __init__(self, store: RecordingStore, *, strict: bool = False) -> None:
        self.store, self.strict = store, strict
        self.label = "replay"

    def complete(self, request: Request) -> Completion:
        started = time.monotonic()
        found = self.store.lookup(request, allow_turn=not self.strict)
        if found is None:
            turn = len(request.messages)
            raise ProviderError(
                f"no recorded response in {self.store.folder} for model {request.model!r}, "
                f"message {turn} (request {request.hash()[:19]}…); record it first with "
                "`gnncb llm run --provider openai --record DIR`"
                + ("" if self.strict else " (no approximate turn match either)"))
        record, match = found
        response = record["response"]
        return Completion(
            text=response["text"], finish_reason=response.get("finish_reason"),
            tokens_in=int(response.get("tokens_in", 0)),
            tokens_out=int(response.get("tokens_out", 0)),
            latency_seconds=time.monotonic() - started,
            served_model=response.get("served_model", request.model),
            request_hash=request.hash(), usage_reported=bool(response.get("usage_reported")),
            replay_match=match)


def conversation(messages: Sequence[Mapping[str, str]]) -> tuple[Mapping[str, str], ...]:
    """An immutable copy of a message list, for a Request."""
    return tuple({"role": m["role"], "content": m["content"]} for m in messages)
