"""One run of one model on one competition: setup, per-attempt logging, sealing, summary.

Why shared by the API loop and the agent mode: GNN-CB requires both modes to "consume identical
repository information, enforce the same execution constraints, and submit through the same
automated hidden-test pipeline". Both therefore get the same prompt, limits, sandbox check,
attempt log layout, feedback wording and sealing from this one place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.competition.spec import CompetitionSpec, load_spec
from evaluator.errors import ConfigError
from evaluator.llm import taxonomy
from evaluator.llm.conversation import caveats, overflow_failure, token_totals
from evaluator.llm.costs import PriceTable, cost_of
from evaluator.llm.datasummary import public_data_files
from evaluator.llm.execute import Check, LimitOverrides, normalize, run_limits_for
from evaluator.llm.parse import MISSING_CODE, TRUNCATED, Parsed
from evaluator.llm.prompt import Prompt, Variant, get_variant, render_feedback, render_prompt
from evaluator.llm.providers import Completion
from evaluator.llm.runlog import (
    ATTEMPT_RECORD,
    ERROR,
    SEALED,
    attempt_dir,
    now_iso,
    run_dir,
    start_run,
    write_json,
    write_summary,
    write_text,
)
from evaluator.llm.slots import fill_slots
from evaluator.llm.submit import (
    check_llm_participant,
    make_metadata,
    participant_for,
    seal_run,
)
from evaluator.sandbox import (
    Isolation,
    Limits,
    SandboxError,
    SandboxResult,
    SandboxUnavailable,
    detect_isolation,
    remove_tree,
    scrub_tree,
)
from evaluator.submission import keys
from evaluator.submission.seal import Checked

MAX_REPAIRS = 5  # GNN-CB: k <= 5
FEEDBACK_STDERR_LINES, FEEDBACK_STDERR_CHARS = 50, 6000
FEEDBACK_STDOUT_LINES, FEEDBACK_STDOUT_CHARS = 20, 2000

Echo = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


@dataclass(frozen=True)
class RunOptions:
    """Everything about a run except the model, the competition and the provider."""

    public_key_pem: bytes
    campaign: str = "adhoc"
    runs_root: Path = Path("runs")
    variant: str = "frozen"
    repairs: int = MAX_REPAIRS
    limits: LimitOverrides = field(default_factory=LimitOverrides)
    require_sandbox: bool = True
    keep_workspaces: bool = False
    prices: PriceTable | None = None
    participant: str | None = None
    libraries: tuple[tuple[str, str], ...] | None = None  # None: detect what is installed
    python: str | None = None  # the Python version the prompt states (None: this one)
    context_tokens: int | None = None  # the model's context window, when known (--context-tokens)
    # The ledger the run will be scored into: its rows decide eligibility (phase, LLM quota)
    # BEFORE the model is called, so a run over its quota costs nothing.
    ledger: Path | None = None
    # End the loop at an answer that repeats an earlier one byte for byte (--stop-on-repeat).
    # Off by default: GNN-CB runs up to k repairs, and the conversation has grown by the time
    # an answer repeats, so a later answer may differ.
    stop_on_repeat: bool = False


def tail(text: str, lines: int, chars: int) -> str:
    kept = "\n".join(text.rstrip().splitlines()[-lines:])
    return kept[-chars:]


def limit_phrase(completion: Completion | None, max_tokens: int | None) -> str:
    """" of N tokens", naming the limit the server actually applied when it clamped ours."""
    if completion is not None:
        applied, clamped = completion.output_limit
        if clamped:
            asked = completion.max_tokens_requested
            return (f" of {applied} tokens that the server applied ({asked} were requested; "
                    "the server lowered it, e.g. to fit its context)")
        return f" of {completion.max_tokens_requested} tokens"
    return f" of {max_tokens} tokens" if max_tokens else ""


def no_code_text(parsed: Parsed) -> str:
    found = f" ({parsed.reason})" if parsed.reason else ""
    return (f"the answer contained no runnable Python program{found}: put the complete "
            "program in a ```python fence inside <code>...</code>; nothing was run")


def outcome_text(parsed: Parsed | None, result: SandboxResult | None, check: Check | None,
                 limits: Limits, max_tokens: int | None,
                 completion: Completion | None = None) -> str:
    """One sentence for the model and the log: how the attempt ended."""
    if parsed is not None and parsed.status == MISSING_CODE:
        return no_code_text(parsed)
    if parsed is not None and parsed.status == TRUNCATED:
        limit = limit_phrase(completion, max_tokens)
        return (f"the answer was cut off at the output limit{limit} before the code was "
                "complete, so nothing was run; answer with a shorter, complete program")
    assert result is not None
    reason = result.exit_reason
    if reason == "timeout":
        return f"stopped at the wall-clock limit of {limits.wall_seconds:g} seconds"
    if reason == "cpu":
        return f"stopped at the CPU-time limit of {limits.cpu_seconds:g} seconds"
    if reason == "memory":
        mib = (limits.memory_bytes or 0) / 1024**2
        return f"ran out of memory (limit {mib:.0f} MiB)"
    if reason == "quota":
        mib = (limits.workspace_bytes or 0) / 1024**2
        return (f"filled its workspace quota ({mib:.0f} MiB, {limits.workspace_inodes:,} files);"
                " writes failed")
    if reason == "killed":
        return f"killed by signal {-(result.returncode or 0)}"
    if reason == "error":
        return f"exited with code {result.returncode}"
    if check is not None and not check.valid:
        return "finished, but predictions.csv is missing or invalid"
    return "finished with a valid predictions.csv"


@dataclass
class Session:
    competition: Path
    spec: CompetitionSpec
    model: str
    entrant: str
    provider: str
    options: RunOptions
    limits: Limits
    isolation: Isolation
    run: Path
    variant: Variant
    prompt: Prompt
    participant: str
    echo: Echo
    max_tokens: int | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def max_attempts(self) -> int:
        return 1 + self.options.repairs

    def feedback(self, index: int, parsed: Parsed | None, result: SandboxResult | None,
                 check: Check | None, workspace: Path,
                 completion: Completion | None = None) -> str:
        stderr = normalize(result.stderr_tail, workspace) if result else ""
        stdout = normalize(result.stdout_tail, workspace) if result else ""
        validation = ""
        if result is not None and result.exit_reason == "ok" and check and not check.valid:
            validation = check.message
        return render_feedback(
            self.variant, attempt=index, max_attempts=self.max_attempts,
            outcome=outcome_text(parsed, result, check, self.limits, self.max_tokens,
                                 completion),
            validation=validation,
            stderr=tail(stderr, FEEDBACK_STDERR_LINES, FEEDBACK_STDERR_CHARS),
            stdout=tail(stdout, FEEDBACK_STDOUT_LINES, FEEDBACK_STDOUT_CHARS))

    def record_attempt(self, index: int, *, prompt: str, completion: Completion | None,
                       parsed: Parsed | None, code: str | None, result: SandboxResult | None,
                       check: Check | None, workspace: Path, trimmed_turns: int = 0,
                       repeat_of: dict[str, Any] | None = None) -> dict[str, Any]:
        """Write attempt-<i>/ and return its record (also kept for the summary)."""
        folder = attempt_dir(self.run, index)
        write_text(folder / "prompt.md", prompt)
        if completion is not None:
            write_text(folder / "response.md", completion.text)
        if parsed is not None:
            write_text(folder / "plan.md", parsed.plan)
        if code is not None:
            write_text(folder / "solution.py", code)
        if result is not None:
            write_text(folder / "stdout.txt", normalize(result.stdout_tail, workspace))
            write_text(folder / "stderr.txt", normalize(result.stderr_tail, workspace))
        if check is not None and check.data is not None:
            (folder / "predictions.csv").write_bytes(check.data)
        valid = bool(result and result.exit_reason == "ok" and check and check.valid)
        failure = taxonomy.classify_attempt(
            parse_status=parsed.status if parsed else "ok",
            exit_reason=result.exit_reason if result else None,
            stderr=normalize(result.stderr_tail, workspace) if result else "",
            check_message=check.message if check else "", valid=valid)
        failure_dict = failure.as_dict() if failure else None
        if repeat_of is None:
            outcome = outcome_text(parsed, result, check, self.limits, self.max_tokens,
                                   completion)
        else:  # not run again: the earlier attempt's outcome stands
            failure_dict = repeat_of.get("failure")
            outcome = (f"the same {'program' if code else 'answer'} as attempt "
                       f"{repeat_of['index']}, byte for byte: {repeat_of['outcome']}; not run "
                       "again, and the loop stops (repeated answer)")
        applied, clamped = completion.output_limit if completion else (None, False)
        tokens_in = completion.tokens_in if completion else 0
        tokens_out = completion.tokens_out if completion else 0
        record: dict[str, Any] = {
            "index": index,
            "repair": index - 1,
            "parse_status": parsed.status if parsed else None,
            "code_source": parsed.code_source if parsed else None,
            "exit_reason": result.exit_reason if result else None,
            "returncode": result.returncode if result else None,
            "wall_seconds": round(result.wall_seconds, 3) if result else None,
            "cpu_seconds": round(result.cpu_seconds, 3) if result else None,
            "peak_rss_bytes": result.peak_rss_bytes if result else None,
            "memory_mechanism": result.memory_mechanism if result else None,
            "valid": valid,
            "check": (check.message if check and not check.valid else
                      (f"valid: {check.rows} rows" if check else None)),
            "outcome": outcome,
            "failure": failure_dict,
            "repeat_of": repeat_of["index"] if repeat_of else None,
            "trimmed_turns": trimmed_turns,
            "tokens_in": tokens_in,
            "tokens_out": tokens_out,
            "cached_tokens": completion.cached_tokens if completion else None,
            "max_tokens_requested": completion.max_tokens_requested if completion else None,
            "max_tokens_applied": applied,
            "max_tokens_clamped": clamped,
            "max_tokens_param": completion.max_tokens_param if completion else None,
            "usage_reported": completion.usage_reported if completion else None,
            "latency_seconds": round(completion.latency_seconds, 3) if completion else None,
            "finish_reason": completion.finish_reason if completion else None,
            "served_model": completion.served_model if completion else None,
            "request_hash": completion.request_hash if completion else None,
            "replay_match": completion.replay_match if completion else None,
            "provider_notes": list(completion.notes) if completion else [],
            "cost_usd": cost_of(self.options.prices, self.model, tokens_in, tokens_out),
            "isolation": self.isolation.level,
            # what held besides the namespaces in this run (filter, cgroup namespace, /proc)
            "hardening": result.hardening if result is not None else None,
            "finished_at": now_iso(),
        }
        write_json(folder / ATTEMPT_RECORD, record)
        self.attempts.append(record)
        where = f"attempt {index}/{self.max_attempts}"
        self.echo(f"  {where}: {record['outcome']}"
                  + (f" [{failure_dict['mode']}]" if failure_dict else ""))
        return record

    def record_overflow(self, index: int, *, prompt: str, message: str,
                        trimmed_turns: int = 0) -> dict[str, Any]:
        """The conversation outgrew the model's context before attempt `index` was answered:
        an attempt without an answer, failure mode `context_overflow` (the model's)."""
        folder = attempt_dir(self.run, index)
        write_text(folder / "prompt.md", prompt)
        record: dict[str, Any] = {
            "index": index, "repair": index - 1, "parse_status": None, "code_source": None,
            "exit_reason": None, "returncode": None, "wall_seconds": None,
            "cpu_seconds": None, "peak_rss_bytes": None, "valid": False, "check": None,
            "outcome": f"not answered: {message}",
            "failure": overflow_failure(message, attempt=index), "repeat_of": None,
            "trimmed_turns": trimmed_turns, "called": False,
            "tokens_in": 0, "tokens_out": 0, "usage_reported": None, "latency_seconds": None,
            "finish_reason": None, "served_model": None, "request_hash": None,
            "replay_match": None, "provider_notes": [], "cost_usd": None,
            "isolation": self.isolation.level, "finished_at": now_iso()}
        write_json(folder / ATTEMPT_RECORD, record)
        self.attempts.append(record)
        self.echo(f"  attempt {index}/{self.max_attempts}: {record['outcome']} "
                  "[context_overflow]")
        return record

    def describe_protocol(self, *, temperature: float, max_tokens: int, seed: int | None,
                          served: dict[str, Any] | None, local: bool | None) -> None:
        """Decoding, endpoint facts and reproducibility caveats, for the run record (w12's
        protocol conformance reads these)."""
        self.summary["decoding"] = {"temperature": temperature, "max_tokens": max_tokens,
                                    "seed": seed}
        self.summary["served_model_check"] = served
        self.summary["endpoint"] = {"loopback": local}

    def discard_workspace(self, workspace: Path) -> None:
        """Delete the workspace, or with --keep-workspaces scrub it: model code may have left
        symlinks to host files there, which a later reader (an artifact upload, a reviewer's
        editor) would follow."""
        if not workspace.exists():
            return
        if not self.options.keep_workspaces:
            remove_tree(workspace)
            return
        scrub_tree(workspace)

    def discard_after_error(self, workspace: Path | None) -> None:
        """On any exception: the workspace goes (or is scrubbed) before the run folder keeps
        it. Why: an error used to leave it as the run left it, with links to a hidden label
        file, the deployment key or /proc/self/environ, in `runs/`, which the campaign
        workflow uploads as an artifact (upload-artifact follows links). Never raises: the
        error being handled is the one to report; a workspace that cannot be removed is
        scrubbed, and one that cannot be scrubbed either is named in a warning."""
        if workspace is None:
            return
        try:
            self.discard_workspace(workspace)
        except Exception as first:  # noqa: BLE001 - the original error is the one reported
            try:
                scrub_tree(workspace)
            except Exception as exc:  # noqa: BLE001
                self.echo(f"  warning: could not clean the workspace {workspace}: {first}; "
                          f"{exc}")

    def _totals(self) -> dict[str, Any]:
        costs = [a["cost_usd"] for a in self.attempts if a["cost_usd"] is not None]
        return {
            "attempts": len(self.attempts),
            **token_totals(self.attempts),
            **self._protocol_facts(),
            "cost_usd": round(sum(costs), 6) if costs else None,
            "llm_latency_seconds": round(sum(a["latency_seconds"] or 0 for a in self.attempts),
                                         3),
            "exec_seconds": round(sum(a["wall_seconds"] or 0 for a in self.attempts), 3),
            "attempt_log": [{k: a.get(k) for k in ("index", "parse_status", "exit_reason",
                                                    "valid", "failure", "replay_match",
                                                    "repeat_of", "trimmed_turns")}
                            for a in self.attempts],
        }

    def _protocol_facts(self) -> dict[str, Any]:
        return protocol_facts(self.summary, self.attempts)

    def finish(self, predictions: Checked | None) -> dict[str, Any]:
        """Seal the valid predictions (status `sealed`) or record the failure (`failed`)."""
        self.summary.update(self._totals(), finished_at=now_iso())
        if predictions is None:
            last = self.attempts[-1] if self.attempts else {}
            self.summary.update(
                status="failed", repair_depth=None,
                failure={**(last.get("failure") or {"mode": "other_code_error",
                                                    "evidence": "no attempt"}),
                         "reason": f"no valid predictions after {len(self.attempts)} "
                                   f"attempt(s)"})
            write_summary(self.run, self.summary)
            self.echo(f"  failed: {self.summary['failure']['mode']}")
            return self.summary
        depth = len(self.attempts) - 1
        public = keys.load_public_key(self.options.public_key_pem)
        meta = make_metadata(
            participant=self.participant, entrant=self.entrant, model=self.model,
            provider=self.provider, repair_depth=depth, tokens_in=self.summary["tokens_in"],
            tokens_out=self.summary["tokens_out"], template_hash=self.prompt.template_hash,
            variant=self.variant.name, campaign=self.options.campaign,
            isolation_level=self.isolation.level, sandboxed=self.isolation.sandboxed,
            protocol=self._protocol_record())
        seal_run(self.run, predictions, public, meta)
        self.summary.update(status=SEALED, repair_depth=depth, failure=None)
        write_summary(self.run, self.summary)
        self.echo(f"  sealed after {len(self.attempts)} attempt(s)")
        return self.summary

    def _protocol_record(self) -> dict[str, Any]:
        """What the ledger row keeps of the protocol (metadata.LLMRun's protocol facts)."""
        limits = self.options.limits
        overrides = {name: float(value) for name in ("wall_seconds", "cpu_seconds",
                                                     "memory_bytes")
                     if (value := getattr(limits, name, None)) is not None}
        decoding = {k: v for k, v in (self.summary.get("decoding") or {}).items()
                    if v is None or isinstance(v, float | int | bool | str)}
        return {"decoding": decoding or None, "repairs_allowed": self.options.repairs,
                "calls": len([a for a in self.attempts if a.get("called", True)]),
                "limit_overrides": overrides,
                "caveats": [str(c)[:200] for c in self.summary.get("caveats") or []] or None,
                "model_listed": (self.summary.get("served_model_check") or {}).get("verified"),
                "stop_on_repeat": True if self.options.stop_on_repeat else None}

    def error(self, err: Exception) -> dict[str, Any]:
        """A platform or provider problem: recorded as `error`, retried by a resumed
        campaign, never counted as the model's failure."""
        kind = "sandbox" if isinstance(err, SandboxError) else "provider"
        self.summary.update(self._totals(), status=ERROR, error=str(err), error_kind=kind,
                            finished_at=now_iso())
        write_summary(self.run, self.summary)
        self.echo(f"  error: {str(err).splitlines()[0]}")
        return self.summary


def protocol_facts(summary: dict[str, Any], attempts: list[dict[str, Any]]) -> dict[str, Any]:
    """Per run: the output limits the server applied, repairs used, stop reason, caveats."""
    decoding = dict(summary.get("decoding") or {})
    applied = [a.get("max_tokens_applied") for a in attempts
               if a.get("max_tokens_applied") is not None]
    clamped = any(a.get("max_tokens_clamped") for a in attempts)
    params = sorted({a["max_tokens_param"] for a in attempts if a.get("max_tokens_param")})
    notes = sorted({n for a in attempts for n in a.get("provider_notes") or []})
    decoding.update(max_tokens_applied=min(applied) if clamped else decoding.get("max_tokens"),
                    max_tokens_param=params[0] if len(params) == 1 else
                    (params or ["max_tokens"])[0],
                    seed_sent=decoding.get("seed") is not None and not any(
                        "seed" in n for n in notes))
    repeat = next((a for a in attempts if a.get("repeat_of")), None)
    overflow = next((a for a in attempts if (a.get("failure") or {}).get("mode")
                     == "context_overflow"), None)
    stop = ("repeated_answer" if repeat else "context_overflow" if overflow else
            "valid" if attempts and attempts[-1].get("valid") else
            "budget" if attempts else None)
    trimmed = any(a.get("trimmed_turns") for a in attempts)
    facts: dict[str, Any] = {
        "decoding": decoding,
        "repairs_used": max(0, len([a for a in attempts if a.get("called", True)]) - 1),
        "stop_reason": stop,
        "provider_notes": notes,
    }
    if "temperature" in decoding:
        facts["caveats"] = caveats(
            temperature=decoding["temperature"], seed=decoding.get("seed"),
            seed_sent=decoding["seed_sent"], served=summary.get("served_model_check"),
            clamped=clamped, trimmed=trimmed, max_tokens_param=decoding["max_tokens_param"],
            local=(summary.get("endpoint") or {}).get("loopback"))
    return facts


def check_isolation(require_sandbox: bool, echo: Echo) -> Isolation:
    isolation = detect_isolation()
    echo(f"isolation: {isolation.level} (mechanism {isolation.mechanism})"
         + ("" if isolation.sandboxed else ", NOT sandboxed")
         + (f"; {isolation.detail}" if isolation.detail else ""))
    if not isolation.sandboxed:
        if require_sandbox:
            raise SandboxUnavailable(
                f"refusing to run model-written code: this machine cannot sandbox it "
                f"({isolation.level}; {isolation.detail}). Run as root on Linux with "
                "util-linux `unshare`, or pass --allow-unsandboxed to run it UNISOLATED "
                "(recorded as such; never with real keys on the machine)")
        echo("WARNING: running model-written code WITHOUT a sandbox; the run is recorded as "
             f"isolation {isolation.level!r}, not sandboxed")
    return isolation


def begin(competition: Path, model: str, *, entrant: str, provider: str, options: RunOptions,
          echo: Echo | None = None, max_tokens: int | None = None) -> Session:
    """Validate, create the run folder, fill the slots and render the prompt."""
    echo = echo or _quiet
    if not 0 <= options.repairs <= MAX_REPAIRS:
        raise ConfigError(f"--repairs {options.repairs}: the protocol allows 0 to "
                          f"{MAX_REPAIRS} repairs (GNN-CB: k <= 5)")
    if not model.strip():
        raise ConfigError("--model is empty; give the model id, e.g. gpt-4o-mini")
    competition = Path(competition).resolve()
    spec = load_spec(competition)
    variant = get_variant(options.variant)
    isolation = check_isolation(options.require_sandbox, echo)
    limits = run_limits_for(spec, options.limits)
    participant = check_llm_participant(options.participant or participant_for(model, entrant))
    run = start_run(run_dir(options.runs_root, options.campaign, model, spec.slug))
    libraries = list(options.libraries) if options.libraries is not None else None
    slots = fill_slots(competition, spec, limits, libraries, readme=variant.readme,
                       python=options.python)
    prompt = render_prompt(variant, slots)
    write_text(run / "prompt.md", prompt.text)
    write_json(run / "slots.json", slots.as_dict())
    session = Session(competition=competition, spec=spec, model=model, entrant=entrant,
                      provider=provider, options=options, limits=limits, isolation=isolation,
                      run=run, variant=variant, prompt=prompt, participant=participant,
                      echo=echo, max_tokens=max_tokens)
    session.summary = {
        "schema": 1,
        "status": "running",
        "campaign": options.campaign,
        "model": model,
        "entrant": entrant,
        "provider": provider,
        "participant": participant,
        "slug": spec.slug,
        "competition_version": spec.version,
        "competition_dir": str(competition),
        "primary_score": spec.primary_score,
        "higher_is_better": spec.higher_is_better(spec.primary_score),
        "data_files": [p.relative_to(competition).as_posix()
                       for p in public_data_files(competition)],
        "prompt_variant": variant.name,
        "template_hash": prompt.template_hash,
        "prompt_hash": prompt.prompt_hash,
        "repairs_allowed": options.repairs,
        "stop_on_repeat": options.stop_on_repeat,
        "isolation": {"level": isolation.level, "mechanism": isolation.mechanism,
                      "sandboxed": isolation.sandboxed, "detail": isolation.detail},
        "limits": {"wall_seconds": limits.wall_seconds, "cpu_seconds": limits.cpu_seconds,
                   "memory_bytes": limits.memory_bytes},
        "started_at": now_iso(),
    }
    write_summary(run, session.summary)
    echo(f"{model} x {spec.slug}: {run}")
    return session
