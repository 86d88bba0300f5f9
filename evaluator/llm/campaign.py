"""Campaigns: every model x competition pair, in a process pool, resumable, scored at the end.

Why this split of work: pairs are independent and dominated by sandboxed training, so they run
in worker processes; scoring needs the private key and appends to the ledger, so it happens
only in the parent (workers never hold the key). A pair whose run folder already has a
finished summary is skipped, so an interrupted campaign is resumed by running the same command
again; `error` runs (provider down, sandbox setup failure) are retried. The campaign's
protocol (prompt variant, repair budget, decoding) is pinned in `campaign.json`, so a resumed
campaign cannot silently mix protocols.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from evaluator.competition.spec import load_spec
from evaluator.errors import ConfigError
from evaluator.llm.agent import AgentCommand, run_agent
from evaluator.llm.loop import Decoding, run_api
from evaluator.llm.prompt import get_variant
from evaluator.llm.providers import (
    DEFAULT_BASE_URL,
    DEFAULT_RETRIES,
    OpenAIProvider,
    Provider,
    RecordingProvider,
    RecordingStore,
    ReplayProvider,
    ScriptedProvider,
)
from evaluator.llm.replay import settings_record, write_settings
from evaluator.llm.runlog import (
    ERROR,
    FINISHED,
    SEALED,
    check_campaign_name,
    now_iso,
    read_summary,
    run_dir,
    write_json,
    write_summary,
)
from evaluator.llm.session import Echo, RunOptions, check_isolation

PROVIDER_KINDS = ("openai", "replay", "scripted", "agent")
CAMPAIGN_FILE = "campaign.json"


@dataclass(frozen=True)
class ProviderConfig:
    """How to build a provider inside a worker process (picklable; holds no secret: the API
    key is read from the environment variable named here, in the worker)."""

    kind: str = "openai"
    base_url: str = DEFAULT_BASE_URL
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float | None = None  # None: default_timeout(base_url)
    retries: int = DEFAULT_RETRIES
    record_dir: Path | None = None
    recordings_dir: Path | None = None
    strict_replay: bool = False
    agent: AgentCommand | None = None
    decoding: Decoding = field(default_factory=Decoding)
    # replay: this command's options that differ from the recordings' campaign.json, named
    # in the error when a request matches no recording
    replay_hints: tuple[str, ...] = ()
    allow_unlisted_model: bool = False  # call a model the endpoint does not list
    script: Path | None = None  # scripted: the file of answers

    def describe(self) -> dict[str, Any]:
        """What goes into campaign.json and reports (never the key itself)."""
        out: dict[str, Any] = {"kind": self.kind, "decoding": asdict(self.decoding)}
        if self.kind == "openai":
            out.update(base_url=self.base_url, api_key_env=self.api_key_env)
            if self.allow_unlisted_model:
                out.update(allow_unlisted_model=True)
        if self.kind == "scripted":
            out.update(script=str(self.script))
        if self.kind == "replay":
            out.update(recordings=str(self.recordings_dir), strict=self.strict_replay)
        if self.kind == "agent" and self.agent is not None:
            out.update(command=list(self.agent.argv))
        return out


def build_provider(config: ProviderConfig) -> Provider:
    if config.kind == "openai":
        provider: Provider = OpenAIProvider.from_env(
            config.base_url, config.api_key_env, timeout=config.timeout, retries=config.retries,
            allow_unlisted_model=config.allow_unlisted_model)
        if config.record_dir is not None:
            provider = RecordingProvider(provider, RecordingStore(config.record_dir))
        return provider
    if config.kind == "replay":
        if config.recordings_dir is None:
            raise ConfigError("--provider replay needs --recordings DIR (a folder written by "
                              "--record)")
        store = RecordingStore(config.recordings_dir)
        if not Path(config.recordings_dir).is_dir() or len(store) == 0:
            raise ConfigError(f"{config.recordings_dir}: no recordings found; record a campaign "
                              "first with --provider openai --record DIR")
        return ReplayProvider(store, strict=config.strict_replay, hints=config.replay_hints)
    if config.kind == "scripted":
        if config.script is None:
            raise ConfigError("--provider scripted needs --script FILE (a JSON or YAML list of "
                              "answers)")
        return ScriptedProvider(config.script)
    raise ConfigError(f"unknown provider {config.kind!r}; choose one of {PROVIDER_KINDS}")


def quota_refusal(competition: Path, model: str, entrant: str, options: RunOptions
                  ) -> dict[str, Any] | None:
    """A `rejected` summary when the ledger says this run could not be recorded (competition
    closed or not open, LLM quota used up); None when it may run. Checked before any model
    call: the same window and quota checks the pipeline makes when it scores."""
    if options.ledger is None:
        return None
    from evaluator.errors import Rejection
    from evaluator.ledger.store import Ledger
    from evaluator.llm.submit import check_llm_participant, participant_for
    from evaluator.pipeline.evaluate import preflight

    participant = check_llm_participant(options.participant or participant_for(model, entrant))
    try:
        preflight(competition, Ledger(options.ledger).rows(), participant, entrant=entrant)
    except Rejection as err:
        return {"status": "rejected", "model": model, "slug": load_spec(competition).slug,
                "participant": participant, "entrant": entrant, "attempts": 0,
                "model_calls": 0, "ledger": str(options.ledger),
                "rejection": {"code": err.code, "message": f"{err} (checked before calling "
                              "the model: nothing was spent)"}}
    return None


def run_pair(config: ProviderConfig, competition: Path, model: str, options: RunOptions,
             echo: Echo | None = None) -> dict[str, Any]:
    """One model on one competition with the configured provider; returns the run summary."""
    refusal = quota_refusal(Path(competition), model,
                            "llm-agent" if config.kind == "agent" else "llm-api", options)
    if refusal is not None:
        (echo or _print_err)(f"{model} x {refusal['slug']}: not run: "
                             f"{refusal['rejection']['message']}")
        return refusal
    if config.kind == "agent":
        if config.agent is None:
            raise ConfigError("--provider agent needs --agent-command")
        return run_agent(competition, model, config.agent, options, echo=echo)
    provider = build_provider(config)
    try:
        return run_api(competition, model, provider, options, decoding=config.decoding,
                       echo=echo)
    finally:
        inner = getattr(provider, "inner", provider)
        if isinstance(inner, OpenAIProvider):
            inner.close()


@dataclass(frozen=True)
class Pair:
    model: str
    competition: Path


def _protocol(config: ProviderConfig, options: RunOptions) -> dict[str, Any]:
    return {"prompt_variant": get_variant(options.variant).name, "repairs": options.repairs,
            "decoding": asdict(config.decoding), "entrant":
            "llm-agent" if config.kind == "agent" else "llm-api"}


def pin_campaign(config: ProviderConfig, options: RunOptions, models: Sequence[str],
                 competitions: Sequence[Path]) -> Path:
    """Write or check runs/<campaign>/campaign.json."""
    folder = Path(options.runs_root) / check_campaign_name(options.campaign)
    path = folder / CAMPAIGN_FILE
    protocol = _protocol(config, options)
    if path.is_file():
        pinned = json.loads(path.read_text(encoding="utf-8")).get("protocol")
        if pinned != protocol:
            raise ConfigError(f"{path} pins protocol {pinned}, this command asks for "
                              f"{protocol}; use another --campaign name to change the protocol")
    settings = campaign_settings(config, options, competitions)
    write_json(path, {"campaign": options.campaign, "protocol": protocol,
                      "settings": settings, "provider": config.describe(),
                      "models": list(models), "competitions": [str(c) for c in competitions],
                      "updated_at": now_iso()})
    record_settings(config, options, settings)
    return path


def campaign_settings(config: ProviderConfig, options: RunOptions,
                      competitions: Sequence[Path] = ()) -> dict[str, Any]:
    """Every option a replay needs to send the same requests (evaluator.llm.replay), and the
    commit the `competitions`' prompt slots are read from (evaluator.llm.provenance)."""
    from evaluator.llm.provenance import slots_commit
    from evaluator.llm.slots import installed_libraries

    limits = options.limits
    memory = limits.memory_bytes // 1024**2 if limits.memory_bytes is not None else None
    values = {"prompt": options.variant, "repairs": options.repairs,
              "temperature": config.decoding.temperature,
              "max_tokens": config.decoding.max_tokens, "seed": config.decoding.seed,
              "context_tokens": options.context_tokens, "wall_seconds": limits.wall_seconds,
              "cpu_seconds": limits.cpu_seconds, "memory_mb": memory}
    libraries = options.libraries if options.libraries is not None else installed_libraries()
    commit = slots_commit(competitions) if competitions else None
    return settings_record(values, libraries, options.python, commit)


def record_settings(config: ProviderConfig, options: RunOptions,
                    settings: dict[str, Any] | None = None,
                    competitions: Sequence[Path] = ()) -> Path | None:
    """With --record DIR: write DIR/campaign.json, so a replay of DIR needs no options."""
    if config.kind != "openai" or config.record_dir is None:
        return None
    return write_settings(config.record_dir, options.campaign,
                          settings or campaign_settings(config, options, competitions),
                          config.describe())


def plan(models: Sequence[str], competitions: Sequence[Path], options: RunOptions
         ) -> tuple[list[Pair], list[tuple[Pair, dict[str, Any]]]]:
    """(pairs to run, pairs already done with their summaries)."""
    pending, done = [], []
    for competition in competitions:
        slug = load_spec(competition).slug
        for model in models:
            pair = Pair(model, Path(competition))
            summary = read_summary(run_dir(options.runs_root, options.campaign, model, slug))
            if summary is not None and summary["status"] in (*FINISHED, SEALED):
                done.append((pair, summary))
            else:
                pending.append(pair)
    return pending, done


PLATFORM = "platform"  # error_kind of a run the platform lost (no summary, or interrupted)


def record_unfinished(campaign_dir: Path, models: Sequence[str], slugs: Sequence[str]
                      ) -> list[dict[str, Any]]:
    """Record every planned (model, competition) pair that has no finished run as a platform
    error, and return those summaries.

    Why: in the GitHub workflow each pair is a matrix job; a job that died before writing its
    summary (installation, lost runner, the 6-hour limit) leaves no run folder at all, and one
    killed mid-run leaves a summary still `running`. Neither is the model's failure (that is
    status `failed`, written by the loop), and neither may vanish from the report: both become
    status `error` with `error_kind: platform`, which `gnncb llm report` lists as a platform
    error and `gnncb results` does not count against the model. A run already `error` (provider
    or sandbox problem, written by the run itself) is kept as it is.
    """
    campaign_dir = Path(campaign_dir)
    recorded = []
    for slug in slugs:
        for model in models:
            run = run_dir(campaign_dir.parent, campaign_dir.name, model, slug)
            summary = read_summary(run)
            if summary is not None and summary.get("status") != "running":
                continue
            if summary is None:
                why = ("the matrix job for this pair left no run folder: it failed before the "
                       "run started or before uploading it (installation, runner, time limit)")
                summary = {"schema": 1, "campaign": campaign_dir.name, "model": model,
                           "slug": slug}
            else:
                why = (f"the run started at {summary.get('started_at', '?')} never finished: "
                       "its job was stopped (runner lost, time limit or cancelled)")
            summary.update(status=ERROR, error_kind=PLATFORM, finished_at=now_iso(),
                           error=why)
            write_summary(run, summary)
            recorded.append(summary)
    return recorded


def progress_line(done: int, total: int, summary: dict[str, Any], width: int = 20) -> str:
    filled = width * done // max(total, 1)
    bar = "[" + "#" * filled + "." * (width - filled) + f"] {done}/{total}"
    what = f"{summary.get('model')} x {summary.get('slug')}"
    status = summary.get("status", "?")
    detail = ""
    if status == "scored" and summary.get("scores"):
        primary = summary.get("primary_score")
        value = summary["scores"].get(primary)
        detail = f" {primary}={value:.4f}" if isinstance(value, float) else ""
    elif status == "failed" and summary.get("failure"):
        detail = f" ({summary['failure'].get('mode')})"
    elif status in ("error", "rejected"):
        reason = summary.get("error") or (summary.get("rejection") or {}).get("message", "")
        detail = f" ({str(reason).splitlines()[0][:120]})" if reason else ""
    attempts = f", {summary['attempts']} attempt(s)" if summary.get("attempts") else ""
    return f"{bar} {what}: {status}{detail}{attempts}"


def _print_err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run_campaign(models: Sequence[str], competitions: Sequence[Path], config: ProviderConfig,
                 options: RunOptions, *, workers: int = 1,
                 scorer: Callable[[Path], dict[str, Any]] | None = None,
                 echo: Echo | None = None) -> list[dict[str, Any]]:
    """Run every missing pair, score sealed runs with `scorer`, return all summaries."""
    echo = echo or _print_err
    if not models or not competitions:
        raise ConfigError("a campaign needs at least one model and one competition")
    if workers < 1:
        raise ConfigError(f"--workers {workers}: need at least 1")
    check_isolation(options.require_sandbox, echo)
    pin_campaign(config, options, models, competitions)
    pending, done = plan(models, competitions, options)
    total = len(pending) + len(done)
    echo(f"campaign {options.campaign}: {total} pair(s), {len(done)} already done, "
         f"{len(pending)} to run with {workers} worker(s)")
    results: list[dict[str, Any]] = []
    count = 0

    def finished(pair: Pair, summary: dict[str, Any]) -> None:
        nonlocal count
        if summary.get("status") == SEALED and scorer is not None:
            slug = summary["slug"]
            summary = scorer(run_dir(options.runs_root, options.campaign, pair.model, slug))
        count += 1
        results.append(summary)
        echo(progress_line(count, total, summary))

    for pair, summary in done:
        finished(pair, summary)
    if workers == 1 or len(pending) <= 1:
        for pair in pending:
            finished(pair, _guarded(config, pair, options))
        return results
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(_guarded, config, pair, options): pair for pair in pending}
        for future in as_completed(futures):
            finished(futures[future], future.result())
    return results


def _guarded(config: ProviderConfig, pair: Pair, options: RunOptions) -> dict[str, Any]:
    """run_pair for a pool: a configuration problem of one pair becomes an `error` summary
    instead of ending the campaign."""
    try:
        return run_pair(config, pair.competition, pair.model, options)
    except ConfigError as err:
        return {"status": ERROR, "model": pair.model, "slug": Path(pair.competition).name,
                "error": str(err)}
