"""A participant's rehearsal of the pull-request flow, on a throwaway copy of the repository.

Why: the only other way to see what the bot answers is to open a real pull request, and a
rejected one costs a round trip (an accepted one costs a submission). The rehearsal stages
everything the two jobs of `.github/workflows/evaluate.yml` see — a bare "origin" holding the
participant's last commit, the local stand-in of GitHub's API (`evaluator.ci.fake_github`,
real HTTP on 127.0.0.1) with the pull request opened by the participant's account, the
`pull_request_target` event payload and its workflow run — and the caller (`gnncb rehearse`)
runs the very verbs the workflow runs, `gnncb ci pr score` then `gnncb ci pr publish`, against
it. `Stage.answer` then reads back what the bot did: the comment, the label, the PR's state,
the ledger row pushed to the temporary origin.

What it cannot be: the platform. The participant has no platform private key, so the stage
makes a throwaway key pair of its own and, in the copy only, replaces the public key and seals
stand-in hidden labels for the competition with it (drawn from a fixed seed, so two rehearsals
score alike). The score is therefore NOT the score on the hidden labels; everything else the
bot decides (the files, the folder, the identity, the envelope's claims, the CSV's validation,
the limits and final choices against the repository's ledger) is decided as on GitHub.

Stable identity: the PR author's account id is the one the ledger already records for the
login (the id GitHub would give), else a fixed function of the login (`FakeGitHub.account_id`),
so a second rehearsal is the same account as the first.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np
import pandas as pd

from evaluator.ci.comment import LABELS
from evaluator.ci.fake_github import BOT_LOGIN, FakeGitHub
from evaluator.competition.spec import CompetitionSpec, load_spec
from evaluator.errors import ConfigError
from evaluator.ledger.store import SUBMISSION, Ledger
from evaluator.submission import envelope, keys

RUN_ID = 1  # the workflow run the stand-in serves for the rehearsal's event
STANDIN_SEED = "gnncb rehearsal: stand-in labels, not the hidden ones"
KEY_BITS = 3072  # the smallest key the envelope accepts: a throwaway pair need not be larger
DEFAULT_REPO = "gnncb/gnncb"


def _git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(cwd), "-c", "user.name=gnncb rehearsal",
                           "-c", "user.email=rehearsal@localhost", "-c", "core.hooksPath=/dev/null",
                           *args], capture_output=True, text=True, check=False, timeout=600)
    if proc.returncode != 0:
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        raise ConfigError(f"git {args[0]} failed in {cwd}: {tail}")
    return proc.stdout.strip()


def last_commit(root: Path) -> str:
    """The commit the rehearsal copies: the checkout's HEAD. Read-only on the checkout."""
    if not (Path(root) / ".git").exists():
        raise ConfigError(f"{root} is not a git checkout; the rehearsal copies your last commit: "
                          "run it in a clone of the competition repository (git clone ...)")
    try:
        return _git(root, "rev-parse", "--verify", "HEAD^{commit}")
    except ConfigError:
        raise ConfigError(f"{root} has no commit yet; the rehearsal copies your last commit: "
                          "run it in a clone of the competition repository") from None


def repo_name(root: Path) -> str:
    """OWNER/NAME of the checkout's GitHub origin (so the answer's links read as on GitHub),
    else gnncb/gnncb."""
    proc = subprocess.run(["git", "-C", str(root), "remote", "get-url", "origin"],
                          capture_output=True, text=True, check=False, timeout=60)
    url = proc.stdout.strip()
    path = urlparse(url).path if "://" in url else url.partition(":")[2]
    parts = [p for p in path.removesuffix(".git").split("/") if p]
    if len(parts) >= 2 and all(p.replace("-", "").replace(".", "").replace("_", "").isalnum()
                               for p in parts[-2:]):
        return f"{parts[-2]}/{parts[-1]}"
    return DEFAULT_REPO


def known_account(rows: list[dict[str, Any]], login: str) -> int | None:
    """The account id the ledger records for `login` (its latest row with one), else None."""
    found = None
    for row in rows:
        if (row.get("type") == SUBMISSION and str(row.get("participant", "")).lower() == login
                and isinstance(row.get("participant_id"), int)):
            found = row["participant_id"]
    return found


def _ledger_rows(root: Path) -> list[dict[str, Any]]:
    """A checkout's ledger rows, read as the score job reads them (nothing written)."""
    return Ledger(Path(root) / "leaderboard" / "ledger.jsonl").rows()


def standin_labels(competition: Path, spec: CompetitionSpec, split: str) -> pd.DataFrame:
    """A label table for one hidden split, drawn from a fixed seed: every public test id, each
    target a value of its kind (a declared class, 0/1 for a probability target, a number in the
    declared range). Why drawn and not a constant: the metrics (ROC-AUC, NMAE) need both
    classes or a range on each part."""
    ids_path = competition / spec.splits[split].ids
    try:
        ids = pd.read_csv(ids_path, dtype=str, keep_default_na=False)[spec.id_column]
    except (OSError, KeyError, ValueError) as err:
        raise ConfigError(f"{ids_path}: cannot read the public test ids ({err}); restore the "
                          "competition folder from git") from None
    rng = np.random.default_rng(list(f"{STANDIN_SEED}\x00{spec.slug}\x00{split}".encode()))
    frame = pd.DataFrame({spec.id_column: ids.to_numpy()})
    n = len(frame)
    for target in spec.targets:
        if target.type == "class":
            classes = list(target.classes or [])
            values = [classes[i % len(classes)] for i in range(n)]
            frame[target.name] = [values[i] for i in rng.permutation(n)]
        elif target.type == "probability":
            frame[target.name] = rng.permutation(np.arange(n) % 2)
        else:
            low, high = target.range or (0.0, 1.0)
            frame[target.name] = np.round(rng.uniform(low, high, n), 6)
    return frame


def seal_standin(competition: Path, spec: CompetitionSpec, public: Any) -> None:
    """Seal stand-in labels for every hidden split of the competition (in the copy), with their
    commitments, as the builder seals the real ones."""
    from evaluator.authoring.build import draw_public_part, seal_labels

    for name, split in spec.splits.items():
        frame = standin_labels(competition, spec, name)
        # the parts drawn row by row: stand-in labels leak nothing, so a split's declared
        # clusters (which the real build keeps whole) need not be looked up here
        part = draw_public_part(frame, spec, name, STANDIN_SEED) if spec.has_parts else None
        seal_labels(frame, spec, name, public, competition / split.labels, seed=STANDIN_SEED,
                    public=part)


@dataclass(frozen=True)
class Answer:
    """What the bot did on the rehearsal's pull request."""

    status: str  # accepted, rejected, or no-answer (the platform failed: nothing published)
    comment: str | None
    labels: list[str]
    pr_state: str
    row: dict[str, Any] | None  # the ledger row pushed to the temporary origin


@dataclass
class Stage:
    """Everything the two jobs need, in a temporary folder; see the module's docstring."""

    tmp: Path
    fake: FakeGitHub
    repo: str
    pr: int
    login: str
    account_id: int
    origin: Path
    event: Path
    key_file: Path
    spec: CompetitionSpec
    rows_before: int

    def checkout(self, name: str) -> Path:
        """A fresh clone of the default branch: the `actions/checkout` step of a job."""
        dest = self.tmp / name
        _git(self.tmp, "clone", "-q", str(self.origin), str(dest))
        return dest

    @property
    def run_url(self) -> str:
        """The stand-in's address for the run: the answer's link names no real workflow run."""
        return f"{self.fake.base_url}/{self.repo}/actions/runs/{RUN_ID}"

    def score_argv(self, root: Path, out: Path) -> list[str]:
        """`gnncb ci pr score` as evaluate.yml's score job runs it, with the stand-in's key."""
        return ["ci", "pr", "score", "--repo", self.repo, "--pr", str(self.pr),
                "--out", str(out), "--root", str(root), "--api-url", self.fake.base_url,
                "--bot-login", BOT_LOGIN, "--private-key", str(self.key_file),
                "--event", str(self.event), "--run-id", str(RUN_ID)]

    def publish_argv(self, root: Path, result: Path) -> list[str]:
        """`gnncb ci pr publish` as evaluate.yml's publish job runs it (no key at all)."""
        return ["ci", "pr", "publish", "--repo", self.repo, "--pr", str(self.pr),
                "--result", str(result), "--root", str(root), "--api-url", self.fake.base_url,
                "--bot-login", BOT_LOGIN, "--run-url", self.run_url]

    def answer(self) -> Answer:
        comments = self.fake.bot_comments(self.pr)
        labels = list(self.fake.labels[self.pr])
        status = next((s for s, label in LABELS.items() if label in labels), "no-answer")
        text = _git(self.tmp, "--git-dir", str(self.origin), "show",
                    "HEAD:leaderboard/ledger.jsonl") if self._has_ledger() else ""
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        new = rows[self.rows_before:]
        row = next((r for r in reversed(new) if r.get("type") == SUBMISSION
                    and r.get("pr") == self.pr), None)
        return Answer(status=status, comment=comments[-1] if comments else None,
                      labels=labels, pr_state=self.fake.pulls[self.pr]["state"], row=row)

    def _has_ledger(self) -> bool:
        proc = subprocess.run(["git", "--git-dir", str(self.origin), "cat-file", "-e",
                               "HEAD:leaderboard/ledger.jsonl"], capture_output=True, check=False)
        return proc.returncode == 0


@contextmanager
def stage(root: Path, competition: Path, predictions: bytes, metadata: bytes, login: str, *,
          progress: Callable[[str], None], keep: Path | None = None) -> Iterator[Stage]:
    """Stage a rehearsal of `login`'s pull request adding `predictions` (sealed here, to the
    stand-in's key) and `metadata` (as given) for the competition folder `competition` of the
    checkout `root`. Nothing is written into `root`. The temporary folder is deleted on exit;
    with `keep` (a path that does not exist yet), the temporary origin is moved there first."""
    root = Path(root).resolve()
    head = last_commit(root)
    spec = load_spec(competition)
    slug = spec.slug
    if not (root / "competitions" / slug / "competition.yaml").is_file():
        raise ConfigError(f"competition {slug!r} is not in the repository at {root} (its last "
                          "commit is what the bot sees); commit it there or pass --root")
    if keep is not None and Path(keep).exists():
        raise ConfigError(f"--keep {keep}: it exists; name a new folder for the kept origin")
    login = login.strip()
    tmp = Path(tempfile.mkdtemp(prefix="gnncb-rehearsal-"))
    try:
        with FakeGitHub(*repo_name(root).split("/", 1)) as fake:
            progress("making a throwaway key pair for the local stand-in (the platform's key "
                     "is never needed)")
            kid = keys.generate(tmp / "standin-key", bits=KEY_BITS)
            key_file = tmp / "standin-key" / "private.pem"
            public = keys.read_public_key(tmp / "standin-key" / "public.pem")

            progress(f"copying your last commit ({head[:12]}) into a temporary origin")
            origin = tmp / "origin.git"
            _git(tmp, "init", "-q", "--bare", "-b", fake.default_branch, str(origin))
            _git(origin, "fetch", "-q", "--no-tags", str(root),
                 f"{head}:refs/heads/{fake.default_branch}")

            progress(f"sealing stand-in hidden labels of {slug} to the throwaway key (in the "
                     "copy only)")
            work = tmp / "setup"
            _git(tmp, "clone", "-q", str(origin), str(work))
            folder = work / "competitions" / slug
            if not (folder / "competition.yaml").is_file():
                raise ConfigError(f"competition {slug!r} is not in your last commit "
                                  f"({head[:12]}), which is what the bot would see; git pull "
                                  "(or commit it) and rehearse again")
            spec = load_spec(folder)  # the committed spec, as the bot reads it
            rows = _ledger_rows(work)  # the committed ledger: limits, accounts, PR numbers
            seal_standin(folder, spec, public)
            pem = (tmp / "standin-key" / "public.pem").read_bytes()
            (work / "keys").mkdir(exist_ok=True)
            (work / "keys" / "platform-public.pem").write_bytes(pem)
            _git(work, "add", "-A", "keys", f"competitions/{slug}")
            _git(work, "commit", "-q", "--allow-empty", "-m",
                 f"rehearsal: stand-in key {kid[:12]} and stand-in labels for {slug}")
            _git(work, "push", "-q", "origin", f"HEAD:{fake.default_branch}")

            known = known_account(rows, login.lower())
            account = known if known is not None else fake.account_id(login)
            fake.accounts[login.lower()] = account
            pr = max((r["pr"] for r in rows if isinstance(r.get("pr"), int)), default=0) + 1
            sealed = envelope.seal(predictions, public,
                                   envelope.prediction_claims(slug, spec.version, login.lower()))
            sub = f"competitions/{slug}/submissions/{login.lower()}"
            fake.open_pr(pr, login, {f"{sub}/predictions.csv.enc": sealed,
                                     f"{sub}/metadata.json": metadata})
            now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            event = tmp / "event.json"
            event.write_text(json.dumps(fake.pr_event(pr, "opened", now, run_id=RUN_ID)),
                             encoding="utf-8")
            yield Stage(tmp=tmp, fake=fake, repo=fake.full_name, pr=pr, login=login,
                        account_id=account, origin=origin, event=event, key_file=key_file,
                        spec=spec, rows_before=len(rows))
    finally:
        shutil.rmtree(tmp / "standin-key", ignore_errors=True)  # no key outlives the run
        if keep is not None and (tmp / "origin.git").exists():
            Path(keep).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(tmp / "origin.git"), str(keep))
        shutil.rmtree(tmp, ignore_errors=True)
