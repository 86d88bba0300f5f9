"""Read a code-track submission at the PR's head commit, as data: the solutions, the metadata,
and the digest that names them.

Why as data: as for the predictions pipeline (`evaluator.ci.fetch`), nothing from the PR touches
the runner's disk until the judge writes the checked sources into its sandbox; every tree entry
passes `guards.checked_entry` before any blob is downloaded. The metadata is the submission's
description only: identity comes from the PR, and a PR always submits as entrant `human`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Annotated

from pydantic import BaseModel, Field, ValidationError, model_validator

from evaluator.ci.code.policy import METADATA, CodeFiles
from evaluator.ci.fetch import FetchedFile, fetch_checked, folder_entries
from evaluator.ci.github import ChangedFile, GitHubClient, TreeEntry
from evaluator.ci.guards import checked_entry
from evaluator.codetrack.board import CodeBoard
from evaluator.errors import Rejection
from evaluator.submission.metadata import STRICT, json_object, schema_problems


def _check_total(total: int, board: CodeBoard) -> None:
    if total > board.submission.max_bytes:
        raise Rejection(f"the solutions add up to {total:,} bytes; the limit is "
                        f"{board.submission.max_bytes:,}", code="too-large")


def fetch_code_files(client: GitHubClient, head_sha: str,
                     sub: CodeFiles) -> tuple[dict[str, FetchedFile], FetchedFile | None]:
    """(problem id -> solution, metadata) at the head commit, after mode/size/hash checks.

    Every entry is checked (one tree walk per folder) before anything is downloaded, so a
    symlink or an oversize file costs no download.
    """
    board = sub.board
    checked: list[tuple[str | None, ChangedFile, TreeEntry, int]] = []
    if sub.metadata is not None:
        entries = folder_entries(client, head_sha, sub.folder)
        checked.append((None, sub.metadata, checked_entry(entries, sub.metadata, head_sha,
                                                          board.max_metadata_bytes),
                        board.max_metadata_bytes))
    entries = folder_entries(client, head_sha, f"{sub.folder}/solutions")
    for problem_id, solution in sorted(sub.solutions.items()):
        checked.append((problem_id, solution, checked_entry(entries, solution, head_sha,
                                                            board.max_solution_bytes),
                        board.max_solution_bytes))
    _check_total(sum(e.size or 0 for pid, _, e, _ in checked if pid is not None), board)
    solutions: dict[str, FetchedFile] = {}
    metadata = None
    for pid, f, entry, limit in checked:
        fetched = fetch_checked(client, f.filename, entry, limit)
        if pid is None:
            metadata = fetched
        else:
            solutions[pid] = fetched
    _check_total(sum(len(source.data) for source in solutions.values()), board)
    for source in solutions.values():
        try:
            text = source.data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise Rejection(f"{source.path!r} is not UTF-8 text ({err.reason} at byte "
                            f"{err.start})", code="invalid-solution") from None
        if "\x00" in text:
            raise Rejection(f"{source.path!r} contains NUL bytes; Python source cannot",
                            code="invalid-solution")
    return solutions, metadata


Text = Annotated[str, Field(max_length=200)]


class CodeMetadata(BaseModel):
    """What a code-track submission may declare about itself (identity comes from the PR)."""

    model_config = STRICT
    participant: Text | None = None
    entrant: str = "human"
    method: Text = ""
    model: Text = ""
    team: Text = ""
    notes: Annotated[str, Field(max_length=2000)] = ""

    @model_validator(mode="after")
    def _human_only(self) -> CodeMetadata:
        """A pull request is a human's: LLM and baseline rows come from the platform's own
        runs only, so nobody can pose as an LLM and taint the human-vs-LLM comparison."""
        if self.entrant != "human":
            raise ValueError(f"entrant {self.entrant[:40]!r} is reserved for the platform's own "
                             "runs; a pull request always submits as 'human' (describe any "
                             "LLM help in 'method' or 'notes')")
        return self


def parse_code_metadata(data: bytes | None, author: str,
                        filename: str = METADATA) -> CodeMetadata:
    if data is None:
        return CodeMetadata()
    raw = json_object(data, filename)
    try:
        meta = CodeMetadata.model_validate(raw)
    except ValidationError as err:
        raise Rejection(f"{filename} does not match the code-track metadata schema:\n"
                        f"{schema_problems(err)}", code="invalid-metadata") from None
    if meta.participant is not None and meta.participant.lower() != author.lower():
        raise Rejection(f"{filename} names participant {meta.participant!r} but the pull "
                        f"request is by {author!r}", code="invalid-metadata")
    return meta


def digest_of(sources: Mapping[str, bytes]) -> str:
    """The submission's identity and seed source; byte-for-byte the same function as
    `codetrack.submission.submission_digest` (which reads files), over `<pid>.py` names."""
    h = hashlib.sha256()
    for name in sorted(sources):
        h.update(name.encode() + b"\0" + sources[name] + b"\0")
    return h.hexdigest()
