"""`gnncb demo`: the whole life of a competition in a temporary folder, in seconds.

Real data that ships inside scikit-learn (the Wisconsin breast-cancer table) becomes a kNN
patient-similarity graph, as GNN-CB's PARK-GNN does with voice recordings. The demo then plays
every role through the same code the platform uses: the maintainer makes keys and builds the
competition, participants encrypt submissions, the evaluator scores them on hidden labels and
rejects a broken and a copied one, and the leaderboard is rendered from the ledger.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml
from cryptography.hazmat.primitives.asymmetric import rsa
from scipy import sparse
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import kneighbors_graph
from sklearn.preprocessing import StandardScaler

from evaluator.authoring.build import remap_ids, rng_for, sample_submission, seal_labels, write_csv
from evaluator.competition.spec import load_spec
from evaluator.errors import Rejection
from evaluator.ledger.ranking import standings
from evaluator.ledger.store import Ledger
from evaluator.pipeline.evaluate import evaluate_dir
from evaluator.render.boards import write_leaderboards
from evaluator.submission import keys
from evaluator.submission.files import ENVELOPE_NAME
from evaluator.submission.metadata import Metadata, dump_metadata
from evaluator.submission.seal import Checked, check_data, write_submission

SLUG = "demo-cancer-knn"
DEMO_SEED = "public-demo-seed-not-secret"  # the demo is public; real builds use a secret seed


def _spec() -> dict:
    return {
        "slug": SLUG, "version": 1,
        "title": "Demo: breast-cancer kNN patient graph",
        "summary": "Transductive node classification on a 5-NN graph of patients.",
        "task": "node-classification", "category": "homogeneous", "difficulty": "easy",
        "domain": "medical", "id_column": "id",
        "targets": [{"name": "label", "type": "class", "classes": [0, 1]}],
        "splits": {"test": {"ids": "data/test_ids.csv", "labels": "hidden/test_labels.jwe"}},
        "metrics": {"macro_f1": {"fn": "macro_f1", "split": "test"},
                    "accuracy": {"fn": "accuracy", "split": "test"}},
        "rank_by": [{"score": "macro_f1", "order": "desc"},
                    {"score": "accuracy", "order": "desc"}],
        "submission": {"file": "predictions.csv", "max_bytes": 1_000_000,
                       "limits": {"per_version": 5, "per_day": 5}},
        "source": {"name": "Wisconsin Diagnostic Breast Cancer (scikit-learn copy)",
                   "license": "CC BY 4.0 (UCI)",
                   "citation": "Street, Wolberg & Mangasarian, 1993"},
    }


def build_competition(folder: Path, public_key: rsa.RSAPublicKey) -> None:
    """Maintainer's step: public data + sealed hidden labels."""
    data = load_breast_cancer()
    x = StandardScaler().fit_transform(data.data)
    n = len(x)
    rng = rng_for(DEMO_SEED, SLUG, "ids")
    ids = remap_ids(n, rng)
    order = rng_for(DEMO_SEED, SLUG, "split").permutation(n)
    train, test = order[: int(0.6 * n)], order[int(0.6 * n):]
    adj = kneighbors_graph(x, n_neighbors=5, include_self=False).tocoo()
    edges = pd.DataFrame({"src": ids[adj.row], "dst": ids[adj.col]})
    features = pd.DataFrame(x, columns=[f"f{i}" for i in range(x.shape[1])])
    features.insert(0, "id", ids)
    (folder / "data").mkdir(parents=True)
    (folder / "competition.yaml").write_text(yaml.safe_dump(_spec(), sort_keys=False))
    spec = load_spec(folder)
    write_csv(features, folder / "data" / "nodes.csv")
    write_csv(edges, folder / "data" / "edges.csv")
    write_csv(pd.DataFrame({"id": ids[train], "label": data.target[train]}),
              folder / "data" / "train_labels.csv")
    write_csv(pd.DataFrame({"id": ids[test]}), folder / "data" / "test_ids.csv")
    write_csv(sample_submission(pd.Series(ids[test]), spec),
              folder / "data" / "sample_submission.csv")
    seal_labels(pd.DataFrame({"id": ids[test], "label": data.target[test]}), spec, "test",
                public_key, folder / "hidden" / "test_labels.jwe")


def _load_public(folder: Path
                 ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    nodes = pd.read_csv(folder / "data" / "nodes.csv")
    edges = pd.read_csv(folder / "data" / "edges.csv")
    train = pd.read_csv(folder / "data" / "train_labels.csv")
    test = pd.read_csv(folder / "data" / "test_ids.csv")
    return nodes, edges, train, test


def predict_majority(folder: Path) -> pd.DataFrame:
    _, _, train, test = _load_public(folder)
    return pd.DataFrame({"id": test["id"], "label": int(train["label"].mode()[0])})


def predict_logistic(folder: Path) -> pd.DataFrame:
    """Features only: the graph is ignored."""
    nodes, _, train, test = _load_public(folder)
    x = nodes.set_index("id")
    model = LogisticRegression(max_iter=2000, random_state=25)
    model.fit(x.loc[train["id"]].to_numpy(), train["label"].to_numpy())
    return pd.DataFrame({"id": test["id"], "label": model.predict(x.loc[test["id"]].to_numpy())})


def predict_label_propagation(folder: Path, alpha: float = 0.9, steps: int = 50) -> pd.DataFrame:
    """Graph only: F <- (1 - alpha) Y + alpha D^-1 A F (Zhou et al., 2004), features ignored."""
    nodes, edges, train, test = _load_public(folder)
    index = pd.Index(nodes["id"])
    src, dst = index.get_indexer(edges["src"]), index.get_indexer(edges["dst"])
    n = len(index)
    adj = sparse.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)).tocsr()
    adj = ((adj + adj.T) > 0).astype(float)
    deg = np.asarray(adj.sum(axis=1)).ravel()
    walk = sparse.diags(1 / np.maximum(deg, 1)) @ adj
    seeds = np.zeros((n, 2))
    seeds[index.get_indexer(train["id"]), train["label"].to_numpy()] = 1
    scores = seeds.copy()
    for _ in range(steps):
        scores = (1 - alpha) * seeds + alpha * (walk @ scores)
    return pd.DataFrame({"id": test["id"],
                         "label": scores[index.get_indexer(test["id"])].argmax(axis=1)})


def _submit(comp: Path, out: Path, predictions: pd.DataFrame, participant: str,
            public_key: rsa.RSAPublicKey, *, check: bool = True, **meta: Any) -> Path:
    """Participant's step, exactly what `gnncb encrypt` does (its writer, on the checked
    bytes). `check=False` is the participant who skips the check: the evaluator rejects it."""
    csv = predictions.to_csv(index=False, lineterminator="\n").encode()
    spec = load_spec(comp)
    checked = (check_data(comp, spec, csv, filename=f"{participant}'s predictions.csv") if check
               else Checked(spec=spec, rows=len(predictions), data=csv))
    write_submission(checked, public_key, Metadata(participant=participant, **meta),
                     out / ENVELOPE_NAME)
    return out


def run_demo(workdir: Path | None = None) -> int:
    started = time.perf_counter()
    own_tmp = workdir is None
    root = Path(tempfile.mkdtemp(prefix="gnncb-demo-")) if workdir is None else Path(workdir)
    if not own_tmp and root.exists() and any(root.iterdir()):
        print(f"error: {root} is not empty; pass an empty or new --workdir")
        return 2
    root.mkdir(parents=True, exist_ok=True)
    print(f"[1/6] keys: creating a 3072-bit platform key pair in {root / 'keys'}")
    kid = keys.generate(root / "keys", bits=3072)
    public = keys.load_public_key((root / "keys" / "public.pem").read_bytes())
    private = keys.load_private_keys((root / "keys" / "private.pem").read_text())
    print(f"      kid {kid}")
    comp = root / "competitions" / SLUG
    print(f"[2/6] build: {SLUG} from scikit-learn's breast-cancer table (569 patients, 5-NN)")
    build_competition(comp, public)
    subs = root / "submissions"
    print("[3/6] participants train and encrypt")
    entries: list[tuple[str, Callable[[Path], pd.DataFrame], dict[str, Any]]] = [
        ("baseline:majority", predict_majority,
         {"entrant": "baseline", "method": "majority class"}),
        ("alice", predict_logistic,
         {"method": "logistic regression on features (no graph)", "gnn_only": False}),
        ("bob", predict_label_propagation, {"method": "label propagation over the graph"}),
        ("carol", predict_label_propagation,
         {"method": "label propagation <b>(same as bob)</b>"}),
    ]
    folders = {}
    for who, fn, meta in entries:
        folders[who] = _submit(comp, subs / who, fn(comp), who, public, **meta)
        print(f"      {who}: {meta['method']}")
    broken = predict_majority(comp).iloc[:-3]  # forgets three test ids
    folders["mallory"] = _submit(comp, subs / "mallory", broken, "mallory", public,
                                 check=False, method="truncated file")
    copy = subs / "eve"
    shutil.copytree(folders["bob"], copy)  # eve copies bob's envelope from his public PR
    (copy / "metadata.json").write_text(dump_metadata(Metadata(participant="eve",
                                                               method="copied")))
    folders["eve"] = copy
    ledger = Ledger(root / "leaderboard" / "ledger.jsonl")
    print("[4/6] evaluate on hidden labels")
    for who, folder in folders.items():
        try:
            outcome = evaluate_dir(comp, folder, participant=who, keys=private, ledger=ledger)
            shown = ", ".join(f"{k}={v:.4f}" for k, v in outcome.scores.items())
            print(f"      accepted {who}: {shown}")
        except Rejection as err:
            first = str(err).splitlines()
            print(f"      REJECTED {who}: {first[0]}")
            for line in first[1:3]:
                print(f"        {line.strip()}")
    print("[5/6] render leaderboards from the ledger")
    spec = load_spec(comp)
    paths = write_leaderboards([spec], ledger.rows(), root / "leaderboard", ledger=ledger.path)
    print("[6/6] leaderboard")
    table = standings(spec, ledger.rows())
    width = max([len("participant")] + [len(e.row["participant"]) for e in table])
    print(f"\n  {'rank':>4}  {'participant':<{width}} {'method':<45} {'macro_f1':>9} "
          f"{'accuracy':>9}")
    for e in table:
        r = e.row
        print(f"  {e.rank:>4}  {r['participant']:<{width}} {r['method'][:45]:<45} "
              f"{r['scores']['macro_f1']:>9.4f} {r['scores']['accuracy']:>9.4f}")
    print(f"\nmarkdown: {paths[0]}")
    print(f"index:    {paths[-1]}")
    print(f"done in {time.perf_counter() - started:.1f} s; workdir {root}")
    return 0
