"""Shared setup of the scratch-repository tests in this folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from tests.helpers.parts import SEED, spec_dict, truth

# The toy competition's build.py: ids public, labels sealed (the committed builders' shape).
BUILDER = '''
from pathlib import Path

import pandas as pd

from evaluator.build import seal_labels, write_csv
from evaluator.competition.spec import load_spec


def build(raw, seed, out, public_key):
    spec = load_spec(Path(__file__).parent)
    frame = pd.read_csv(Path(raw) / "truth.csv")
    write_csv(frame[["id"]], Path(out) / "data" / "test_ids.csv")
    seal_labels(frame, spec, "test", public_key, Path(out) / "hidden" / "test_labels.jwe",
                seed=seed)
'''


def keyless_copy(source: Path, dest: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of a prepared scratch repository, with no platform key in the environment.

    Why: each test changes its copy (a label, a ledger line), and the verbs under test must
    show they need no key (or name the one they need), not find one in the runner's env.
    """
    for name in ("GNNCB_PRIVATE_KEY", "GNNCB_PRIVATE_KEY_PREVIOUS"):
        monkeypatch.delenv(name, raising=False)
    shutil.copytree(source, dest)
    return dest


def scratch_competition(base: Path, slug: str) -> tuple[Path, Path, Path]:
    """(root, raw, folder): a scratch repository holding one toy competition, unbuilt, with
    its raw labels and build seed beside it (outside the repository, as a maintainer keeps
    them)."""
    root, raw = base / "repo", base / "raw"
    raw.mkdir()
    truth().to_csv(raw / "truth.csv", index=False)
    (raw / "seed").write_text(SEED)
    folder = root / "competitions" / slug
    folder.mkdir(parents=True)
    (root / "leaderboard").mkdir()
    (folder / "competition.yaml").write_text(yaml.safe_dump(spec_dict(slug)))
    (folder / "build.py").write_text(BUILDER)
    return root, raw, folder
