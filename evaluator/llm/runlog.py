"""The on-disk record of LLM runs: `runs/<campaign>/<model>/<slug>/attempt-<i>/` + summary.json.

Why files, not a database: a run's folder is the unit that GitHub Actions matrix jobs upload
and a final job merges, that a reviewer opens to see exactly what the model was told and what
it answered, and that `gnncb llm report` aggregates. `summary.json` is written atomically and
last, so its presence with a finished status is what makes a campaign skip a pair on resume.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evaluator.errors import ConfigError

SUMMARY = "summary.json"
ATTEMPT_RECORD = "attempt.json"
# A run in one of these states is finished; "sealed" still waits for scoring, "error" (a
# platform or provider problem) is retried by a resumed campaign.
FINISHED = ("scored", "failed", "rejected")
SEALED = "sealed"
ERROR = "error"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def safe_component(text: str) -> str:
    """A model id such as `Qwen/Qwen2.5-Coder-32B-Instruct` as one path component."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "model"
    return cleaned[:100]


def check_campaign_name(name: str) -> str:
    if not _NAME_RE.match(name) or ".." in name:
        raise ConfigError(f"campaign name {name!r}: use letters, digits, '.', '_' or '-' "
                          "(at most 100 characters), e.g. 2025-06-gnncb")
    return name


def run_dir(runs_root: Path, campaign: str, model: str, slug: str) -> Path:
    return Path(runs_root) / check_campaign_name(campaign) / safe_component(model) / slug


def attempt_dir(run: Path, index: int) -> Path:
    return Path(run) / f"attempt-{index}"


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def write_json(path: Path, value: Any) -> None:
    """Atomic: write a temporary file beside the target, then rename over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n",
                   encoding="utf-8")
    tmp.replace(path)


def read_summary(run: Path) -> dict[str, Any] | None:
    path = Path(run) / SUMMARY
    if not path.is_file():
        return None
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as err:
        raise ConfigError(f"{path}: corrupt run summary: {err}") from None
    if not isinstance(value, dict) or "status" not in value:
        raise ConfigError(f"{path}: not a run summary (no 'status')")
    return value


def write_summary(run: Path, summary: dict[str, Any]) -> None:
    write_json(Path(run) / SUMMARY, summary)


def start_run(run: Path) -> Path:
    """A clean folder for a new run. A finished or sealed run is never overwritten; the
    leftovers of an interrupted or errored run are cleared."""
    run = Path(run)
    summary = read_summary(run)
    if summary is not None and summary["status"] in (*FINISHED, SEALED):
        raise ConfigError(f"{run} already holds a {summary['status']} run; use another "
                          "--campaign name, or delete the folder to run it again")
    if run.exists():
        shutil.rmtree(run)
    run.mkdir(parents=True)
    return run


def find_runs(campaign_dir: Path) -> list[Path]:
    """Every run folder (one holding summary.json) under a campaign folder, sorted."""
    return sorted(p.parent for p in Path(campaign_dir).glob(f"*/*/{SUMMARY}"))
