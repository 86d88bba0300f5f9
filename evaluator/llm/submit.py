"""Turn an LLM run's valid predictions into a submission and score it like a human's.

Why seal and then evaluate, instead of scoring the plaintext directly: the LLM track must have
no special scoring path. Its predictions are encrypted with the platform public key, described
by an ordinary `metadata.json` (entrant `llm-api` / `llm-agent`, model id, the `llm` facts) and
evaluated by `pipeline.evaluate.evaluate_dir` — the function behind `gnncb evaluate` and the
pull-request workflow. Sealing and scoring are separate steps so that machines that run
untrusted code (matrix jobs) never need the private key; a final job scores.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator.competition.spec import SLUG_RE
from evaluator.errors import ConfigError, Rejection
from evaluator.ledger.store import Ledger
from evaluator.llm.runlog import SEALED, now_iso, read_summary, write_summary
from evaluator.paths import find_root
from evaluator.pipeline.evaluate import evaluate_dir
from evaluator.submission.files import ENVELOPE_NAME, METADATA_NAME
from evaluator.submission.identity import entrant_of, platform_participant
from evaluator.submission.metadata import LLMRun, Metadata, parse_metadata
from evaluator.submission.seal import Checked, write_submission

SUBMISSION_DIR = "submission"
MAX_NAME = 64
LLM_PREFIXES = ("llm:", "agent:")


def participant_for(model: str, entrant: str) -> str:
    """A ledger participant name for a model: `llm:<model>` or `agent:<model>`, a namespace
    no GitHub login can take (evaluator.submission.identity)."""
    body = re.sub(r"[^a-z0-9._-]+", "-", model.lower()).strip("-._") or "model"
    if len(body) > MAX_NAME:
        digest = hashlib.sha256(model.encode("utf-8")).hexdigest()[:6]
        body = body[:MAX_NAME - 7].rstrip("-._") + "-" + digest
    return platform_participant("llm-agent" if entrant == "llm-agent" else "llm-api", body)


def make_metadata(*, participant: str, entrant: str, model: str, provider: str,
                  repair_depth: int, tokens_in: int, tokens_out: int, template_hash: str,
                  variant: str, campaign: str, isolation_level: str,
                  sandboxed: bool, protocol: dict[str, Any] | None = None) -> Metadata:
    """`protocol`: decoding, repairs_allowed, calls, limit_overrides, caveats (LLMRun)."""
    mode = "agent" if entrant == "llm-agent" else "plan-then-code"
    where = (f"CPU-only sandbox (isolation {isolation_level})" if sandboxed
             else f"CPU-only, NOT sandboxed (isolation {isolation_level})")
    return Metadata(
        participant=participant,
        entrant=entrant,  # type: ignore[arg-type]
        method=f"gnncb LLM track: {variant}, {mode}, execute-and-repair",
        model=model[:200],
        hardware=f"{where}, {os.cpu_count()} cores"[:200],
        notes=f"campaign {campaign}; template {template_hash}",
        llm=LLMRun(provider=provider[:200], repair_depth=repair_depth, tokens_in=tokens_in,
                   tokens_out=tokens_out, prompt_hash=template_hash, prompt_variant=variant,
                   campaign=campaign, isolation=isolation_level[:200], sandboxed=sandboxed,
                   **(protocol or {})),
    )


def seal_run(run: Path, checked: Checked, public_key: rsa.RSAPublicKey, meta: Metadata) -> Path:
    """Write `submission/predictions.csv.enc` + `metadata.json` with `gnncb encrypt`'s writer,
    sealing the bytes the run's check validated."""
    folder = Path(run) / SUBMISSION_DIR
    write_submission(checked, public_key, meta, folder / ENVELOPE_NAME)
    return folder


def _competition_for(summary: Mapping[str, Any], override: Path | None) -> Path:
    if override is not None:
        return Path(override)
    recorded = Path(summary.get("competition_dir", ""))
    if recorded.is_dir() and (recorded / "competition.yaml").is_file():
        return recorded
    found = find_root()
    fallback = (found.path if found else Path.cwd()) / "competitions" / summary["slug"]
    if found is not None and fallback.is_dir():
        return fallback
    raise ConfigError(f"competition {summary['slug']!r} not found at {recorded} or {fallback}; "
                      "pass --competitions")


def score_run(run: Path, private_keys: Mapping[str, rsa.RSAPrivateKey], ledger: Ledger | None,
              *, competitions_root: Path | None = None,
              rows_out: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Evaluate a sealed run through the pipeline and record the outcome in its summary
    (and the ledger row in `rows_out`). Runs in any other state are returned unchanged."""
    summary = read_summary(run)
    if summary is None:
        raise ConfigError(f"{run}: no summary.json; not an LLM run folder")
    if summary["status"] != SEALED:
        return summary
    if competitions_root is not None and not re.fullmatch(SLUG_RE, str(summary.get("slug"))):
        raise ConfigError(f"{run}: summary.json names competition {summary.get('slug')!r}, "
                          "not a competition slug")
    competition = _competition_for(
        summary, competitions_root / summary["slug"] if competitions_root else None)
    try:
        _check_llm_identity(Path(run) / SUBMISSION_DIR, summary["participant"])
        outcome = evaluate_dir(competition, Path(run) / SUBMISSION_DIR,
                               participant=summary["participant"], keys=private_keys,
                               ledger=ledger)
    except Rejection as err:
        summary.update(status="rejected", rejection={"code": err.code, "message": str(err)},
                       scored_at=now_iso())
    else:
        summary.update(status="scored", scores=outcome.scores, duplicate=outcome.duplicate,
                       digest=outcome.row["digest"] if outcome.row else None,
                       ledger=str(ledger.path) if ledger else None, scored_at=now_iso())
        if rows_out is not None and outcome.row is not None:
            rows_out.append(outcome.row)
    write_summary(run, summary)
    return summary


def check_llm_participant(name: str) -> str:
    """LLM-track participants are named llm:* / agent:*, so a campaign can never submit in a
    human's name (anyone can seal for any participant with the public key)."""
    kind = entrant_of(name)
    if kind not in ("llm-api", "llm-agent"):
        raise ConfigError(f"participant {name!r}: LLM-track participants are named "
                          f"{' or '.join(p + '<model>' for p in LLM_PREFIXES)} (lower-case "
                          "letters, digits, '.', '_', '-')")
    return name


def _check_llm_identity(folder: Path, participant: str) -> None:
    """Refuse, before decrypting anything, a run folder that claims a non-LLM identity (e.g.
    one forged by a compromised matrix job)."""
    try:
        check_llm_participant(participant)
    except ConfigError as err:
        raise Rejection(str(err), code="not-llm") from None
    meta = parse_metadata((folder / METADATA_NAME).read_bytes())
    if meta.entrant not in ("llm-api", "llm-agent"):
        raise Rejection(f"{folder / METADATA_NAME}: entrant {meta.entrant!r} is not an LLM "
                        "entrant", code="not-llm")
