"""Answer checkers for code-track problems.

GraphEval36K judged every problem by exact match although several accept many correct answers
(any topological order, any order of a list of nodes). A checker here decides correctness the way
the problem statement defines it. Checkers run outside the sandbox, on JSON-decoded outputs.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str = ""


# (arguments, expected answer from the reference or the label, candidate's answer) -> Verdict
Checker = Callable[[Mapping[str, Any], Any, Any], Verdict]


def normalize(value: Any) -> Any:
    """Tuples become lists, recursively, so JSON round trips compare equal."""
    if isinstance(value, tuple | list):
        return [normalize(v) for v in value]
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    return value


def canonical(value: Any) -> str:
    """Canonical JSON: `True` != `1`, list order matters.

    A plain int (the common element: a node id) is its decimal text, as JSON writes it; this
    skips the encoder's setup per element, which dominated the checkers' time."""
    if type(value) is int:
        return str(value)
    return json.dumps(normalize(value), sort_keys=True, separators=(",", ":"))


def exact(args: Mapping[str, Any], expected: Any, actual: Any) -> Verdict:
    if canonical(expected) == canonical(actual):
        return Verdict(True)
    return Verdict(False, "answer differs from the expected value")


def order_insensitive(args: Mapping[str, Any], expected: Any, actual: Any) -> Verdict:
    """Same multiset of elements, any order."""
    if not isinstance(actual, list | tuple):
        return Verdict(False, f"expected a list, got {type(actual).__name__}")
    if Counter(map(canonical, expected)) == Counter(map(canonical, actual)):
        return Verdict(True)
    return Verdict(False, "list elements differ from the expected multiset")


def set_of_lists(args: Mapping[str, Any], expected: Any, actual: Any) -> Verdict:
    """Outer order free, each inner list exact, no duplicates."""
    if not isinstance(actual, list | tuple) or not all(isinstance(x, list | tuple) for x in actual):
        return Verdict(False, "expected a list of lists")
    got = [canonical(x) for x in actual]
    if len(set(got)) != len(got):
        return Verdict(False, "the answer repeats an inner list")
    if set(got) == {canonical(x) for x in expected}:
        return Verdict(True)
    return Verdict(False, "set of lists differs from the expected set")


def set_of_unordered_pairs(args: Mapping[str, Any], expected: Any, actual: Any) -> Verdict:
    """Outer order free; each pair may be written [a, b] or [b, a]."""
    if not isinstance(actual, list | tuple) or not all(
        isinstance(p, list | tuple) and len(p) == 2 for p in actual
    ):
        return Verdict(False, "expected a list of pairs")

    def key(p: Any) -> str:
        # canonical(sorted(p, key=canonical)), written out: a list's canonical text is its
        # items' canonical texts joined by commas, so each item is encoded once
        first, second = canonical(p[0]), canonical(p[1])
        return f"[{first},{second}]" if first <= second else f"[{second},{first}]"

    got = [key(p) for p in actual]
    if len(set(got)) != len(got):
        return Verdict(False, "the answer repeats a pair")
    if set(got) == {key(p) for p in expected}:
        return Verdict(True)
    return Verdict(False, "set of pairs differs from the expected set")
