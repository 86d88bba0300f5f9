"""What a competition's test set can resolve: the smallest score difference a 95 % test can
tell apart, printed on its README and site page so a reader knows what a gap means.

Method (stated on the page): a normal approximation to the binomial. A score that is a share
in [0, 1] (accuracy, F1, ROC-AUC, ...) measured on n independent units has a standard error of
at most sqrt(p (1 - p) / n) <= sqrt(0.25 / n) (worst case p = 0.5); the difference of two
entries scored independently has at most sqrt(2) times that, so a difference smaller than
z_0.975 * sqrt(2 * 0.25 / n) is not significant at 95 %. For a score that is not a share
(MAE, NMAE) the same bound is given in units of the per-item standard deviation,
z_0.975 * sqrt(2 / n). The quantile comes from SciPy. The units are the test rows of the
part the live board scores (the public part of a split competition: about public_fraction of
its ids), or its clusters where the split resamples clusters from a public column.
Paired tiers resolve smaller gaps between entries that agree on most items; this note is the
worst case a reader can apply to any two numbers on the board.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist

import pandas as pd

from evaluator.competition.spec import CompetitionSpec
from evaluator.metrics.registry import METRICS
from evaluator.scoring.bootstrap import LEVEL

METHOD = ("normal approximation to the binomial, worst case p = 0.5, two entries scored "
          "independently: z × √(2 × 0.25 / n), z = the normal quantile at 0.975")
METHOD_SD = ("normal approximation, two entries scored independently: z × √(2 / n) per-item "
             "standard deviations, z = the normal quantile at 0.975")


@dataclass(frozen=True)
class Resolution:
    score: str
    n: int  # independent units of the scored part
    unit: str  # "test rows", or the clusters' name
    part: str  # "public part" or "test set"
    delta: float  # smallest resolvable difference (score units, or per-item SDs)
    share: bool  # delta is in score units (a share in [0, 1]); else in per-item SDs
    method: str
    coarser: str = ""  # clusters the rows belong to that could not be counted here

    def sentence(self, *, markdown: bool = True) -> str:
        """The note as a README (Markdown) or a site page (plain text, escaped there) says it."""
        strong, code = ("**", "`") if markdown else ("", "")
        size = f"about {self.n:,}" if self.part == "public part" else f"{self.n:,}"
        if self.share:
            gap = f"{self.delta:.3f} ({100 * self.delta:.1f} percentage points)"
        else:
            gap = f"{self.delta:.2f} per-item standard deviations"
        return (f"{strong}Resolution{strong}: with {size} {self.unit} in its {self.part}, two "
                f"scores of {code}{self.score}{code} closer than {gap} cannot be told apart at "
                f"{round(100 * LEVEL)} % ({self.method})."
                + (f" Its rows come in {self.coarser} (resampled whole), so the real "
                   "resolution is coarser." if self.coarser else "")
                + " Tiers use a paired test, which separates entries that agree on most "
                "items at smaller gaps.")


def _base_metric(spec: CompetitionSpec, score: str) -> str:
    """The metric a (derived) score is built from first: its split and kind set the units."""
    while score in spec.derived:
        score = spec.derived[score].of[0]
    return score


def _units(folder: Path, spec: CompetitionSpec, split_name: str) -> tuple[int, str]:
    """(units, their name) in one split: rows of its public ids file, or its clusters when
    the split resamples clusters from a column of that file (hidden clusters count as rows:
    the note is then optimistic, and says rows)."""
    split = spec.splits[split_name]
    clusters = split.clusters
    if split.rows is not None and clusters is None:
        return split.rows, "test rows"
    ids = pd.read_csv(Path(folder) / split.ids, dtype=str)
    if clusters is not None and clusters.column and clusters.column in ids.columns:
        return int(ids[clusters.column].nunique()), clusters.name
    return len(ids), "test rows"


def resolution(folder: Path, spec: CompetitionSpec) -> Resolution | None:
    """The resolution of a competition's ranked score on the part its live board shows; None
    when its public ids cannot be read (a folder without data)."""

    score = spec.primary_score
    metric = spec.metrics[_base_metric(spec, score)]
    try:
        n, unit = _units(folder, spec, metric.split)
    except (OSError, ValueError):
        return None
    part = "test set"
    if spec.public_fraction is not None:
        n, part = max(1, round(n * spec.public_fraction)), "public part"
    if n < 1:
        return None
    # the standard library's normal quantile: a site build must not import SciPy (half a
    # second of every build, benchmarks/render_scale.py)
    z = NormalDist().inv_cdf(1 - (1 - LEVEL) / 2)
    share = METRICS[metric.fn].bounded
    delta = z * math.sqrt(2 * 0.25 / n) if share else z * math.sqrt(2 / n)
    if score in spec.derived and spec.derived[score].op == "subtract":
        delta *= math.sqrt(len(spec.derived[score].of))  # a difference of scores adds variances
    clusters = spec.splits[metric.split].clusters
    coarser = clusters.name if clusters is not None and unit == "test rows" else ""
    return Resolution(score, n, unit, part, delta, share, METHOD if share else METHOD_SD,
                      coarser)
