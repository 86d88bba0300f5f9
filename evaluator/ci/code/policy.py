"""Which files a code-track pull request may change: solutions and a metadata.json, in the
author's own folder of a code-track board.

Why its own rule: a code-track submission is a set of `solutions/<problem id>.py` files (plus an
optional `metadata.json`) under `competitions/<board>/submissions/<login>/`, not the two files
of `evaluator.ci.policy`; the name, status and second-submission checks are that module's,
shared (`sort_files`), and only the location rule is the track's. Pure: it sees the API's list
of changed files, never a checkout.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from evaluator.ci.github import ChangedFile
from evaluator.ci.policy import (
    PathProblem,
    PolicyRejection,
    second_submission_problems,
    sort_files,
)
from evaluator.codetrack.board import BOARDS, CodeBoard

METADATA = "metadata.json"
CODE_PATH = re.compile(r"competitions/([^/]+)/submissions/([^/]+)/(.+)")
SOLUTION_PATH = re.compile(r"solutions/([^/]+)\.py")


@dataclass(frozen=True)
class CodeFiles:
    """The files of one code-track submission, as the PR lists them."""

    board: CodeBoard
    folder: str  # competitions/<slug>/submissions/<login>
    login: str
    solutions: dict[str, ChangedFile]  # problem id -> file
    metadata: ChangedFile | None


def _location_problem(f: ChangedFile, author: str,
                      problem_ids: Iterable[str]) -> PathProblem | None:
    path = f.filename
    m = CODE_PATH.fullmatch(path)
    if not m or m.group(1) not in BOARDS:
        return PathProblem(path, "is outside competitions/graph-coding/submissions/"
                             f"{author}/; a code-track pull request changes nothing else",
                       "outside-submission")
    slug, login, rest = m.groups()
    if login.lower() != author.lower():
        return PathProblem(path, f"is in {login!r}'s folder, but this PR is by {author!r}; use "
                             f"competitions/{slug}/submissions/{author}/", "other-participant")
    if rest == METADATA:
        return None
    s = SOLUTION_PATH.fullmatch(rest)
    if s is None:
        return PathProblem(path, "extra file; a code-track submission holds only "
                             "solutions/<problem id>.py files and an optional metadata.json",
                       "extra-file")
    if s.group(1) not in set(problem_ids):
        return PathProblem(path, f"there is no problem {s.group(1)!r}; name solution files after "
                             "problem ids (`gnncb code problems`)", "unknown-problem")
    return None


def check_code_files(files: Iterable[ChangedFile], author: str, *, problem_ids: Iterable[str],
                     total_files: int | None = None) -> CodeFiles:
    """The PR's submission files, or PolicyRejection listing every offending path."""
    files = list(files)
    ids = list(problem_ids)
    good, problems = sort_files(files, lambda f: _location_problem(f, author, ids))
    if total_files is not None and total_files > len(files):
        problems.append(PathProblem("(more files)", f"the PR changes {total_files} files; a "
                                f"submission has at most {len(ids) + 1}", "extra-file"))
    folders = sorted({"/".join(f.filename.split("/")[:4]) for f in good})
    problems.extend(second_submission_problems(good, folders))
    if problems:
        raise PolicyRejection(problems)
    solutions = {f.filename.rsplit("/", 1)[1].removesuffix(".py"): f
                 for f in good if not f.filename.endswith("/" + METADATA)}
    if not solutions:
        where = folders[0] if folders else f"competitions/graph-coding/submissions/{author}"
        raise PolicyRejection([PathProblem(f"{where}/solutions/", "holds no solution; add at least "
                                       "one solutions/<problem id>.py", "missing-file")])
    folder = folders[0]
    metadata = next((f for f in good if f.filename.endswith("/" + METADATA)), None)
    return CodeFiles(board=BOARDS[folder.split("/")[1]], folder=folder,
                     login=folder.split("/")[3], solutions=solutions, metadata=metadata)

