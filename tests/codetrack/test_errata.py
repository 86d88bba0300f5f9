"""Case sets are versioned, and every correction of generated cases is listed.

`evaluator/codetrack/errata.json` lists each correction (the problems whose cases changed for
the same seed, what and why) with the case-set version it starts; the generated set's manifest,
the judge's run.json and `gnncb code report` name the version, and the report lists what was
corrected since an older run's version. A fixed small set (the practice seed's full plan at
--per-cell 1, shared with test_graphgen.py and test_labels.py) pins each problem's cases by a
fingerprint in tests/fixtures/case_fingerprints.json: a problem whose cases change without an
erratum fails here. After adding an erratum (a new version), record the fingerprints again:
`python -m tests.codetrack.test_errata --write` (it refuses while a change is unlisted).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from evaluator.cli import main
from evaluator.codetrack.cases import CaseSet, generate_case_set
from evaluator.codetrack.errata import (
    case_set_version,
    corrected,
    errata,
    unlisted_changes,
)
from evaluator.codetrack.problem import all_problems
from tests.helpers.codetrack import FULL_ONE, shared_case_set
from tests.helpers.paths import FIXTURES

RECORDED = FIXTURES / "case_fingerprints.json"
PINNED = FULL_ONE  # the shared set the fingerprints read


def test_every_erratum_names_known_problems_and_the_version_is_the_highest() -> None:
    items = errata()["errata"]
    assert items and all(set(e["problems"]) <= set(all_problems()) for e in items)
    assert case_set_version() == max(e["version"] for e in items) >= 2
    # this version's corrections (issue 27): lc2097's tiny inputs, lc2924's loner cases
    assert {"lc2097", "lc2924"} <= set(corrected(case_set_version() - 1))


def test_a_changed_problem_needs_an_erratum_of_a_later_version() -> None:
    recorded = {"version": 1, "problems": {"lc2097": "a", "lc207": "b"}}
    # lc2097 changed and is listed in version 2; lc207 changed and is not
    assert unlisted_changes(recorded, {"lc2097": "x", "lc207": "b"}, version=2) == []
    assert unlisted_changes(recorded, {"lc2097": "x", "lc207": "y"}, version=2) == ["lc207"]
    # recorded at the current version: a further change of lc2097 needs a newer erratum
    now = {"version": case_set_version(), "problems": {"lc2097": "a"}}
    assert unlisted_changes(now, {"lc2097": "x"}) == ["lc2097"]


def _fingerprints(case_set: CaseSet) -> dict[str, str]:
    return {pid: case_set.fingerprint(pid) for pid in sorted(case_set.problem_ids())}


@pytest.mark.slow
def test_every_problems_cases_match_their_fingerprint_or_an_erratum(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    case_set = shared_case_set(tmp_path_factory, **PINNED)
    assert {k: recorded[k] for k in ("plan", "per_cell", "base_seed")} == {
        "plan": "full", "per_cell": 1, "base_seed": case_set.manifest["base_seed"]}
    now = _fingerprints(case_set)
    assert set(now) == set(all_problems())
    unlisted = unlisted_changes(recorded, now)
    assert not unlisted, (
        f"the generated cases of {', '.join(unlisted)} changed without an erratum: add one to "
        "evaluator/codetrack/errata.json (a new version: what changed and why), then run "
        "`python -m tests.codetrack.test_errata --write`")
    assert recorded["version"] == case_set_version() and recorded["problems"] == now, (
        "a new erratum moved the case-set version: record the fingerprints again with "
        "`python -m tests.codetrack.test_errata --write`")


@pytest.mark.slow
def test_the_judge_and_the_report_name_the_version_and_what_was_corrected_since(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    cases = tmp_path / "set"
    assert main(["code", "generate", "--per-cell", "1", "--problems", "lc2924", "--out",
                 str(cases)]) == 0
    assert f"case-set version {case_set_version()}" in capsys.readouterr().out
    assert CaseSet(cases).version == case_set_version()
    run = tmp_path / "run"
    assert main(["code", "judge", "--reference", "--cases", str(cases), "--problems", "lc2924",
                 "--out", str(run), "--jobs", "1"]) == 0
    summary = json.loads((run / "run.json").read_text())
    assert summary["case_set_version"] == case_set_version()
    capsys.readouterr()
    assert main(["code", "report", str(run)]) == 0
    printed = capsys.readouterr().out
    assert f"case-set version {case_set_version()} (current {case_set_version()}" in printed
    assert "corrected since" not in printed
    # a run judged on an older version's cases: the report lists the corrections since
    summary["case_set_version"] = 1
    (run / "run.json").write_text(json.dumps(summary))
    assert main(["code", "report", str(run)]) == 0
    printed = capsys.readouterr().out
    assert "case-set version 1 (current" in printed
    assert "lc2924: corrected since (version 2)" in printed
    assert "lc2097: corrected since (version 2)" in printed


def write(dest: Path) -> None:
    """Record the fingerprints at the current version (refuses while a change is unlisted)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        case_set = generate_case_set(Path(tmp) / "set", **PINNED)
        now = _fingerprints(case_set)
        if dest.is_file():
            unlisted = unlisted_changes(json.loads(dest.read_text(encoding="utf-8")), now)
            if unlisted:
                raise SystemExit(f"{', '.join(unlisted)} changed without an erratum: add one "
                                 "to evaluator/codetrack/errata.json first")
        dest.write_text(json.dumps({"version": case_set_version(), "plan": "full",
                                    "per_cell": 1, "base_seed": case_set.manifest["base_seed"],
                                    "problems": now}, indent=1, sort_keys=True) + "\n",
                        encoding="utf-8")
    print(f"wrote {dest}")


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    write(RECORDED)
