"""Which files a submission pull request may change: exactly two, in the author's own folder.

Why so strict: the workflow runs with a secret on `pull_request_target`, so everything a PR can
influence is attack surface. A submission PR adds `predictions.csv.enc` and `metadata.json` under
`competitions/<slug>/submissions/<author-login>/` and nothing else; every other change (a
workflow, the evaluator, a rename, a deletion, a symlink, a strange name, another participant's
folder, a second competition) is refused with a message naming the offending path. The check is
pure: it sees the API's list of changed files, never a checkout.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from evaluator.ci.github import ChangedFile
from evaluator.competition.spec import SLUG_RE
from evaluator.errors import Rejection
from evaluator.pipeline.evaluate import ENVELOPE_NAME, METADATA_NAME

SUBMISSION_FILES = (ENVELOPE_NAME, METADATA_NAME)
# Letters, digits, dot, underscore, hyphen and slash: no shell metacharacters, no spaces, no
# control characters. Every legitimate submission path fits; nothing else needs to.
SAFE_PATH = re.compile(r"[A-Za-z0-9._/-]+")
SUBMISSION_PATH = re.compile(r"competitions/([^/]+)/submissions/([^/]+)/([^/]+)")
PLATFORM_PREFIXES = (".github/", "evaluator/", "templates/", "keys/", "leaderboard/", ".ci/",
                     "tests/", "benchmarks/", "docs/")
PLATFORM_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "README.md", ".gitignore")
ACCEPTED_STATUS = ("added", "modified")
MAX_PROBLEMS = 20


@dataclass(frozen=True)
class PathProblem:
    """One offending path of a pull request, why, and a stable code for the comment."""

    path: str
    reason: str
    code: str


class PolicyRejection(Rejection):
    """A rejection with one line per offending path (rendered as a list on the PR)."""

    def __init__(self, problems: list[PathProblem]) -> None:
        shown = problems[:MAX_PROBLEMS]
        more = len(problems) - len(shown)
        lines = [f"{p.path!r}: {p.reason}" for p in shown]
        if more:
            lines.append(f"... and {more} more")
        super().__init__("this pull request changes files a submission may not change:\n"
                         + "\n".join(f"  - {line}" for line in lines), code=shown[0].code)
        self.problems = shown


@dataclass(frozen=True)
class SubmissionFiles:
    slug: str
    folder: str  # competitions/<slug>/submissions/<login>
    login: str  # the folder name as written (matches the author case-insensitively)
    envelope: ChangedFile
    metadata: ChangedFile


def expected_folder(slug: str, login: str) -> str:
    return f"competitions/{slug}/submissions/{login}"


def _name_problem(path: str) -> PathProblem | None:
    if not path:
        return PathProblem(path, "empty file name", "unsafe-path")
    if path.startswith("/") or re.match(r"[A-Za-z]:", path):
        return PathProblem(path, "absolute paths are not allowed", "unsafe-path")
    if not SAFE_PATH.fullmatch(path):
        return PathProblem(path, "the name contains characters other than letters, digits, '.', "
                             "'_', '-' and '/' (spaces, shell metacharacters and control "
                             "characters are refused)", "unsafe-path")
    if any(part in ("", ".", "..") for part in path.split("/")):
        return PathProblem(path, "'..', '.' and empty path segments are not allowed", "unsafe-path")
    return None


def _status_problem(f: ChangedFile) -> PathProblem | None:
    if f.status == "removed":
        return PathProblem(f.filename, "deletes a file; a submission only adds its two files",
                       "deletion")
    if f.status == "renamed":
        return PathProblem(f.filename, f"renames {f.previous_filename!r}; add new files instead",
                       "rename")
    if f.status not in ACCEPTED_STATUS:
        return PathProblem(f.filename, f"unsupported change {f.status!r}; only added files are "
                                   "accepted", "unsupported-change")
    return None


def _platform_problem(path: str) -> PathProblem | None:
    """Stops a submission PR of either track changing the platform itself: the workflows that
    run with secrets, the evaluator that judges, the keys, the ledger and the docs."""
    if path.startswith(PLATFORM_PREFIXES) or path in PLATFORM_FILES:
        return PathProblem(path, "changes the platform itself (workflows, evaluator, templates, "
                             "keys, leaderboard or docs); submission PRs may not do that",
                       "platform-path")
    return None


def _location_problem(f: ChangedFile, author: str,
                      competition_exists: Callable[[str], bool]) -> PathProblem | None:
    path = f.filename
    m = SUBMISSION_PATH.fullmatch(path)
    if not m:
        return PathProblem(path, f"is outside {expected_folder('<slug>', author)}/",
                       "outside-submission")
    slug, login, name = m.groups()
    if not re.fullmatch(SLUG_RE, slug) or not competition_exists(slug):
        return PathProblem(path, f"there is no competition {slug!r} (see the competitions/ folder)",
                       "unknown-competition")
    if login.lower() != author.lower():
        return PathProblem(path, f"is in {login!r}'s folder, but this PR is by {author!r}; "
                             f"use {expected_folder(slug, author)}/", "other-participant")
    if name not in SUBMISSION_FILES:
        return PathProblem(path, f"extra file; a submission folder holds only {ENVELOPE_NAME} and "
                             f"{METADATA_NAME}", "extra-file")
    return None


def sort_files(files: Iterable[ChangedFile],
               location_problem: Callable[[ChangedFile], PathProblem | None],
               ) -> tuple[list[ChangedFile], list[PathProblem]]:
    """The files that pass every check, and the first problem of each file that does not.

    Shared by both tracks: names (old and new), change status, the platform's own paths, then
    the track's own location rule; a renamed file must be acceptable under both names.
    """
    good: list[ChangedFile] = []
    problems: list[PathProblem] = []
    for f in files:
        problem = (_name_problem(f.filename)
                   or (_name_problem(f.previous_filename) if f.previous_filename else None)
                   or _status_problem(f)
                   or _platform_problem(f.filename)
                   or location_problem(f))
        if problem:
            problems.append(problem)
        else:
            good.append(f)
    return good, problems


def second_submission_problems(good: Iterable[ChangedFile],
                               folders: list[str]) -> list[PathProblem]:
    """One problem per file when the good files span more than one submission folder."""
    if len(folders) <= 1:
        return []
    return [PathProblem(f.filename, "is a second submission in the same PR (found "
                    f"{', '.join(folders)}); open one PR per competition", "two-submissions")
            for f in good]


def check_pr_files(files: Iterable[ChangedFile], author: str, *,
                   competition_exists: Callable[[str], bool],
                   total_files: int | None = None) -> SubmissionFiles:
    """The PR's two submission files, or PolicyRejection listing every offending path."""
    files = list(files)
    good, problems = sort_files(files, lambda f: _location_problem(f, author,
                                                                   competition_exists))
    if total_files is not None and total_files > len(files):
        problems.append(PathProblem("(more files)", f"the PR changes {total_files} files; a "
                                                "submission changes exactly two", "extra-file"))
    folders = sorted({f.filename.rsplit("/", 1)[0] for f in good})
    problems.extend(second_submission_problems(good, folders))
    if problems:
        raise PolicyRejection(problems)
    if not good:
        raise PolicyRejection([PathProblem("(none)", "the PR changes no files",
                                       "missing-file")])
    by_name = {f.filename.rsplit("/", 1)[1]: f for f in good}
    folder = folders[0]
    missing = [n for n in SUBMISSION_FILES if n not in by_name]
    if missing:
        raise PolicyRejection([PathProblem(f"{folder}/{n}", "is missing; a submission adds both "
                                       f"{ENVELOPE_NAME} and {METADATA_NAME}", "missing-file")
                               for n in missing])
    slug, login = folder.split("/")[1], folder.split("/")[3]
    return SubmissionFiles(slug=slug, folder=folder, login=login,
                           envelope=by_name[ENVELOPE_NAME], metadata=by_name[METADATA_NAME])
