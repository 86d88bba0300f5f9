"""Build trust-temporal (GNN-CB's temporal category, C09's stand-in) from Bitcoin OTC.

Raw input: `../shared/datasets/bitcoin-otc/soc-sign-bitcoinotc.csv` (35,592 signed, timestamped
who-trusts-whom ratings from -10 to +10 between 5,881 users). The task: learn from the ratings
made before a time cut, then predict for every later rating whether it is trust (rating > 0)
or distrust (rating < 0).

- the cut is the time of the TRAIN_FRACTION quantile of ratings: earlier ratings are public with
  their value, later ones are the test set (their endpoints and day only);
- user ids and rating ids are remapped from the secret seed; timestamps are reduced to whole
  days since the first rating, so rows cannot be joined back to the public file by time.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from evaluator.build import remap_ids, rng_for, sample_submission, seal_labels, write_csv
from evaluator.spec import load_spec

SLUG = "trust-temporal"
TRAIN_FRACTION = 0.7


def load_raw(raw: Path) -> pd.DataFrame:
    frame = pd.read_csv(Path(raw) / "soc-sign-bitcoinotc.csv", header=None,
                        names=["source", "target", "rating", "time"])
    if (frame["rating"] == 0).any():
        raise ValueError("ratings of 0 have no trust/distrust sign")
    return frame.sort_values("time", kind="stable").reset_index(drop=True)


def build(raw: Path, seed: str, out: Path, public_key) -> None:
    spec = load_spec(Path(__file__).parent)
    frame = load_raw(raw)
    users = np.unique(frame[["source", "target"]].to_numpy())
    user_ids = dict(zip(users.tolist(), remap_ids(len(users), rng_for(seed, SLUG, "ids")).tolist(),
                        strict=True))
    edge_ids = remap_ids(len(frame), rng_for(seed, SLUG, "edge-ids"))
    cut = frame["time"].quantile(TRAIN_FRACTION)
    table = pd.DataFrame({
        "id": edge_ids,
        "src": frame["source"].map(user_ids).to_numpy(),
        "dst": frame["target"].map(user_ids).to_numpy(),
        "day": ((frame["time"] - frame["time"].min()) // 86400).astype(int).to_numpy(),
        "rating": frame["rating"].to_numpy(),
        "trust": (frame["rating"] > 0).astype(int).to_numpy(),
    })
    is_test = (frame["time"] >= cut).to_numpy()

    data = Path(out) / "data"
    train = table[~is_test].sort_values(["day", "id"])
    test = table[is_test].sort_values(["day", "id"])
    write_csv(train, data / "train_edges.csv")
    write_csv(test[["id", "src", "dst", "day"]], data / "test_edges.csv")
    write_csv(sample_submission(test["id"], spec), data / "sample_submission.csv")
    seal_labels(test[["id", "trust"]], spec, "test", public_key,
                Path(out) / "hidden" / "test_labels.jwe", seed=seed)
