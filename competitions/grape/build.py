"""Build grape (GNN-CB C07 GRAPE) from the competition's own public vessel graphs.

What the builder does, and why:
- all 70 labelled graphs (55 public train labels + the 15 test labels that the original repo's
  `preprocess.py` gave away, see ../shared/datasets/grape/SOURCE.md) are pooled and split again,
  stratified by label, with the secret seed: 55 train / 15 test, as in the original;
- the original graph ids (`D_25`, `S_3`, `H_7`, `R_12`) name the source image and, for HRF,
  the label (`H_` healthy, `R_` retinopathy): they become random integers;
- each graph loses a random 10% of its vessel tips (degree-1 nodes), is moved by a random
  rotation, reflection and translation, its coordinates get a 0.5 px jitter and its vessel
  widths a 3% multiplicative jitter, so neither its node and edge counts nor its coordinates
  are an exact lookup key into the original files; node order inside every graph is shuffled;
- edges are listed once (src < dst) with their length in the transformed coordinates.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from evaluator.build import (
    drop_endpoints,
    random_similarity,
    remap_ids,
    rng_for,
    sample_submission,
    seal_labels,
    stratified_test_mask,
    write_csv,
)
from evaluator.errors import ConfigError
from evaluator.spec import load_spec

HERE = Path(__file__).resolve().parent
DATASET = "grape"
N_TEST = 15
COORD_JITTER = 0.5  # pixels
WIDTH_JITTER = 0.03  # relative
DROP_ENDPOINTS = 0.1  # share of vessel tips removed, so node counts do not identify a graph


def raw_folder(raw: Path) -> Path:
    """Accept the dataset folder or the datasets root (../shared/datasets)."""
    for path in (raw, raw / DATASET):
        if (path / "raw" / "train_data.csv").is_file() and (
                path / "derived" / "all_labels.csv").is_file():
            return path
    raise ConfigError(f"{raw}: raw/train_data.csv and derived/all_labels.csv not found; pass "
                      f"../shared/datasets/{DATASET} or ../shared/datasets")


def build(raw: Path, seed: str, out: Path, public_key) -> None:
    spec = load_spec(HERE)
    src = raw_folder(Path(raw))
    nodes = pd.concat([pd.read_csv(src / "raw" / "train_data.csv"),
                       pd.read_csv(src / "raw" / "test_data.csv")], ignore_index=True)
    labels = pd.read_csv(src / "derived" / "all_labels.csv").sort_values(
        "graph_id", ignore_index=True)
    if set(labels["graph_id"]) != set(nodes["graph_id"]):
        raise ConfigError(f"{src}: the label table and the node tables list different graphs")

    is_test = stratified_test_mask(labels["label"].to_numpy(), N_TEST,
                                   rng_for(seed, spec.slug, "split"))
    new_ids = remap_ids(len(labels), rng_for(seed, spec.slug, "ids"))
    geometry = rng_for(seed, spec.slug, "geometry")
    order_rng = rng_for(seed, spec.slug, "node-order")
    node_parts, edge_parts = [], []
    for gid, new in zip(labels["graph_id"], new_ids, strict=True):
        part = nodes[nodes["graph_id"] == gid].sort_values("node_id")
        if part["node_id"].tolist() != list(range(len(part))):
            raise ConfigError(f"{src}: graph {gid} does not number its nodes 0..{len(part) - 1}")
        pairs = sorted({(min(i, int(j)), max(i, int(j)))
                        for i, text in enumerate(part["edges"].fillna("").astype(str))
                        for j in text.split(";") if j != ""})
        kept, e, _ = drop_endpoints(len(part), np.array(pairs), geometry, DROP_ENDPOINTS,
                                     minimum=2)
        part = part.iloc[kept]
        n = len(part)
        xy, _ = random_similarity(part[["x", "y"]].to_numpy(), geometry, jitter=COORD_JITTER)
        width = part["width"].to_numpy() * np.exp(geometry.normal(0, WIDTH_JITTER, n))
        perm = order_rng.permutation(n)  # new index of kept node i is perm[i]
        frame = pd.DataFrame({"graph_id": new, "node": perm, "x": xy[:, 0], "y": xy[:, 1],
                              "width": width, "junction": part["type"].to_numpy()})
        node_parts.append(frame.sort_values("node"))
        length = np.linalg.norm(xy[e[:, 0]] - xy[e[:, 1]], axis=1)
        a, b = perm[e[:, 0]], perm[e[:, 1]]
        edge_parts.append(pd.DataFrame({"graph_id": new, "src": np.minimum(a, b),
                                        "dst": np.maximum(a, b), "length": length}
                                       ).sort_values(["src", "dst"]))
    order = np.argsort(new_ids)
    data = Path(out) / "data"
    write_csv(pd.concat([node_parts[i] for i in order], ignore_index=True), data / "nodes.csv",
              float_format="%.2f")
    write_csv(pd.concat([edge_parts[i] for i in order], ignore_index=True), data / "edges.csv",
              float_format="%.2f")
    frame = pd.DataFrame({"graph_id": new_ids, "label": labels["label"].to_numpy(),
                          "test": is_test}).sort_values("graph_id", ignore_index=True)
    train, test = frame[~frame["test"]], frame[frame["test"]]
    write_csv(train[["graph_id", "label"]], data / "train_labels.csv")
    write_csv(test[["graph_id"]], data / "test_ids.csv")
    write_csv(sample_submission(test["graph_id"], spec), data / "sample_submission.csv")
    seal_labels(test, spec, "test", public_key, Path(out) / "hidden" / "test_labels.jwe",
                seed=seed)
