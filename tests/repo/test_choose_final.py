"""Which submissions count: `gnncb ledger choose-final` (a maintainer records a participant's
choice) and `final` in metadata.json (the participant marks it), through the CLI.

What is checked is what each side sees (the printed line, the refusal and its reason) and what
the ledger and the board then hold: an accepted choice appends one audit row and the chosen
submission stands for the participant; a refused one writes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.ci.comment import HINTS
from evaluator.cli import main
from evaluator.competition.spec import load_spec
from evaluator.ledger.ranking import standings
from evaluator.ledger.store import Ledger
from tests.helpers.parts import build, truth

SLUG = "toy-parts"


@pytest.fixture()
def repo(tmp_path, keypair):
    """A repository root with one split competition (1 final submission per participant)."""
    root = tmp_path / "repo"
    build(root / "competitions" / SLUG, keypair["public"])
    return root


def ledger_of(root: Path) -> Path:
    return root / "leaderboard" / "ledger.jsonl"


def submit(root: Path, keypair, capsys, login: str, wrong: int,
           final: list[str] | None = None) -> dict:
    """Encrypt predictions with every `wrong`-th label off (0: all right), evaluate them into
    the repository's ledger; the evaluator's JSON answer."""
    folder = root / "competitions" / SLUG
    guess = truth().copy()
    if wrong:
        guess.loc[::wrong, "label"] = (guess.loc[::wrong, "label"] + 1) % 3
    n = len(list((root.parent).glob(f"{login}-*.csv")))
    csv = root.parent / f"{login}-{n}.csv"
    guess.to_csv(csv, index=False)
    out = root.parent / f"sub-{login}-{n}" / "predictions.csv.enc"
    assert main(["encrypt", "--competition", str(folder), "--participant", login,
                 "--public-key", str(keypair["public_path"]), "--method", f"m{n}",
                 "-o", str(out), str(csv)]) == 0
    if final is not None:
        meta_path = out.parent / "metadata.json"
        meta = json.loads(meta_path.read_text())
        meta_path.write_text(json.dumps({**meta, "final": final}))
    capsys.readouterr()
    main(["evaluate", "--competition", str(folder), "--submission", str(out.parent),
          "--participant", login, "--private-key", str(keypair["private_path"]),
          "--ledger", str(ledger_of(root)), "--json"])
    return json.loads(capsys.readouterr().out)


def choose(root: Path, capsys, *args: str) -> tuple[int, str, str]:
    code = main(["ledger", "choose-final", SLUG, *args, "--root", str(root)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def standing(root: Path, login: str) -> dict:
    spec = load_spec(root / "competitions" / SLUG)
    [entry] = [e for e in standings(spec, Ledger(ledger_of(root)).rows())
               if e.row["participant"] == login]
    return entry.row


@pytest.mark.slow
def test_a_maintainers_choice_makes_an_earlier_submission_count(repo, keypair, capsys):
    good = submit(repo, keypair, capsys, "alice", 0)
    worse = submit(repo, keypair, capsys, "alice", 2)
    assert good["accepted"] and worse["accepted"]
    assert standing(repo, "alice")["digest"] == worse["digest"]  # the default: the latest
    before = len(Ledger(ledger_of(repo)).rows())

    code, out, err = choose(repo, capsys, good["digest"][:12], "--participant", "alice",
                            "--reason", "asked by e-mail to count her first run",
                            "--by", "maint")
    assert (code, err) == (0, "")
    assert out.splitlines() == [f"repository: {repo} (--root)",  # where it writes, first
                                f"ledger: {repo / 'leaderboard' / 'ledger.jsonl'}",
                                f"alice on {SLUG} v1: final = {good['digest'][:12]}"]
    rows = Ledger(ledger_of(repo)).rows()
    assert len(rows) == before + 1
    audit = rows[-1]
    assert audit["type"] == "final-choice" and audit["participant"] == "alice"
    assert audit["chosen"] == [good["digest"]]  # the full digest, from the prefix
    assert (audit["by"], audit["reason"]) == ("maint", "asked by e-mail to count her first run")
    assert standing(repo, "alice")["digest"] == good["digest"]
    # the board was re-rendered from the ledger: it names the chosen submission
    board = (repo / "leaderboard" / f"{SLUG}.csv").read_text()
    assert good["digest"] in board and worse["digest"] not in board


@pytest.mark.slow
@pytest.mark.parametrize(("args", "message"), [
    (["{bob}"], "matches 0 accepted submissions of alice to toy-parts version 1; give at "
                "least 8 characters of one of their digests (gnncb ledger list)"),
    (["{short}"], "'{short}' is too short; give at least 8 characters of the digest of one "
                  "of alice's accepted submissions to toy-parts version 1"),
    (["{alice}", "{bob}"], "toy-parts counts 1 to 1 final submissions per participant; 2 given"),
    (["{alice}", "--reason", "  "], "--reason is required: the audit line says why"),
])
def test_a_maintainers_invalid_choice_is_refused_and_writes_nothing(repo, keypair, capsys,
                                                                   args, message):
    alice = submit(repo, keypair, capsys, "alice", 0)["digest"]
    bob = submit(repo, keypair, capsys, "bob", 3)["digest"]
    before = ledger_of(repo).read_bytes()
    names = {"alice": alice[:12], "bob": bob[:12], "short": alice[:7]}
    given = [a.format(**names) for a in args]
    if "--reason" not in given:
        given += ["--reason", "participant asked"]
    code, out, err = choose(repo, capsys, *given, "--participant", "alice")
    assert code != 0 and "final =" not in out  # only where it would have written
    assert err.startswith("error: ") and message.format(**names) in err
    assert ledger_of(repo).read_bytes() == before


def test_a_withdrawn_submission_cannot_be_chosen(repo, keypair, capsys):
    first = submit(repo, keypair, capsys, "alice", 0)["digest"]
    submit(repo, keypair, capsys, "alice", 2)
    assert main(["ledger", "withdraw", first[:12], "--reason", "copied", "--by", "maint",
                 "--root", str(repo)]) == 0
    capsys.readouterr()
    before = ledger_of(repo).read_bytes()
    code, _, err = choose(repo, capsys, first[:12], "--participant", "alice", "--reason", "r")
    assert code != 0 and "matches 0 accepted submissions of alice" in err
    assert ledger_of(repo).read_bytes() == before


def test_final_in_metadata_marks_an_earlier_submission(repo, keypair, capsys):
    good = submit(repo, keypair, capsys, "alice", 0)
    later = submit(repo, keypair, capsys, "alice", 2, final=[good["digest"][:8]])
    assert later["accepted"], later
    row = Ledger(ledger_of(repo)).rows()[-1]
    assert row["digest"] == later["digest"] and row["final_choice"] == [good["digest"]]
    assert standing(repo, "alice")["digest"] == good["digest"]


@pytest.mark.slow
@pytest.mark.parametrize(("final", "reason"), [
    (["{bob}"], "metadata.json 'final': '{bob}' matches none of your accepted submissions to "
                "toy-parts version 1; use the digest shown in the bot's answer (at least 8 "
                "characters)"),
    (["{alice}", "{bob}"], "metadata.json 'final' lists 2 submissions; toy-parts counts at "
                           "most 1 per participant"),
])
def test_a_participants_invalid_final_choice_is_rejected_unscored(repo, keypair, capsys,
                                                                 final, reason):
    alice = submit(repo, keypair, capsys, "alice", 0)["digest"][:12]
    bob = submit(repo, keypair, capsys, "bob", 3)["digest"][:12]
    before = ledger_of(repo).read_bytes()
    answer = submit(repo, keypair, capsys, "alice", 2,
                    final=[f.format(alice=alice, bob=bob) for f in final])
    assert answer == {"accepted": False, "code": "invalid-final-choice",
                      "reason": reason.format(bob=bob)}
    assert ledger_of(repo).read_bytes() == before  # nothing scored, nothing counted
    assert standing(repo, "alice")["digest"].startswith(alice)
    # the pull request's answer adds what to do
    assert "only digests from the bot's answers to your own" in HINTS["invalid-final-choice"]


@pytest.mark.slow
def test_choose_final_is_refused_after_the_reveal(repo, keypair, capsys):
    """Issue 24: a choice recorded after the reveal was accepted and re-ranked the published
    final standings."""
    first = submit(repo, keypair, capsys, "alice", 0)
    submit(repo, keypair, capsys, "alice", 2)
    assert main(["competition", "reveal", SLUG, "--root", str(repo), "--private-key",
                 str(keypair["private_path"]), "--early"]) == 0
    capsys.readouterr()
    before = ledger_of(repo).read_bytes()
    code, out, err = choose(repo, capsys, first["digest"][:12], "--participant", "alice",
                            "--reason", "asked by mail")
    assert code == 2, out + err
    assert f"the final standings of {SLUG} version 1 were revealed at " in err
    assert "no" in err.split("revealed at", 1)[1] and "Traceback" not in err
    assert ledger_of(repo).read_bytes() == before
