"""Build solubility (graph regression, GNN-CB C14's task type) from ESOL `delaney-processed.csv`.

What the builder does, and why:
- molecules become graphs with `evaluator.build` (8 atom types one-hot + 5 atom features, bonds
  as undirected edges with a bond type); the target is the MEASURED log-solubility. Delaney's
  own ESOL prediction and the descriptor columns are not released;
- 20% of the molecules are held out, drawn from the secret seed. The draw is keyed by the
  dataset ("esol"), not by this competition, so mix-props (also ESOL) holds out exactly the
  same molecules: neither competition's training labels reveal the other's test molecules;
- graph ids are random and node order inside every graph is shuffled.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from evaluator.build import (
    featurize,
    graph_tables,
    permute_nodes,
    remap_ids,
    rng_for,
    sample_submission,
    seal_labels,
    write_csv,
)
from evaluator.errors import ConfigError
from evaluator.spec import CompetitionSpec, load_spec

HERE = Path(__file__).resolve().parent
DATASET = "esol"
RAW_FILE = "delaney-processed.csv"
TEST_FRACTION = 0.2
# raw column -> released target name
TARGETS = {"measured log solubility in mols per litre": "log_solubility"}


def raw_file(raw: Path) -> Path:
    """Accept the file itself, its dataset folder, or the datasets root (../shared/datasets)."""
    for path in (raw, raw / RAW_FILE, raw / DATASET / RAW_FILE):
        if path.is_file() and path.name == RAW_FILE:
            return path
    raise ConfigError(f"{raw}: {RAW_FILE} not found; pass the file, its folder or the datasets "
                      f"root holding {DATASET}/{RAW_FILE}")


def esol_test_mask(n: int, seed: str) -> np.ndarray:
    """The ESOL held-out molecules, shared by solubility and mix-props (see module doc)."""
    order = rng_for(seed, DATASET, "test-molecules").permutation(n)
    test = np.zeros(n, dtype=bool)
    test[order[: int(round(TEST_FRACTION * n))]] = True
    return test


def build_esol(raw: Path, seed: str, out: Path, public_key, spec: CompetitionSpec,
               targets: dict[str, str]) -> None:
    """Public graphs + labels for the ESOL targets `targets` (raw column -> released name);
    mix-props calls this too, with its own spec and three targets."""
    path = raw_file(Path(raw))
    table = pd.read_csv(path)
    missing = {"smiles", *targets} - set(table.columns)
    if missing:
        raise ConfigError(f"{path}: missing columns {sorted(missing)}")
    is_test = esol_test_mask(len(table), seed)
    ids = remap_ids(len(table), rng_for(seed, spec.slug, "ids"))
    node_rng = rng_for(seed, spec.slug, "node-order")
    graphs = [permute_nodes(featurize(s, f"{path.name} row {i + 2}"), node_rng)
              for i, s in enumerate(table["smiles"])]
    nodes, edges = graph_tables(graphs, ids)

    data = Path(out) / "data"
    write_csv(nodes, data / "nodes.csv")
    write_csv(edges, data / "edges.csv")
    idc = spec.id_column
    frame = table[list(targets)].rename(columns=targets)
    frame.insert(0, idc, ids)
    frame["test"] = is_test
    frame = frame.sort_values(idc, ignore_index=True)
    names = list(targets.values())
    write_csv(frame.loc[~frame["test"], [idc, *names]], data / "train_labels.csv")
    test = frame[frame["test"]]
    write_csv(test[[idc]], data / "test_ids.csv")
    write_csv(sample_submission(test[idc], spec), data / "sample_submission.csv")
    seal_labels(test, spec, "test", public_key, Path(out) / "hidden" / "test_labels.jwe",
                seed=seed)


def build(raw: Path, seed: str, out: Path, public_key) -> None:
    build_esol(raw, seed, out, public_key, load_spec(HERE), TARGETS)
