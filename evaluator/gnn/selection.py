"""Choosing a baseline's configuration on validation data only, and saying so.

Why: a baseline chosen between candidates by its hidden test score is tuned on the test set,
which the rules forbid to participants. Every baseline that compares configurations does it
through `select_on_validation`: each candidate is trained from the same seed on the same
training rows and rated on the same validation rows (never the test rows); the best rating wins
(ties keep the earlier candidate), and the number of candidates tried is reported as the
baseline's tuning runs. No torch import: non-graph baselines use it too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from evaluator.gnn.runtime import seed_everything

Config = TypeVar("Config")
Result = TypeVar("Result")


@dataclass
class Selection(Generic[Result]):
    name: str  # the chosen candidate
    result: Result  # its run (predictions for the test rows included)
    val_scores: dict[str, float]  # every candidate's validation rating
    results: dict[str, Result]  # every candidate's run (to add up the training time)
    tuning_runs: int  # candidates trained, as declared on the leaderboard row


def select_on_validation(candidates: Mapping[str, Config], run: Callable[[Config], Result],
                         rating: Callable[[Result], float], *, higher_is_better: bool = True,
                         threads: int = 1) -> Selection[Result]:
    """Run every candidate (re-seeded with seed 25 before each) and keep the best rating."""
    if not candidates:
        raise ValueError("select_on_validation needs at least one candidate")
    best_name, best_result, best_value = "", None, None
    scores: dict[str, float] = {}
    results: dict[str, Result] = {}
    for name, config in candidates.items():
        seed_everything(threads=threads)
        result = results[name] = run(config)
        value = float(rating(result))
        scores[name] = round(value, 4)
        better = best_value is None or (value > best_value if higher_is_better
                                        else value < best_value)
        if better:
            best_name, best_result, best_value = name, result, value
    return Selection(best_name, best_result, scores, results, len(candidates))
