"""Shared helpers for the reference baselines in `competitions/<slug>/baseline/`.

Why a package: every competition ships two baselines (a GNN and a features-only model) that
must follow the same conventions (seed 25, CPU, full batch, a JSON report line with training
time and hardware, a valid predictions file even in `--smoke` mode). Writing those once here
keeps each baseline script short: it states its model and hyper-parameters and calls these
helpers, and competitions that share a recipe share its code.

Only baselines import this package; the scoring path (`evaluator.pipeline` and what it imports)
never does, so scoring needs neither torch nor torch-geometric.

Without torch (NumPy/pandas/SciPy/scikit-learn only, so non-graph baselines run anywhere):
- `runtime`: arguments, seeding, timing, the report line;
- `data`: the node-level layout (`NodeTask`) and the predictions writer;
- `graphdata`: the graph-level layout (molecules) and pooled per-graph features;
- `tabular`: fit a scikit-learn model on node or pooled features, predict the test rows;
- `temporal`: rating-history features for temporal signed-edge tasks.

With torch + torch-geometric (extra `[gnn]`):
- `models`: GCN, GraphSAGE and MLP over dense or sparse features;
- `train`: the full-batch training loop with early stopping;
- `nodelevel`: node classification end to end (tensors, training, test classes);
- `graphlevel`: PyG graphs, GINE with pooling, mini-batch training, the classification and
  regression recipes.
"""
