"""Public data must not give the answer: the attacks that worked, run against what we publish.

gta (version 1) released every test molecule twice, clean and perturbed: matching twins by
topology (Weisfeiler-Lehman hash with bond types, then an isomorphism check) paired all 47, and
copying the clean prediction to the twin won first place with a robustness gap of 0. Version 2
releases two disjoint halves; the same attack now finds a twin only where two different MUTAG
molecules happen to share a skeleton.

park-gnn's public same-speaker edges group the test recordings by speaker, one label each, so
a few probing submissions read at full precision decode the labels. What is published as
feedback (the public part of the split, issue 11) is exactly what this attack reads.
"""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pandas as pd

REPO = Path(__file__).resolve().parent.parent
GTA = REPO / "competitions" / "gta" / "data"


def _graphs(data: Path) -> dict[int, nx.Graph]:
    nodes, edges = pd.read_csv(data / "nodes.csv"), pd.read_csv(data / "edges.csv")
    graphs = {}
    for gid, members in nodes.groupby("graph_id"):
        g = nx.Graph()
        g.add_nodes_from(members["node"])
        graphs[gid] = g
    for row in edges.itertuples():
        graphs[row.graph_id].add_edge(row.src, row.dst, bond=row.bond_type)
    return graphs


def twin_attack(data: Path) -> dict[int, list[int]]:
    """For each perturbed test graph, the ideal test graphs with exactly its bonds."""
    graphs = _graphs(data)
    ideal = pd.read_csv(data / "test_ideal_ids.csv")["graph_id"].tolist()
    perturbed = pd.read_csv(data / "test_perturbed_ids.csv")["graph_id"].tolist()
    digest = {gid: nx.weisfeiler_lehman_graph_hash(graphs[gid], edge_attr="bond")
              for gid in ideal + perturbed}
    by_hash: dict[str, list[int]] = {}
    for gid in ideal:
        by_hash.setdefault(digest[gid], []).append(gid)
    same_bond = nx.algorithms.isomorphism.categorical_edge_match("bond", None)
    twins = {}
    for gid in perturbed:
        found = [t for t in by_hash.get(digest[gid], [])
                 if nx.is_isomorphic(graphs[gid], graphs[t], edge_match=same_bond)]
        if found:
            twins[gid] = found
    return twins


def test_gta_perturbed_graphs_have_no_ideal_twins() -> None:
    twins = twin_attack(GTA)
    perturbed = pd.read_csv(GTA / "test_perturbed_ids.csv")
    # version 1: 47 of 47 paired. Left: molecules that share a skeleton with another molecule
    # (MUTAG has such pairs), too few to move a score, and not the same molecule.
    assert len(twins) <= 0.15 * len(perturbed), (len(twins), len(perturbed))
    ideal = set(pd.read_csv(GTA / "test_ideal_ids.csv")["graph_id"])
    assert not ideal & set(perturbed["graph_id"])


def test_the_twin_attack_finds_twins_when_they_exist(tmp_path: Path) -> None:
    """The attack itself works: on data laid out as version 1 (a perturbed copy of every
    ideal graph, features changed, bonds kept, node order shuffled) it pairs every graph."""
    nodes, edges = pd.read_csv(GTA / "nodes.csv"), pd.read_csv(GTA / "edges.csv")
    ideal = pd.read_csv(GTA / "test_ideal_ids.csv")["graph_id"].tolist()
    copies = {gid: 9_000_000 + i for i, gid in enumerate(ideal)}
    n2, e2 = nodes[nodes["graph_id"].isin(ideal)].copy(), edges[edges["graph_id"].isin(ideal)]
    e2 = e2.copy()
    shift = {gid: len(n2[n2["graph_id"] == gid]) for gid in ideal}
    n2["node"] = [(n + 3) % shift[g] for g, n in zip(n2["graph_id"], n2["node"], strict=True)]
    e2["src"] = [(n + 3) % shift[g] for g, n in zip(e2["graph_id"], e2["src"], strict=True)]
    e2["dst"] = [(n + 3) % shift[g] for g, n in zip(e2["graph_id"], e2["dst"], strict=True)]
    n2["graph_id"], e2["graph_id"] = n2["graph_id"].map(copies), e2["graph_id"].map(copies)
    pd.concat([nodes, n2]).to_csv(tmp_path / "nodes.csv", index=False)
    pd.concat([edges, e2]).to_csv(tmp_path / "edges.csv", index=False)
    pd.DataFrame({"graph_id": ideal}).to_csv(tmp_path / "test_ideal_ids.csv", index=False)
    pd.DataFrame({"graph_id": list(copies.values())}).to_csv(
        tmp_path / "test_perturbed_ids.csv", index=False)
    twins = twin_attack(tmp_path)
    assert len(twins) == len(ideal)
    assert all(copies[orig] in [copies.get(t, -1) for t in found] or orig in found
               for orig in ideal for found in [twins[copies[orig]]])
