"""Benchmark: evaluating a 1,000,000-row classification submission, end to end, against the
bare minimum (pandas.read_csv + sklearn f1_score on the same plaintext file), in the same run.

Our path does everything the PR workflow does: read the envelope, RSA-OAEP unwrap, AES-GCM
decrypt, full validation (ids, header, types, classes), hidden-label decryption, id alignment
and macro-F1. The printed ratio is ours / bare; the goal is <= 1.5.

    python benchmarks/evaluate_1m.py [--rows N] [--repeats R]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from sklearn.metrics import f1_score

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evaluator.authoring.build import seal_labels  # noqa: E402
from evaluator.competition.spec import load_spec  # noqa: E402
from evaluator.pipeline.evaluate import evaluate_dir  # noqa: E402
from evaluator.submission import envelope, keys  # noqa: E402
from evaluator.submission.metadata import Metadata, dump_metadata  # noqa: E402

CLASSES = list(range(7))


def make_competition(root: Path, n: int, public) -> tuple[Path, Path, Path]:
    rng = np.random.default_rng(0)
    ids = rng.choice(np.arange(10_000_000, 90_000_000), size=n, replace=False)
    truth = rng.integers(0, 7, size=n)
    pred = np.where(rng.random(n) < 0.7, truth, rng.integers(0, 7, size=n))
    comp = root / "bench-1m"
    (comp / "data").mkdir(parents=True)
    spec = {"slug": "bench-1m", "version": 1, "title": "Benchmark 1M",
            "task": "node-classification", "category": "homogeneous", "difficulty": "easy",
            "domain": "benchmark",
            "targets": [{"name": "label", "type": "class", "classes": CLASSES}],
            "splits": {"test": {"ids": "data/test_ids.csv", "labels": "hidden/test.jwe"}},
            "metrics": {"macro_f1": {"fn": "macro_f1", "split": "test"}},
            "rank_by": [{"score": "macro_f1", "order": "desc"}],
            "submission": {"max_bytes": 100_000_000}}
    (comp / "competition.yaml").write_text(yaml.safe_dump(spec))
    pd.DataFrame({"id": ids}).to_csv(comp / "data" / "test_ids.csv", index=False)
    seal_labels(pd.DataFrame({"id": ids, "label": truth}), load_spec(comp), "test", public,
                comp / "hidden" / "test.jwe")
    shuffled = rng.permutation(n)  # participants' row order differs from ours
    plain = root / "predictions.csv"
    pd.DataFrame({"id": ids[shuffled], "label": pred[shuffled]}).to_csv(plain, index=False)
    truth_csv = root / "truth.csv"
    pd.DataFrame({"id": ids, "label": truth}).to_csv(truth_csv, index=False)
    sub = root / "sub"
    sub.mkdir()
    (sub / "predictions.csv.enc").write_bytes(envelope.seal(
        plain.read_bytes(), public, envelope.prediction_claims("bench-1m", 1, "bench")))
    (sub / "metadata.json").write_text(dump_metadata(Metadata(participant="bench", method="b")))
    return comp, sub, plain


def bare(plain: Path, truth_csv: Path) -> float:
    """The least any scorer can do: read the predictions and the labels from plaintext CSVs
    (as the insecure GNN-CB repositories did), join by id, and call f1_score. No decryption,
    no validation, no ledger."""
    pred = pd.read_csv(plain)
    truth = pd.read_csv(truth_csv)
    joined = truth.merge(pred, on="id", suffixes=("_true", "_pred"))
    return f1_score(joined["label_true"], joined["label_pred"], average="macro")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        keys.generate(root / "keys", bits=3072)
        public = keys.load_public_key((root / "keys" / "public.pem").read_bytes())
        private = keys.load_private_keys((root / "keys" / "private.pem").read_text())
        comp, sub, plain = make_competition(root, args.rows, public)
        ours_t, bare_t = [], []
        for _ in range(args.repeats):  # interleaved so machine noise hits both alike
            t = time.perf_counter()
            ref = bare(plain, root / "truth.csv")
            bare_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            outcome = evaluate_dir(comp, sub, participant="bench", keys=private)
            ours_t.append(time.perf_counter() - t)
            assert abs(outcome.scores["macro_f1"] - ref) < 1e-12, (outcome.scores, ref)
        b, o = statistics.median(bare_t), statistics.median(ours_t)
        print(f"rows: {args.rows:,}  file: {plain.stat().st_size / 1e6:.1f} MB  "
              f"repeats: {args.repeats}")
        print(f"bare read_csv (predictions, labels) + join + f1_score: median {b:.3f} s")
        print(f"gnncb evaluate (decrypt + validate + score): median {o:.3f} s")
        print(f"ratio ours/bare: {o / b:.2f}")


if __name__ == "__main__":
    main()
