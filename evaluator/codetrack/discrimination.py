"""How well a case set tells solutions apart: the share of cases the best constant answer
passes, and the share each classic wrong solution (mutants.py) passes, per problem.

Why: a pass rate means little when `return 0` or a solution that forgets a rule scores nearly
as much. The published GraphEval36K set is the yardstick: a generated set should be no more
constant-dominated than it (`gnncb code discrimination --published DIR`). Pure functions over
case sets; the CLI prints `table_rows`.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from evaluator.codetrack.cases import CaseSet
from evaluator.codetrack.mutants import MUTANTS
from evaluator.codetrack.problem import Problem, all_problems
from evaluator.codetrack.report import constant_hits

# A constant that passes at most this many cases of a (smaller) set is at the sample-size floor
# of exact-match problems whose answers are all different: the published set, five times
# larger at --per-cell 20, has a lower floor for the same reason, not better cases.
FLOOR_CASES = 2


def constant_share(problem: Problem, cases: Sequence[Any], field: str = "expected"
                   ) -> float | None:
    """Share of the cases the best single constant answer passes (report.constant_hits)."""
    hits = constant_hits(problem, cases, field)
    if not hits:
        return None
    counts: Counter[str] = Counter()
    for keys in hits.values():
        counts.update(keys)
    return max(counts.values()) / len(hits)


def mutant_shares(problem: Problem, cases: Sequence[Any]) -> dict[str, float]:
    """Share of the cases with a true answer that each mutant of the problem passes."""
    usable = [c for c in cases if c.has_expected]
    out: dict[str, float] = {}
    for name, mutant in MUTANTS.get(problem.id, {}).items():
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
            field: str = "expected") -> dict[str, dict[str, Any]]:
    """Problem -> cases, constant share and mutant shares (mutants only on `expected`)."""
    registry = all_problems()
    out: dict[str, dict[str, Any]] = {}
    for pid in problems or case_set.problem_ids():
        if pid not in case_set.manifest["problems"]:
            continue
        cases = case_set.cases(pid)
        problem = registry[pid]
        out[pid] = {
            "cases": len(cases),
            "constant": constant_share(problem, cases, field),
            "mutants": mutant_shares(problem, cases) if field == "expected" else {},
        }
    return out


def table_rows(current: Mapping[str, Mapping[str, Any]],
               before: Mapping[str, Mapping[str, Any]] | None = None,
               published: Mapping[str, Mapping[str, Any]] | None = None) -> list[list[str]]:
    """Header and rows: problem, cases, constant share before / now / published, whether the
    set is at most as constant as the published one, and each mutant's pass share."""
    def pct(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.1f}"

    header = ["problem", "cases", "constant before", "constant now", "constant published",
              "<= published", "mutants (pass %)"]
    rows = [header]
    for pid, now in current.items():
        old = (before or {}).get(pid, {})
        pub = (published or {}).get(pid, {})
        pub_share = pub.get("constant")
        ok = "-"
        if pub_share is not None and now["constant"] is not None:
            passed = round(now["constant"] * now["cases"])
            if now["constant"] <= pub_share + 1e-9:
                ok = "yes"
            elif passed <= FLOOR_CASES:  # one distinct answer per case: no constant does better
                ok = f"floor ({passed} of {now['cases']})"
            else:
                ok = "NO"
        mutants = "; ".join(
            f"{name} {pct(share)}" + (f" (was {pct(old['mutants'][name])})"
                                      if name in old.get("mutants", {}) else "")
            for name, share in now["mutants"].items())
        rows.append([pid, str(now["cases"]), pct(old.get("constant")), pct(now["constant"]),
                     pct(pub_share), ok, mutants or "-"])
    return rows


def render(rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * len(rows[0])]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)
