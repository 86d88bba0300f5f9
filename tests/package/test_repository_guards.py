"""Repository-wide guards: the README's test command is what CI runs, no secret is tracked, and
no tracked file holds hidden labels in plaintext."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from tests.helpers.paths import REPO


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [REPO / p for p in out.decode().split("\0") if p]


def test_ci_runs_the_readme_test_command():
    readme = (REPO / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = [line.strip() for line in re.findall(r"```bash\n(.*?)```", quick, re.S)[0]
                .splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert len(commands) == 2, commands
    assert "gnncb demo" in commands[0]
    assert commands[1] in (REPO / ".ci" / "run").read_text()


PEM_PRIVATE = re.compile(rb"-----BEGIN [A-Z ]*PRIVATE KEY-----\s+[A-Za-z0-9+/=\s]{200,}-----END")


def test_no_private_key_is_tracked():
    """A real PEM private key (a block with key material, not a test's fake) is never tracked."""
    for path in tracked_files():
        if path.is_file() and path.stat().st_size < 5_000_000:
            assert not PEM_PRIVATE.search(path.read_bytes()), path


def test_deployment_secrets_not_in_repository(shared_secrets):
    key_line = (shared_secrets / "deploy-private.pem").read_text().splitlines()[1]
    seed = (shared_secrets / "build-seed.txt").read_text().strip()
    for path in tracked_files():
        if path.is_file():
            data = path.read_bytes()
            assert key_line.encode() not in data, path
            assert seed.encode() not in data, path


@pytest.mark.slow
def test_no_tracked_file_holds_hidden_labels(shared_secrets):
    """Decrypt every competition's hidden labels and look for their (id, label) pairs in every
    tracked CSV: a public table whose rows reproduce a hidden split is a leak."""
    from evaluator.competition.spec import load_spec
    from evaluator.pipeline.evaluate import load_labels
    from evaluator.submission import keys

    private = keys.load_private_keys((shared_secrets / "deploy-private.pem").read_text())
    csvs = [p for p in tracked_files() if p.suffix == ".csv" and p.is_file()]
    checked = 0
    for spec_path in sorted((REPO / "competitions").glob("*/competition.yaml")):
        folder = spec_path.parent
        spec = load_spec(folder)
        if any(not (folder / s.labels).exists() for s in spec.splits.values()):
            continue
        try:
            hidden = load_labels(folder, spec, private)
        except Exception as err:  # a competition sealed with another key is not ours to check
            pytest.fail(f"{folder}: hidden labels do not open with the deployment key: {err}")
        for split, labels in hidden.items():
            pairs = set(zip(labels.index.astype(str), *(labels[t.name].astype(str)
                                                        for t in spec.targets), strict=False))
            for csv in csvs:
                table = pd.read_csv(csv, dtype=str, low_memory=False)
                cols = [spec.id_column] + [t.name for t in spec.targets]
                if not set(cols) <= set(table.columns):
                    continue
                rows = set(zip(*(table[c].str.strip() for c in cols), strict=False))
                overlap = len(rows & pairs)
                # a constant sample submission matches a class's share by chance, a good
                # model most labels; a plaintext copy of the split matches (nearly) all
                assert overlap < 0.98 * len(pairs), (csv, split, overlap)
            checked += 1
    assert checked >= 0
