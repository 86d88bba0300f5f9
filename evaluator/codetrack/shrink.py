"""Minimal counterexamples: shrink a solution's first failing case to the smallest input that
still fails the same way, and name the structures that input has.

Why: a failure reported on a 150-node graph tells a reader (and a model repairing its code)
little; the same failure on three nodes with a self-loop says what was forgotten. Like the
shrinking of property-based testing (delta debugging over the input), but every step is
verified the way a case is judged, never assumed:

- a candidate input is made from the current one by removing a set of nodes (their links go
  with them and the remaining ids are renumbered compactly), removing links or other list
  elements, removing a grid column, lowering a scalar, or relabelling ids compactly;
- it is kept only if it is within the problem's contract (`Problem.in_contract`), smaller
  (nodes + links of the input graph, `Problem.input_graph`), the reference answers it, and the
  candidate solution, judged in the same sandbox by the same judge (`judge_problem`, one
  worker process per round of candidates), fails it the same way (same verdict; for runtime
  errors the same exception type).

The candidate generators only guess (which integers are node ids, whether a list is indexed
by node); a wrong guess costs a candidate, never a wrong report, because every kept input
passed the checks above. A budget bounds the rounds, the candidates per round and the seconds.

Structural features come from a fixed list (`FEATURES`), each checked by NetworkX on the
input graph the statement defines.
"""

from __future__ import annotations

import copy
import json
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import networkx as nx

from evaluator.codetrack.cases import Case
from evaluator.codetrack.costmodel import model_seconds
from evaluator.codetrack.graphgen import has_cycle
from evaluator.codetrack.inputgraph import components
from evaluator.codetrack.judge import (
    PASS,
    RUNTIME,
    WRONG,
    CaseVerdict,
    JudgeConfig,
    ProblemJudgement,
    judge_problem,
    reference_solution,
    truncate,
)
from evaluator.codetrack.problem import Problem
from evaluator.errors import ConfigError

# The fixed list of structural features, in the order they are reported.
FEATURES = (
    "no links",
    "single node",
    "self-loop",
    "isolated node",
    "disconnected",
    "parallel links",
    "two-way link",
    "cycle",
)


@dataclass(frozen=True)
class Budget:
    """How much a shrink may cost: judge rounds (one sandboxed worker process each),
    candidates per round, and seconds of the judge's clock (checked between rounds)."""

    rounds: int = 16
    candidates: int = 256
    seconds: float = 120.0


@dataclass
class Shrunk:
    """The minimal counterexample of one (solution, problem)."""

    case: str  # id of the original failing case
    verdict: str
    detail: str
    args: dict[str, Any]
    expected: Any
    original_size: int
    size: int
    features: list[str]
    original_features: list[str]
    rounds: int = 0
    judged: int = 0  # candidate inputs run in the sandbox
    stopped: str = ""  # why the search ended

    @property
    def ratio(self) -> float:
        return self.size / self.original_size if self.original_size else 1.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "verdict": self.verdict,
            "detail": self.detail[-500:],
            "input": truncate(self.args),  # for prompts and pages
            "args": self.args,  # the whole minimal input (small by construction)
            "expected": truncate(self.expected),
            "size": self.size,
            "original_size": self.original_size,
            "ratio": round(self.ratio, 4),
            "features": self.features,
            "original_features": self.original_features,
            "rounds": self.rounds,
            "judged": self.judged,
            "stopped": self.stopped,
        }


# --------------------------------------------------------------------------------------------
# Size and features (NetworkX on the input graph)
# --------------------------------------------------------------------------------------------


def graph_of(problem: Problem, args: Mapping[str, Any]) -> nx.Graph:
    return problem.input_graph(args)


def size(problem: Problem, args: Mapping[str, Any]) -> int:
    """Nodes + links of the input graph the statement defines."""
    G = graph_of(problem, args)
    return int(G.number_of_nodes() + G.number_of_edges())


def _repeated_links(args: Mapping[str, Any], directed: bool) -> bool:
    """A link listed twice in an edge-list argument (input graphs built as simple graphs
    merge such repeats, so they are read from the arguments too)."""
    for value in args.values():
        if isinstance(value, list) and value and all(
                isinstance(e, list) and len(e) in (2, 3) and all(isinstance(x, int) for x in e)
                for e in value):
            seen = set()
            for e in value:
                key = tuple(e[:2]) if directed else tuple(sorted(e[:2]))
                if key in seen:
                    return True
                seen.add(key)
    return False


def features(problem: Problem, args: Mapping[str, Any]) -> list[str]:
    """Which of `FEATURES` the input has, each decided by NetworkX on `problem.input_graph`."""
    G = graph_of(problem, args)
    directed = G.is_directed()
    simple = nx.DiGraph(G) if directed else nx.Graph(G)
    found = {
        "no links": G.number_of_edges() == 0,
        "single node": G.number_of_nodes() == 1,
        "self-loop": nx.number_of_selfloops(G) > 0,
        "isolated node": G.number_of_nodes() > 1 and any(True for _ in nx.isolates(G)),
        "disconnected": components(G) >= 2,
        "parallel links": (G.is_multigraph() and G.number_of_edges() != simple.number_of_edges())
        or _repeated_links(args, problem.directed),
        "two-way link": directed and any(u != v and simple.has_edge(v, u)
                                         for u, v in simple.edges()),
        "cycle": has_cycle(G),
    }
    return [name for name in FEATURES if found[name]]


# --------------------------------------------------------------------------------------------
# Candidate inputs (guesses; every one is verified before it is kept)
# --------------------------------------------------------------------------------------------


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _id_positions(args: Mapping[str, Any]) -> list[int]:
    """Integers in link positions: the first two entries of the inner lists of list-of-lists
    arguments, and the entries of adjacency-like lists."""
    ids: list[int] = []
    for value in args.values():
        if isinstance(value, list):
            for e in value:
                if isinstance(e, list):
                    ids += [x for x in e[:2] if _is_int(x)]
    return ids


def _universe(problem: Problem, args: Mapping[str, Any]) -> tuple[list[int], int, int]:
    """(the node ids as they appear in the arguments, the node count N, the first id: 1 when
    the ids look 1-based, else 0)."""
    n = graph_of(problem, args).number_of_nodes()
    ids = _id_positions(args)
    offset = 1 if ids and max(ids) == n and min(ids) >= 1 else 0
    universe = sorted(set(range(offset, offset + n)) | set(ids))
    return universe, n, offset


def _drop_nodes(args: Mapping[str, Any], drop: frozenset[int], n: int, offset: int,
                ids_mode: bool, adjacency_mode: bool) -> dict[str, Any] | None:
    """The arguments without the nodes `drop` (their links removed, the other ids renumbered
    compactly). `ids_mode`: node-indexed integer lists hold node ids (a parent or successor
    array) rather than values; `adjacency_mode`: a list of lists with one entry per node is an
    adjacency list rather than an edge list."""
    order = sorted(drop)

    def rank(x: int) -> int:
        lo, hi = 0, len(order)
        while lo < hi:
            mid = (lo + hi) // 2
            if order[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        return x - lo

    gone = frozenset(x - offset for x in drop)  # positions in node-indexed lists
    out: dict[str, Any] = {}
    for name, value in args.items():
        if _is_int(value):
            if value == n:
                out[name] = n - len(drop)
            elif value in drop:
                return None
            else:
                out[name] = rank(value) if value >= 0 else value
        elif isinstance(value, str) and len(value) == n:
            out[name] = "".join(c for i, c in enumerate(value) if i not in gone)
        elif isinstance(value, list) and value and all(_is_int(x) for x in value):
            if len(value) == n:
                keep = [x for i, x in enumerate(value) if i not in gone]
                if ids_mode:
                    keep = [-1 if x in drop else (rank(x) if x >= 0 else x) for x in keep]
                out[name] = keep
            else:
                out[name] = [rank(x) for x in value if x not in drop]
        elif isinstance(value, list) and value and all(isinstance(e, list) for e in value):
            if adjacency_mode and len(value) == n:
                out[name] = [[rank(x) for x in e if x not in drop]
                             for i, e in enumerate(value) if i not in gone]
            else:
                kept = []
                for e in value:
                    head = e[:2]
                    if any(x in drop for x in head if _is_int(x)):
                        continue
                    kept.append([rank(x) if _is_int(x) and j < 2 else x
                                 for j, x in enumerate(e)])
                out[name] = kept
        else:
            out[name] = copy.deepcopy(value)
    return out


def _chunks(items: Sequence[Any]) -> Iterator[list[Any]]:
    """Delta debugging's complements, large first: halves, quarters, ..., single items."""
    count = len(items)
    parts = 2
    while count:
        width = max(1, count // parts)
        for start in range(0, count, width):
            yield list(items[start:start + width])
        if width == 1:
            return
        parts *= 2


def candidates(problem: Problem, args: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """Smaller inputs to try, larger removals first (unverified guesses)."""
    universe, n, offset = _universe(problem, args)
    # the guesses about node-indexed lists matter only when some list has one entry per node
    indexed = any(isinstance(v, list) and len(v) == n for v in args.values())
    modes = [(ids, adj) for ids in (False, True) for adj in (True, False)] if indexed else [
        (False, False)]
    for chunk in _chunks(universe):
        if len(chunk) >= len(universe):
            continue
        for ids_mode, adjacency_mode in modes:
            out = _drop_nodes(args, frozenset(chunk), n, offset, ids_mode, adjacency_mode)
            if out is not None:
                yield out
    for name, value in args.items():  # links and other list elements
        if isinstance(value, list) and value:
            for chunk in _chunks(range(len(value))):
                gone = set(chunk)
                yield {**args, name: [x for i, x in enumerate(value) if i not in gone]}
    for name, value in args.items():  # one element of an inner list (adjacency lists)
        if isinstance(value, list) and any(isinstance(e, list) and e for e in value):
            for i, e in enumerate(value):
                if isinstance(e, list):
                    for j in range(len(e)):
                        inner = [*value[:i], e[:j] + e[j + 1:], *value[i + 1:]]
                        yield {**args, name: inner}
    for name, value in args.items():  # a grid's column
        if (isinstance(value, list) and len(value) >= 1 and all(isinstance(r, list) for r in value)
                and len({len(r) for r in value}) == 1 and len(value[0]) > 1):
            for j in range(len(value[0])):
                yield {**args, name: [r[:j] + r[j + 1:] for r in value]}
    for name, value in args.items():  # lower a scalar
        if _is_int(value) and value > 0:
            yield {**args, name: value - 1}
            yield {**args, name: value // 2}


def relabelled(args: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The ids in link positions renumbered compactly from 0 and from 1, order kept (for
    inputs whose ids are arbitrary integers, such as lists of pairs)."""
    ids = sorted(set(_id_positions(args)))
    for start in (0, 1):
        mapping = {x: start + i for i, x in enumerate(ids)}
        if all(mapping[x] == x for x in ids):
            continue
        out: dict[str, Any] = {}
        for name, value in args.items():
            if isinstance(value, list) and value and all(isinstance(e, list) for e in value):
                out[name] = [[mapping.get(x, x) if j < 2 and _is_int(x) else x
                              for j, x in enumerate(e)] for e in value]
            else:
                out[name] = value
        yield out


# --------------------------------------------------------------------------------------------
# The search
# --------------------------------------------------------------------------------------------

_EXCEPTION = re.compile(r"^(\w+(?:\.\w+)*(?:Error|Exception|Exit|Interrupt|Iteration))\b", re.M)


def signature(verdict: str, detail: str) -> tuple[str, str]:
    """How a case failed: the verdict, and for a runtime error the exception type."""
    if verdict != RUNTIME:
        return verdict, ""
    found = _EXCEPTION.findall(detail or "")
    return verdict, found[-1] if found else ""


def primary(v: CaseVerdict) -> str | None:
    return v.verdict if v.verdict is not None else v.published


def first_failure(judgement: ProblemJudgement) -> int | None:
    """Index of the first case that ran and failed (against the truth, else the label)."""
    for k, v in enumerate(judgement.verdicts):
        if v.ran and primary(v) not in (None, PASS):
            return k
    return None


def _in_contract(problem: Problem, args: Mapping[str, Any]) -> bool:
    try:
        return problem.in_contract is None or bool(problem.in_contract(args))
    except Exception:  # a malformed guess can trip a contract check: not in contract
        return False


def _size_or_none(problem: Problem, args: Mapping[str, Any]) -> int | None:
    try:
        return size(problem, args)
    except Exception:  # a guess the input-graph builder cannot read
        return None


def _as_case(problem: Problem, base: Case, args: dict[str, Any], tag: str) -> Case | None:
    """A judgeable case of `args` with the reference's answer, or None (no answer)."""
    try:
        expected = json.loads(json.dumps(problem.reference(**copy.deepcopy(args))))
    except Exception:
        return None
    text = json.dumps(args, separators=(",", ":"))
    ref = model_seconds(problem.cost_rate, text)
    return replace(base, id=f"{base.id}#{tag}", args=args, expected=expected, has_expected=True,
                   label=None, has_label=False, flag="", repaired=False, in_contract=True,
                   source="shrunk", ref_seconds=ref, limit_seconds=None, stats=None)


Predict = Callable[[dict[str, Any], Any], tuple[str, str]]


def _predicted(problem: Problem, solution: Path, case: Case, failure: CaseVerdict,
               want: tuple[str, str], predict: Predict, *, config: JudgeConfig,
               budget: Budget, extra_files: Mapping[str, Path] | None,
               site_packages: bool) -> Shrunk | None:
    """The search with a trusted in-process `predict`: the first smaller in-contract candidate
    (larger removals first) it says fails the same way replaces the current input, until none
    does (or the budget's seconds are spent), then compact relabellings; the result is judged
    once in the sandbox and kept only if it fails there the same way. None otherwise."""
    started = time.monotonic()
    args = json.loads(case.args_json())
    current, current_size = args, size(problem, args)
    expected = case.expected if case.has_expected else case.label
    tried: set[str] = {json.dumps(args, sort_keys=True)}
    checked = 0
    stopped = "no smaller input fails the same way (searched in process, judged in the sandbox)"
    for relabel in (False, True):
        moved = True
        while moved:
            moved = False
            if time.monotonic() - started > budget.seconds:
                stopped = f"budget: {budget.seconds:g} s (searched in process)"
                break
            for cand in (relabelled(current) if relabel else candidates(problem, current)):
                if time.monotonic() - started > budget.seconds:
                    break  # the while loop's check names the budget
                key = json.dumps(cand, sort_keys=True)
                if key in tried:
                    continue
                tried.add(key)
                cand_size = _size_or_none(problem, cand)
                if (cand_size is None or cand_size > current_size
                        or (cand_size == current_size and not relabel)
                        or not _in_contract(problem, cand)):
                    continue
                made = _as_case(problem, case, cand, f"shrink.{checked}")
                checked += 1
                if made is not None and predict(cand, made.expected) == want:
                    current, current_size, expected = cand, cand_size, made.expected
                    moved = not relabel
                    break
    made = _as_case(problem, case, current, "minimal")
    if made is None:
        return None
    judged = judge_problem(problem, solution, [made], config=config, extra_files=extra_files,
                           site_packages=site_packages)
    v = judged.verdicts[0]
    if not (v.ran and signature(v.verdict or "", v.detail) == want):
        return None
    return Shrunk(case.id, want[0], v.detail or failure.detail, current, expected,
                  size(problem, args), current_size, features(problem, current),
                  features(problem, args), rounds=1, judged=1, stopped=stopped)


def mutant_predictor(problem: Problem, name: str) -> Predict:
    """How the problem's mutant `name` (trusted code of this package) fails an input, run in
    this process: ("wrong answer", "") when the checker rejects its answer, ("runtime error",
    the exception's type) when it raises, ("pass", "") otherwise."""
    mutant = problem.mutants[name]

    def predict(args: dict[str, Any], expected: Any) -> tuple[str, str]:
        try:
            answer = json.loads(json.dumps(mutant(**copy.deepcopy(args))))
        except Exception as exc:
            return RUNTIME, type(exc).__name__
        return (PASS, "") if problem.checker(args, expected, answer).ok else (WRONG, "")

    return predict


def shrink_case(
    problem: Problem,
    solution: Path,
    case: Case,
    failure: CaseVerdict,
    *,
    config: JudgeConfig = JudgeConfig(),  # noqa: B008 - frozen dataclass
    budget: Budget = Budget(),  # noqa: B008 - frozen dataclass
    extra_files: Mapping[str, Path] | None = None,
    site_packages: bool = False,
    predict: Predict | None = None,
) -> Shrunk | None:
    """Shrink `case` (on which `solution` failed as `failure` says); None when the original
    input is outside the problem's contract (no smaller in-contract input is "the same").

    `predict` (trusted solutions only, such as the problem's own mutants: `mutant_predictor`)
    says in this process how the solution fails an input; the search then runs here and the
    sandbox judges only its result (`_predicted`), falling back to the sandboxed search when
    the sandbox disagrees."""
    started = time.monotonic()
    args = json.loads(case.args_json())
    if not _in_contract(problem, args):
        return None
    want = signature(primary(failure) or "", failure.detail)
    if predict is not None:
        found = _predicted(problem, solution, case, failure, want, predict, config=config,
                           budget=budget, extra_files=extra_files, site_packages=site_packages)
        if found is not None:
            return found
    current, current_size = args, size(problem, args)
    expected = case.expected if case.has_expected else case.label
    detail = failure.detail
    result = Shrunk(case.id, want[0], detail, args, expected, current_size, current_size,
                    features(problem, args), features(problem, args))
    tried: set[str] = {json.dumps(args, sort_keys=True)}
    source: Iterator[dict[str, Any]] = candidates(problem, current)
    final_relabel = False
    while True:
        if result.rounds >= budget.rounds:
            result.stopped = f"budget: {budget.rounds} rounds"
            break
        if time.monotonic() - started > budget.seconds:
            result.stopped = f"budget: {budget.seconds:g} s"
            break
        batch: list[tuple[dict[str, Any], int, Case]] = []
        for cand in source:
            key = json.dumps(cand, sort_keys=True)
            if key in tried:
                continue
            tried.add(key)
            if not _in_contract(problem, cand):
                continue
            cand_size = _size_or_none(problem, cand)
            if cand_size is None or cand_size > current_size or (
                    cand_size == current_size and not final_relabel):
                continue
            made = _as_case(problem, case, cand, f"shrink{result.rounds}.{len(batch)}")
            if made is not None:
                batch.append((cand, cand_size, made))
            if len(batch) >= budget.candidates:
                break
        if not batch:
            if final_relabel:
                result.stopped = result.stopped or "no smaller input fails the same way"
                break
            final_relabel = True  # the size is minimal: try compact relabellings last
            source = relabelled(current)
            continue
        result.rounds += 1
        result.judged += len(batch)
        judged = judge_problem(problem, solution, [c for _, _, c in batch], config=config,
                               extra_files=extra_files, site_packages=site_packages)
        best = None
        for (cand, cand_size, made), v in zip(batch, judged.verdicts, strict=True):
            same = v.ran and signature(v.verdict or "", v.detail) == want
            if same and (best is None or cand_size < best[1]):
                best = (cand, cand_size, made, v)
        if best is None:
            continue  # the next slice of candidates of the same input
        current, current_size, made, v = best
        result.args, result.size, result.expected = current, current_size, made.expected
        result.detail = v.detail
        if final_relabel:
            result.stopped = "no smaller input fails the same way"
            break
        source = candidates(problem, current)
    result.features = features(problem, result.args)
    return result


def shrink_judgement(
    judgement: ProblemJudgement,
    problem: Problem,
    solution: Path,
    cases: Sequence[Case],
    *,
    config: JudgeConfig = JudgeConfig(),  # noqa: B008 - frozen dataclass
    budget: Budget = Budget(),  # noqa: B008 - frozen dataclass
    extra_files: Mapping[str, Path] | None = None,
    site_packages: bool = False,
    predict: Predict | None = None,
) -> dict[str, Any] | None:
    """Shrink the judgement's first failing case and attach the result to its feedback (the
    item of that case gets "minimal"); returns the record (None: nothing failed).
    `predict`: see `shrink_case` (trusted solutions only)."""
    k = first_failure(judgement)
    if k is None:
        return None
    shrunk = shrink_case(problem, solution, cases[k], judgement.verdicts[k], config=config,
                         budget=budget, extra_files=extra_files, site_packages=site_packages,
                         predict=predict)
    record: dict[str, Any] = (shrunk.as_dict() if shrunk is not None else {
        "case": cases[k].id, "stopped": "not shrunk: the original input is outside the "
        "problem's contract"})
    for item in judgement.feedback:
        if item.get("case") == cases[k].id:
            item["minimal"] = record
            break
    judgement.minimal = record
    return record


def median_ratio(records: Sequence[Mapping[str, Any]]) -> float | None:
    """Median of minimal size / original size over shrunk records."""
    ratios = [r["ratio"] for r in records if "ratio" in r]
    return statistics.median(ratios) if ratios else None


# --------------------------------------------------------------------------------------------
# Mutants as candidate solutions
# --------------------------------------------------------------------------------------------

_MUTANT_TEMPLATE = '''\
"""Mutant {name!r} of {pid}, run as a candidate (generated by gnncb; trusted code)."""
import importlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_gnncb"))
_MUTANT = getattr(importlib.import_module({module!r}), {qualname!r})
_ARG_NAMES = {arg_names!r}


class Solution:
    def {method}(self, *args):
        return _MUTANT(**dict(zip(_ARG_NAMES, args)))
'''


@dataclass
class MutantFile:
    solution: Path
    extra_files: dict[str, Path] = field(default_factory=dict)


def mutant_solution(problem: Problem, name: str, directory: Path) -> MutantFile:
    """A `solution.py` that runs one of the problem's mutants (classic wrong solutions), with
    the package files it needs in the workspace, judged like any candidate (site packages on:
    the problem modules import NetworkX). It imports the mutant's own module only, not all
    forty problems, so each worker process starts quickly."""
    mutant = problem.mutants[name]
    module, qualname = mutant.__module__, mutant.__qualname__
    if not (module.startswith("evaluator.codetrack.") and qualname.isidentifier()
            and getattr(sys.modules.get(module), qualname, None) is mutant):
        raise ConfigError(f"{problem.id}: mutant {name!r} is not a module-level function of "
                          "the problem package; define it at the top level of its module")
    directory.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"\W+", "_", name)
    path = directory / f"{problem.id}-{safe}.py"
    path.write_text(_MUTANT_TEMPLATE.format(pid=problem.id, name=name, method=problem.method,
                                            module=module, qualname=qualname,
                                            arg_names=tuple(problem.arg_names)),
                    encoding="utf-8")
    _, extra = reference_solution(problem, directory / "_ref")
    return MutantFile(path, extra)
