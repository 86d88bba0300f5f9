"""The rehearsal's stand-in hidden labels (`evaluator.ci.rehearsal`): for every committed
competition they can be sealed to a throwaway key and opened by the scoring path exactly as
the real ones are (commitments checked, public and private parts drawn, each metric computable
on each part), and they are the same in every rehearsal. The whole `gnncb rehearse` flow is
tested through the CLI in tests/cli/test_rehearse.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from evaluator.ci.rehearsal import seal_standin, standin_labels
from evaluator.competition.spec import load_spec
from evaluator.pipeline.evaluate import load_labels
from tests.helpers.arena import KeyPair
from tests.helpers.paths import REPO

COMMITTED = sorted(p.parent.name for p in (REPO / "competitions").glob("*/competition.yaml"))


def copy_for_labels(slug: str, dest: Path) -> Path:
    """What sealing and opening labels read: the spec, the public id files, hidden/."""
    source = REPO / "competitions" / slug
    spec = load_spec(source)
    folder = dest / slug
    folder.mkdir(parents=True)
    shutil.copy2(source / "competition.yaml", folder / "competition.yaml")
    for split in spec.splits.values():
        target = folder / split.ids
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / split.ids, target)
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("slug", COMMITTED)
def test_standin_labels_open_like_the_real_ones(slug: str, tmp_path: Path,
                                                pipeline_keys: KeyPair) -> None:
    folder = copy_for_labels(slug, tmp_path)
    spec = load_spec(folder)
    seal_standin(folder, spec, pipeline_keys.public)
    labels = load_labels(folder, spec, pipeline_keys.private)  # commitments checked inside
    for name, split in spec.splits.items():
        ids = pd.read_csv(folder / split.ids, dtype=str, keep_default_na=False)[spec.id_column]
        assert sorted(labels[name].index.astype(str)) == sorted(ids)
        again = standin_labels(folder, spec, name)
        assert again.equals(standin_labels(folder, spec, name))  # the same every rehearsal
        for target in spec.targets:
            values = set(again[target.name])
            if target.type == "class":
                assert values <= set(target.classes or []) and len(values) > 1
            elif target.type == "probability":
                assert values == {0, 1}
