"""The code-track graph generator: every cell has the property its name promises, and seeds
reproduce graphs exactly, and whole case sets (every problem's arguments, answers, statistics
and limits) byte for byte."""

from __future__ import annotations

import hashlib
import json
import statistics
from pathlib import Path

import networkx as nx
import pytest

from evaluator.codetrack.cases import case_limits, generate_case_set
from evaluator.codetrack.graphgen import (
    IMPOSSIBLE,
    N_MAX,
    N_MIN,
    case_seed,
    generate_graph,
    graph_stats,
    is_possible,
    sample_n,
)
from evaluator.codetrack.problem import CATEGORIES, SUBCATEGORIES, all_problems
from tests.helpers.codetrack import FULL_ONE, shared_case_set
from tests.helpers.paths import FIXTURES

CELLS = [
    (cat, sub, directed)
    for directed in (False, True)
    for cat in CATEGORIES
    for sub in SUBCATEGORIES
]
# Small graphs for the many-seed property checks, plus a few full-size ones.
SMALL_SIZES = (20, 21, 33, 47)
SEEDS = range(6)


def cell_id(cell: tuple[str, str, bool]) -> str:
    cat, sub, directed = cell
    return f"{'D' if directed else 'U'}-{cat}-{sub}"


def holds(sub: str, G: nx.Graph) -> bool:
    stats = graph_stats(G)
    return {
        "connected": stats["components"] == 1,
        "disconnected": stats["components"] >= 2,
        "cyclic": stats["has_cycle"],
        "acyclic": not stats["has_cycle"],
    }[sub]


def edge_set(G: nx.Graph) -> list:
    return sorted(G.edges())


@pytest.mark.slow
@pytest.mark.parametrize("cell", CELLS, ids=cell_id)
def test_subcategory_property_holds_on_many_seeds(cell):
    cat, sub, directed = cell
    for n in (*SMALL_SIZES, 120, 200):
        for s in SEEDS if n < 100 else range(2):
            seed = case_seed(7, "graphgen-test", cat, sub, s)
            G = generate_graph(cat, sub, directed, n, seed)
            if not is_possible(cat, sub, directed, n):
                assert G is None
                continue
            assert G is not None
            assert G.is_directed() == directed
            assert sorted(G.nodes) == list(range(n)), "nodes must be exactly 0..n-1"
            assert nx.number_of_selfloops(G) == 0
            assert holds(sub, G), f"{cell_id(cell)} n={n} seed={seed}: {graph_stats(G)}"


@pytest.mark.parametrize("cell", CELLS, ids=cell_id)
def test_same_seed_same_graph_and_seeds_differ(cell):
    cat, sub, directed = cell
    n = 36
    if not is_possible(cat, sub, directed, n):
        pytest.skip(IMPOSSIBLE[(cat, sub, directed)])
    a = generate_graph(cat, sub, directed, n, 12345)
    b = generate_graph(cat, sub, directed, n, 12345)
    assert edge_set(a) == edge_set(b)
    if cat == "complete" and sub != "disconnected":
        return  # K_n (or the transitive tournament, relabelled) may coincide across seeds
    others = {tuple(edge_set(generate_graph(cat, sub, directed, n, s))) for s in range(1, 5)}
    assert len(others) > 1, "different seeds should give different graphs"


def test_category_structure():
    """Planar graphs are planar, regular ones regular, complete ones complete, dense ones dense."""
    for directed in (False, True):
        for sub in SUBCATEGORIES:
            for s in SEEDS:
                n = 30 + s
                G = generate_graph("planar", sub, directed, n, s)
                assert nx.check_planarity(G.to_undirected() if directed else G)[0]
                R = generate_graph("regular", sub, directed, n, s)
                if R is not None:
                    degs = {d for _, d in (R.out_degree() if directed else R.degree())}
                    assert len(degs) == 1 and degs != {0}
                    if directed:
                        assert {d for _, d in R.in_degree()} == degs
                C = generate_graph("complete", sub, directed, n, s)
                if C is None:
                    continue
                comps = (
                    nx.weakly_connected_components(C) if directed else nx.connected_components(C)
                )
                for comp in comps:
                    k = len(comp)
                    pairs = k * (k - 1) // 2 if not directed or sub == "acyclic" else k * (k - 1)
                    assert C.subgraph(comp).number_of_edges() == pairs
                D = generate_graph("dense", sub, directed, n, s)
                if D is not None:
                    assert graph_stats(D)["density"] >= (0.3 if sub == "acyclic" else 0.5)


def test_impossible_cells_are_documented_and_return_none():
    assert ("dense", "acyclic", False) in IMPOSSIBLE
    assert ("complete", "acyclic", False) in IMPOSSIBLE
    assert ("regular", "acyclic", True) in IMPOSSIBLE
    assert generate_graph("complete", "acyclic", False, 40, 1) is None
    assert generate_graph("regular", "acyclic", False, 41, 1) is None  # odd n
    assert generate_graph("regular", "acyclic", False, 40, 1) is not None  # perfect matching
    for key, reason in IMPOSSIBLE.items():
        assert len(reason) > 20, key


def test_unknown_names_are_rejected_with_the_valid_choices():
    with pytest.raises(ValueError, match="choose one of"):
        generate_graph("tree", "connected", False, 30, 1)
    with pytest.raises(ValueError, match="choose one of"):
        generate_graph("sparse", "bipartite", False, 30, 1)


def test_case_seed_is_stable_and_distinguishes_every_field():
    # A pinned value: a change of hashing would silently change every generated case.
    assert case_seed(0, "lc207", "sparse", "cyclic", 0) == 1756447087986041987
    digest = hashlib.sha256(b"5|lc797|dense|acyclic|9").digest()
    assert case_seed(5, "lc797", "dense", "acyclic", 9) == int.from_bytes(digest[:8], "big") >> 1
    base = ("lc207", "sparse", "cyclic")
    seeds = {
        case_seed(0, *base, 0),
        case_seed(1, *base, 0),
        case_seed(0, "lc210", "sparse", "cyclic", 0),
        case_seed(0, "lc207", "planar", "cyclic", 0),
        case_seed(0, "lc207", "sparse", "acyclic", 0),
        case_seed(0, *base, 1),
    }
    assert len(seeds) == 6
    assert all(0 <= s < 2**63 for s in seeds)
    sizes = [sample_n(case_seed(0, *base, i)) for i in range(200)]
    assert min(sizes) >= N_MIN and max(sizes) <= N_MAX and len(set(sizes)) > 50


def test_statistics_resemble_the_papers_table_4():
    """Average degree per category near the paper's Table 4 (loose bands, 10 graphs each)."""
    bands = {  # (directed, category): (low, high) for the paper's average degree
        (False, "sparse"): (1.7, 2.5),  # paper 1.95
        (False, "planar"): (1.7, 2.5),  # paper 1.98
        (False, "regular"): (3.0, 7.0),  # paper 5.01
        (False, "small-world"): (10.0, 45.0),  # paper 26.05
        (False, "erdos-renyi"): (6.0, 20.0),  # paper 12.74
        (False, "power-law"): (5.0, 16.0),  # paper 10.18
        (True, "sparse"): (2.0, 3.2),  # paper 268 arcs / 104 nodes = 2.58
        (True, "planar"): (0.9, 1.3),  # paper 43.6 / 41.1 = 1.06
    }
    for (directed, cat), (low, high) in bands.items():
        degs = []
        for i in range(10):
            seed = case_seed(3, "stats", cat, "connected", i)
            G = generate_graph(cat, "connected", directed, sample_n(seed), seed)
            degs.append(graph_stats(G)["avg_degree"])
        assert low <= statistics.mean(degs) <= high, (directed, cat, statistics.mean(degs))
    power = [
        graph_stats(generate_graph("power-law", "connected", False, 150, s))["degree_variance"]
        for s in range(5)
    ]
    regular = [
        graph_stats(generate_graph("regular", "connected", False, 150, s))["degree_variance"]
        for s in range(5)
    ]
    assert statistics.mean(power) > 10 and max(regular) == 0


def test_graph_stats_on_a_known_graph():
    G = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    G.add_node(3)
    stats = graph_stats(G)
    assert stats["nodes"] == 4 and stats["edges"] == 3
    assert stats["avg_degree"] == 0.75
    assert stats["degree_variance"] == pytest.approx(0.1875)
    assert stats["components"] == 2 and not stats["connected"]
    assert stats["has_cycle"]
    assert not graph_stats(nx.path_graph(5))["has_cycle"]


@pytest.mark.slow
def test_regular_disconnected_fits_its_blocks_for_every_small_n():
    """Regression: an odd degree needs even-sized blocks, so 22 nodes hold at most two blocks
    of >= 7 (rounded up to 8); the generator used to ask for three and raised "cannot split 22
    nodes into 3 parts of >= 7" (lc1782's draw with seed 2039513332198700935)."""
    seed = 2039513332198700935
    assert sample_n(seed) == 22
    G = generate_graph("regular", "disconnected", False, 22, seed)
    assert holds("disconnected", G) and len({d for _, d in G.degree()}) == 1
    for n in range(N_MIN, 61):
        for s in range(8):
            for directed in (False, True):
                seed = case_seed(3, "regular-blocks", "regular", "disconnected", n * 100 + s)
                R = generate_graph("regular", "disconnected", directed, n, seed)
                assert holds("disconnected", R), (n, seed, directed)
                degrees = R.out_degree() if directed else R.degree()
                assert len({d for _, d in degrees}) == 1, (n, seed, directed)


# ------------------------------------------------------------------ whole case sets, every problem

# The builders this issue reshaped plus the ones that draw the most from their own generator.
SAMPLE = ["lc802", "lc1557", "lc1719", "lc2242", "lc2368", "lc2924", "lc3017", "lc2097"]


def _set_bytes(root: Path) -> dict[str, bytes]:
    """Every file of a case-set folder but the manifest's own name, as raw bytes: the
    arguments, answers, statistics and limits (`ref_seconds`, `limit_seconds`) of each case."""
    files = {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
             if p.is_file()}
    manifest = json.loads(files.pop("manifest.json"))
    manifest.pop("name")
    return {**files, "manifest": json.dumps(manifest, sort_keys=True).encode()}


def _twice(tmp_path: Path, **settings: object) -> tuple[dict, dict]:
    one = generate_case_set(tmp_path / "one", jobs=1, **settings)
    two = generate_case_set(tmp_path / "two", jobs=2, **settings)
    assert one.manifest["total"] > 0
    return _set_bytes(one.path), _set_bytes(two.path)


@pytest.mark.slow
def test_a_seed_gives_byte_identical_sets_for_a_sample_of_problems(tmp_path: Path) -> None:
    first, second = _twice(tmp_path, per_cell=1, problems=SAMPLE)
    assert len(first) == 2 * len(SAMPLE) + 1
    assert first == second


@pytest.mark.slow
def test_a_seed_gives_the_same_set_for_every_problem(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every valid cell of every problem (the full plan at --per-cell 1: the set shared with
    test_labels.py and test_errata.py, made by two worker processes).

    Each problem's ids, arguments and answers match the fingerprints recorded in
    tests/fixtures/case_fingerprints.json: made by another process at the commit that last
    changed them, so this holds across processes (string hashes are salted per process) and
    commits (a second generation in this process shared the forked workers' salt, and cost a
    minute of CI). Each case's seed and limits are recomputed here from its draw and
    arguments, its statistics by test_labels.py (every figure, every case of this set), and
    the sample test above compares the bytes of two whole generations (gzip headers,
    manifest): together, the same seed gives the same bytes for every problem."""
    recorded = json.loads((FIXTURES / "case_fingerprints.json").read_text(encoding="utf-8"))
    shared = shared_case_set(tmp_path_factory, **FULL_ONE)
    assert {k: recorded[k] for k in ("plan", "per_cell", "base_seed")} == {
        "plan": FULL_ONE["plan"], "per_cell": FULL_ONE["per_cell"],
        "base_seed": shared.manifest["base_seed"]}
    problems = all_problems()
    assert set(shared.problem_ids()) == set(problems) == set(recorded["problems"])
    moved = [pid for pid in sorted(problems)
             if shared.fingerprint(pid) != recorded["problems"][pid]]
    assert not moved, (f"the cases of {moved} differ from the recorded fingerprints "
                       "(tests/codetrack/test_errata.py says how a correction is recorded)")
    base = shared.manifest["base_seed"]
    for pid, problem in problems.items():
        for case in shared.iter_cases(pid):
            salt = pid if case.attempt == 0 else f"{pid}~{case.attempt}"
            assert case.seed == case_seed(base, salt, case.category, case.subcategory,
                                          case.index), case.id
            limits = case_limits(problem, json.loads(case.args_json()))
            assert (case.ref_seconds, case.limit_seconds) == (
                limits["ref_seconds"], limits["limit_seconds"]), case.id
