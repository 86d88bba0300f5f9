"""Build thinc (GNN-CB C18 THInC) from the competition's own labelled NuCLS cell graph.

What the builder does, and why (see ../shared/datasets/thinc/SOURCE.md):
- only the 41,266 labelled cells are used (the original test labels were never published);
  they form 1,395 connected components of the original within-image 5-NN graph, which stand in
  for the tissue images (the files carry no image id);
- whole components are split with the secret seed, about 20% of them to test, so the task is
  inductive: no test cell is connected to a training cell, and test images are unseen;
- every component is re-centred on its centroid, turned by a random multiple of 90 degrees and
  possibly mirrored (width and height swap with the axes, so they stay the nucleus' extent
  along x and y), coordinates get a small jitter and width/height a 2% multiplicative jitter:
  positions are relative to the image, and rows are not exact lookup keys into the original
  files; cell and image ids are random integers;
- edges are the original 5-NN edges, each undirected pair listed once;
- the public part of the test split (feedback) is drawn as whole images, never splitting one.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from evaluator.build import remap_ids, rng_for, sample_submission, seal_labels, write_csv
from evaluator.errors import ConfigError
from evaluator.spec import load_spec

HERE = Path(__file__).resolve().parent
DATASET = "thinc"
TEST_FRACTION = 0.2
XY_JITTER = 0.003  # in the original standardised units, about one pixel
SIZE_JITTER = 0.02  # relative


def raw_folder(raw: Path) -> Path:
    for path in (raw, raw / DATASET):
        if (path / "raw" / "train.csv").is_file() and (
                path / "derived" / "train_components.csv").is_file():
            return path
    raise ConfigError(f"{raw}: raw/train.csv and derived/train_components.csv not found; pass "
                      f"../shared/datasets/{DATASET} or ../shared/datasets")


def dihedral(xy: np.ndarray, size: np.ndarray, k: int, mirror: bool
             ) -> tuple[np.ndarray, np.ndarray]:
    """Turn points by k * 90 degrees (then mirror in x); axis-aligned extents follow."""
    x, y = xy[:, 0], xy[:, 1]
    for _ in range(k):
        x, y = -y, x
    if k % 2:
        size = size[:, ::-1]
    if mirror:
        x = -x
    return np.column_stack([x, y]), size


def plan(raw: Path, seed: str, slug: str = DATASET) -> pd.DataFrame:
    """One row per cell: original `id`, `component`, new `cell` and `image` ids, `test`."""
    from sklearn.model_selection import GroupShuffleSplit

    src = raw_folder(Path(raw))
    comp = pd.read_csv(src / "derived" / "train_components.csv").sort_values("id",
                                                                             ignore_index=True)
    state = int(rng_for(seed, slug, "split").integers(2**31 - 1))
    _, test = next(GroupShuffleSplit(n_splits=1, test_size=TEST_FRACTION, random_state=state)
                   .split(comp, groups=comp["component"]))
    is_test = np.zeros(len(comp), dtype=bool)
    is_test[test] = True
    components = np.sort(comp["component"].unique())
    image_ids = pd.Series(remap_ids(len(components), rng_for(seed, slug, "image-ids"), low=100,
                                    high=10_000), index=components)
    return pd.DataFrame({"id": comp["id"], "component": comp["component"],
                         "cell": remap_ids(len(comp), rng_for(seed, slug, "ids"),
                                           high=10_000_000),
                         "image": image_ids.loc[comp["component"]].to_numpy(),
                         "test": is_test})


def build(raw: Path, seed: str, out: Path, public_key) -> None:
    spec = load_spec(HERE)
    src = raw_folder(Path(raw))
    cells = pd.read_csv(src / "raw" / "train.csv").sort_values("id", ignore_index=True)
    edges = pd.read_csv(src / "raw" / "edge_list.csv")
    rows = plan(raw, seed, spec.slug)
    if not rows["id"].equals(cells["id"]):
        raise ConfigError(f"{src}: train.csv and train_components.csv list different cells")
    geometry = rng_for(seed, spec.slug, "geometry")
    xy = cells[["x", "y"]].to_numpy(np.float64)
    size = cells[["width", "height"]].to_numpy(np.float64)
    for comp in np.sort(rows["component"].unique()):
        at = np.flatnonzero(rows["component"].to_numpy() == comp)
        centred = xy[at] - xy[at].mean(axis=0)
        xy[at], size[at] = dihedral(centred, size[at], int(geometry.integers(4)),
                                    bool(geometry.integers(2)))
    xy += geometry.normal(0, XY_JITTER, xy.shape)
    size *= np.exp(geometry.normal(0, SIZE_JITTER, size.shape))

    new = pd.Series(rows["cell"].to_numpy(), index=rows["id"].to_numpy())
    a, b = new.loc[edges["source"]].to_numpy(), new.loc[edges["target"]].to_numpy()
    pairs = pd.DataFrame({"src": np.minimum(a, b), "dst": np.maximum(a, b)}).drop_duplicates()
    public = pd.DataFrame({"id": rows["cell"], "x": xy[:, 0], "y": xy[:, 1],
                           "width": size[:, 0], "height": size[:, 1]})
    order = np.argsort(rows["cell"].to_numpy())
    data = Path(out) / "data"
    write_csv(public.iloc[order], data / "nodes.csv", float_format="%.4f")
    write_csv(pairs.sort_values(["src", "dst"]), data / "edges.csv")
    write_csv(rows[["cell", "image"]].rename(columns={"cell": "id"}).iloc[order],
              data / "images.csv")
    labels = pd.DataFrame({"id": rows["cell"], "label": cells["label"],
                           "test": rows["test"]}).iloc[order]
    train, test = labels[~labels["test"]], labels[labels["test"]]
    write_csv(train[["id", "label"]], data / "train_labels.csv")
    write_csv(test[["id"]], data / "test_ids.csv")
    write_csv(sample_submission(test["id"], spec), data / "sample_submission.csv")
    # the public part (feedback) is whole images: the 5-NN edges tie the cells of an image
    # together, so a part that split images would let public probes reach private cells
    seal_labels(test, spec, "test", public_key, Path(out) / "hidden" / "test_labels.jwe",
                seed=seed, groups=rows["image"])
