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

from evaluator.ci.github import GitHubClient, TreeEntry
from evaluator.ci.guards import HeadMoved, check_size, checked_entry
from evaluator.ci.policy import SubmissionFiles
from evaluator.errors import ConfigError


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


def fetch_checked(client: GitHubClient, path: str, entry: TreeEntry, limit: int) -> FetchedFile:
    """The blob of a checked tree entry (`guards.checked_entry`), verified against its git id
    and its size: the tree's, when it reported one, and `limit` (when it did not)."""
    data = fetch_blob(client, entry.sha, path, entry.size)
    check_size(path, len(data), limit)
    return FetchedFile(path=path, blob_sha=entry.sha, data=data)


def fetch_submission(client: GitHubClient, head_sha: str, sub: SubmissionFiles,
                     limits: dict[str, int]) -> dict[str, FetchedFile]:
    """Both files by name, after mode, size and blob-hash checks. `limits` is bytes by name.

    Every entry is checked before anything is downloaded, so a symlink or an oversize file
    costs no download.
    """
    entries = folder_entries(client, head_sha, sub.folder)
    wanted = [(f.filename.rsplit("/", 1)[1], f) for f in (sub.envelope, sub.metadata)]
    checked = [(name, f.filename, checked_entry(entries, f, head_sha, limits[name]))
               for name, f in wanted]
    return {name: fetch_checked(client, path, entry, limits[name])
            for name, path, entry in checked}
