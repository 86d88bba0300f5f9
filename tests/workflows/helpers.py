"""One workflow-test bed: the toy arena as origin (plus the project's own package and
workflows), served over git smart HTTP by the fake GitHub, and an act set-up.

Why the project files go into origin: the jobs check out the default branch and
`pip install .` from it, exactly as on GitHub, so the code they run is this checkout's.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.helpers.act import RUN_ID, Act, ActRun
from tests.helpers.arena import Arena, KeyPair, git
from tests.helpers.fake_github import READ_TOKEN, WRITE_TOKEN, FakeGitHub
from tests.helpers.paths import REPO

# What of the project the jobs need (the package, its build files, the workflows, the docs the
# site links); the tests, competitions and recorded campaigns stay out (the arena brings its own).
LEFT_OUT = ("tests/", "competitions/", "leaderboard/", "campaigns/", "benchmarks/")


def project_files() -> list[str]:
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True,
                            check=True).stdout.decode().split("\0")
    return [p for p in listed if p and not p.startswith(LEFT_OUT) and (REPO / p).is_file()]


def add_project(arena: Arena) -> None:
    """Commit this checkout's files (as they are on disk) to the arena's origin."""
    work = arena.clone("project")
    for path in project_files():
        dest = work / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / path, dest)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "the project")
    git(work, "push", "-q", "origin", "main")


@dataclass
class Bed:
    tmp: Path
    arena: Arena
    fake: FakeGitHub
    act: Act
    workdir: Path  # act's -C: a clone whose origin names the repository github.com/gnncb/arena

    @classmethod
    def build(cls, tmp: Path, keypair: KeyPair, fake: FakeGitHub) -> Bed:
        arena = Arena(tmp, keypair)
        add_project(arena)
        fake.serve_git(arena.origin)
        workdir = arena.clone("act-workdir")
        git(workdir, "remote", "set-url", "origin", f"https://github.com/{fake.full_name}.git")
        return cls(tmp, arena, fake, Act(tmp), workdir)

    def head_message(self) -> str:
        """The subject and body of origin's newest commit on main."""
        return git(self.arena.origin, "log", "-1", "--format=%B", "main")

    def keyed(self) -> dict[str, str]:
        """The scoring job's secrets: the private key, a read-only token."""
        return {"GITHUB_TOKEN": READ_TOKEN, "GNNCB_PRIVATE_KEY": self.arena.keypair.pem}

    def keyless(self) -> dict[str, str]:
        """The publishing job's secrets: a write token, no key."""
        return {"GITHUB_TOKEN": WRITE_TOKEN}

    def pr_event(self, number: int) -> dict[str, Any]:
        """The payload GitHub writes for PR `number` opened now (its number, head, author and
        time), plus the repository; the workflow run it triggered is act's (`RUN_ID`), served
        by the fake. Why the time and the run: the score job takes the submission time from
        the event and checks it against GitHub's record of the run (evaluator/ci/event.py)."""
        now = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
        return {**self.fake.pr_event(number, "opened", now, run_id=RUN_ID),
                "repository": self.repository()}

    def repository(self) -> dict[str, Any]:
        """The `repository` object of every event payload (the jobs check out its default
        branch)."""
        return {"default_branch": "main", "full_name": self.fake.full_name,
                "name": self.fake.name, "owner": {"login": self.fake.owner}}

    def run(self, workflow: str, event: str, payload: dict[str, Any], secrets: dict[str, str],
            **kw: Any) -> ActRun:
        return self.act.run(workdir=self.workdir, event=event, payload=payload,
                            api_url=self.fake.base_url, secrets=secrets, workflow=workflow, **kw)


def assert_no_key_material(files: dict[str, bytes], bed: Bed) -> None:
    """No PEM block and no line of the private key's body in what the jobs hand on."""
    assert files
    body = [line for line in bed.arena.keypair.pem.splitlines() if len(line) > 40]
    assert body
    for name, data in files.items():
        text = data.decode("utf-8", errors="replace")
        assert "PRIVATE KEY" not in text, name
        assert not any(line in text for line in body), name


def job_timing(runs: dict[str, ActRun]) -> dict[str, dict[str, float]]:
    """Per job of the given act runs: seconds spent installing (Python set-up, `pip install`)
    vs working (every other step), and the run's whole act time (engine start, checkout,
    artifacts included). Why: the closing note reports the time from a PR event to the bot's
    answer job by job, and install time is what a cache or a prebuilt wheel would cut."""
    table: dict[str, dict[str, float]] = {}
    for label, run in runs.items():
        steps = run.step_seconds()
        jobs = {name.split(":")[0] for name in steps}
        for job in sorted(jobs):
            mine = {n: s for n, s in steps.items() if n.split(":")[0] == job}
            install = sum(s for n, s in mine.items() if INSTALL.search(n))
            table[f"{label}/{job}"] = {"install": round(install, 1),
                                       "work": round(sum(mine.values()) - install, 1),
                                       "act_run": round(run.seconds, 1)}
    return table


INSTALL = re.compile(r": (?:Install |Set up Python|actions/setup-python)")


def record_timing(record_property: Any, runs: dict[str, ActRun]) -> dict[str, dict[str, float]]:
    """`job_timing` as a test property (junit XML) and printed (-s), asserting every run was
    timed and installed something (a run that never reached an install step says so here).
    A matrix's jobs share one id in act's log: its row is the last of them to report."""
    table = job_timing(runs)
    assert all(any(row["install"] > 0 for key, row in table.items()
                   if key.startswith(f"{label}/")) for label in runs), (
        table, {label: run.step_seconds() for label, run in runs.items()})
    record_property("job_seconds", json.dumps(table))
    print("\nact timing (seconds):", json.dumps(table, indent=1))
    return table
