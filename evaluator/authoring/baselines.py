"""`gnncb baseline run`: reference solutions on the leaderboard through the normal path.

Why not score baselines directly: a baseline is worth showing only if it went through exactly
what a participant's file goes through (check, JWE envelope to the platform key, evaluation on
the hidden labels, ledger, rendering). So this module runs each baseline script as a separate
process (as a participant would), encrypts its predictions with the `gnncb encrypt` code, and
evaluates with `evaluator.pipeline.evaluate.evaluate_dir`, as entrant `baseline` with participant
`baseline:gnn` or `baseline:nongraph` (a namespace no GitHub login can take).

Baseline script conventions (`competitions/<slug>/baseline/{gnn,nongraph}.py`):
`python baseline/gnn.py --data competitions/<slug>/data --out predictions.csv [--smoke]`;
CPU only, seed 25, at most ~10 minutes on 2 cores; `--smoke` runs a few epochs or a subsample
and still writes a valid file; the last stdout line is the JSON report of
`evaluator.gnn.runtime.report` (method, training_time_minutes, hardware, gnn, and
tuning_runs: how many configurations were tried on validation data, declared as they were).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.competition.spec import load_spec, load_specs
from evaluator.errors import ConfigError
from evaluator.ledger.store import Ledger
from evaluator.paths import default_ledger, default_public_key, package_home
from evaluator.submission import keys
from evaluator.submission.files import ENVELOPE_NAME
from evaluator.submission.identity import platform_participant
from evaluator.submission.metadata import Metadata
from evaluator.submission.seal import seal_submission

KINDS = ("gnn", "nongraph")
REPORT_KEY = "gnncb_baseline"  # same as evaluator.gnn.runtime.REPORT_KEY (no torch import here)


@dataclass
class BaselineResult:
    which: str
    participant: str
    method: str
    training_time_minutes: float
    hardware: str
    scores: dict[str, float]
    recorded: bool


def parse_report(stdout: str, script: Path) -> dict:
    """The last JSON line carrying REPORT_KEY."""
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if line.startswith("{") and REPORT_KEY in line:
            try:
                report: dict[str, Any] = json.loads(line)
            except json.JSONDecodeError:
                continue
            missing = {"method", "training_time_minutes", "hardware"} - set(report)
            if missing:
                raise ConfigError(f"{script}: report line lacks {sorted(missing)}")
            return report
    raise ConfigError(f"{script}: printed no report line; end the script with "
                      "evaluator.gnn.runtime.report(...)")


def run_script(script: Path, data: Path, out: Path, *, smoke: bool,
               timeout_minutes: float) -> dict:
    """Run one baseline script in a child process; return its report."""
    if not script.is_file():
        raise ConfigError(f"{script}: not found; a competition ships baseline/gnn.py and "
                          "baseline/nongraph.py")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(package_home())] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    cmd = [sys.executable, str(script), "--data", str(data), "--out", str(out)]
    if smoke:
        cmd.append("--smoke")
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env,
                              timeout=timeout_minutes * 60, check=False)
    except subprocess.TimeoutExpired:
        raise ConfigError(f"{script}: still running after {timeout_minutes:g} minutes; "
                          "baselines must finish in about 10 minutes on 2 cores") from None
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        raise ConfigError(f"{script} failed with exit code {done.returncode}:\n{tail}")
    if not out.is_file():
        raise ConfigError(f"{script}: exited 0 but wrote no {out}")
    return parse_report(done.stdout, script)


def _encrypt(folder: Path, predictions: Path, participant: str, report: dict,
             public_key: Path, dest: Path, smoke: bool) -> None:
    """Exactly `gnncb encrypt` (check first, then seal, then metadata.json)."""
    meta = Metadata(
        participant=participant, entrant="baseline", method=str(report["method"])[:200],
        hardware=str(report["hardware"])[:200],
        training_time_minutes=float(report["training_time_minutes"]),
        tuning_runs=int(report.get("tuning_runs", 0)),
        seed=int(report.get("seed", 25)), gnn_only=bool(report.get("gnn")),
        notes="smoke run (a few epochs)" if smoke else "reference baseline")
    seal_submission(folder, predictions, meta, public_key, dest / ENVELOPE_NAME)


def run_baselines(folder: Path, *, which: list[str], smoke: bool,
                  private_key_paths: list[Path] | None, public_key: Path | None,
                  ledger_path: Path | None, timeout_minutes: float = 30.0,
                  boards: Sequence[Any] = ()) -> list[BaselineResult]:
    """Train, encrypt, evaluate and (unless a smoke run without a ledger) record; then
    re-render (`render_after_baselines`). `boards`: the tracks' boards of the competitions
    folder, whose pages the re-rendered leaderboards keep (this module imports no track)."""
    from evaluator.pipeline.evaluate import evaluate_dir

    folder = Path(folder)
    spec = load_spec(folder)
    bad = [w for w in which if w not in KINDS]
    if bad or not which:
        raise ConfigError(f"--which {','.join(which)}: choose from {', '.join(KINDS)}")
    public_path = public_key or default_public_key()
    public = keys.load_public_key(public_path.read_bytes(), source=str(public_path))
    private = keys.private_keys_from(private_key_paths)
    if keys.thumbprint(public) not in private:
        raise ConfigError(f"the private key does not match {public_path} (kid "
                          f"{keys.thumbprint(public)}); pass the matching --private-key")
    if ledger_path is None and not smoke:
        ledger_path = default_ledger()
    ledger = Ledger(ledger_path) if ledger_path else None
    from evaluator.util.progress import Progress

    results: list[BaselineResult] = []
    with tempfile.TemporaryDirectory(prefix=f"gnncb-baseline-{spec.slug}-") as tmp, \
            Progress(len(which), f"{spec.slug} baselines", every=0) as bar:
        for kind in which:
            print(f"training the {kind} baseline of {spec.slug} ({len(results) + 1}/"
                  f"{len(which)}, up to {timeout_minutes:g} min)...", file=sys.stderr,
                  flush=True)
            participant = platform_participant("baseline", kind)
            predictions = Path(tmp) / f"{kind}.csv"
            report = run_script(folder / "baseline" / f"{kind}.py", folder / "data",
                                predictions, smoke=smoke, timeout_minutes=timeout_minutes)
            sub = Path(tmp) / kind
            _encrypt(folder, predictions, participant, report, public_path, sub, smoke)
            outcome = evaluate_dir(folder, sub, participant=participant, keys=private,
                                   ledger=ledger)
            results.append(BaselineResult(
                which=kind, participant=participant, method=str(report["method"]),
                training_time_minutes=float(report["training_time_minutes"]),
                hardware=str(report["hardware"]), scores=outcome.scores,
                recorded=ledger is not None and not outcome.duplicate))
            bar.update(note=f"{kind}: {report['training_time_minutes']:.2f} min")
    if ledger is not None:
        render_after_baselines(folder, ledger, boards)
    return results


def render_after_baselines(folder: Path, ledger: Ledger, boards: Sequence[Any] = ()) -> None:
    """Re-render leaderboards beside the ledger; the README only for the official ledger (a
    temporary ledger must never rewrite a committed README)."""
    from evaluator.render.boards import write_leaderboards
    from evaluator.render.readme import render_readme

    folder = Path(folder)
    rows = ledger.rows()
    for path in write_leaderboards([*load_specs(folder.parent), *boards], rows,
                                   ledger.path.parent, ledger=ledger.path,
                                   changed=[folder.name]):
        print(f"wrote {path}")
    if ledger.path.resolve() == default_ledger().resolve():
        (folder / "README.md").write_text(render_readme(folder, ledger.path), encoding="utf-8")
        print(f"wrote {folder / 'README.md'}")
