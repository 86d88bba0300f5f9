"""Build gta (GNN-CB C13 GTA) from MUTAG in TU format.

What the builder does, and why:
- each of the 188 molecules becomes a graph with a 7-way one-hot atom type (the TU node labels
  C, N, O, F, I, Cl, Br) and undirected bonds listed once with a bond type in the same coding
  as the other molecular competitions (1 single, 2 double, 3 triple, 4 aromatic);
- a stratified 40% of the molecules are held out (an even number per class), drawn from the
  secret seed, and split into two DISJOINT halves with the same class counts: the `ideal` half
  is released with clean features, the `perturbed` half with node features that get a
  systematic shift and noise, x <- x + delta + eps, eps ~ N(0, sigma^2) per entry. delta is one
  vector of 7 offsets shared by all perturbed graphs, each drawn uniformly from
  [-DELTA_MAX, DELTA_MAX]; sigma is drawn uniformly from SIGMA_RANGE. Both are drawn from the
  secret seed and never published, so a model must be robust rather than tuned to known values;
- why disjoint (version 2): when every held-out molecule was released in both settings, each
  perturbed graph had exactly the bonds of one ideal graph, so matching twins by topology (a
  Weisfeiler-Lehman hash, then an isomorphism check) paired all of them and a model could copy
  its clean prediction to the perturbed twin: first place with a robustness gap of 0 and no
  robustness at all;
- why only molecules with a skeleton of their own are held out (version 3): the perturbation
  corrupts atoms, never bonds, and different MUTAG molecules often share a skeleton (the bonds
  without atom or bond types; 188 molecules, 139 skeletons, 135 of them with one label). In
  version 2, 4 of 38 perturbed graphs shared their bonds with an ideal graph and 14 shared a
  skeleton with a training graph, whose public label answered them by lookup: a matching
  attack with no learning ranked above the features-only baseline. Now a molecule is a test
  candidate only if no other molecule of the 188 has its skeleton, so no test graph matches a
  training graph or another test graph (`evaluator.authoring.skeletons`: WL hash to bucket,
  `nx.is_isomorphic` to decide). The test molecules are therefore structurally rarer than the
  training ones (a scaffold-style split), in both halves alike, so the gap still compares two
  class-matched samples of one distribution;
- graph ids are random and node order is shuffled independently in every copy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from evaluator.build import (
    MolGraph,
    graph_tables,
    permute_nodes,
    remap_ids,
    rng_for,
    sample_submission,
    seal_labels,
    skeleton,
    skeleton_classes,
    write_csv,
)
from evaluator.errors import ConfigError
from evaluator.spec import load_spec

HERE = Path(__file__).resolve().parent
DATASET = "mutag"
PARTS = ("A", "graph_indicator", "graph_labels", "node_labels", "edge_labels")
ATOM_COLUMNS = ("atom_C", "atom_N", "atom_O", "atom_F", "atom_I", "atom_Cl", "atom_Br")
TU_BOND_TO_CODE = np.array([4, 1, 2, 3])  # TU: 0 aromatic, 1 single, 2 double, 3 triple
TEST_FRACTION = 0.4
DELTA_MAX = 0.3
SIGMA_RANGE = (0.2, 0.3)


def raw_folder(raw: Path) -> Path:
    """Accept the MUTAG folder itself or the datasets root holding mutag/."""
    for folder in (raw, raw / DATASET):
        if all((folder / f"MUTAG_{p}.txt").is_file() for p in PARTS):
            return folder
    raise ConfigError(f"{raw}: MUTAG TU files not found; pass the folder holding "
                      f"MUTAG_{{{','.join(PARTS)}}}.txt or the datasets root holding {DATASET}/")


def _column(path: Path, width: int = 1) -> np.ndarray:
    values = np.loadtxt(path, delimiter=",", dtype=np.int64, ndmin=2)
    if values.shape[1] != width:
        raise ConfigError(f"{path}: expected {width} comma-separated integers per line")
    return values if width > 1 else values[:, 0]


def read_mutag(folder: Path) -> tuple[list[MolGraph], np.ndarray]:
    """TU files -> (graphs with clean one-hot features, labels in {0, 1})."""
    f = {p: folder / f"MUTAG_{p}.txt" for p in PARTS}
    pairs = _column(f["A"], 2) - 1  # TU ids are 1-based and global
    graph_of = _column(f["graph_indicator"]) - 1
    atom = _column(f["node_labels"])
    bond = TU_BOND_TO_CODE[_column(f["edge_labels"])]
    labels = (_column(f["graph_labels"]) == 1).astype(np.int64)  # TU: 1 mutagenic, -1 not
    if len(atom) != len(graph_of) or len(bond) != len(pairs):
        raise ConfigError(f"{folder}: TU files disagree in length (nodes or edges)")
    first = np.searchsorted(graph_of, np.arange(len(labels)))  # nodes are grouped by graph
    graphs = []
    for g in range(len(labels)):
        nodes = np.flatnonzero(graph_of == g)
        x = np.zeros((len(nodes), len(ATOM_COLUMNS)), dtype=np.float64)
        x[np.arange(len(nodes)), atom[nodes]] = 1.0
        rows = np.flatnonzero((graph_of[pairs[:, 0]] == g) & (pairs[:, 0] < pairs[:, 1]))
        edges = pairs[rows] - first[g]
        graphs.append(MolGraph(x, edges, bond[rows]))
    return graphs, labels


def own_skeleton(graphs: list[MolGraph]) -> np.ndarray:
    """Boolean mask of the molecules whose skeleton no other molecule shares."""
    classes = skeleton_classes({i: skeleton(g.num_nodes, g.edges) for i, g in enumerate(graphs)})
    alone = np.zeros(len(graphs), dtype=bool)
    alone[[members[0] for members in classes if len(members) == 1]] = True
    return alone


def stratified_test(labels: np.ndarray, rng: np.random.Generator, fraction: float,
                    candidates: np.ndarray) -> np.ndarray:
    """Boolean test mask with `fraction` of each class (of all molecules), rounded to an even
    count so that the two settings can get the same number of each class, drawn from the
    `candidates` only."""
    test = np.zeros(len(labels), dtype=bool)
    for c in np.unique(labels):
        members = np.flatnonzero((labels == c) & candidates)
        size = 2 * int(round(fraction * np.count_nonzero(labels == c) / 2))
        if size > len(members):
            raise ConfigError(f"class {c}: {size} test molecules wanted, only {len(members)} "
                              "have a skeleton of their own; lower TEST_FRACTION")
        test[rng.choice(members, size=size, replace=False)] = True
    return test


def stratified_halves(labels: np.ndarray, test: np.ndarray,
                      rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The test molecules split into two disjoint halves with equal class counts."""
    first, second = [], []
    for c in np.unique(labels[test]):
        members = rng.permutation(test[labels[test] == c])
        first.extend(members[: len(members) // 2])
        second.extend(members[len(members) // 2:])
    return np.sort(np.array(first)), np.sort(np.array(second))


def perturb(graph: MolGraph, delta: np.ndarray, sigma: float,
            rng: np.random.Generator) -> MolGraph:
    """x <- x + delta + N(0, sigma^2) on node features; topology is unchanged."""
    noise = rng.normal(0.0, sigma, size=graph.x.shape)
    return MolGraph(graph.x + delta + noise, graph.edges, graph.bond_type)


def build(raw: Path, seed: str, out: Path, public_key) -> None:
    spec = load_spec(HERE)
    graphs, labels = read_mutag(raw_folder(Path(raw)))
    is_test = stratified_test(labels, rng_for(seed, spec.slug, "split"), TEST_FRACTION,
                              own_skeleton(graphs))
    train, test = np.flatnonzero(~is_test), np.flatnonzero(is_test)
    ideal, perturbed = stratified_halves(labels, test, rng_for(seed, spec.slug, "settings"))

    shift_rng = rng_for(seed, spec.slug, "perturbation")
    delta = shift_rng.uniform(-DELTA_MAX, DELTA_MAX, size=len(ATOM_COLUMNS))
    sigma = float(shift_rng.uniform(*SIGMA_RANGE))
    noise_rng = rng_for(seed, spec.slug, "noise")
    # one released graph per (molecule, role); role 0 train, 1 ideal, 2 perturbed
    released = ([(i, 0, graphs[i]) for i in train] + [(i, 1, graphs[i]) for i in ideal]
                + [(i, 2, perturb(graphs[i], delta, sigma, noise_rng)) for i in perturbed])
    # ids drawn per version: the same 188 ids again would name other molecules than before
    ids = remap_ids(len(released), rng_for(seed, spec.slug, f"ids v{spec.version}"))
    node_rng = rng_for(seed, spec.slug, "node-order")
    nodes, edges = graph_tables([permute_nodes(g, node_rng) for _, _, g in released], ids,
                                ATOM_COLUMNS)

    data = Path(out) / "data"
    write_csv(nodes, data / "nodes.csv")
    write_csv(edges, data / "edges.csv")
    idc = spec.id_column
    frame = pd.DataFrame({idc: ids, "label": [labels[i] for i, _, _ in released],
                          "role": [r for _, r, _ in released]}).sort_values(idc, ignore_index=True)
    write_csv(frame.loc[frame["role"] == 0, [idc, "label"]], data / "train_labels.csv")
    for role, split in ((1, "ideal"), (2, "perturbed")):
        part = frame[frame["role"] == role]
        write_csv(part[[idc]], data / f"test_{split}_ids.csv")
        seal_labels(part, spec, split, public_key, Path(out) / "hidden" / f"{split}_labels.jwe",
                    seed=seed)
    test_all = frame.loc[frame["role"] > 0, idc]
    write_csv(sample_submission(test_all, spec), data / "sample_submission.csv")
