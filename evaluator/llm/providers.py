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
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlparse

import httpx

from evaluator.errors import ConfigError

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MAX_TOKENS = 10_000  # GNN-CB: max_output_tokens = 10K per call
DEFAULT_TIMEOUT = 600.0
# A CPU-only local server (llama.cpp, 0.5B model, 1 thread) took 737 s for one answer.
LOCAL_TIMEOUT = 3600.0
LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1", "[::1]"}
DEFAULT_RETRIES = 3
RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
MAX_BACKOFF_SECONDS = 60.0
ERROR_EXCERPT = 500


class ProviderError(ConfigError):
    """The model could not be asked (network, authentication, a missing recording)."""


class ContextOverflow(ProviderError):
    """The conversation no longer fits the model's context window (the server said so).

    Not a platform error: the model's own answers and the feedback they earned filled the
    context, so loops record it as the model's `context_overflow` failure and keep the
    attempts before it."""

    def __init__(self, message: str, *, status: int, context_tokens: int | None = None
                 ) -> None:
        super().__init__(message)
        self.status = status
        self.context_tokens = context_tokens


# What servers say when a request outgrows the context: OpenAI `context_length_exceeded`
# ("maximum context length is N tokens"), llama-cpp-python ("Requested tokens (X) exceed
# context window of N"), vLLM/TGI ("... longer than the maximum model length"), llama.cpp.
_OVERFLOW = re.compile(r"context_length_exceeded|context window|context length|"
                       r"maximum model length|exceeds? (?:the )?(?:available )?context|n_ctx|"
                       r"prompt is too long|too many tokens|"
                       # llama.cpp when generation runs out of KV cache (HTTP 500)
                       r"llama_decode returned|kv cache|kv slot|memory slot", re.IGNORECASE)
_CONTEXT_SIZE = re.compile(r"(?:context window of|maximum context length is|context length "
                           r"(?:is|of)|n_ctx(?:_slot)?\s*[=:]?)\s*(\d+)", re.IGNORECASE)


def context_overflow_in(status: int, text: str) -> bool:
    """True when an error answer (400/413/500 and friends) is a context overflow."""
    return status in (400, 413, 422, 500) and bool(_OVERFLOW.search(text))


def context_size_in(text: str) -> int | None:
    """The context window an overflow message names, if it names one."""
    match = _CONTEXT_SIZE.search(text)
    return int(match.group(1)) if match else None


def is_loopback(base_url: str) -> bool:
    host = (urlparse(base_url).hostname or "").lower()
    return host in LOOPBACK_HOSTS or host.startswith("127.")


def default_timeout(base_url: str) -> float:
    """Seconds per call: hosted APIs answer in minutes at most; a local CPU server may need an
    hour for a long answer to a long conversation."""
    return LOCAL_TIMEOUT if is_loopback(base_url) else DEFAULT_TIMEOUT


def applied_output_limit(finish_reason: str | None, tokens_out: int, usage_reported: bool,
                         requested: int) -> tuple[int | None, bool]:
    """(limit the server applied, clamped?) from one answer.

    An answer that stopped for `length` after fewer tokens than requested was cut by a lower
    limit the server chose (llama.cpp clamps `max_tokens` to n_ctx - prompt silently): that
    count is the limit actually applied. Otherwise the requested limit is the only one known."""
    if finish_reason == "length" and usage_reported and 0 < tokens_out < requested:
        return tokens_out, True
    return requested, False


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
    max_tokens_requested: int = DEFAULT_MAX_TOKENS
    cached_tokens: int | None = None  # usage.prompt_tokens_details.cached_tokens, if reported
    max_tokens_param: str = "max_tokens"  # or "max_completion_tokens" after the server's 400

    @property
    def output_limit(self) -> tuple[int | None, bool]:
        """(the output limit the server applied, whether it clamped the requested one)."""
        return applied_output_limit(self.finish_reason, self.tokens_out, self.usage_reported,
                                    self.max_tokens_requested)


class Provider(Protocol):
    label: str  # recorded as metadata.llm.provider, e.g. "openai-compatible"

    def complete(self, request: Request) -> Completion: ...


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text[:ERROR_EXCERPT] + ("…" if len(text) > ERROR_EXCERPT else "")


def parse_chat_response(data: Any, request: Request, latency: float,
                        notes: tuple[str, ...] = (), max_tokens_param: str = "max_tokens"
                        ) -> Completion:
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
    details = usage.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return Completion(
        text=text, finish_reason=finish,
        tokens_in=int(tokens_in or 0), tokens_out=int(tokens_out or 0),
        latency_seconds=latency, served_model=str(data.get("model") or request.model),
        request_hash=request.hash(),
        usage_reported=tokens_in is not None and tokens_out is not None, notes=notes,
        max_tokens_requested=request.max_tokens,
        cached_tokens=int(cached) if isinstance(cached, int) else None,
        max_tokens_param=max_tokens_param)


class OpenAIProvider:
    """Any OpenAI-compatible `/chat/completions` endpoint (OpenAI, Together, vLLM, ...)."""

    label = "openai-compatible"

    def __init__(self, base_url: str = DEFAULT_BASE_URL, *, api_key: str = "",
                 timeout: float | None = None, retries: int = DEFAULT_RETRIES,
                 backoff_seconds: float = 2.0, transport: httpx.BaseTransport | None = None,
                 allow_unlisted_model: bool = False) -> None:
        """`allow_unlisted_model`: call a model the endpoint's GET /models does not list
        (otherwise refused before the first call: the answers would be recorded under a name
        another model earned; such runs are marked outside the protocol)."""
        self.allow_unlisted_model = allow_unlisted_model
        self._checked_models: set[str] = set()
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        self.local = is_loopback(base_url)
        timeout = default_timeout(base_url) if timeout is None else timeout
        self.timeout = timeout
        self.retries = max(0, retries)
        self.backoff = max(0.0, backoff_seconds)
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        # The key lives only in this client's headers: never logged, never recorded.
        self._client = httpx.Client(timeout=timeout, headers=headers, transport=transport)
        self._seed_supported = True
        self._completion_param = "max_tokens"
        self._models: list[str] | None = None

    def models(self) -> list[str] | None:
        """Model ids the endpoint lists at GET /models (None when it lists none or fails)."""
        if self._models is None:
            try:
                response = self._client.get(self.base_url + "/models", timeout=30.0)
                data = response.json() if response.status_code == 200 else {}
                ids = [str(m.get("id")) for m in data.get("data", []) if isinstance(m, dict)]
            except (httpx.HTTPError, ValueError, AttributeError, TypeError):
                ids = []
            self._models = ids
        return self._models or None

    def check_served_model(self, model: str) -> dict[str, Any]:
        """Is `model` what the endpoint serves? The response's `model` field often just echoes
        the request (llama-cpp-python, vLLM with an alias), so GET /models is the check."""
        listed = self.models()
        if listed is None:
            return {"listed": None, "verified": None,
                    "note": "the endpoint lists no models (GET /models); the served model "
                            "could not be verified"}
        verified = model in listed or any(Path(m).name == model or Path(m).stem == model
                                          for m in listed)
        return {"listed": listed[:20], "verified": verified,
                "note": "" if verified else f"{model!r} is not among the models the endpoint "
                f"lists ({', '.join(listed[:5])}); the answers may come from another model"}

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

    def refuse_unlisted(self, model: str) -> None:
        """Refuse a model the endpoint lists others instead of (once per model and client);
        an endpoint that lists nothing cannot say, and is asked anyway (the run records that
        the model could not be verified)."""
        if model in self._checked_models or self.allow_unlisted_model:
            return
        check = self.check_served_model(model)
        if check["verified"] is False:
            raise ProviderError(
                f"model {model!r} is not among the models {self.base_url} lists "
                f"({', '.join(check['listed'][:5])}): its answers would be recorded as "
                f"{model!r}. Name a listed model, or pass --allow-unlisted-model to run "
                "anyway (the run and its ledger row are then marked outside the protocol: "
                "model not verified)")
        self._checked_models.add(model)

    def complete(self, request: Request) -> Completion:
        self.refuse_unlisted(request.model)
        body = request.body()
        notes: list[str] = []
        if not self._seed_supported:
            body.pop("seed", None)
        if self._completion_param != "max_tokens":
            body[self._completion_param] = body.pop("max_tokens")
        last_error = ""
        started = time.monotonic()
        failures = 0
        while failures <= self.retries:
            response = None
            try:
                response = self._client.post(self.url, json=body)
            except httpx.TimeoutException:
                last_error = (f"no answer within {self.timeout:g} s (--timeout); a local CPU "
                              "model can need longer for one answer, and the server keeps "
                              "generating an abandoned request, so a retry queues behind it: "
                              "raise --timeout or lower --max-tokens")
                if self.local:  # retrying would only wait behind the wasted generation
                    raise ProviderError(f"{self.url}: {last_error}") from None
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
                                               tuple(notes), self._completion_param)
                text = response.text
                if context_overflow_in(response.status_code, text):
                    raise ContextOverflow(
                        f"{self.url}: the conversation does not fit the model's context "
                        f"(HTTP {response.status_code}: {_excerpt(text)})",
                        status=response.status_code, context_tokens=context_size_in(text))
                if (response.status_code == 400 and "max_tokens" in body
                        and "max_completion_tokens" in text):
                    # Newer OpenAI models refuse max_tokens and name the replacement.
                    body["max_completion_tokens"] = body.pop("max_tokens")
                    self._completion_param = "max_completion_tokens"
                    notes.append("endpoint rejected 'max_tokens'; sent "
                                 "'max_completion_tokens' instead")
                    continue
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


class ScriptedProvider:
    """Answers read from a file, in order, one per model call: for dry runs of the whole
    loop (sandbox, checks, sealing, scoring) and for tests, without a model or a network
    (like inspect_ai's mockllm model). The file is JSON or YAML: a list of answers, or
    {"answers": [...]}; each answer is the model's full text (plan and fenced code).

    Runs made with it say so: the provider label is `scripted`, and the endpoint is recorded
    as not verified (there is no model behind it)."""

    label = "scripted"

    def __init__(self, path: Path) -> None:
        import yaml

        self.path = Path(path)
        try:
            data = yaml.safe_load(self.path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError, UnicodeDecodeError) as err:
            raise ConfigError(f"--script {path}: cannot read the scripted answers: {err}"
                              ) from None
        answers = data.get("answers") if isinstance(data, dict) else data
        if not isinstance(answers, list) or not answers or not all(
                isinstance(a, str) for a in answers):
            raise ConfigError(f"--script {path}: expected a list of answers (strings), or "
                              "{answers: [...]}, in JSON or YAML")
        self.answers = list(answers)
        self.calls = 0

    def complete(self, request: Request) -> Completion:
        if self.calls >= len(self.answers):
            raise ProviderError(f"--script {self.path}: holds {len(self.answers)} answer(s); "
                                f"call {self.calls + 1} asked for one more (add answers, or "
                                "end the script with a valid one)")
        text = self.answers[self.calls]
        self.calls += 1
        return Completion(text=text, finish_reason="stop", tokens_in=0, tokens_out=0,
                          latency_seconds=0.0, served_model=request.model,
                          request_hash=request.hash(), usage_reported=False,
                          max_tokens_requested=request.max_tokens)

    def check_served_model(self, model: str) -> dict[str, Any]:
        return {"listed": None, "verified": None,
                "note": f"scripted answers from {self.path}: no model was asked"}


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
                "cached_tokens": completion.cached_tokens,
                "max_tokens_param": completion.max_tokens_param,
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

    def records(self) -> list[dict[str, Any]]:
        return list(self._load().values())


class RecordingProvider:
    """Wraps a live provider and saves every exchange for later replay."""

    def __init__(self, inner: Provider, store: RecordingStore) -> None:
        self.inner, self.store = inner, store
        self.label = inner.label

    def complete(self, request: Request) -> Completion:
        completion = self.inner.complete(request)
        self.store.save(request, completion, self.inner.label)
        return completion

    def check_served_model(self, model: str) -> dict[str, Any]:
        return served_model_check(self.inner, model)


class ReplayProvider:
    """Serves recorded responses; never touches the network."""

    def __init__(self, store: RecordingStore, *, strict: bool = False,
                 hints: Sequence[str] = ()) -> None:
        """`hints`: this replay's options that differ from the recordings' campaign.json."""
        self.store, self.strict, self.hints = store, strict, tuple(hints)
        self.label = "replay"

    def complete(self, request: Request) -> Completion:
        from evaluator.llm.replay import explain_miss

        started = time.monotonic()
        found = self.store.lookup(request, allow_turn=not self.strict)
        if found is None:
            turn = len(request.messages)
            hints = (f"; options differing from the recordings' campaign.json: "
                     f"{', '.join(self.hints)}" if self.hints else "")
            raise ProviderError(
                f"no recorded response in {self.store.folder} for model {request.model!r}, "
                f"message {turn} (request {request.hash()[:19]}…)"
                + ("" if self.strict else " (no approximate turn match either)")
                + f"; {explain_miss(request.body(), self.store.records())}{hints}. Replay "
                "with the recorded settings (drop the differing option), or record it first "
                "with `gnncb llm run --provider openai --record DIR`")
        record, match = found
        response = record["response"]
        return Completion(
            text=response["text"], finish_reason=response.get("finish_reason"),
            tokens_in=int(response.get("tokens_in", 0)),
            tokens_out=int(response.get("tokens_out", 0)),
            latency_seconds=time.monotonic() - started,
            served_model=response.get("served_model", request.model),
            request_hash=request.hash(), usage_reported=bool(response.get("usage_reported")),
            replay_match=match, max_tokens_requested=request.max_tokens,
            cached_tokens=response.get("cached_tokens"),
            max_tokens_param=response.get("max_tokens_param", "max_tokens"))

    def check_served_model(self, model: str) -> dict[str, Any]:
        return {"listed": None, "verified": None, "note": "replayed: no endpoint to ask"}


def served_model_check(provider: Any, model: str) -> dict[str, Any] | None:
    """What the provider can say about the model it serves (None: nothing to ask)."""
    check = getattr(provider, "check_served_model", None)
    return check(model) if check is not None else None


def conversation(messages: Sequence[Mapping[str, str]]) -> tuple[Mapping[str, str], ...]:
    """An immutable copy of a message list, for a Request."""
    return tuple({"role": m["role"], "content": m["content"]} for m in messages)
