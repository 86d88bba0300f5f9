"""The deterministic cost model that sets each case's time limit.

Why a model instead of a stopwatch: a limit taken from the reference's wall-clock time at
generation differs between two generations of the same seed (917 of 928 cases did), so the same
solution could pass a case in one set and time out in its twin. Here a case's *modelled
reference time* depends only on the case itself: a fixed base plus a per-problem rate (the
record's `cost_rate`, `DEFAULT_RATE` unless set) times the size of the input as stored (its
compact JSON, in bytes). The judge turns that into the limit
(`JudgeConfig.case_seconds`: max(floor, factor x reference time), capped; 1 s, 10x, 20 s by
default), and the case set stores both figures (`ref_seconds`, `limit_seconds`).

The rates come from a calibration pass of the references' CPU time on a loaded 2-core machine
(`PYTHONPATH=. python benchmarks/codetrack_cost_model.py`), rounded up with headroom and frozen
in the problem modules; the benchmark re-measures them and reports any case whose measured CPU
time exceeds its model. Changing a rate changes the limits of every set generated afterwards (and
the code digest records it, since this file and the problem modules are part of it).
"""

from __future__ import annotations

BASE_SECONDS = 0.002  # interpreter call, argument copy and answer encoding
DEFAULT_RATE = 1e-6  # seconds per input byte: linear-time references (BFS, union-find, Kahn)
# References that do more than linear work per input byte set their own `cost_rate` from the
# calibration pass (measured worst seconds per byte above the base, x ~1.5 headroom, rounded up
# to a power of two in us).


def model_seconds(rate: float, args_json: str) -> float:
    """The modelled CPU seconds of a reference with this `cost_rate` on this input (rounded to
    1 us)."""
    return round(BASE_SECONDS + rate * len(args_json.encode("utf-8")), 6)


def limit_seconds(ref_seconds: float) -> float:
    """The CPU limit the judge's default configuration derives from a modelled reference time,
    stored with the case so a set carries its limits (the judge recomputes it from
    `ref_seconds` with its own configuration; the tests check the two agree)."""
    return round(min(TIMEOUT_CAP, max(TIMEOUT_FLOOR, TIMEOUT_FACTOR * ref_seconds)), 3)


# The judge's default per-case CPU limit = max(floor, factor x modelled reference time), capped;
# JudgeConfig takes its defaults from here (this module must not import the judge: the judge
# imports the case sets, which import this module).
TIMEOUT_FACTOR = 10.0
TIMEOUT_FLOOR = 1.0
TIMEOUT_CAP = 20.0
