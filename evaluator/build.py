"""The builder API that `competitions/<slug>/build.py` scripts import: one stable face over
`evaluator.authoring` (the kit lives there; this path is the contract builders rely on)."""

from evaluator.authoring.build import (
    draw_public_part,
    read_seed,
    remap_ids,
    rng_for,
    sample_submission,
    seal_labels,
    write_csv,
)
from evaluator.authoring.chem import (
    MolGraph,
    featurize,
    graph_tables,
    murcko_scaffold,
    parse_smiles,
    permute_nodes,
)
from evaluator.authoring.skeletons import skeleton, skeleton_classes
from evaluator.authoring.spatial import drop_endpoints, random_similarity, stratified_test_mask

__all__ = [
    "MolGraph", "draw_public_part", "drop_endpoints", "featurize", "graph_tables",
    "murcko_scaffold", "parse_smiles", "permute_nodes", "random_similarity", "read_seed",
    "remap_ids", "rng_for", "sample_submission", "seal_labels", "skeleton", "skeleton_classes",
    "stratified_test_mask", "write_csv",
]
