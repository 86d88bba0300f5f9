"""A toy competition whose hidden split has a public and a private part (public_fraction 0.3).

Why shared: the parts tests, the interval tests and the final-choice tests all need a folder
sealed to the test key with a known truth, and must agree on its seed and its labels.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from evaluator.authoring.build import seal_labels, write_csv
from evaluator.competition.spec import load_spec

SEED = "a-test-seed-that-is-long-enough"


N = 60


def spec_dict(slug: str = "toy-parts", **extra) -> dict:
    return {
        "slug": slug, "version": 1, "title": "Toy parts", "task": "node-classification",
        "category": "homogeneous", "difficulty": "easy", "domain": "testing",
        "targets": [{"name": "label", "type": "class", "classes": [0, 1, 2]}],
        "splits": {"test": {"ids": "data/test_ids.csv", "labels": "hidden/test_labels.jwe"}},
        "metrics": {"accuracy": {"fn": "accuracy", "split": "test"},
                    "macro_f1": {"fn": "macro_f1", "split": "test"}},
        "rank_by": [{"score": "accuracy", "order": "desc"}],
        "submission": {"limits": {"per_version": 10, "per_day": 10}},
        "public_fraction": 0.3, **extra,
    }


def truth() -> pd.DataFrame:
    ids = np.arange(5000, 5000 + 3 * N, 3)
    return pd.DataFrame({"id": ids, "label": [0] * 30 + [1] * 18 + [2] * 12})


def build(folder: Path, public, seed: str = SEED, **extra) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "competition.yaml").write_text(yaml.safe_dump(spec_dict(folder.name, **extra)))
    spec = load_spec(folder)
    frame = truth()
    write_csv(frame[["id"]], folder / "data" / "test_ids.csv")
    seal_labels(frame, spec, "test", public, folder / "hidden" / "test_labels.jwe", seed=seed)
    return folder
