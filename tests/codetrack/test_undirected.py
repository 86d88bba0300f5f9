"""The 20 undirected code-track problems.

What a user would check: each reference agrees with an independent NetworkX oracle or brute
force, the case builders honour the input contracts, checkers reject wrong answers, and the
published GraphEval36K labels agree exactly as far as CODE_TRACK_PROBLEMS.md says they do (and
disagree exactly where and why it says they do not).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import importlib
import inspect
import itertools
import json
import random
import warnings
from collections import Counter, defaultdict, deque
from types import ModuleType
from typing import Any

import networkx as nx
import pytest

from evaluator.codetrack.checkers import canonical, normalize, set_of_unordered_pairs
from evaluator.codetrack.graphgen import case_seed, generate_graph
from evaluator.codetrack.problem import CATEGORIES, SUBCATEGORIES, Problem, all_problems
from evaluator.codetrack.problems.undirected_common import (
    ids_in_range,
    is_forest,
    is_simple,
    is_tree,
)
from evaluator.codetrack.published import (
    PublishedCase,
    PublishedDataWarning,
    iter_published_cases,
)
from tests.helpers.paths import SHARED

UNDIRECTED = (
    "lc1192", "lc1319", "lc1615", "lc1761", "lc1782", "lc1971", "lc2242", "lc2246", "lc2285",
    "lc2316", "lc2368", "lc2421", "lc2467", "lc2477", "lc2493", "lc2508", "lc2603", "lc2646",
    "lc2685", "lc3017",
)  # fmt: skip
PROBLEMS = all_problems()
DATA = SHARED / "datasets" / "grapheval36k"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"{DATA} is absent (fresh clone)")


def module(pid: str) -> ModuleType:
    return importlib.import_module(f"evaluator.codetrack.problems.undirected_{pid}")


def solve(pid: str, args: dict[str, Any]) -> Any:
    return PROBLEMS[pid].reference(**args)


# ------------------------------------------------------------------------- generated graphs


@functools.cache
def generated() -> tuple:
    """(category, subcategory, draw, graph): two graphgen draws (20 and 27 nodes) per cell."""
    out = []
    for cat in CATEGORIES:
        for sub in SUBCATEGORIES:
            for k, n in enumerate((20, 27)):
                G = generate_graph(cat, sub, False, n, case_seed(11, "undirected", cat, sub, k))
                if G is not None:
                    out.append((cat, sub, k, G))
    return tuple(out)


@functools.cache
def small_graphs() -> tuple:
    """Seeded NetworkX graphs of 5-8 nodes (below graphgen's range) for brute-force oracles:
    G(n, p) at three densities, random trees and two-tree forests."""
    out = []
    for k, n in enumerate((5, 6, 7, 8) * 2):
        for p in (0.25, 0.45, 0.7):
            out.append(("gnp", f"p{p}", k, nx.gnp_random_graph(n, p, seed=100 * k + int(p * 10))))
        out.append(("tree", "acyclic", k, nx.random_labeled_tree(n, seed=k)))
        forest = nx.disjoint_union(
            nx.random_labeled_tree(n // 2, seed=k), nx.random_labeled_tree(n - n // 2, seed=k + 1)
        )
        out.append(("forest", "acyclic", k, forest))
    return tuple(out)


def cases_of(pid: str, graphs: tuple) -> list[dict[str, Any]]:
    problem = PROBLEMS[pid]
    out = []
    for cat, sub, k, G in graphs:
        args = problem.build_case(G, random.Random(case_seed(3, pid, cat, sub, k)))
        if args is not None:
            out.append(args)
    return out


# ------------------------------------------------------------------------- registry


def test_all_twenty_undirected_problems_are_registered():
    assert {pid for pid, p in PROBLEMS.items() if not p.directed} == set(UNDIRECTED)


@pytest.mark.parametrize("pid", UNDIRECTED)
def test_signature_matches_record(pid):
    problem = PROBLEMS[pid]
    namespace: dict[str, Any] = {}
    exec(compile(problem.signature, f"<{pid} signature>", "exec"), namespace)
    method = getattr(namespace["Solution"], problem.method)
    params = list(inspect.signature(method).parameters)[1:]
    assert tuple(params) == problem.arg_names
    assert problem.directed is False
    assert problem.statement.strip() and problem.input_contract.strip()
    assert problem.label_field == ("label" if pid == "lc2246" else "labels")
    status = problem.label_status.split(":")[0]
    assert status in {"consistent", "constant-answer", "label-wrong", "input-repaired"}
    for cell in problem.skipped_cells:
        cat, sub = cell.split("/")
        assert cat in CATEGORIES and sub in SUBCATEGORIES


# ------------------------------------------------------------------------- case builders


def test_contract_helpers_reject_malformed_graphs():
    assert is_simple(3, [[0, 1], [1, 2]]) and is_simple(1, [])
    assert not is_simple(3, [[0, 1], [1, 0]])  # repeated pair
    assert not is_simple(3, [[1, 1]])  # self-loop
    assert not is_simple(3, [[0, 3]]) and not is_simple(3, [[True, 0]])
    assert ids_in_range(3, [[1, 3]], low=1) and not ids_in_range(3, [[0, 1]], low=1)
    assert is_tree(3, [[0, 1], [1, 2]]) and not is_tree(3, [[0, 1]]) and is_forest(3, [[0, 1]])
    assert not is_forest(3, [[0, 1], [1, 2], [2, 0]])


@pytest.mark.slow
@pytest.mark.parametrize("pid", UNDIRECTED)
def test_build_case_honours_contract_and_reference_is_pure(pid):
    problem, mod = PROBLEMS[pid], module(pid)
    produced: set[str] = set()
    for cat, sub, k, G in generated():
        seed = case_seed(3, pid, cat, sub, k)
        args = problem.build_case(G, random.Random(seed))
        if args is None:
            continue
        produced.add(f"{cat}/{sub}")
        assert set(args) == set(problem.arg_names)
        assert mod.in_contract(args), f"{pid} built an out-of-contract case in {cat}/{sub}"
        assert problem.build_case(G, random.Random(seed)) == args, "build_case not deterministic"
        before = copy.deepcopy(args)
        answer = problem.reference(**args)
        assert args == before, f"{pid} reference mutated its input"
        decoded = json.loads(json.dumps(answer))
        assert problem.checker(args, answer, decoded).ok
    cells = {f"{cat}/{sub}" for cat, sub, _, _ in generated()}
    assert cells - set(problem.skipped_cells) <= produced, "a cell not marked skipped gave nothing"


# ------------------------------------------------------------------------- NetworkX oracles


def graph_of(n: int, edges: list[list[int]], low: int = 0) -> nx.Graph:
    G = nx.Graph()
    G.add_nodes_from(range(low, low + n))
    G.add_edges_from(map(tuple, edges))
    return G


def test_bridges_match_networkx():
    for args in cases_of("lc1192", generated()):
        expected = [list(e) for e in nx.bridges(graph_of(args["n"], args["connections"]))]
        assert PROBLEMS["lc1192"].checker(args, expected, solve("lc1192", args)).ok


def test_component_problems_match_networkx():
    for args in cases_of("lc1319", generated()):
        G = graph_of(args["n"], args["connections"])
        want = -1 if G.number_of_edges() < args["n"] - 1 else nx.number_connected_components(G) - 1
        assert solve("lc1319", args) == want
    for args in cases_of("lc2316", generated()):
        sizes = [len(c) for c in nx.connected_components(graph_of(args["n"], args["edges"]))]
        pairs = sum(a * b for a, b in itertools.combinations(sizes, 2))
        assert solve("lc2316", args) == pairs
    for args in cases_of("lc2685", generated()):
        G = graph_of(args["n"], args["edges"])
        G.remove_edges_from(list(nx.selfloop_edges(G)))  # the statement: loops are ignored
        complete = sum(
            1
            for c in nx.connected_components(G)
            if G.subgraph(c).number_of_edges() == len(c) * (len(c) - 1) // 2
        )
        assert solve("lc2685", args) == complete


def test_min_trio_degree_matches_triangle_enumeration():
    seen_triangle = seen_none = False
    for args in cases_of("lc1761", generated()):
        G = graph_of(args["n"], args["edges"], low=min((min(e) for e in args["edges"]), default=0))
        trios = [
            sum(G.degree(v) for v in t) - 6
            for t in itertools.combinations(G, 3)
            if all(G.has_edge(a, b) for a, b in itertools.combinations(t, 2))
        ]
        assert (sum(nx.triangles(G).values()) > 0) == bool(trios)
        assert solve("lc1761", args) == (min(trios) if trios else -1)
        seen_triangle |= bool(trios)
        seen_none |= not trios
    assert seen_triangle and seen_none


def test_reachability_matches_networkx():
    for args in cases_of("lc1971", generated()):
        G = graph_of(args["n"], args["edges"])
        assert solve("lc1971", args) is nx.has_path(G, args["source"], args["destination"])
    for args in cases_of("lc2368", generated()):
        G = graph_of(args["n"], args["edges"])
        G.remove_nodes_from(args["restricted"])
        assert solve("lc2368", args) == len(nx.node_connected_component(G, 0))


def test_street_histogram_matches_all_pairs_shortest_paths():
    rng = random.Random(5)
    for n in (2, 3, 7, 20, 41):
        for x, y in [(1, n), (n, 1), (2, 2)] + [(rng.randint(1, n), rng.randint(1, n))] * 3:
            G = nx.path_graph(range(1, n + 1))
            G.add_edge(x, y)
            want = [0] * n
            for _, dist in nx.all_pairs_shortest_path_length(G):
                for d in dist.values():
                    if d:
                        want[d - 1] += 1
            assert solve("lc3017", {"n": n, "x": x, "y": y}) == want


def test_magnificent_sets_match_bipartiteness_and_eccentricity():
    seen = Counter()
    for args in cases_of("lc2493", generated() + small_graphs()):
        G = graph_of(args["n"], args["edges"])
        if not nx.is_bipartite(G):
            want = -1
        else:
            want = sum(
                max(nx.eccentricity(G.subgraph(c)).values()) + 1 for c in nx.connected_components(G)
            )
        assert solve("lc2493", args) == want
        seen[want == -1] += 1
    assert seen[True] and seen[False]


# ------------------------------------------------------------------------- brute force


def test_pair_rank_problems_match_brute_force():
    for args in cases_of("lc1615", generated()):
        G = graph_of(args["n"], args["roads"])
        want = max(
            G.degree(a) + G.degree(b) - G.has_edge(a, b) for a, b in itertools.combinations(G, 2)
        )
        assert solve("lc1615", args) == want
    for args in cases_of("lc1782", small_graphs()):
        n, edges = args["n"], args["edges"]
        incident = [
            sum(1 for e in edges if a in e or b in e)
            for a, b in itertools.combinations(range(n), 2)
        ]
        want = [sum(1 for c in incident if c > q) for q in args["queries"]]
        assert solve("lc1782", args) == want


def test_four_node_path_matches_brute_force():
    for args in cases_of("lc2242", small_graphs()):
        G = graph_of(len(args["scores"]), args["edges"])
        values = [
            sum(args["scores"][v] for v in path)
            for path in itertools.permutations(G, 4)
            if all(G.has_edge(a, b) for a, b in itertools.pairwise(path))
        ]
        assert solve("lc2242", args) == max(values, default=-1)


def test_importance_matches_all_assignments():
    for args in cases_of("lc2285", small_graphs()):
        n, roads = args["n"], args["roads"]
        if n > 6:
            continue
        want = max(
            sum(values[a] + values[b] for a, b in roads)
            for values in itertools.permutations(range(1, n + 1))
        )
        assert solve("lc2285", args) == want


def test_even_degrees_match_trying_every_edge_pair():
    answers = Counter()
    for args in cases_of("lc2508", small_graphs()):
        G = graph_of(args["n"], args["edges"])
        missing = list(nx.non_edges(G))
        options = [()] + [(e,) for e in missing] + list(itertools.combinations(missing, 2))
        want = any(
            all((G.degree(v) + sum(v in e for e in extra)) % 2 == 0 for v in G) for extra in options
        )
        assert solve("lc2508", args) is want
        answers[want] += 1
    assert answers[True] and answers[False]


def tree_cases(pid: str) -> list[dict[str, Any]]:
    return cases_of(pid, small_graphs() + generated())


def tree_of(args: dict[str, Any], key: str = "edges", n: int | None = None) -> nx.Graph:
    edges = args[key]
    return graph_of(len(edges) + 1 if n is None else n, edges)


def test_good_paths_match_brute_force():
    for args in cases_of("lc2421", small_graphs() + generated()):
        vals = args["vals"]
        G = tree_of(args, n=len(vals))
        want = len(vals)
        for a, b in itertools.combinations(G, 2):
            if vals[a] == vals[b] and nx.has_path(G, a, b):
                path = nx.shortest_path(G, a, b)
                want += max(vals[v] for v in path) == vals[a]
        assert solve("lc2421", args) == want


def test_letter_path_matches_brute_force():
    for args in tree_cases("lc2246"):
        parent, s = args["parent"], args["s"]
        G = graph_of(len(parent), [[i, p] for i, p in enumerate(parent) if p >= 0])
        want = 1
        for a, b in itertools.combinations(G, 2):
            path = nx.shortest_path(G, a, b)
            if all(s[u] != s[v] for u, v in itertools.pairwise(path)):
                want = max(want, len(path))
        assert solve("lc2246", args) == want


def test_alice_and_bob_match_step_by_step_simulation():
    for args in tree_cases("lc2467"):
        amount, bob = args["amount"], args["bob"]
        G = tree_of(args)
        bob_path = nx.shortest_path(G, bob, 0)
        best = None
        for leaf in (v for v in G if v != 0 and G.degree(v) == 1):
            total, opened = 0, set()
            for t, node in enumerate(nx.shortest_path(G, 0, leaf)):
                bob_node = bob_path[min(t, len(bob_path) - 1)]
                if node in opened:
                    pass
                elif node == bob_node and t < len(bob_path):
                    total += amount[node] // 2
                else:
                    total += amount[node]
                opened.update(bob_path[: t + 1])
            best = total if best is None else max(best, total)
        assert solve("lc2467", args) == best


def test_fuel_matches_car_count_per_road():
    for args in tree_cases("lc2477"):
        G = tree_of(args, key="roads")
        want = 0
        for u, v in G.edges():
            H = G.copy()
            H.remove_edge(u, v)
            far = nx.node_connected_component(H, v if 0 in nx.node_connected_component(H, u) else u)
            want += -(-len(far) // args["seats"])
        assert solve("lc2477", args) == want


def test_trip_price_matches_every_independent_set():
    for args in cases_of("lc2646", small_graphs()):
        n, price = args["n"], args["price"]
        G = tree_of(args, n=n)
        uses = Counter(v for s, t in args["trips"] for v in nx.shortest_path(G, s, t))
        best = None
        for size in range(n + 1):
            for chosen in itertools.combinations(range(n), size):
                if any(G.has_edge(a, b) for a, b in itertools.combinations(chosen, 2)):
                    continue
                cost = sum(
                    uses[v] * (price[v] - price[v] // 2 if v in chosen else price[v])
                    for v in range(n)
                )
                best = cost if best is None else min(best, cost)
        assert solve("lc2646", args) == best


def test_coin_walk_matches_search_over_closed_walks():
    """Shortest closed walk by BFS over (position, collected coins) states on tiny trees."""
    for args in cases_of("lc2603", small_graphs()):
        coins = args["coins"]
        G = tree_of(args, n=len(coins))
        near = {
            v: {u for u, d in nx.single_source_shortest_path_length(G, v, 2).items() if coins[u]}
            for v in G
        }
        every = frozenset(v for v in G if coins[v])

        def shortest_from(start: int) -> int:
            first = (start, frozenset(near[start]))
            dist, queue = {first: 0}, deque([first])
            while queue:
                state = queue.popleft()
                pos, got = state
                if pos == start and got == every:
                    return dist[state]
                for w in G[pos]:
                    step = (w, got | near[w])
                    if step not in dist:
                        dist[step] = dist[state] + 1
                        queue.append(step)
            raise AssertionError("a tree walk always collects every coin")

        assert solve("lc2603", args) == min(shortest_from(start) for start in G)


# ------------------------------------------------------------------------- checkers


def perturb(answer: Any, args: dict[str, Any]) -> list[Any]:
    """Wrong answers a careless solution could return."""
    if isinstance(answer, bool):
        return [not answer, int(answer)]
    if isinstance(answer, int):
        return [answer + 1, answer - 1, str(answer)]
    if answer and isinstance(answer[0], list):  # bridges
        others = [answer[1:], answer + [answer[0][::-1]], answer[:-1] + [[-1, -2]]]
        return others
    if isinstance(answer, list) and answer and isinstance(answer[0], int):
        return [answer[:-1], [answer[0] + 1, *answer[1:]], answer[::-1] + [0]]
    return [[[0, 1]]]  # an empty bridge list


@pytest.mark.parametrize("pid", UNDIRECTED)
def test_checker_accepts_reference_and_rejects_perturbations(pid):
    problem = PROBLEMS[pid]
    cases = cases_of(pid, generated())
    assert cases
    for args in cases[:6]:
        answer = problem.reference(**args)
        assert problem.checker(args, answer, answer).ok
        for wrong in perturb(answer, args):
            if wrong == answer and type(wrong) is type(answer):
                continue
            assert not problem.checker(args, answer, wrong).ok, (pid, answer, wrong)


def test_bridge_checker_ignores_order_and_orientation():
    args = {"n": 4, "connections": [[0, 1], [1, 2], [2, 3]]}
    answer = solve("lc1192", args)
    flipped = [pair[::-1] for pair in reversed(answer)]
    assert PROBLEMS["lc1192"].checker(args, answer, flipped).ok


def test_pair_checker_keys_as_the_canonical_json_of_the_sorted_pair():
    """The pair checker's fast key (each item encoded once) decides as the definition it
    writes out, canonical(sorted(pair, key=canonical)), on every kind of JSON item: `True` is
    not `1`, `1.0` is not `1`, equal items, strings that sort unlike their encodings."""

    def canon(value):  # the canonical text as JSON defines it
        return json.dumps(normalize(value), sort_keys=True, separators=(",", ":"))

    def spec(answer):
        return {canon(sorted(normalize(p), key=canon)) for p in answer}

    items = [0, 1, 2, 10, -3, True, False, 1.0, 2.5, None, "1", "é", 'a"b', [1, 2], [2, 1],
             {"b": 1, "a": [True]}, 10**30]
    pairs = [[a, b] for a in items for b in items]
    for expected in ([[0, 1], [2, 10]], [[True, 1]], [["1", 1]], [[10**30, 2.5]]):
        for i in range(len(pairs) - 1):
            actual = [pairs[i], pairs[i + 1]]
            want = spec(actual) == spec(expected) and len(spec(actual)) == len(actual)
            assert set_of_unordered_pairs({}, expected, actual).ok == want, (expected, actual)
        flipped = [p[::-1] for p in reversed(expected)]
        assert set_of_unordered_pairs({}, expected, flipped).ok
    for item in items:
        assert canonical(item) == canon(item)


# ------------------------------------------------------------------------- published labels

# (cases, agreeing, in-contract, in-contract agreeing), from CODE_TRACK_PROBLEMS.md section 2/4.
# lc2685 includes the 10 cases of the repaired line (spec: 1920 + 10, all agree).
EXPECTED = {
    "lc1192": (1000, 896, 887, 887),
    "lc1319": (900, 900, 900, 900),
    "lc1615": (1600, 1600, 1600, 1600),
    "lc1761": (1410, 1410, 1410, 1410),
    "lc1782": (1130, 1130, 1130, 1130),
    "lc1971": (970, 970, 970, 970),
    "lc2242": (1600, 1600, 1600, 1600),
    "lc2246": (800, 800, 98, 98),
    "lc2285": (1600, 1600, 1600, 1600),
    "lc2316": (1600, 1600, 1600, 1600),
    "lc2368": (700, 700, 700, 700),
    "lc2421": (600, 400, 400, 400),
    "lc2467": (220, 220, 220, 220),
    "lc2477": (400, 400, 400, 400),
    "lc2493": (1400, 1116, 1400, 1116),
    "lc2508": (1430, 1410, 1400, 1400),
    "lc2603": (900, 900, 314, 314),
    "lc2646": (400, 400, 400, 400),
    "lc2685": (1930, 1930, 1930, 1930),
    "lc3017": (900, 900, 900, 900),
}
# Published fields that are not arguments (sizes implied by other arguments).
UNUSED_FIELDS = {
    "lc2242": {"numNodes"},
    "lc2246": {"n"},
    "lc2421": {"numNodes"},
    "lc2467": {"numNodes"},
    "lc2477": {"numNodes"},
    "lc2603": {"numNodes"},
}


def field_variants(problem: Problem) -> list[Problem]:
    """One problem per alternative source field of an argument (lc1192 calls `n` either
    `n_list` or `numCourse`); the loader requires every field of `field_map` in every cell."""
    by_arg: dict[str, list[str]] = defaultdict(list)
    for field, arg in problem.field_map.items():
        by_arg[arg].append(field)
    alternatives = [fields for fields in by_arg.values() if len(fields) > 1]
    if not alternatives:
        return [problem]
    (fields,) = alternatives
    return [
        dataclasses.replace(
            problem,
            field_map={f: a for f, a in problem.field_map.items() if f not in fields or f == keep},
        )
        for keep in fields
    ]


def published(pid: str, adapt: bool = True) -> tuple[tuple[PublishedCase, Any, bool], ...]:
    """(case, reference answer, in contract) for every published case of `pid`."""
    return _published(pid, adapt)


@functools.cache
def _published(pid: str, adapt: bool) -> tuple[tuple[PublishedCase, Any, bool], ...]:
    problem, mod = PROBLEMS[pid], module(pid)
    adapter = getattr(mod, "adapt_published", None) if adapt else None
    out = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PublishedDataWarning)
        for variant in field_variants(problem):
            for case in iter_published_cases(DATA, variant, adapt=adapter):
                out.append((case, problem.reference(**case.args), mod.in_contract(case.args)))
    for w in caught:
        message = str(w.message)
        if "not in field_map" in message:
            named = message.split("field(s) ")[1].split(" not in")[0].split(", ")
            assert set(named) <= UNUSED_FIELDS.get(pid, set()), message
        else:
            assert len(field_variants(problem)) > 1 and "missing field" in message, message
    return tuple(out)


def agreement(pid: str, adapt: bool = True) -> tuple[int, int, int, int]:
    checker = PROBLEMS[pid].checker
    rows = published(pid, adapt)
    ok = [checker(c.args, c.label, ans).ok for c, ans, _ in rows]
    inside = [c for _, _, c in rows]
    return (len(rows), sum(ok), sum(inside), sum(o and i for o, i in zip(ok, inside, strict=True)))


def disagreements(pid: str) -> list[tuple[PublishedCase, Any, bool]]:
    checker = PROBLEMS[pid].checker
    return [(c, a, i) for c, a, i in published(pid) if not checker(c.args, c.label, a).ok]


@pytest.mark.slow
@pytest.mark.shared
@needs_data
@pytest.mark.parametrize("pid", UNDIRECTED)
def test_published_labels_agree_as_the_spec_reports(pid):
    assert agreement(pid) == EXPECTED[pid]
    # label-wrong <=> some label disagrees or some published input breaks the contract
    total, agree, inside, _ = EXPECTED[pid]
    wrong = PROBLEMS[pid].label_status.startswith("label-wrong")
    assert wrong == (agree < total or inside < total)


@pytest.mark.slow
@pytest.mark.shared
@needs_data
def test_lc1192_labels_list_bridges_of_node_n_minus_1_component_only():
    bad = disagreements("lc1192")
    assert len(bad) == 104
    for case, _, inside in bad:
        assert not inside and not nx.is_connected(
            graph_of(case.args["n"], case.args["connections"])
        )
    # connected graphs agree already; the n-1 component reading also explains the others
    for case, _, inside in published("lc1192"):
        if inside:
            continue
        G = graph_of(case.args["n"], case.args["connections"])
        G = G.subgraph(nx.node_connected_component(G, case.args["n"] - 1))
        assert PROBLEMS["lc1192"].checker(case.args, case.label, list(nx.bridges(G))).ok


@pytest.mark.slow
@pytest.mark.shared
@needs_data
def test_lc1782_labels_need_one_extra_node():
    assert agreement("lc1782", adapt=False)[:2] == (1130, 723)


@pytest.mark.shared
@needs_data
def test_lc2246_only_dense_parent_arrays_are_trees():
    inside = [c for c, _, ok in published("lc2246") if ok]
    assert len(inside) == 98
    assert all(c.category_file == "dense" for c in inside)


@pytest.mark.shared
@needs_data
def test_lc2421_wrong_labels_exceed_every_possible_pair_count():
    bad = disagreements("lc2421")
    assert len(bad) == 200
    for case, _, inside in bad:
        assert case.cell in {"planar/connected", "planar/cyclic"} and not inside
        counts = Counter(case.args["vals"]).values()
        assert case.label > len(case.args["vals"]) + sum(k * (k - 1) // 2 for k in counts)


@pytest.mark.shared
@needs_data
def test_lc2467_raw_amounts_disagree_until_repaired():
    assert agreement("lc2467", adapt=False)[:2] == (220, 162)
    assert sum(any(a % 2 for a in c.args["amount"]) for c, _, _ in published("lc2467", False)) == 53


@pytest.mark.shared
@needs_data
def test_lc2477_label_is_almost_always_the_road_count():
    rows = published("lc2477")
    assert sum(c.label == len(c.args["roads"]) for c, _, _ in rows) == 399


@pytest.mark.shared
@needs_data
def test_lc2493_wrong_labels_count_one_phantom_group():
    bad = disagreements("lc2493")
    assert len(bad) == 284
    for case, answer, _ in published("lc2493"):
        touches_zero = any(0 in e for e in case.args["edges"])
        phantom = 1 if answer != -1 and touches_zero else 0
        assert case.label == answer + phantom


@pytest.mark.shared
@needs_data
def test_lc2508_wrong_labels_are_the_self_loop_cases():
    bad = disagreements("lc2508")
    assert len(bad) == 20
    for case, _, inside in bad:
        assert case.category_file == "pseudo" and not inside
        assert any(u == v for u, v in case.args["edges"])


@pytest.mark.slow
@pytest.mark.shared
@needs_data
def test_lc2603_non_tree_labels_are_infeasible_or_not_minimal():
    infeasible = shorter = 0
    for case, _, inside in published("lc2603"):
        if inside:
            continue
        coins = case.args["coins"]
        G = graph_of(len(coins), case.args["edges"])
        with_coins = [c for c in nx.connected_components(G) if any(coins[v] for v in c)]
        if len(with_coins) > 1:
            infeasible += 1
            continue
        # the label's own pruning, on the graph: coin-free leaves, then two leaf layers
        while leaves := [v for v in G if G.degree(v) == 1 and not coins[v]]:
            for v in leaves:
                if G.degree(v) == 1:
                    G.remove_node(v)
        for _ in range(2):
            for v in [v for v in G if G.degree(v) == 1]:
                if v in G and G.degree(v) == 1:
                    G.remove_node(v)
        core = max(
            nx.connected_components(G.subgraph(v for v in G if G.degree(v))), key=len, default=set()
        )
        # walking a spanning tree of the surviving core twice collects every coin
        shorter += 2 * max(len(core) - 1, 0) < case.label
    assert (infeasible, shorter) == (110, 476)


@pytest.mark.shared
@needs_data
def test_lc2685_labels_are_mostly_zero():
    rows = published("lc2685")
    assert sum(c.label == 0 for c, _, _ in rows) == 1810
    assert sum(c.repaired for c, _, _ in rows) == 10
