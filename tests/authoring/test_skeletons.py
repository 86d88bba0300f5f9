"""Skeleton classes (evaluator.authoring.skeletons): the same bonds under any node order and
any atom or bond types are one class; the WL hash only buckets, isomorphism decides."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from evaluator.authoring.skeletons import shared_skeletons, skeleton, skeleton_classes


def test_relabelled_and_reordered_copies_share_a_skeleton():
    ring = skeleton(7, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0), (0, 6)])
    order = np.random.default_rng(3).permutation(7)
    copy = nx.relabel_nodes(ring, dict(enumerate(order.tolist())))
    nx.set_edge_attributes(copy, 4, "bond")  # bond types are not part of the skeleton
    nx.set_node_attributes(copy, "N", "atom")
    chain = skeleton(7, [(i, i + 1) for i in range(6)])
    assert skeleton_classes({"a": ring, "b": chain, "c": copy}) == [["a", "c"], ["b"]]
    assert shared_skeletons({"a": ring, "b": chain, "c": copy}) == {"a": ["c"], "c": ["a"]}


@pytest.mark.filterwarnings("ignore:The hashes produced:UserWarning")
def test_equal_hashes_that_are_not_isomorphic_stay_apart():
    """Two triangles and a hexagon: every node has degree 2, so 1-WL gives both the same
    hash; they are different skeletons."""
    triangles = skeleton(6, [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)])
    hexagon = skeleton(6, [(i, (i + 1) % 6) for i in range(6)])
    assert nx.weisfeiler_lehman_graph_hash(triangles) == nx.weisfeiler_lehman_graph_hash(hexagon)
    assert skeleton_classes({1: triangles, 2: hexagon}) == [[1], [2]]
    assert shared_skeletons({1: triangles, 2: hexagon}) == {}


def test_isolated_atoms_count():
    """An isolated node is part of the skeleton (a salt's counter-ion is an atom too)."""
    assert skeleton_classes({0: skeleton(3, [(0, 1)]), 1: skeleton(2, [(0, 1)])}) == [[0], [1]]
