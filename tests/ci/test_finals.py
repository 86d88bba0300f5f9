"""A competition with phases and a private part, end to end through the real PR flow (fake
GitHub over HTTP + a real bare git repository): public-only feedback, nothing private readable
in any file or commit before the reveal, phase limits, the closed answer after the final date,
the participant's final choice, and final standings ranked on the private part after
`gnncb competition reveal`.
"""

from __future__ import annotations

import re
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest
import yaml

from evaluator.authoring.build import seal_labels, write_csv
from evaluator.ci.predictions.score import score_pr
from evaluator.ci.result import read_result, write_result
from evaluator.cli import main
from evaluator.competition.spec import PART_COLUMN, load_spec
from evaluator.pipeline.evaluate import load_labels
from evaluator.submission import envelope
from evaluator.submission.metadata import Metadata, dump_metadata
from tests.helpers.arena import Arena, client, git, run_publish
from tests.helpers.fake_github import BOT_LOGIN, READ_TOKEN, FakeGitHub

SLUG = "toy-final"
SEED = "finals-test-seed-long-enough"
NOW = datetime.now(UTC).replace(microsecond=0)
DEV_START, DEV_END = NOW - timedelta(days=60), NOW - timedelta(days=20)
FINAL_END = NOW - timedelta(days=10)
REVEAL_AT = NOW - timedelta(days=5)
N = 40  # 12 public ids, 28 private


def z(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def spec() -> dict:
    return {
        "slug": SLUG, "version": 1, "title": "Toy with a final", "task": "node-classification",
        "category": "homogeneous", "difficulty": "easy", "domain": "testing",
        "targets": [{"name": "label", "type": "class", "classes": [0, 1]}],
        "splits": {"test": {"ids": "data/test_ids.csv", "labels": "hidden/test_labels.jwe"}},
        "metrics": {"accuracy": {"fn": "accuracy", "split": "test"}},
        "rank_by": [{"score": "accuracy", "order": "desc"}],
        "submission": {"max_bytes": 5000},
        "public_fraction": 0.3,
        "phases": [
            {"name": "development", "start": z(DEV_START), "end": z(DEV_END),
             "limits": {"per_version": 4, "per_day": 4}},
            {"name": "final", "start": z(DEV_END), "end": z(FINAL_END),
             "limits": {"per_version": 1, "per_day": 1}},
        ],
        "reveal_at": z(REVEAL_AT),
        "late_submissions": "refuse",
    }


def truth() -> pd.DataFrame:
    return pd.DataFrame({"id": [7000 + 11 * i for i in range(N)],
                         "label": [(i * 7) % 3 % 2 for i in range(N)]})


class Finals:
    """The arena plus the toy-final competition committed to origin."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        work = arena.clone("finals-setup")
        folder = work / "competitions" / SLUG
        folder.mkdir(parents=True)
        (folder / "competition.yaml").write_text(yaml.safe_dump(spec(), sort_keys=False))
        loaded = load_spec(folder)
        write_csv(truth()[["id"]], folder / "data" / "test_ids.csv")
        seal_labels(truth(), loaded, "test", arena.keypair.public,
                    folder / "hidden" / "test_labels.jwe", seed=SEED)
        git(work, "add", ".")
        git(work, "commit", "-q", "-m", "toy-final")
        git(work, "push", "-q", "origin", "main")
        labels = load_labels(folder, loaded, arena.keypair.private)["test"]
        self.public = [i for i in labels.index if labels.loc[i, PART_COLUMN] == "public"]
        self.private = [i for i in labels.index if labels.loc[i, PART_COLUMN] == "private"]
        self.labels = labels["label"]
        assert (len(self.public), len(self.private)) == (12, 28)

    def predictions(self, public_wrong: int, private_wrong: int) -> bytes:
        pred = self.labels.copy()
        for i in self.public[:public_wrong] + self.private[:private_wrong]:
            pred[i] = 1 - pred[i]
        frame = pred.rename("label").rename_axis("id").reset_index()
        return frame.to_csv(index=False, lineterminator="\n").encode()

    def files(self, login: str, public_wrong: int, private_wrong: int,
              final: list[str] | None = None) -> dict[str, bytes]:
        folder = f"competitions/{SLUG}/submissions/{login}"
        sealed = envelope.seal(self.predictions(public_wrong, private_wrong),
                               self.arena.keypair.public,
                               envelope.prediction_claims(SLUG, 1, login.lower()))
        meta = Metadata(participant=login, method=f"method of {login}", final=final)
        return {f"{folder}/predictions.csv.enc": sealed,
                f"{folder}/metadata.json": dump_metadata(meta).encode()}

    def submit(self, fake: FakeGitHub, pr: int, login: str, public_wrong: int,
               private_wrong: int, *, at: datetime, final: list[str] | None = None):
        fake.open_pr(pr, login, self.files(login, public_wrong, private_wrong, final))
        result = score_pr(client(fake, READ_TOKEN), pr, root=self.arena.clone(),
                          load_keys=lambda: self.arena.keypair.private, bot_login=BOT_LOGIN,
                          now=at)
        out = self.arena.tmp / f"result-{pr}.json"
        write_result(result, out)  # the artifact that crosses to the publish job
        self.artifacts.append(out.read_text())
        result = read_result(out)
        run_publish(self.arena, fake, result)
        [answer] = fake.bot_comments(pr)
        return result, answer

    artifacts: list[str] = []


def acc(wrong: int, n: int) -> float:
    return (n - wrong) / n


def forms(value: float) -> list[str]:
    """Every way a score could be written down readably."""
    return [repr(value), f"{value:.4f}", f"{value:.3f}", f"{value:.6g}", f"{value:.2%}"]


def history_text(origin: Path) -> str:
    """Every file of every commit on origin (plus commit messages), as text."""
    return subprocess.run(["git", "-C", str(origin), "log", "--all", "-p", "--format=%B"],
                          capture_output=True, text=True, check=True).stdout


@pytest.fixture
def finals(arena: Arena) -> Finals:
    f = Finals(arena)
    f.artifacts = []
    return f


@pytest.mark.slow
def test_phases_private_part_final_choice_and_reveal(finals: Finals, fake: FakeGitHub,
                                                     arena: Arena, tmp_path: Path) -> None:
    dev, final = DEV_START + timedelta(days=5), DEV_END + timedelta(days=3)
    # (login, pr, public wrong of 12, private wrong of 28, when)
    a1, answer_a1 = finals.submit(fake, 1, "alice", 3, 1, at=dev)
    a2, answer_a2 = finals.submit(fake, 2, "alice", 0, 18, at=dev + timedelta(hours=1))
    b1, answer_b1 = finals.submit(fake, 3, "bob", 0, 11, at=dev)
    c1, answer_c1 = finals.submit(fake, 4, "carol", 1, 6, at=final)
    # alice's last submission (final phase) marks her first one as the one that counts
    a3, answer_a3 = finals.submit(fake, 5, "alice", 2, 9, at=final, final=[a1.digest[:12]])
    assert [r.status for r in (a1, a2, b1, c1, a3)] == ["accepted"] * 5

    # 1. the PR answer holds the public-part score only
    expected = {1: (acc(3, 12), acc(1, 28)), 2: (acc(0, 12), acc(18, 28)),
                3: (acc(0, 12), acc(11, 28)), 4: (acc(1, 12), acc(6, 28)),
                5: (acc(2, 12), acc(9, 28))}
    answers = {1: answer_a1, 2: answer_a2, 3: answer_b1, 4: answer_c1, 5: answer_a3}
    results = {1: a1, 2: a2, 3: b1, 4: c1, 5: a3}
    private_values = []
    for pr, (public, private) in expected.items():
        assert results[pr].scores == {"accuracy": pytest.approx(public, abs=0)}
        assert f"{public:.4f}" in answers[pr] and "public part" in answers[pr]
        assert not any(form in answers[pr] for form in forms(private)), pr
        private_values.append(private)
    assert "phase final" in answer_c1 and "phase development" in answer_a1

    # the final phase has its own limit (1): carol's second one is refused, nothing scored
    over, answer_over = finals.submit(fake, 6, "carol", 0, 0, at=final + timedelta(hours=2))
    assert over.status == "rejected" and over.code == "over-limit"
    assert "has used all 1 submissions for phase" in answer_over
    assert "accuracy" not in answer_over

    # 2. a submission after the final date gets the documented answer
    late, answer_late = finals.submit(fake, 7, "dave", 0, 0, at=FINAL_END + timedelta(days=1))
    assert late.status == "rejected" and late.code == "closed"
    assert "submissions are no longer accepted" in answer_late
    assert "the private part is revealed at" in answer_late

    # 3. before the reveal, no file and no commit holds a private score or a hidden label
    history = history_text(arena.origin)
    artifacts = "\n".join(finals.artifacts)
    for value in private_values:
        for form in forms(value):
            assert form not in history, form
            assert form not in artifacts, form
    for i in finals.public + finals.private:
        assert f"{i},{finals.labels[i]}" not in history
    assert PART_COLUMN not in history and "private" not in arena.show(
        f"leaderboard/{SLUG}.md").lower().split("private part")[0]
    rows = arena.rows()
    assert all(r["scored_on"] == "public" and r["sealed_scores"].count(".") == 4
               for r in rows if r["type"] == "submission")
    live = arena.show(f"leaderboard/{SLUG}.md")
    assert "Scores are on the public part" in live
    # the live board honours alice's choice: her counted submission is a1 (public 0.75)
    assert re.search(r"\| 3[ ≈]* \| alice \|.*\| 0\.7500 \|", live), live

    # 4. reveal as the workflow does: a keyed job writes the row, an unkeyed one records it
    keyed, unkeyed = arena.clone("unseal"), arena.clone("record")
    row_file = tmp_path / "reveal.json"
    assert main(["competition", "reveal", SLUG, "--root", str(keyed), "--private-key",
                 str(_key_file(arena, tmp_path)), "--by", "maint", "--row-out",
                 str(row_file)]) == 0
    assert [r["type"] for r in Ledger_rows(keyed)].count("reveal") == 0  # nothing written
    forged = row_file.read_text().replace(f"{acc(11, 28)!r}", "1.0")
    (tmp_path / "forged.json").write_text(forged)
    assert main(["competition", "reveal", SLUG, "--root", str(unkeyed), "--from-row",
                 str(tmp_path / "forged.json")]) == 2  # digest no longer matches the content
    assert main(["competition", "reveal", SLUG, "--root", str(unkeyed), "--from-row",
                 str(row_file), "--push"]) == 0
    final_page = arena.show(f"leaderboard/final/{SLUG}.md")
    assert final_page is not None
    table = [line for line in final_page.splitlines() if re.match(r"\| \d+°? \| \d+ \|", line)]
    assert [line.split("|")[3].strip() for line in table] == ["alice", "carol", "bob"]
    # the shake-up metric: mean |public rank - private rank| over all (2, 0, 2) and the top 10 %
    assert "1.33 over all 3 entries" in final_page and "2.00 over the top 10 %" in final_page
    # alice's chosen a1 (private 27/28), not her latest a3 (19/28) nor her best public a2
    assert f"{acc(1, 28):.4f}" in table[0] and "▲ 2" in table[0]
    assert f"{acc(6, 28):.4f}" in table[1] and table[1].rstrip("| ").endswith("=")
    assert f"{acc(11, 28):.4f}" in table[2] and "▼ 2" in table[2]
    assert "final standings" in arena.show(f"leaderboard/{SLUG}.md")
    reveal_rows = [r for r in arena.rows() if r["type"] == "reveal"]
    assert len(reveal_rows) == 1 and reveal_rows[0]["by"] == "maint"
    assert reveal_rows[0]["private"][a1.digest]["accuracy"] == pytest.approx(acc(1, 28), abs=0)
    # revealing again (by hand, with the key) on the revealed ledger records nothing new
    work = arena.clone("maintainer")
    assert main(["competition", "reveal", SLUG, "--root", str(work), "--private-key",
                 str(_key_file(arena, tmp_path))]) == 0
    assert len([r for r in Ledger_rows(work) if r["type"] == "reveal"]) == 1

    # 5. after the reveal a new submission is refused too (real clock: after everything)
    after, answer_after = finals.submit(fake, 8, "erin", 0, 0, at=NOW)
    assert after.status == "rejected" and after.code == "closed"
    assert "revealed" in answer_after


def Ledger_rows(root: Path) -> list[dict]:
    from evaluator.ledger.store import Ledger

    return Ledger(root / "leaderboard" / "ledger.jsonl").rows()


def _key_file(arena: Arena, tmp_path: Path) -> Path:
    path = tmp_path / "private.pem"
    if not path.exists():
        path.write_text(arena.keypair.pem)
    return path


def test_reveal_refuses_before_the_date_and_without_a_private_part(arena: Arena,
                                                                   tmp_path: Path,
                                                                   capsys) -> None:
    Finals(arena)
    work = arena.clone("early")
    path = work / "competitions" / SLUG / "competition.yaml"
    data = yaml.safe_load(path.read_text())
    data["reveal_at"] = z(NOW + timedelta(days=3))
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    key = _key_file(arena, tmp_path)
    assert main(["competition", "reveal", SLUG, "--root", str(work), "--private-key",
                 str(key)]) == 2
    assert "pass --early" in capsys.readouterr().err
    assert main(["competition", "reveal", "toy-nodes", "--root", str(work), "--private-key",
                 str(key)]) == 2
    assert "no private part" in capsys.readouterr().err


@pytest.mark.slow
def test_a_publish_rerun_after_the_reveal_keeps_the_revealed_entry(
        finals: Finals, fake: FakeGitHub, arena: Arena, tmp_path: Path) -> None:
    """Issue 24: a submission scored before the reveal whose publish step ran only after it
    (a re-run of a failed job) became the participant's latest row, which the reveal had not
    opened, and the final standings dropped the participant. The final standings are the
    ledger as it stood at the reveal; the late-published row is recorded all the same."""
    dev = DEV_START + timedelta(days=5)
    finals.submit(fake, 1, "alice", 0, 2, at=dev)
    finals.submit(fake, 2, "bob", 1, 5, at=dev)
    fake.open_pr(3, "alice", finals.files("alice", 3, 3))
    pending = score_pr(client(fake, READ_TOKEN), 3, root=arena.clone(),
                       load_keys=lambda: arena.keypair.private, bot_login=BOT_LOGIN,
                       now=dev + timedelta(hours=1))
    assert pending.status == "accepted"  # scored; its publish job failed and is re-run later
    keyed, unkeyed = arena.clone("unseal"), arena.clone("record")
    row_file = tmp_path / "reveal.json"
    key = str(_key_file(arena, tmp_path))
    assert main(["competition", "reveal", SLUG, "--root", str(keyed), "--private-key", key,
                 "--by", "maint", "--row-out", str(row_file)]) == 0
    assert main(["competition", "reveal", SLUG, "--root", str(unkeyed), "--from-row",
                 str(row_file), "--push"]) == 0

    def finalists() -> list[str]:
        page = arena.show(f"leaderboard/final/{SLUG}.md")
        return [line.split("|")[3].strip() for line in page.splitlines()
                if re.match(r"\| \d+°? \| \d+ \|", line)]

    assert finalists() == ["alice", "bob"]
    run_publish(arena, fake, pending)  # the re-run, after the reveal
    assert pending.digest in {r["digest"] for r in arena.rows() if r["type"] == "submission"}
    assert finalists() == ["alice", "bob"]
    page = arena.show(f"leaderboard/final/{SLUG}.md")
    assert f"{acc(2, 28):.4f}" in page  # alice's revealed row, not the late-published one
