"""Molecules -> graph tables, at build time only.

Why a separate module: the molecular competitions (gnn-bace, solubility, mix-props, and gta for
the table layout) ship plain CSV graphs so participants never need RDKit; RDKit is a build-only
extra (`pip install gnncb[chem]`) and this is the ONLY module that imports it, lazily, so code that
merely writes or permutes graph tables (e.g. the MUTAG builder) runs without it.

Featurisation (the public contract, documented in each competition README):
- one node per heavy atom (hydrogens are implicit, counted in `num_hs`);
- node features, integers: one-hot `atom_C, atom_N, atom_O, atom_S, atom_F, atom_Cl, atom_Br,
  atom_other` (the seven most frequent elements in BACE and ESOL, everything else "other"), then
  `degree` (heavy-atom neighbours), `formal_charge`, `num_hs` (total attached hydrogens),
  `aromatic` (0/1), `in_ring` (0/1);
- one edge row per chemical bond, UNDIRECTED: each bond is listed once with `src < dst`, and
  `bond_type` is 1 single, 2 double, 3 triple, 4 aromatic. Message passing needs both directions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from evaluator.errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover - typing only
    from rdkit.Chem import Mol

ATOM_TYPES = ("C", "N", "O", "S", "F", "Cl", "Br")
ATOM_COLUMNS = tuple(f"atom_{a}" for a in ATOM_TYPES) + ("atom_other",)
EXTRA_COLUMNS = ("degree", "formal_charge", "num_hs", "aromatic", "in_ring")
NODE_COLUMNS = ATOM_COLUMNS + EXTRA_COLUMNS
BOND_CODES = {"SINGLE": 1, "DOUBLE": 2, "TRIPLE": 3, "AROMATIC": 4}
BOND_NAMES = {code: name.lower() for name, code in BOND_CODES.items()}


@dataclass(frozen=True)
class MolGraph:
    """One graph: node feature matrix + undirected edge list (each bond once, src < dst)."""

    x: np.ndarray  # (nodes, features)
    edges: np.ndarray  # (bonds, 2) int64, src < dst, rows sorted
    bond_type: np.ndarray  # (bonds,) int64

    @property
    def num_nodes(self) -> int:
        return int(self.x.shape[0])


def _rdkit() -> Any:
    try:
        from rdkit import Chem, RDLogger
    except ImportError:
        raise ConfigError("RDKit is needed to build molecular competitions; install the build "
                          "extra with `pip install 'gnncb[chem]'` (participants never need it)"
                          ) from None
    # attr-defined: RDLogger.DisableLog exists (a C++ function) but rdkit-stubs omit it
    RDLogger.DisableLog("rdApp.*")  # type: ignore[attr-defined]  # we report parse failures
    return Chem


def parse_smiles(smiles: str, where: str = "") -> Mol:
    """A molecule from SMILES (surrounding spaces stripped, as ESOL has some), or a ConfigError
    that names the offending row."""
    chem = _rdkit()
    text = str(smiles).strip()
    mol: Mol | None = chem.MolFromSmiles(text) if text else None
    if mol is None or mol.GetNumAtoms() == 0:
        raise ConfigError(f"{where or 'SMILES'}: RDKit cannot parse {text!r}; fix or drop the row "
                          "in the raw data")
    return mol


def _canonical(edges: np.ndarray, bond_type: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """src < dst in every row, rows sorted: one canonical table for the same bond set."""
    if len(edges) == 0:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64)
    lo, hi = edges.min(axis=1), edges.max(axis=1)
    order = np.lexsort((hi, lo))
    return np.stack([lo, hi], axis=1)[order].astype(np.int64), bond_type[order].astype(np.int64)


def featurize(smiles: str, where: str = "") -> MolGraph:
    """SMILES -> MolGraph with the features in the module docstring, in RDKit atom order."""
    mol = parse_smiles(smiles, where)
    x = np.zeros((mol.GetNumAtoms(), len(NODE_COLUMNS)), dtype=np.int64)
    other = len(ATOM_TYPES)
    for atom in mol.GetAtoms():
        i = atom.GetIdx()
        symbol = atom.GetSymbol()
        x[i, ATOM_TYPES.index(symbol) if symbol in ATOM_TYPES else other] = 1
        x[i, len(ATOM_COLUMNS):] = (atom.GetDegree(), atom.GetFormalCharge(),
                                    atom.GetTotalNumHs(), int(atom.GetIsAromatic()),
                                    int(atom.IsInRing()))
    pairs, kinds = [], []
    for bond in mol.GetBonds():
        name = str(bond.GetBondType())
        if name not in BOND_CODES:
            raise ConfigError(f"{where or 'SMILES'}: bond type {name} in {smiles!r} has no code; "
                              f"known types are {sorted(BOND_CODES)}")
        pairs.append((bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()))
        kinds.append(BOND_CODES[name])
    edges, bond_type = _canonical(np.array(pairs, dtype=np.int64).reshape(-1, 2),
                                  np.array(kinds, dtype=np.int64))
    return MolGraph(x, edges, bond_type)


def murcko_scaffold(smiles: str, where: str = "") -> str:
    """Canonical SMILES of the Bemis-Murcko scaffold (ring systems + linkers); acyclic molecules
    share the empty scaffold, as in MoleculeNet's scaffold split."""
    _rdkit()
    from rdkit.Chem.Scaffolds import MurckoScaffold

    mol = parse_smiles(smiles, where)
    scaffold: str = MurckoScaffold.MurckoScaffoldSmiles(mol=mol, includeChirality=False)
    return scaffold


def permute_nodes(graph: MolGraph, rng: np.random.Generator) -> MolGraph:
    """The same graph with its nodes in a random order: the public tables must not follow the
    canonical atom order of a published SMILES (anti-contamination)."""
    perm = rng.permutation(graph.num_nodes)  # new position of old node i is perm[i]
    x = np.empty_like(graph.x)
    x[perm] = graph.x
    edges, bond_type = _canonical(perm[graph.edges], graph.bond_type)
    return MolGraph(x, edges, bond_type)


def graph_tables(graphs: Sequence[MolGraph], graph_ids: Sequence[int],
                 columns: Sequence[str] = NODE_COLUMNS) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(nodes, edges) tables for many graphs, rows ordered by graph id then node / edge.

    nodes: graph_id, node (0-based within its graph), one column per feature;
    edges: graph_id, src, dst, bond_type (each undirected bond once, src < dst).
    """
    if len(graphs) != len(graph_ids):
        raise ValueError(f"{len(graphs)} graphs but {len(graph_ids)} ids")
    order = np.argsort(np.asarray(graph_ids), kind="stable")
    node_parts, edge_parts = [], []
    for k in order:
        g, gid = graphs[k], int(graph_ids[k])
        if g.x.shape[1] != len(columns):
            raise ValueError(f"graph {gid}: {g.x.shape[1]} features but {len(columns)} columns")
        nodes = pd.DataFrame(g.x, columns=list(columns))
        nodes.insert(0, "node", np.arange(g.num_nodes, dtype=np.int64))
        nodes.insert(0, "graph_id", gid)
        node_parts.append(nodes)
        edge_parts.append(pd.DataFrame({"graph_id": np.full(len(g.edges), gid, dtype=np.int64),
                                        "src": g.edges[:, 0], "dst": g.edges[:, 1],
                                        "bond_type": g.bond_type}))
    return (pd.concat(node_parts, ignore_index=True), pd.concat(edge_parts, ignore_index=True))
