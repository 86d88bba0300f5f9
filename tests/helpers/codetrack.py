"""Shared inputs of the code-track tests: a known-correct solution, ledger rows and judged runs.

Why one copy: the CLI tests submit the lc207 (course schedule) solution as a file and the LLM
tests return it as a model answer; the board, site and results tests read rows shaped exactly
as `score_submission` writes them and runs judged by the real `gnncb code judge`.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evaluator.cli import main
from evaluator.codetrack.cases import CaseSet, generate_case_set, make_plan, seed_from_digest
from evaluator.codetrack.importer import import_grapheval
from evaluator.codetrack.intervals import row_interval
from evaluator.codetrack.problem import all_problems
from tests.helpers.paths import REPO, SHARED

# A correct lc207 solution: Kahn's algorithm, all courses finish iff the graph is acyclic.
KAHN = """\
from collections import deque
from typing import List


class Solution:
    def canFinish(self, numCourses: int, prerequisites: List[List[int]]) -> bool:
        indegree = [0] * numCourses
        after = [[] for _ in range(numCourses)]
        for a, b in prerequisites:
            after[b].append(a)
            indegree[a] += 1
        queue = deque(i for i in range(numCourses) if indegree[i] == 0)
        done = 0
        while queue:
            node = queue.popleft()
            done += 1
            for nxt in after[node]:
                indegree[nxt] -= 1
                if indegree[nxt] == 0:
                    queue.append(nxt)
        return done == numCourses
"""


def code_row(participant: str, passed: dict[str, int], *, digest: str | None = None,
             per_cell: int = 1, entrant: str = "human", pr: int | None = 1,
             participant_id: int | None = 7, at: str = "2026-01-02T03:04:05Z") -> dict[str, Any]:
    """A row shaped exactly as `score_submission` writes it, counts consistent with the plan."""
    registry = all_problems()
    plan = make_plan("paper", registry.values(), per_cell)
    per = {pid: {"passed": n, "cases": sum(plan[pid].values())} for pid, n in passed.items()}
    cases = sum(sum(plan[p].values()) for p in registry)
    total = sum(passed.values())
    digest = digest or hashlib.sha256(f"{participant}|{sorted(passed.items())}|{at}".encode()
                                      ).hexdigest()
    row = {
        "type": "submission", "digest": digest, "slug": "graph-coding", "version": 1,
        "participant": participant, "participant_id": participant_id, "entrant": entrant,
        "method": "m", "model": "", "team": "",
        "scores": {"pass_rate": total / cases, "cases": cases, "passed": total,
                   "problems": len(registry),
                   "problems_solved": sum(1 for p, v in per.items() if v["passed"] == v["cases"])},
        "per_problem": per,
        "declared": {"plan": "paper", "per_cell": per_cell, "seed_source": "digest",
                     "isolation": ["full"]},
        "seed": seed_from_digest(digest), "pr": pr, "submitted_at": at, "scored_at": at,
    }
    row["intervals"] = {"pass_rate": row_interval(row, slug="graph-coding", version=1)}
    return row


# -- the deployed case-seed commitment (competitions/graph-coding/case-seed.json) -------------

BOARD = REPO / "competitions" / "graph-coding"
STAND_IN_LABEL = b"gnncb-code-case-master"  # docs/maintainers.md, "The case secret"


def stand_in_code_seed() -> str | None:
    """The stand-in deployment's GNNCB_CODE_SEED as docs/maintainers.md derives it (HMAC-SHA256
    of a fixed label under the build seed of ../shared/secrets), or None without ../shared (a
    fresh clone: tests needing the deployed master then skip)."""
    path = SHARED / "secrets" / "build-seed.txt"
    if not path.is_file():
        return None
    build_seed = path.read_text(encoding="utf-8").strip()
    return hmac.new(build_seed.encode(), STAND_IN_LABEL, hashlib.sha256).hexdigest()


def copy_board(root: Path, master: str | None = None) -> Path:
    """The repository's graph-coding folder copied into a scratch repository `root` (with an
    empty leaderboard/). With `master`, its case-seed commitment is made again from that
    throwaway secret through `gnncb code commit-seed`: legitimate in a copy, since no row of it
    is judged under the deployed commitment, and it lets a fresh clone (no ../shared, so no
    deployed master) judge on secret cases. Without `master` the deployed commitment stays."""
    folder = root / "competitions" / "graph-coding"
    folder.parent.mkdir(parents=True, exist_ok=True)
    (root / "leaderboard").mkdir(parents=True, exist_ok=True)
    shutil.copytree(BOARD, folder, ignore=shutil.ignore_patterns("submissions", "release"))
    if master is not None:
        (folder / "case-seed.json").unlink()
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("GNNCB_CODE_SEED", master)
            assert main(["code", "commit-seed", "--root", str(root)]) == 0
    return folder


def digest_seeded_root(tmp: Path) -> Path:
    """A scratch repository whose graph-coding board commits no case secret (its README
    only): for tests of what does not depend on the seed's source, and for reproducing rows
    judged before the deployed commitment existed (their cases were seeded by the digest)."""
    root = tmp / "digest-seeded-repo"
    folder = root / "competitions" / "graph-coding"
    folder.mkdir(parents=True, exist_ok=True)
    (root / "leaderboard").mkdir(exist_ok=True)
    shutil.copy(BOARD / "README.md", folder / "README.md")
    return root


PROBLEMS = "lc207,lc1971,lc997"


CONSTANT = {
    "lc207": "class Solution:\n    def canFinish(self, numCourses, prerequisites):\n"
             "        return True\n",
    "lc1971": "class Solution:\n    def validPath(self, n, edges, source, destination):\n"
              "        return True\n",
    "lc997": "class Solution:\n    def findJudge(self, n, trust):\n        return -1\n",
}


def judged_runs(tmp_path: Path) -> tuple[Path, Path]:
    cases = tmp_path / "set"
    assert main(["code", "generate", "--per-cell", "3", "--problems", PROBLEMS, "--out",
                 str(cases)]) == 0
    ref = tmp_path / "vanilla"
    assert main(["code", "judge", "--reference", "--cases", str(cases), "--problems", PROBLEMS,
                 "--no-memory", "--label", "vanilla", "--out", str(ref)]) == 0
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    for pid, code in CONSTANT.items():
        (solutions / f"{pid}.py").write_text(code)
    const = tmp_path / "const"
    assert main(["code", "judge", "--solutions", str(solutions), "--cases", str(cases),
                 "--no-memory", "--label", "ssd", "--out", str(const)]) == 0
    return ref, const


# The two shared sets: the practice seed's paper plan at --per-cell 3 (mutants, shrinking) and
# its full plan at --per-cell 1 (byte identity, labels, errata fingerprints).
PAPER_THREE: dict[str, Any] = {"per_cell": 3, "jobs": 2}
FULL_ONE: dict[str, Any] = {"plan": "full", "per_cell": 1, "jobs": 2}


def shared_case_set(factory: pytest.TempPathFactory, **settings: Any) -> CaseSet:
    """A generated case set (`generate_case_set` settings, every problem unless `problems`)
    made once per test session and shared by the test files that read the same one.

    Why: the discrimination, shrink, label and byte-identity tests each read a whole set of
    every problem (a minute of CPU each to make); CI runs the files on several pytest-xdist
    workers, which share the parent of their base temporary folders, so the first worker to
    ask makes the set under a file lock and the others read it. Without xdist the folder is
    the session's own. Tests must not modify the set."""
    key = hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()
                         ).hexdigest()[:16]
    # resumes a set another worker left unfinished; a finished one is only read
    return _made_once(factory, f"shared-case-set-{key}", lambda dest: generate_case_set(
        dest, force=not (dest / "manifest.json").is_file(), **settings))


def shared_published_set(factory: pytest.TempPathFactory, data: Path) -> CaseSet:
    """GraphEval36K's published cases of every problem (`import_grapheval` of `data`, the
    ../shared dataset), imported once per test session like `shared_case_set`.

    Why: the spec-agreement figures and the discrimination comparison both read the whole
    import (a minute and a half of CPU each to make). Tests must not modify the set."""
    return _made_once(factory, "shared-grapheval", lambda dest: CaseSet(dest) if (
        dest / "manifest.json").is_file() else import_grapheval(data, dest, jobs=2, force=True))


def _made_once(factory: pytest.TempPathFactory, name: str,
               make: Callable[[Path], CaseSet]) -> CaseSet:
    """`make(folder)` under a file lock in the folder all of the session's pytest-xdist
    workers share (see `shared_case_set`)."""
    base = factory.getbasetemp()
    root = base.parent if base.name.startswith("popen-gw") else base
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return make(root / name)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
