"""Case-set versions and their errata: which generated cases were ever corrected, and why.

Why: a pass rate is a statement about a case set. When a generator is corrected (an input
that broke the contract, cells that tested nothing), the same seed gives other cases, and a
pass rate judged before is not comparable with one judged after. `errata.json` (beside this
module) lists every correction with the version it starts; the highest is the current
case-set version, written into each generated set's manifest and each judge run, and printed
by the report. A problem's cases are pinned by a fingerprint (`CaseSet.fingerprint`) of a
fixed small set (tests/fixtures/case_fingerprints.json); the test fails when a fingerprint
moves without an erratum, so no correction goes unlisted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from evaluator.errors import ConfigError

ERRATA = Path(__file__).with_name("errata.json")


@cache
def errata() -> dict[str, Any]:
    """The errata file, checked: every erratum has a version >= 2, problems, what and why."""
    try:
        data = json.loads(ERRATA.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"{ERRATA}: unreadable ({err}); restore it from git") from err
    for k, item in enumerate(data.get("errata", [])):
        missing = [f for f in ("version", "date", "problems", "what", "why") if not item.get(f)]
        if missing or not isinstance(item["version"], int) or item["version"] < 2:
            raise ConfigError(f"{ERRATA}: erratum {k} needs an integer version >= 2 and "
                              f"{', '.join(missing) or 'a valid version'}")
    return dict(data)


def case_set_version() -> int:
    """The current case-set version: the highest erratum's, 1 before any erratum."""
    return max((int(e["version"]) for e in errata()["errata"]), default=1)


def corrected(version: int) -> dict[str, list[dict[str, Any]]]:
    """Problem -> the errata after `version` that changed its cases (what a set of that
    version lacks)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for item in errata()["errata"]:
        if item["version"] > version:
            for pid in item["problems"]:
                out.setdefault(pid, []).append(item)
    return out


def unlisted_changes(recorded: Mapping[str, Any], now: Mapping[str, str],
                     version: int | None = None) -> list[str]:
    """The problems whose fingerprint differs from the recorded one (made at
    `recorded["version"]`) with no erratum of a later version naming them; [] when every
    change is listed (then `version`, default the current one, must be above the recorded)."""
    version = case_set_version() if version is None else version
    listed = corrected(int(recorded["version"]))
    changed = sorted(pid for pid, digest in now.items()
                     if recorded["problems"].get(pid) != digest)
    return [pid for pid in changed if pid not in listed
            or not any(e["version"] <= version for e in listed[pid])]
