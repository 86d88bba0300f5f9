"""Read a submission's two files at the PR's head commit, as data, through the API.

Why trees and blobs instead of a checkout: nothing from the PR touches the runner's disk, so no
symlink, hook, `.gitattributes` filter or file name can do anything. The PR-files API does not
report file modes, so the folder's git tree is walked from the head commit to see what each entry
really is (a symlink has mode 120000) and how large it is BEFORE downloading; each blob is then
checked against its git object id, so what we score is exactly what the PR holds at that commit.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from evaluator.ci.github import ChangedFile, GitHubClient, TreeEntry
from evaluator.ci.policy import SubmissionFiles
from evaluator.errors import ConfigError, Rejection

REGULAR_MODES = ("100644", "100755")


class HeadMoved(ConfigError):
    """The PR changed while it was being read; the run triggered by that push handles it."""


@dataclass(frozen=True)
class FetchedFile:
    path: str
    blob_sha: str
    data: bytes


def git_blob_sha(data: bytes) -> str:
    """Git's object id for a blob: sha1 over "blob <size>\\0" + content."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + data, usedforsecurity=False).hexdigest()


def folder_entries(client: GitHubClient, commit_sha: str, folder: str) -> dict[str, TreeEntry]:
    """Entries of `folder` at `commit_sha`, walking one tree per path segment."""
    entries = client.tree(commit_sha)
    walked = []
    for part in folder.split("/"):
        walked.append(part)
        match = next((e for e in entries if e.name == part), None)
        if match is None or match.type != "tree":
            raise HeadMoved(f"{'/'.join(walked)} is not a folder at commit {commit_sha}; the "
                            "pull request changed while it was being evaluated (the run for "
                            "the new commit will evaluate it)")
        entries = client.tree(match.sha)
    return {e.name: e for e in entries}


def fetch_blob(client: GitHubClient, entry_sha: str, path: str, size: int | None) -> bytes:
    data = client.blob(entry_sha)
    if git_blob_sha(data) != entry_sha or (size is not None and len(data) != size):
        raise ConfigError(f"{path}: downloaded content does not match git blob {entry_sha}; "
                          "refusing to evaluate a corrupted download (re-run the workflow)")
    return data


def fetch_submission(client: GitHubClient, head_sha: str, sub: SubmissionFiles,
                     limits: dict[str, int]) -> dict[str, FetchedFile]:
    """Both files by name, after mode, size and blob-hash checks. `limits` is bytes by name."""
    entries = folder_entries(client, head_sha, sub.folder)
    wanted: list[ChangedFile] = [sub.envelope, sub.metadata]
    checked: list[tuple[str, TreeEntry]] = []
    for f in wanted:
        name = f.filename.rsplit("/", 1)[1]
        entry = entries.get(name)
        if entry is None or entry.sha != f.sha:
            raise HeadMoved(f"{f.filename} at commit {head_sha} differs from the PR's file list; "
                            "the pull request changed while it was being evaluated")
        if entry.mode == "120000":
            raise Rejection(f"{f.filename!r} is a symbolic link; commit the file itself",
                            code="symlink")
        if entry.type != "blob" or entry.mode not in REGULAR_MODES:
            raise Rejection(f"{f.filename!r} is not a regular file (git mode {entry.mode})",
                            code="not-a-file")
        limit = limits[name]
        if entry.size is not None and entry.size > limit:
            raise Rejection(f"{f.filename!r} is {entry.size:,} bytes; the limit is {limit:,}",
                            code="too-large")
        checked.append((f.filename, entry))
    out = {}
    for path, entry in checked:
        data = fetch_blob(client, entry.sha, path, entry.size)
        name = path.rsplit("/", 1)[1]
        if len(data) > limits[name]:  # the tree did not report a size
            raise Rejection(f"{path!r} is {len(data):,} bytes; the limit is {limits[name]:,}",
                            code="too-large")
        out[name] = FetchedFile(path=path, blob_sha=entry.sha, data=data)
    return out
