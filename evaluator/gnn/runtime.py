"""Run-time conventions every baseline script shares: arguments, seeding, timing, report.

The report is one JSON line on stdout, the last one the script prints; `gnncb baseline run`
reads it to fill `metadata.json` (method, training time, hardware), so a baseline's leaderboard
row always says what ran, on what, and for how long.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

SEED = 25  # GNN-CB's fixed seed for every run
REPORT_KEY = "gnncb_baseline"  # marks the report line among other output


def baseline_args(description: str) -> argparse.Namespace:
    """`--data DIR --out FILE [--smoke]`, the interface `gnncb baseline run` calls."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", type=Path, required=True, help="the competition's data/ folder")
    parser.add_argument("--out", type=Path, required=True, help="predictions CSV to write")
    parser.add_argument("--smoke", action="store_true",
                        help="a few epochs / a subsample: fast, still a valid predictions file")
    args = parser.parse_args()
    if not args.data.is_dir():
        parser.error(f"--data {args.data}: not a folder; pass competitions/<slug>/data")
    return args


def seed_everything(seed: int = SEED, threads: int = 1) -> None:
    """Seed Python, NumPy and (when installed) torch; pin torch to `threads` CPU threads.

    One thread by default: on a shared 2-core machine torch's second thread spin-waits and made
    small full-batch models several times slower; one thread is also bit-for-bit repeatable.
    """
    random.seed(seed)
    np.random.seed(seed)
    try:
        import torch
    except ImportError:
        return
    torch.manual_seed(seed)
    torch.set_num_threads(max(1, min(threads, os.cpu_count() or 1)))


def hardware() -> str:
    """One line naming the CPU, the usable cores and the torch version (if any)."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    text = f"{model}, {cores} CPU cores, {platform.system()}, Python {platform.python_version()}"
    try:
        import torch

        text += f", torch {torch.__version__} ({torch.get_num_threads()} threads)"
    except ImportError:
        pass
    return text[:200]


class Stopwatch:
    """Wall-clock minutes of the training part of a run (data loading excluded)."""

    def __enter__(self) -> Stopwatch:
        self._start = time.perf_counter()
        self.minutes = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.minutes = (time.perf_counter() - self._start) / 60


def report(method: str, training_minutes: float, *, gnn: bool, smoke: bool,
           **extra: Any) -> None:
    """Print the JSON report line read by `gnncb baseline run`."""
    payload = {REPORT_KEY: 1, "method": method, "training_time_minutes": round(training_minutes, 4),
               "hardware": hardware(), "gnn": gnn, "seed": SEED, "smoke": smoke, **extra}
    print(json.dumps(payload, sort_keys=True), flush=True)
