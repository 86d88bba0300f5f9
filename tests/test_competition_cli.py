"""The maintainer verbs, end to end on a fresh folder: `gnncb competition new | build | readme`
and `gnncb baseline run`.

A maintainer scaffolds a competition, sees lint call it incomplete, writes a build.py (here: a
small two-community graph), builds it with a secret seed and a key made on the spot, renders the
README, lints it clean, and puts the scaffolded baselines on a temporary leaderboard through
the normal encrypt/evaluate path. Nothing here needs ../shared; the baseline run needs torch.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evaluator.cli import main as gnncb
from evaluator.lint import README_SECTIONS, lint_competition

SLUG = "toy-communities"

BUILD_PY = '''
"""Toy build: two communities, features = community signal + noise (test fixture)."""
from pathlib import Path

import numpy as np
import pandas as pd

from evaluator.build import remap_ids, rng_for, sample_submission, seal_labels, write_csv
from evaluator.spec import load_spec

SLUG = "toy-communities"


def build(raw: Path, seed: str, out: Path, public_key) -> None:
    spec = load_spec(Path(__file__).parent)
    table = pd.read_csv(Path(raw) / "nodes.csv")
    edges = pd.read_csv(Path(raw) / "edges.csv")
    n = len(table)
    ids = remap_ids(n, rng_for(seed, SLUG, "ids"))
    order = rng_for(seed, SLUG, "split").permutation(n)
    train, test = np.sort(order[: int(0.7 * n)]), np.sort(order[int(0.7 * n):])
    data = Path(out) / "data"
    nodes = pd.DataFrame({"id": ids, "f0": table["f0"], "f1": table["f1"]})
    write_csv(nodes.sort_values("id"), data / "nodes.csv")
    a, b = ids[edges["a"]], ids[edges["b"]]
    write_csv(pd.DataFrame({"src": np.minimum(a, b), "dst": np.maximum(a, b)}),
              data / "edges.csv")
    labels = pd.DataFrame({"id": ids, "label": table["community"]})
    write_csv(labels.iloc[train], data / "train_labels.csv")
    write_csv(labels.iloc[test][["id"]], data / "test_ids.csv")
    write_csv(sample_submission(labels.iloc[test]["id"], spec),
              data / "sample_submission.csv")
    seal_labels(labels.iloc[test], spec, "test", public_key,
                Path(out) / "hidden" / "test_labels.jwe",
                seed=seed)
'''


@pytest.fixture()
def raw(tmp_path: Path) -> Path:
    """120 nodes in two communities (dense inside, sparse across), 2 noisy features."""
    rng = np.random.default_rng(7)
    community = np.repeat([0, 1], 60)
    pairs = [(i, j) for i in range(120) for j in range(i + 1, 120)
             if rng.random() < (0.08 if community[i] == community[j] else 0.005)]
    folder = tmp_path / "raw"
    folder.mkdir()
    pd.DataFrame({"community": community, "f0": community + rng.normal(0, 2, 120),
                  "f1": rng.normal(0, 1, 120)}).to_csv(folder / "nodes.csv", index=False)
    pd.DataFrame(pairs, columns=["a", "b"]).to_csv(folder / "edges.csv", index=False)
    return folder


@pytest.fixture()
def seed_file(tmp_path: Path) -> Path:
    path = tmp_path / "seed.txt"
    path.write_text("a-test-seed-that-is-long-enough\n")
    return path


@pytest.fixture()
def scaffolded(tmp_path: Path, capsys) -> Path:
    root = tmp_path / "competitions"
    assert gnncb(["competition", "new", SLUG, "--root", str(root)]) == 0
    capsys.readouterr()
    return root / SLUG


@pytest.fixture()
def built(scaffolded: Path, raw: Path, seed_file: Path, keypair: dict, capsys) -> Path:
    (scaffolded / "build.py").write_text(BUILD_PY, encoding="utf-8")
    assert gnncb(["competition", "build", str(scaffolded), "--raw", str(raw), "--seed-file",
                  str(seed_file), "--public-key", str(keypair["public_path"])]) == 0
    assert gnncb(["competition", "readme", str(scaffolded), "--ledger",
                  str(scaffolded.parent / "none.jsonl")]) == 0
    capsys.readouterr()
    return scaffolded


def test_new_scaffolds_a_folder_that_lint_calls_incomplete(scaffolded):
    assert sorted(p.relative_to(scaffolded).as_posix() for p in scaffolded.rglob("*")
                  if p.is_file()) == ["baseline/gnn.py", "baseline/nongraph.py", "build.py",
                                      "competition.yaml"]
    problems = lint_competition(scaffolded)
    assert any("README.md: missing" in p for p in problems)
    assert any("test_ids.csv: referenced by splits.test but missing" in p for p in problems)
    assert any("test_labels.jwe: referenced by splits.test but missing" in p for p in problems)


def test_new_refuses_an_existing_folder_and_a_bad_slug(scaffolded, capsys):
    assert gnncb(["competition", "new", SLUG, "--root", str(scaffolded.parent)]) == 2
    assert "exists" in capsys.readouterr().err
    assert gnncb(["competition", "new", "Bad_Slug", "--root", str(scaffolded.parent)]) == 2
    assert "not a valid slug" in capsys.readouterr().err


def test_the_unwritten_build_says_so(scaffolded, raw, seed_file, keypair, capsys):
    code = gnncb(["competition", "build", str(scaffolded), "--raw", str(raw), "--seed-file",
                  str(seed_file), "--public-key", str(keypair["public_path"])])
    assert code == 2
    assert "build() has not been written" in capsys.readouterr().err
    assert not (scaffolded / "data").exists()  # a failed build leaves nothing behind


def test_build_with_missing_raw_data_is_a_clear_error(scaffolded, tmp_path, seed_file, capsys):
    code = gnncb(["competition", "build", str(scaffolded), "--raw", str(tmp_path / "nope"),
                  "--seed-file", str(seed_file)])
    assert code == 2 and "--raw" in capsys.readouterr().err


def test_build_readme_lint_round_trip(built, keypair):
    assert lint_competition(built, private_keys=keypair["private"]) == []
    text = (built / "README.md").read_text(encoding="utf-8")
    for section in README_SECTIONS:
        assert section in text
    assert "`data/train_labels.csv`" in text and "macro-F1 = " in text
    assert f"competitions/{SLUG}/submissions/LOGIN/predictions.csv.enc" in text


def test_rebuild_with_the_same_seed_is_byte_identical(built, raw, seed_file, keypair,
                                                      tmp_path):
    out = tmp_path / "again"
    assert gnncb(["competition", "build", str(built), "--raw", str(raw), "--seed-file",
                  str(seed_file), "--public-key", str(keypair["public_path"]), "--out",
                  str(out)]) == 0
    for path in sorted((built / "data").iterdir()):
        assert (out / "data" / path.name).read_bytes() == path.read_bytes(), path.name


def test_a_different_seed_draws_a_different_split(built, raw, keypair, tmp_path):
    other = tmp_path / "other-seed.txt"
    other.write_text("another-secret-seed-of-enough-length")
    out = tmp_path / "other"
    assert gnncb(["competition", "build", str(built), "--raw", str(raw), "--seed-file",
                  str(other), "--public-key", str(keypair["public_path"]), "--out",
                  str(out)]) == 0
    a = pd.read_csv(built / "data" / "test_ids.csv")["id"]
    b = pd.read_csv(out / "data" / "test_ids.csv")["id"]
    assert set(a) != set(b)


def test_readme_check_flags_a_stale_readme(built, capsys):
    ledger = str(built.parent / "none.jsonl")
    assert gnncb(["competition", "readme", str(built), "--ledger", ledger, "--check"]) == 0
    readme = built / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8") + "\nhand edit\n", encoding="utf-8")
    assert gnncb(["competition", "readme", str(built), "--ledger", ledger, "--check"]) == 1
    assert "out of date" in capsys.readouterr().err


def test_baseline_run_without_a_private_key_explains_how_to_pass_one(built, keypair,
                                                                     monkeypatch, capsys):
    monkeypatch.delenv("GNNCB_PRIVATE_KEY", raising=False)
    code = gnncb(["baseline", "run", str(built), "--smoke", "--public-key",
                  str(keypair["public_path"])])
    assert code == 2
    assert "GNNCB_PRIVATE_KEY" in capsys.readouterr().err


def test_baseline_run_refuses_a_key_that_does_not_match(built, tmp_path, capsys):
    from evaluator import keys

    other = tmp_path / "other-keys"
    keys.generate(other, bits=3072)
    code = gnncb(["baseline", "run", str(built), "--smoke", "--private-key",
                  str(other / "private.pem")])  # public key default: keys/platform-public.pem
    assert code == 2 and "does not match" in capsys.readouterr().err


@pytest.mark.gnn
def test_baseline_run_smoke_records_both_baselines_on_a_temporary_ledger(built, keypair,
                                                                         tmp_path, capsys):
    pytest.importorskip("torch_geometric")
    ledger = tmp_path / "board" / "ledger.jsonl"
    readme_before = (built / "README.md").read_bytes()
    code = gnncb(["baseline", "run", str(built), "--smoke", "--private-key",
                  str(keypair["private_path"]), "--public-key", str(keypair["public_path"]),
                  "--ledger", str(ledger), "--timeout-minutes", "5"])
    out = capsys.readouterr().out
    assert code == 0, out
    rows = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert sorted(r["participant"] for r in rows) == ["baseline:gnn", "baseline:nongraph"]
    for r in rows:
        assert r["entrant"] == "baseline" and r["slug"] == SLUG
        assert 0 <= r["scores"]["macro_f1"] <= 1
        assert r["declared"]["seed"] == 25 and r["declared"]["hardware"]
        assert r["declared"]["training_time_minutes"] >= 0
    gnn = next(r for r in rows if r["participant"] == "baseline:gnn")
    assert gnn["declared"]["gnn_only"] is True and "GCN" in gnn["method"]
    board = (ledger.parent / f"{SLUG}.md").read_text(encoding="utf-8")
    assert "baseline:gnn" in board and "baseline:nongraph" in board
    # a temporary ledger never rewrites the committed README ...
    assert (built / "README.md").read_bytes() == readme_before
    # ... but the README rendered from it shows both baselines and the comparison
    assert gnncb(["competition", "readme", str(built), "--ledger", str(ledger)]) == 0
    text = (built / "README.md").read_text(encoding="utf-8")
    assert "baseline:nongraph" in text and "The graph" in text


def test_scaffolded_scripts_are_lint_clean(scaffolded):
    """The scaffold is what maintainers copy: it must pass the repository's ruff config."""
    ruff = pytest.importorskip("ruff")
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--config",
                           str(Path(__file__).resolve().parent.parent / "pyproject.toml"),
                           str(scaffolded)], capture_output=True, text=True, check=False)
    assert ruff and done.returncode == 0, textwrap.shorten(done.stdout, 500)
