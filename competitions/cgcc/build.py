"""Build cgcc (GNN-CB C02 CGCC) from the pickle-free export of the competition's OSM graphs.

What the builder does, and why (see ../shared/datasets/cgcc/SOURCE.md):
- reads `derived/{graphs,nodes,edges}.csv`, the export made from the original pickles through
  an allow-list unpickler, so no pickle is ever loaded here;
- all 120 labelled cities (84 public train labels + the 36 hidden test labels that leaked in
  the original repository's git history) are pooled and split again, stratified by layout
  class, with the secret seed: 84 train / 36 test (70/30), as in the original;
- city names, OSM node and way ids, street names and geometries are dropped; graph ids are
  random integers and node indices are shuffled 0..n-1 per graph;
- a random 10% of the dead ends (degree-1 nodes, at least 2) are removed with their segment,
  so node and edge counts do not identify a city exactly (street_count stays OSMnx's count
  of physical streets at a node, which already differs from the degree inside the 500 m
  window);
- longitude/latitude become local metres around the city centre, then every graph is rotated,
  possibly mirrored, scaled by a random factor in [0.8, 1.25], moved by a random offset and
  jittered by 1 m, so a graph is not a lookup key into OpenStreetMap by its coordinates;
  segment lengths are scaled by the same factor;
- each edge keeps its road class (an integer code) and one-way flag.
"""

from __future__ import annotations

import json
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
DATASET = "cgcc"
TEST_FRACTION = 0.3
EARTH_RADIUS = 6_371_008.8  # metres (IUGG mean radius)
SCALE = (0.8, 1.25)
JITTER = 1.0  # metres
DROP_DEAD_ENDS = 0.1  # share of dead ends removed, so node counts do not identify a city
MIN_DROPPED = 2  # small cities have few dead ends: always drop some
ROAD_CLASSES = {"motorway": 1, "trunk": 2, "primary": 3, "secondary": 4, "tertiary": 5,
                "unclassified": 6, "residential": 7, "living_street": 8}
OTHER_ROAD = 9


def raw_folder(raw: Path) -> Path:
    for path in (raw, raw / DATASET):
        if all((path / "derived" / f).is_file() for f in ("graphs.csv", "nodes.csv",
                                                         "edges.csv")):
            return path
    raise ConfigError(f"{raw}: derived/graphs.csv, nodes.csv and edges.csv not found; pass "
                      f"../shared/datasets/{DATASET} or ../shared/datasets")


def road_class(highway: str) -> int:
    """OSM `highway` (a tag, or a JSON list of tags on merged segments) -> code of its first
    tag, `_link` ramps counted with their road."""
    text = str(highway)
    tags = json.loads(text) if text.startswith("[") else [text]
    return ROAD_CLASSES.get(str(tags[0]).removesuffix("_link"), OTHER_ROAD)


def local_metres(lon: np.ndarray, lat: np.ndarray) -> np.ndarray:
    """Equirectangular projection around the centroid: accurate to < 0.1% over 1 km."""
    lon0, lat0 = np.radians(lon.mean()), np.radians(lat.mean())
    x = (np.radians(lon) - lon0) * np.cos(lat0) * EARTH_RADIUS
    y = (np.radians(lat) - lat0) * EARTH_RADIUS
    return np.column_stack([x, y])


def build(raw: Path, seed: str, out: Path, public_key) -> None:
    spec = load_spec(HERE)
    src = raw_folder(Path(raw)) / "derived"
    graphs = pd.read_csv(src / "graphs.csv").sort_values("graph", ignore_index=True)
    nodes = pd.read_csv(src / "nodes.csv")
    edges = pd.read_csv(src / "edges.csv", usecols=["graph", "u", "v", "length", "highway",
                                                    "oneway"])
    n_test = int(round(TEST_FRACTION * len(graphs)))
    is_test = stratified_test_mask(graphs["target"].to_numpy(), n_test,
                                   rng_for(seed, spec.slug, "split"))
    new_ids = remap_ids(len(graphs), rng_for(seed, spec.slug, "ids"))
    geometry = rng_for(seed, spec.slug, "geometry")
    order_rng = rng_for(seed, spec.slug, "node-order")
    node_groups = dict(tuple(nodes.groupby("graph")))
    edge_groups = dict(tuple(edges.groupby("graph")))
    node_parts, edge_parts = {}, {}
    for name, new in zip(graphs["graph"], new_ids, strict=True):
        part = node_groups[name].sort_values("node")
        osm = pd.Series(np.arange(len(part)), index=part["node"].to_numpy())
        e = edge_groups[name]
        pairs = np.column_stack([osm.loc[e["u"]].to_numpy(), osm.loc[e["v"]].to_numpy()])
        kept, pairs, survive = drop_endpoints(len(part), pairs, geometry, DROP_DEAD_ENDS,
                                                minimum=MIN_DROPPED)
        part, e = part.iloc[kept], e[survive]
        n = len(part)
        xy = local_metres(part["x"].to_numpy(), part["y"].to_numpy())
        moved, factor = random_similarity(xy, geometry, scale=SCALE, jitter=JITTER)
        perm = order_rng.permutation(n)  # new index of the i-th kept node (in OSM id order)
        node_parts[new] = pd.DataFrame({
            "graph_id": new, "node": perm, "x": moved[:, 0], "y": moved[:, 1],
            "street_count": part["street_count"].to_numpy()}).sort_values("node")
        a, b = perm[pairs[:, 0]], perm[pairs[:, 1]]
        frame = pd.DataFrame({
            "graph_id": new, "src": np.minimum(a, b), "dst": np.maximum(a, b),
            "length": e["length"].to_numpy() * factor,
            "road_class": [road_class(h) for h in e["highway"]],
            "oneway": e["oneway"].astype(str).eq("True").astype(int).to_numpy()})
        edge_parts[new] = frame.sort_values(["src", "dst", "length"], kind="stable")
    data = Path(out) / "data"
    order = sorted(node_parts)
    write_csv(pd.concat([node_parts[g] for g in order], ignore_index=True),
              data / "nodes.csv", float_format="%.1f")
    write_csv(pd.concat([edge_parts[g] for g in order], ignore_index=True),
              data / "edges.csv", float_format="%.1f")
    frame = pd.DataFrame({"graph_id": new_ids, "label": graphs["target"].to_numpy(),
                          "test": is_test}).sort_values("graph_id", ignore_index=True)
    train, test = frame[~frame["test"]], frame[frame["test"]]
    write_csv(train[["graph_id", "label"]], data / "train_labels.csv")
    write_csv(test[["graph_id"]], data / "test_ids.csv")
    write_csv(sample_submission(test["graph_id"], spec), data / "sample_submission.csv")
    seal_labels(test, spec, "test", public_key, Path(out) / "hidden" / "test_labels.jwe",
                seed=seed)
