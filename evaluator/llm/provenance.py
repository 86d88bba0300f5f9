"""Which commit a campaign's prompt slots were read from, and replaying against it.

Why: four of the five prompt slots (README, repository tree, dataset summary, submission
specification) are read from the competition folder, and the folders keep changing after a
campaign is recorded (the generated READMEs gained a resolution note, a human reference, ...).
A replay sends the request hashes of the prompts as they were, so against today's folders it
misses at message 1. A recording therefore writes, in its campaign.json, the commit its
folders were read at (only when they had no uncommitted change: otherwise no commit holds what
the model saw, and none is written). A replay whose folder has changed since that commit reads
the folder's tracked files back from it with git, into a scratch copy; files git does not
track (data a build script generates) are taken as they are. A checkout without that commit (a
shallow clone) is refused with what to fetch; a campaign.json without one falls back to the
folder as it is, and a miss names the slot that differs (evaluator/llm/replay.py).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from evaluator.errors import ConfigError
from evaluator.repo.gitops import Git

KEY = "slots_commit"
_SHA = re.compile(r"[0-9a-f]{40}")


def _toplevel(folder: Path) -> Path | None:
    done = Git(folder).run("rev-parse", "--show-toplevel", check=False)
    return Path(done.stdout.strip()) if done.returncode == 0 else None


def slots_commit(competitions: Sequence[Path]) -> str | None:
    """The commit whose files the prompt slots of `competitions` are read from: HEAD of the one
    repository holding them all, when none of the folders differs from it (tracked changes or
    untracked files); None when no commit holds what the prompts will say."""
    tops = {_toplevel(Path(c)) for c in competitions}
    if len(tops) != 1 or None in tops:
        return None
    [top] = tops
    assert top is not None
    git = Git(top)
    paths = [str(Path(c).resolve().relative_to(top.resolve())) for c in competitions]
    if git.out("status", "--porcelain", "--", *paths):
        return None
    head = git.run("rev-parse", "HEAD", check=False)
    return head.stdout.strip() if head.returncode == 0 else None


def recorded_folders(competitions: Sequence[Path], commit: str | None, scratch: Path,
                     source: str, echo: Callable[[str], None]) -> list[Path]:
    """`competitions` as they were at `commit` (from campaign.json `source`): each folder that
    changed since is copied into `scratch` with its tracked files read back from the commit."""
    if not commit:
        return [Path(c) for c in competitions]
    if not _SHA.fullmatch(str(commit)):
        raise ConfigError(f"{source}: {KEY} {commit!r} is not a full commit id")
    out = []
    for competition in map(Path, competitions):
        top = _toplevel(competition)
        if top is None:
            echo(f"replay: {competition} is not in a git checkout, so the prompt slots are "
                 f"read from it as it is, not from commit {commit[:12]} ({source})")
            out.append(competition)
            continue
        git = Git(top)
        if git.run("cat-file", "-e", f"{commit}^{{commit}}", check=False).returncode != 0:
            raise ConfigError(
                f"{source}: the prompt slots were read at commit {commit[:12]}, which the "
                f"checkout {top} does not have (a shallow clone?); fetch the history (`git "
                "fetch --unshallow`; in a workflow, actions/checkout with fetch-depth: 0) so "
                "the replay sends the recorded prompts")
        rel = competition.resolve().relative_to(top.resolve()).as_posix()
        changed = git.out("diff", "--name-status", "--no-renames", commit, "--", rel)
        if not changed:
            out.append(competition)
            continue
        copy = scratch / f"{len(out)}" / competition.name
        shutil.copytree(competition, copy, symlinks=True)
        names = []
        for line in changed.splitlines():
            status, path = line.split("\t", 1)
            target = copy / Path(path).relative_to(rel)
            if status == "A":  # added since the commit: the recorded prompt never saw it
                target.unlink()
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(git.blob(commit, path))
            names.append(Path(path).relative_to(rel).as_posix())
        echo(f"replay: {rel} changed since commit {commit[:12]} ({', '.join(names)}); its "
             f"prompt slots are read from that commit ({source})")
        out.append(copy)
    return out
