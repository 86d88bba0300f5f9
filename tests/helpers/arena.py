"""The pull-request pipeline's test bed: a temporary key pair, tiny self-made competitions in a
real bare git repository ("origin"), and drivers for the two phases against the fake GitHub
server. Nothing here needs ../shared or torch. The fixtures that hand these out (`arena`,
`fake`, `pipeline_keys`) are in tests/conftest.py, since tests of several layers drive the
pipeline (ci, submission identity, ledger races, the rendered PR answer).
"""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from evaluator.authoring.build import seal_labels, write_csv
from evaluator.ci.github import GitHubClient
from evaluator.ci.predictions.publish import Published, publish_result
from evaluator.ci.predictions.score import score_pr
from evaluator.ci.result import Result, read_result, write_result
from evaluator.competition.spec import load_spec
from evaluator.submission import envelope, keys
from evaluator.submission.metadata import Metadata, dump_metadata
from tests.helpers.fake_github import BOT_LOGIN, READ_TOKEN, WRITE_TOKEN, FakeGitHub

SLUGS = ("toy-nodes", "toy-graphs")
N_TEST = 20


@dataclass(frozen=True)
class KeyPair:
    public: Any
    private: dict[str, Any]
    pem: str
    kid: str


@functools.cache
def shared_keypair() -> KeyPair:
    """One temporary key pair per test session (shared by every module importing this)."""
    folder = Path(tempfile.mkdtemp(prefix="gnncb-test-keys-"))
    atexit.register(shutil.rmtree, folder, True)
    kid = keys.generate(folder / "pair", bits=3072)
    pem = (folder / "pair" / "private.pem").read_text()
    return KeyPair(keys.load_public_key((folder / "pair" / "public.pem").read_bytes()),
                   keys.load_private_keys(pem), pem, kid)


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(cwd), "-c", "user.name=test",
                           "-c", "user.email=test@example.org", *args],
                          capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def competition_spec(slug: str, per_version: int = 3, per_day: int = 2) -> dict[str, Any]:
    return {
        "slug": slug, "version": 1, "title": f"Toy {slug}",
        "task": "node-classification", "category": "homogeneous", "difficulty": "easy",
        "domain": "testing", "id_column": "id",
        "targets": [{"name": "label", "type": "class", "classes": [0, 1]}],
        "splits": {"test": {"ids": "data/test_ids.csv", "labels": "hidden/test_labels.jwe"}},
        "metrics": {"accuracy": {"fn": "accuracy", "split": "test"},
                    "macro_f1": {"fn": "macro_f1", "split": "test"}},
        "rank_by": [{"score": "accuracy", "order": "desc"}],
        "submission": {"file": "predictions.csv", "max_bytes": 2000,
                       "limits": {"per_version": per_version, "per_day": per_day}},
    }


def truth_for(slug: str) -> pd.DataFrame:
    ids = [1000 + 7 * i + len(slug) for i in range(N_TEST)]
    labels = [(i * 5 + len(slug)) % 3 % 2 for i in range(N_TEST)]
    return pd.DataFrame({"id": ids, "label": labels})


def build_competition(folder: Path, public: Any, slug: str, truth: pd.DataFrame) -> None:
    folder.mkdir(parents=True)
    (folder / "competition.yaml").write_text(yaml.safe_dump(competition_spec(slug),
                                                            sort_keys=False))
    spec = load_spec(folder)
    write_csv(truth[["id"]], folder / "data" / "test_ids.csv")
    seal_labels(truth, spec, "test", public, folder / "hidden" / "test_labels.jwe")


class Arena:
    """A bare "origin" repository with competitions, plus helpers to make submissions."""

    def __init__(self, tmp: Path, keypair: KeyPair) -> None:
        self.tmp, self.keypair = tmp, keypair
        self.origin = tmp / "origin.git"
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(self.origin)],
                       check=True)
        seed = tmp / "seed"
        seed.mkdir()
        git(seed, "init", "-q", "-b", "main")
        for slug in SLUGS:
            build_competition(seed / "competitions" / slug, keypair.public, slug, truth_for(slug))
        (seed / "leaderboard").mkdir()
        (seed / "leaderboard" / ".gitkeep").write_text("")
        git(seed, "add", ".")
        git(seed, "commit", "-q", "-m", "seed")
        git(seed, "remote", "add", "origin", str(self.origin))
        git(seed, "push", "-q", "origin", "main")
        self._clones = 0

    def clone(self, name: str | None = None) -> Path:
        self._clones += 1
        dest = self.tmp / (name or f"clone{self._clones}")
        subprocess.run(["git", "clone", "-q", str(self.origin), str(dest)], check=True)
        return dest

    def head(self) -> str:
        return git(self.origin, "rev-parse", "main")

    def show(self, path: str) -> str | None:
        proc = subprocess.run(["git", "-C", str(self.origin), "show", f"main:{path}"],
                              capture_output=True, text=True)
        return proc.stdout if proc.returncode == 0 else None

    def rows(self) -> list[dict[str, Any]]:
        text = self.show("leaderboard/ledger.jsonl") or ""
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def commit_rows(self, rows: list[dict[str, Any]]) -> None:
        """Put ledger rows on origin directly (earlier submissions)."""
        work = self.clone()
        path = work / "leaderboard" / "ledger.jsonl"
        with path.open("a") as fh:
            for row in rows:
                fh.write(json.dumps(row, sort_keys=True) + "\n")
        git(work, "add", "leaderboard/ledger.jsonl")
        git(work, "commit", "-q", "-m", "rows")
        git(work, "push", "-q", "origin", "main")

    def predictions(self, slug: str, wrong: int = 0) -> bytes:
        truth = truth_for(slug).copy()
        truth.loc[: wrong - 1, "label"] = 1 - truth.loc[: wrong - 1, "label"]
        return truth.to_csv(index=False, lineterminator="\n").encode()

    def envelope(self, slug: str, login: str, wrong: int = 0, *, claim: str | None = None,
                 data: bytes | None = None) -> bytes:
        return envelope.seal(data if data is not None else self.predictions(slug, wrong),
                             self.keypair.public,
                             envelope.prediction_claims(slug, 1, (claim or login).lower()))

    def files(self, slug: str, login: str, wrong: int = 0, *, claim: str | None = None,
              method: str = "2-layer GCN", meta_login: str | None = None,
              folder_login: str | None = None) -> dict[str, bytes]:
        folder = f"competitions/{slug}/submissions/{folder_login or login}"
        meta = dump_metadata(Metadata(participant=meta_login or login, method=method))
        return {f"{folder}/predictions.csv.enc": self.envelope(slug, login, wrong, claim=claim),
                f"{folder}/metadata.json": meta.encode()}


class Sleeps(list):
    """An injectable sleep that records instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def client(fake: FakeGitHub, token: str, sleeps: Sleeps | None = None,
           timeout: int = 5, attempts: int = 4) -> GitHubClient:
    return GitHubClient(fake.full_name, token, base_url=fake.base_url, timeout=timeout,
                        attempts=attempts, sleep=sleeps if sleeps is not None else Sleeps(),
                        write_spacing=None)


def run_score(arena: Arena, fake: FakeGitHub, pr: int, *, sleeps: Sleeps | None = None,
              timeout: int = 5, attempts: int = 4) -> Result:
    """Phase 1 in a fresh base-branch checkout, round-tripped through the artifact JSON."""
    root = arena.clone()
    result = score_pr(client(fake, READ_TOKEN, sleeps, timeout, attempts), pr, root=root,
                      load_keys=lambda: arena.keypair.private, bot_login=BOT_LOGIN)
    out = arena.tmp / f"result-{pr}-{arena._clones}.json"
    write_result(result, out)
    return read_result(out)


def run_publish(arena: Arena, fake: FakeGitHub, result: Result, *, root: Path | None = None,
                sleeps: Sleeps | None = None, timeout: int = 5) -> Published:
    return publish_result(client(fake, WRITE_TOKEN, sleeps, timeout), result,
                          root=root or arena.clone(), bot_login=BOT_LOGIN,
                          run_url="https://github.com/gnncb/arena/actions/runs/1",
                          sleep=sleeps if sleeps is not None else Sleeps())


def run_pr(arena: Arena, fake: FakeGitHub, pr: int) -> tuple[Result, Published]:
    result = run_score(arena, fake, pr)
    return result, run_publish(arena, fake, result)


def published_two(arena: Arena, fake: FakeGitHub) -> list[dict[str, Any]]:
    """Alice (two wrong) and bob (none wrong) through both phases; origin's ledger rows."""
    fake.open_pr(1, "alice", arena.files("toy-nodes", "alice", wrong=2))
    fake.open_pr(2, "bob", arena.files("toy-nodes", "bob", wrong=0))
    run_pr(arena, fake, 1)
    run_pr(arena, fake, 2)
    return arena.rows()


def ledger_rows(root: Path) -> list[dict[str, Any]]:
    """The ledger rows of a checkout (not of origin: see `Arena.rows`)."""
    text = (root / "leaderboard" / "ledger.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]
