"""How well a case set tells solutions apart: the share of cases the best constant answer
passes, and the share each classic wrong solution (the record's `mutants`) passes, per problem.

Why: a pass rate means little when `return 0` or a solution that forgets a rule scores nearly
as much. The published GraphEval36K set is the yardstick: a generated set should be no more
constant-dominated than it (`gnncb code discrimination --published DIR`), as published or, since
a smaller set's best constant is inflated by its size alone, at equal size (`share_at`). Pure
functions over case sets; the CLI prints `table_rows`.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from evaluator.codetrack.cases import CaseSet
from evaluator.codetrack.problem import Problem, all_problems
from evaluator.codetrack.report import constant_hits

# Random subsamples per equal-size estimate (see `share_at`); fixed seeds keep tables stable.
SUBSAMPLES = 200


def constant_hit_sets(problem: Problem, cases: Sequence[Any], field: str = "expected"
                      ) -> list[frozenset[str]]:
    """Per case with an answer, the constant answers (by key) that pass it
    (report.constant_hits)."""
    return list(constant_hits(problem, cases, field).values())


def best_share(hits: Sequence[frozenset[str]]) -> float | None:
    """Share of the cases the best single constant passes, given each case's passing constants."""
    if not hits:
        return None
    counts: Counter[str] = Counter()
    for keys in hits:
        counts.update(keys)
    return max(counts.values()) / len(hits)


def share_at(hits: Sequence[frozenset[str]], size: int, draws: int = SUBSAMPLES
             ) -> float | None:
    """The best constant's share expected of a set of `size` cases drawn from these: the mean
    over `draws` random subsamples (without replacement, a fixed seed) of the share of the
    constant best on each subsample; the share itself when `size` covers every case.

    Why: the best constant passes at least one case, so a set of N cases whose answers all
    differ scores 1/N, and any repeated answer counts more in a small set than in a large one.
    A fifth-size set compared with the published share would be "worse" by its size alone;
    compared at equal size, only the answers' spread counts.
    """
    if not hits:
        return None
    if size >= len(hits):
        return best_share(hits)
    rng = random.Random(f"subsample|{len(hits)}|{size}")
    return sum(best_share(rng.sample(list(hits), size)) or 0.0 for _ in range(draws)) / draws


def mutant_shares(problem: Problem, cases: Sequence[Any]) -> dict[str, float]:
    """Share of the cases with a true answer that each mutant of the problem passes."""
    usable = [c for c in cases if c.has_expected]
    out: dict[str, float] = {}
    for name, mutant in problem.mutants.items():
        passed = 0
        for case in usable:
            args = json.loads(case.args_json())
            passed += _passes(problem, mutant, args, case.expected)
        out[name] = passed / len(usable) if usable else 0.0
    return out


def _passes(problem: Problem, mutant: Any, args: dict[str, Any], expected: Any) -> bool:
    try:
        answer = json.loads(json.dumps(mutant(**copy.deepcopy(args))))
        return problem.checker(args, expected, answer).ok
    except Exception:  # a mutant that crashes fails the case, as a solution would
        return False


def measure(case_set: CaseSet, problems: Sequence[str] | None = None,
            field: str = "expected", mutants: bool = True) -> dict[str, dict[str, Any]]:
    """Problem -> cases, constant share and mutant shares (mutants only on `expected`, and
    only when asked: running every mutant on every case is most of the work on a large set,
    and a comparison of constant shares does not read them)."""
    registry = all_problems()
    out: dict[str, dict[str, Any]] = {}
    for pid in problems or case_set.problem_ids():
        if pid not in case_set.manifest["problems"]:
            continue
        cases = case_set.cases(pid)
        problem = registry[pid]
        hits = constant_hit_sets(problem, cases, field)
        out[pid] = {
            "cases": len(cases),
            "constant": best_share(hits),
            "hits": hits,  # for equal-size comparisons (`share_at`); not printed
            "mutants": mutant_shares(problem, cases) if mutants and field == "expected" else {},
        }
    return out


def equal_size(now: Mapping[str, Any], published: Mapping[str, Any]
               ) -> tuple[int, float | None, float | None] | None:
    """(size, ours, published): both constant shares at the smaller set's size (`share_at`),
    or None when either side has no answered case."""
    ours, theirs = now.get("hits") or [], published.get("hits") or []
    if not ours or not theirs:
        return None
    size = min(len(ours), len(theirs))
    return size, share_at(ours, size), share_at(theirs, size)


def verdict(now: Mapping[str, Any], published: Mapping[str, Any]) -> str:
    """"yes" when the set's best constant passes no larger share than the published set's;
    "yes at N" when that holds only with both sets at the same size N (`equal_size`); "NO"
    otherwise; "-" without a published figure."""
    ours, theirs = now.get("constant"), published.get("constant")
    if ours is None or theirs is None:
        return "-"
    if ours <= theirs + 1e-9:
        return "yes"
    same = equal_size(now, published)
    if same and same[1] is not None and same[2] is not None and same[1] <= same[2] + 1e-9:
        return f"yes at {same[0]}"
    return "NO"


def table_rows(current: Mapping[str, Mapping[str, Any]],
               before: Mapping[str, Mapping[str, Any]] | None = None,
               published: Mapping[str, Mapping[str, Any]] | None = None) -> list[list[str]]:
    """Header and rows: problem, cases, constant share before / now / published, both shares
    at equal size, whether the set is at most as constant as the published one (`verdict`),
    and each mutant's pass share (with the older set's in brackets)."""
    def pct(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.1f}"

    header = ["problem", "cases", "constant before", "constant now", "constant published",
              "equal size: now / published (N)", "<= published", "mutants (pass %)"]
    rows = [header]
    for pid, now in current.items():
        old = (before or {}).get(pid, {})
        pub = (published or {}).get(pid, {})
        same = equal_size(now, pub)
        at = "-" if same is None else f"{pct(same[1])} / {pct(same[2])} ({same[0]})"
        mutants = "; ".join(
            f"{name} {pct(share)}" + (f" (was {pct(old['mutants'][name])})"
                                      if name in old.get("mutants", {}) else "")
            for name, share in now["mutants"].items())
        rows.append([pid, str(now["cases"]), pct(old.get("constant")), pct(now["constant"]),
                     pct(pub.get("constant")), at, verdict(now, pub), mutants or "-"])
    return rows


def render(rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * len(rows[0])]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


# Suite strength on the board: a pass rate is flagged where the best constant answer passes
# more than this share of the same cases.
TRIVIAL_FLAG = 0.5


def suite_strength(problem: Problem, cases: Sequence[Any]) -> dict[str, Any]:
    """How strong the cases behind a pass rate are, for the board: the share of the problem's
    mutants that fail at least one case ("killed"), the best constant answer's pass rate, both
    per category too, and whether a trivial answer passes more than TRIVIAL_FLAG."""
    def strength(group: Sequence[Any]) -> dict[str, Any]:
        usable = [c for c in group if c.has_expected]
        killed = [name for name, mutant in problem.mutants.items()
                  if any(not _passes(problem, mutant, json.loads(c.args_json()), c.expected)
                         for c in usable)]
        constant = best_share(constant_hit_sets(problem, usable))
        return {"killed": len(killed) / len(problem.mutants) if problem.mutants else None,
                "mutants": len(problem.mutants),
                "constant": constant,
                "flagged": constant is not None and constant > TRIVIAL_FLAG}

    by_category: dict[str, list[Any]] = {}
    for case in cases:
        by_category.setdefault(case.category, []).append(case)
    return {**strength(cases),
            "categories": {cat: strength(group) for cat, group in sorted(by_category.items())}}
