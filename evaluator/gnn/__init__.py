"""Shared helpers for the reference baselines in `competitions/<slug>/baseline/`.

Why a package: every competition ships two baselines (a GNN and a features-only model) that
must follow the same conventions (seed 25, CPU, full batch, a JSON report line with training
time and hardware, a valid predictions file even in `--smoke` mode). Writing those once here
keeps each baseline script short enough to read as a worked example.

Only baselines import this package; the scoring path (`evaluator.pipeline` and what it imports)
never does, so scoring needs neither torch nor torch-geometric. `runtime` and `data` need only
NumPy/pandas/SciPy; `models` and `train` need torch + torch-geometric (extra `[gnn]`).
"""
