"""Standings anyone can recompute (issue 26): on a scratch repository, build -> submissions ->
reveal -> `gnncb verify` in a fresh clone without any key passes; changing one revealed label,
one released prediction, one ledger score, one board cell or one ledger line makes it fail
naming that item; a label table changed after launch fails lint."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from evaluator.cli import main
from tests.helpers.arena import git
from tests.helpers.parts import SEED, truth
from tests.repo.helpers import keyless_copy, scratch_competition

SLUG = "toy-verify"


def _run(capsys, *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


def _build(root: Path, raw: Path, keypair) -> None:
    assert main(["competition", "build", SLUG, "--root", str(root), "--raw", str(raw),
                 "--seed-file", str(raw / "seed"),
                 "--public-key", str(keypair["public_path"])]) == 0


def _submit(root: Path, keypair, login: str, guess: pd.DataFrame) -> None:
    folder = root / "competitions" / SLUG
    csv = root.parent / f"{login}.csv"
    guess.to_csv(csv, index=False)
    out = root.parent / f"sub-{login}" / "predictions.csv.enc"
    assert main(["encrypt", "--competition", str(folder), "--participant", login,
                 "--public-key", str(keypair["public_path"]), "--method", "m",
                 "-o", str(out), str(csv)]) == 0
    assert main(["evaluate", "--competition", str(folder), "--submission", str(out.parent),
                 "--participant", login, "--private-key", str(keypair["private_path"]),
                 "--ledger", str(root / "leaderboard" / "ledger.jsonl")]) == 0


@pytest.fixture(scope="module")
def revealed(tmp_path_factory, keypair) -> Path:
    """A fresh clone (no key anywhere in it) of a repository after build, three submissions
    and the reveal."""
    base = tmp_path_factory.mktemp("verify")
    root, raw, folder = scratch_competition(base, SLUG)
    _build(root, raw, keypair)
    assert json.loads((folder / "hidden" / "commitments.json").read_text())["labels"]["test"]
    for login, wrong in (("alice", 0), ("bob", 7), ("carol", 15)):
        guess = truth()
        guess.loc[: wrong - 1, "label"] = (guess.loc[: wrong - 1, "label"] + 1) % 3
        _submit(root, keypair, login, guess)
    assert main(["leaderboard", "render", "--root", str(root)]) == 0
    assert main(["competition", "reveal", SLUG, "--root", str(root), "--early",
                 "--private-key", str(keypair["private_path"])]) == 0
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "scratch")
    clone = base / "clone"
    subprocess.run(["git", "clone", "-q", str(root), str(clone)], check=True)
    return clone


@pytest.fixture()
def copy(revealed: Path, tmp_path: Path, monkeypatch) -> Path:
    return keyless_copy(revealed, tmp_path / "copy", monkeypatch)


def _release(root: Path) -> Path:
    return root / "leaderboard" / "releases" / SLUG / "v1"


def _lines(root: Path) -> list[str]:
    return (root / "leaderboard" / "ledger.jsonl").read_text().splitlines()


@pytest.mark.slow
def test_the_fresh_clone_verifies_without_any_key(copy, capsys):
    index = json.loads((_release(copy) / "index.json").read_text())
    assert len(index["submissions"]) == 3 and index["labels"]["test"]["salt"]
    assert all(s["commitment"] and s["salt"] for s in index["submissions"])
    assert not list(copy.rglob("*.pem"))
    code, out = _run(capsys, "verify", "--root", str(copy))
    assert code == 0, out
    assert "3 released submission(s) recomputed" in out


@pytest.mark.slow
def test_a_changed_revealed_label_is_named(copy, capsys):
    path = _release(copy) / "labels" / "test.csv"
    lines = path.read_text().splitlines()
    cells = lines[1].split(",")
    cells[1] = str((int(cells[1]) + 1) % 3)
    lines[1] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")
    code, out = _run(capsys, "verify", "--root", str(copy))
    assert code == 1
    first = out.split("MISMATCH: ", 1)[1].splitlines()[0]
    assert "labels/test.csv" in first and "commitment" in first


@pytest.mark.slow
def test_a_changed_released_prediction_is_named(copy, capsys):
    item = json.loads((_release(copy) / "index.json").read_text())["submissions"][1]
    path = _release(copy) / item["file"]
    text = path.read_text().splitlines()
    cells = text[3].split(",")
    cells[1] = str((int(cells[1]) + 1) % 3)
    text[3] = ",".join(cells)
    path.write_text("\n".join(text) + "\n")
    code, out = _run(capsys, "verify", "--root", str(copy))
    assert code == 1
    first = out.split("MISMATCH: ", 1)[1].splitlines()[0]
    assert item["file"] in first and item["digest"][:12] in first


@pytest.mark.slow
def test_a_changed_ledger_score_is_named(copy, capsys):
    lines = _lines(copy)
    row = json.loads(lines[1])  # bob's submission, line 2
    assert row["type"] == "submission"
    row["scores"]["accuracy"] = 0.99
    lines[1] = json.dumps(row, sort_keys=True, separators=(",", ":"))
    (copy / "leaderboard" / "ledger.jsonl").write_text("\n".join(lines) + "\n")
    code, out = _run(capsys, "verify", "--root", str(copy))
    assert code == 1
    first = out.split("MISMATCH: ", 1)[1].splitlines()[0]
    assert "line 2 was changed" in first
    # the score itself is named too, recomputed from the release
    assert f"line 2 (submission {row['digest'][:12]}): score 'accuracy' recorded 0.99" in out


@pytest.mark.slow
def test_a_changed_board_cell_is_named(copy, capsys):
    board = copy / "leaderboard" / f"{SLUG}.md"
    text = board.read_text()
    assert "alice" in text
    board.write_text(text.replace("alice", "mallory", 1))
    code, out = _run(capsys, "verify", "--root", str(copy))
    assert code == 1
    first = out.split("MISMATCH: ", 1)[1].splitlines()[0]
    assert first.startswith(f"leaderboard/{SLUG}.md, line ") and "mallory" in first


@pytest.mark.slow
def test_a_removed_ledger_line_is_named(copy, capsys):
    lines = _lines(copy)
    del lines[2]  # carol's submission
    (copy / "leaderboard" / "ledger.jsonl").write_text("\n".join(lines) + "\n")
    code, out = _run(capsys, "verify", "--root", str(copy))
    assert code == 1
    first = out.split("MISMATCH: ", 1)[1].splitlines()[0]
    assert "leaderboard/ledger.jsonl, line 2 was changed" in first
    assert "after line 3 was written" in first


@pytest.mark.slow
def test_a_label_table_changed_after_launch_fails_lint(copy, tmp_path, keypair, capsys):
    code, out = _run(capsys, "competition", "lint", SLUG, "--root", str(copy))
    assert "commitment" not in out and "changed after" not in out
    raw = tmp_path / "raw"
    raw.mkdir()
    changed = truth()
    changed.loc[0, "label"] = (changed.loc[0, "label"] + 1) % 3
    changed.to_csv(raw / "truth.csv", index=False)
    (raw / "seed").write_text(SEED)
    _build(copy, raw, keypair)  # same version, other labels
    code, out = _run(capsys, "competition", "lint", SLUG, "--root", str(copy))
    assert code == 1
    assert "label table of split 'test' changed after launch" in out
    assert "ledger line 1" in out
    code, out = _run(capsys, "verify", "--root", str(copy))
    assert code == 1 and "changed after launch" in out


@pytest.mark.slow
def test_rebuilding_the_same_labels_keeps_the_commitment(copy, tmp_path, keypair):
    """The salt comes from the build seed: an unchanged rebuild is not a change."""
    before = json.loads((copy / "competitions" / SLUG / "hidden" / "commitments.json")
                        .read_text())["labels"]["test"]["commitment"]
    raw = tmp_path / "raw"
    raw.mkdir()
    truth().to_csv(raw / "truth.csv", index=False)
    (raw / "seed").write_text(SEED)
    _build(copy, raw, keypair)
    after = json.loads((copy / "competitions" / SLUG / "hidden" / "commitments.json")
                       .read_text())["labels"]["test"]["commitment"]
    assert after == before


@pytest.mark.slow
def test_the_site_offers_the_evidence_and_verifies(copy, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    site = tmp_path / "site"
    assert main(["site", "build", "--out", str(site), "--root", str(copy), "--jobs", "1"]) == 0
    index = json.loads((_release(copy) / "index.json").read_text())
    digest = index["submissions"][0]["digest"]
    pages = [p for p in (site / "entries").glob("*.html") if digest in p.read_text()]
    assert len(pages) == 1
    html = pages[0].read_text()
    link = f"../releases/{SLUG}/v1/predictions/{digest}.csv"
    assert f'href="{link}"' in html and f"items/test/{digest}.csv" in html
    assert (site / "entries" / link).resolve().read_bytes() == (
        _release(copy) / "predictions" / f"{digest}.csv").read_bytes()
    code, out = _run(capsys, "verify", "--root", str(copy), "--site", str(site))
    assert code == 0, out
    table = site / "competitions" / f"{SLUG}.csv"
    table.write_text(table.read_text().replace("alice", "mallory", 1))
    code, out = _run(capsys, "verify", "--root", str(copy), "--site", str(site))
    assert code == 1
    assert f"competitions/{SLUG}.csv, line " in out.split("MISMATCH: ", 1)[1].splitlines()[0]


@pytest.mark.slow
def test_a_key_rotation_keeps_the_commitments(copy, tmp_path, keypair, capsys):
    """`gnncb keys reseal` re-seals the tables and their salts; the commitments stay, so lint
    and verify stay clean, and the new key opens the salts."""
    from evaluator.submission import commit, keys

    new = tmp_path / "new"
    keys.generate(new, bits=3072)
    hidden = copy / "competitions" / SLUG / "hidden"
    before = json.loads((hidden / "commitments.json").read_text())["labels"]["test"]
    assert main(["keys", "reseal", str(copy / "competitions" / SLUG), "--root", str(copy),
                 "--private-key", str(keypair["private_path"]),
                 "--public-key", str(new / "public.pem")]) == 0
    after = json.loads((hidden / "commitments.json").read_text())["labels"]["test"]
    assert after["commitment"] == before["commitment"]
    assert after["envelope_sha256"] != before["envelope_sha256"]
    salt = commit.open_salt(after["sealed_salt"],
                            keys.load_private_keys((new / "private.pem").read_text()), SLUG, 1,
                            "labels:test")
    assert salt.hex() == json.loads((_release(copy) / "index.json").read_text()
                                    )["labels"]["test"]["salt"]
    code, out = _run(capsys, "verify", "--root", str(copy))
    assert code == 0, out
