"""Helpers for competition builders (`competitions/<slug>/build.py`) and the demo.

Why shared: every builder must do the same anti-contamination steps (ids remapped, splits and
perturbations drawn from the secret seed), write public files byte-for-byte reproducibly, and
seal hidden labels with the platform key. Doing that once here keeps builders short and makes
"rebuild reproduces the committed files" true for all of them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator import envelope
from evaluator.errors import ConfigError
from evaluator.spec import CompetitionSpec


def read_seed(path: Path) -> str:
    """The secret build seed (never printed, never committed)."""
    try:
        seed = Path(path).read_text(encoding="utf-8").strip()
    except OSError as err:
        raise ConfigError(f"{path}: cannot read the build seed: {err.strerror}") from None
    if len(seed) < 16:
        raise ConfigError(f"{path}: the build seed is too short to be secret")
    return seed


def rng_for(seed: str, slug: str, purpose: str) -> np.random.Generator:
    """An independent generator per (competition, purpose), derived from the secret seed."""
    material = hashlib.sha256(f"{seed}\x00{slug}\x00{purpose}".encode()).digest()
    return np.random.default_rng(int.from_bytes(material[:16], "big"))


def remap_ids(n: int, rng: np.random.Generator, *, low: int = 10_000,
              high: int = 1_000_000) -> np.ndarray:
    """n distinct random ids, so public files cannot be joined back to the original dataset."""
    return rng.choice(np.arange(low, high), size=n, replace=False)


def write_csv(frame: pd.DataFrame, path: Path, *, float_format: str = "%.6g") -> None:
    """Deterministic CSV: LF line ends, no index, fixed float format."""
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, lineterminator="\n", float_format=float_format)


def seal_labels(frame: pd.DataFrame, spec: CompetitionSpec, split: str,
                public_key: rsa.RSAPublicKey, path: Path) -> None:
    """Encrypt one split's labels (id column + targets) to the platform key."""
    columns = [spec.id_column] + [t.name for t in spec.targets]
    missing = set(columns) - set(frame.columns)
    if missing:
        raise ConfigError(f"labels for split {split!r} lack columns {sorted(missing)}")
    data = frame[columns].to_csv(index=False, lineterminator="\n").encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(envelope.seal(data, public_key,
                                   envelope.label_claims(spec.slug, spec.version, split)) + b"\n")


def sample_submission(ids: pd.Series, spec: CompetitionSpec) -> pd.DataFrame:
    """Every test id once with a valid default value (first class / 0.5 / 0.0)."""
    frame = pd.DataFrame({spec.id_column: ids.to_numpy()})
    for t in spec.targets:
        frame[t.name] = (t.classes or [0])[0] if t.type == "class" else (
            0.5 if t.type == "probability" else 0.0)
    return frame
