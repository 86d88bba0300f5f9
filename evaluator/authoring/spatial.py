"""Coordinate transforms for spatial-graph competitions (street networks, vessels, cells).

Why: the raw graphs of several GNN-CB competitions are public with their coordinates, so a
public file with the same coordinates is a lookup key back to the source (and its label). A
random rigid motion per graph (rotation, optional reflection, translation), an optional random
scale and a small jitter keep every distance ratio a model may use while breaking exact
matching. Every draw comes from the caller's generator (`evaluator.authoring.build.rng_for`).
"""

from __future__ import annotations

import numpy as np


def random_similarity(xy: np.ndarray, rng: np.random.Generator, *, scale: tuple[float, float]
                      = (1.0, 1.0), shift: float = 1000.0, jitter: float = 0.0,
                      reflect: bool = True) -> tuple[np.ndarray, float]:
    """`xy` (n, 2) moved by one random similarity transform, plus Gaussian jitter; returns the
    moved points and the scale factor (to scale lengths measured on the original the same way).

    The centroid goes to a random point in [-shift, shift]^2, the graph turns by a uniform
    angle, is mirrored with probability 1/2 (when `reflect`) and scaled by a factor drawn
    log-uniformly from `scale`; `jitter` is the standard deviation of the per-point noise, in
    the units of the output."""
    xy = np.asarray(xy, dtype=np.float64)
    angle = rng.uniform(0, 2 * np.pi)
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    if reflect and rng.random() < 0.5:
        rot = rot @ np.diag([1.0, -1.0])
    factor = float(np.exp(rng.uniform(np.log(scale[0]), np.log(scale[1]))))
    centre = rng.uniform(-shift, shift, size=2)
    moved = (xy - xy.mean(axis=0)) @ rot.T * factor + centre
    if jitter > 0:
        moved = moved + rng.normal(0.0, jitter, size=moved.shape)
    return moved, factor


def stratified_test_mask(labels: np.ndarray, n_test: int, rng: np.random.Generator) -> np.ndarray:
    """Boolean mask of `n_test` rows, classes in proportion (scikit-learn's stratified split,
    its random state drawn from `rng`)."""
    from sklearn.model_selection import train_test_split

    rows = np.arange(len(labels))
    _, test = train_test_split(rows, test_size=n_test, stratify=np.asarray(labels),
                               random_state=int(rng.integers(2**31 - 1)))
    mask = np.zeros(len(labels), dtype=bool)
    mask[test] = True
    return mask


def drop_endpoints(n: int, edges: np.ndarray, rng: np.random.Generator, fraction: float,
                   minimum: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Drop a random `fraction` of the degree-1 nodes (vessel tips, dead ends), at least
    `minimum` of them when the graph has that many: the count is binomial, the nodes random.

    Why: with every node kept, a public graph's node and edge counts identify its source
    graph exactly (the originals are public). Returns the kept nodes' old indices (sorted), the
    kept edges renumbered into 0..len(kept)-1, and the mask of the rows of `edges` kept (both
    ends survive), to carry the edges' attributes along.
    """
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    proper = edges[edges[:, 0] != edges[:, 1]]
    degree = np.bincount(np.unique(np.sort(proper, axis=1), axis=0).ravel(), minlength=n)
    ends = np.flatnonzero(degree == 1)
    count = min(len(ends), max(minimum, int(rng.binomial(len(ends), fraction))))
    dropped = np.zeros(n, dtype=bool)
    dropped[rng.choice(ends, size=count, replace=False)] = True
    kept = np.flatnonzero(~dropped)
    new_index = np.full(n, -1, dtype=np.int64)
    new_index[kept] = np.arange(len(kept))
    survive = ~dropped[edges[:, 0]] & ~dropped[edges[:, 1]]
    return kept, new_index[edges[survive]], survive
