"""Helpers of the code-track pull-request tests: the graph-coding folder added to the encrypted
pipeline's arena (tests/helpers/arena.py), tiny solutions, and drivers for the two phases of
`gnncb ci code`. The `code_arena` fixture that opens the track is in tests/ci/conftest.py.
"""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from evaluator import sandbox
from evaluator.ci.code.publish import publish_code_result
from evaluator.ci.code.result import CodeResult, read_code_result, write_code_result
from evaluator.ci.code.score import judge_code_pr
from evaluator.ci.predictions.publish import Published
from tests.helpers.arena import Arena, Sleeps, client, git
from tests.helpers.codetrack import copy_board
from tests.helpers.fake_github import BOT_LOGIN, READ_TOKEN, WRITE_TOKEN, FakeGitHub
from tests.helpers.paths import REPO

PER_CELL = 1  # a handful of cases per problem keeps every judged test to a second or two
SLUG = "graph-coding"

LC997 = b'''\
class Solution:
    def findJudge(self, n, trust):
        score = [0] * n
        for a, b in trust:
            score[a] -= 1
            score[b] += 1
        for i in range(n):
            if score[i] == n - 1:
                return i
        return -1
'''
LC1557 = b'''\
class Solution:
    def findSmallestSetOfVertices(self, n, edges):
        reached = {b for _, b in edges}
        return [i for i in range(n) if i not in reached]
'''
LC1557_WRONG = b'''\
class Solution:
    def findSmallestSetOfVertices(self, n, edges):
        return [0]
'''


def needs_sandbox() -> pytest.MarkDecorator:
    iso = sandbox.detect_isolation()
    return pytest.mark.skipif(not iso.sandboxed,
                              reason=f"needs full sandbox isolation ({iso.level}: {iso.detail})")


def folder(login: str) -> str:
    return f"competitions/{SLUG}/submissions/{login}"


def code_files(login: str, solutions: dict[str, bytes] | None = None,
               metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """PR files: `solutions/<pid>.py` (default: two correct ones) and an optional metadata."""
    solutions = {"lc997": LC997, "lc1557": LC1557} if solutions is None else solutions
    files: dict[str, Any] = {f"{folder(login)}/solutions/{pid}.py": src
                             for pid, src in solutions.items()}
    if metadata is not None:
        files[f"{folder(login)}/metadata.json"] = json.dumps(metadata).encode()
    return files


def add_code_folder(arena: Arena, master: str | None = None) -> None:
    """Open the graph-coding track in the arena's repository.

    With `master`: the repository's folder as deployed, its case-seed commitment made again
    from that throwaway secret (`tests.helpers.codetrack.copy_board`: a fresh clone has no
    deployed master, and no arena row is judged under the deployed commitment), so the keyed
    seed job holding `master` hands the judge secret seeds. Without: the README only, a board
    whose version commits to no secret (digest seeds), for the tests of what does not depend
    on where the seed comes from."""
    work = arena.clone()
    if master is not None:
        copy_board(work, master)
    else:
        dest = work / "competitions" / SLUG
        dest.mkdir(parents=True)
        shutil.copy(REPO / "competitions" / SLUG / "README.md", dest / "README.md")
    git(work, "add", "competitions")
    git(work, "commit", "-q", "-m", "open the code track")
    git(work, "push", "-q", "origin", "main")


def run_judge(arena: Arena, fake: FakeGitHub, pr: int, **kwargs: Any) -> CodeResult:
    """Phase 1 with the read-only token in a fresh checkout, round-tripped through the
    artifact JSON exactly as the workflow hands it over."""
    result = judge_code_pr(client(fake, READ_TOKEN), pr, root=arena.clone(),
                           bot_login=BOT_LOGIN, per_cell=PER_CELL, jobs=1, **kwargs)
    out = arena.tmp / f"code-result-{pr}-{arena._clones}.json"
    write_code_result(result, out)
    return read_code_result(out)


def run_code_publish(arena: Arena, fake: FakeGitHub, result: CodeResult) -> Published:
    return publish_code_result(client(fake, WRITE_TOKEN), result, root=arena.clone(),
                               bot_login=BOT_LOGIN,
                               run_url="https://github.com/gnncb/arena/actions/runs/2",
                               sleep=Sleeps())


def run_code_pr(arena: Arena, fake: FakeGitHub, pr: int,
                **kwargs: Any) -> tuple[CodeResult, Published]:
    result = run_judge(arena, fake, pr, **kwargs)
    return result, run_code_publish(arena, fake, result)
