"""Unpredictable code-track cases (issue 24, point 4), through the CLI on a scratch repository:
`gnncb code commit-seed` -> `gnncb code submit-score --secret` -> `gnncb code reveal-seed` ->
`gnncb verify` with no secret; a participant cannot compute the judged cases from the digest;
a changed secret, seed or case hash fails verify naming it; a commitment changed after launch
fails lint. One problem, one case per published cell: cheap."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaluator.cli import main
from evaluator.codetrack.cases import ensure_case_set, seed_from_digest
from evaluator.codetrack.caseseed import cases_sha256, version_secret
from tests.helpers.codetrack import KAHN
from tests.helpers.paths import REPO

pytestmark = pytest.mark.slow  # the module fixture judges one submission (~20 s)

MASTER = "m" * 16 + "0123456789abcdef0123456789abcdef"
OTHER = "o" * 16 + "fedcba9876543210fedcba9876543210"


def _run(capsys, *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.fixture(scope="module")
def judged(tmp_path_factory) -> Path:
    """A repository whose graph-coding v1 committed to a secret before one submission was
    judged on it (not yet revealed)."""
    base = tmp_path_factory.mktemp("caseseed")
    root = base / "repo"
    folder = root / "competitions" / "graph-coding"
    folder.mkdir(parents=True)
    (root / "leaderboard").mkdir()
    shutil.copy(REPO / "competitions" / "graph-coding" / "README.md", folder / "README.md")
    solutions = base / "sub" / "solutions"
    solutions.mkdir(parents=True)
    (solutions / "lc207.py").write_text(KAHN)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GNNCB_CACHE", str(base / "cache"))
        mp.setenv("GNNCB_CODE_SEED", MASTER)
        assert main(["code", "commit-seed", "--root", str(root)]) == 0
        assert main(["code", "submit-score", "--root", str(root), "--secret", "--solutions",
                     str(solutions), "--participant", "octo", "--per-cell", "1",
                     "--no-memory", "--ledger", str(root / "leaderboard" / "ledger.jsonl")]
                    ) == 0
        assert main(["leaderboard", "render", "--root", str(root)]) == 0
    return root


@pytest.fixture()
def repo(judged: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("GNNCB_CODE_SEED", raising=False)
    monkeypatch.setenv("GNNCB_CACHE", str(tmp_path / "cache"))
    dest = tmp_path / "repo"
    shutil.copytree(judged, dest)
    return dest


def _row(root: Path) -> dict:
    [line] = (root / "leaderboard" / "ledger.jsonl").read_text().splitlines()
    return json.loads(line)


def _write_row(root: Path, row: dict) -> None:
    (root / "leaderboard" / "ledger.jsonl").write_text(
        json.dumps(row, sort_keys=True, separators=(",", ":")) + "\n")


def _reveal(root: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> Path:
    monkeypatch.setenv("GNNCB_CODE_SEED", MASTER)
    code, out = _run(capsys, "code", "reveal-seed", "--root", root, "--version", "1")
    assert code == 2 and "current version" in out  # open versions are never revealed
    code, out = _run(capsys, "code", "reveal-seed", "--root", root, "--version", "1",
                     "--closed")
    assert code == 0, out
    monkeypatch.delenv("GNNCB_CODE_SEED")
    return root / "competitions" / "graph-coding" / "release" / "case-seed-v1.json"


def test_the_judged_cases_cannot_be_computed_from_the_digest(repo: Path, capsys) -> None:
    row = _row(repo)
    secret = version_secret(MASTER.encode(), "graph-coding", 1)
    committed = json.loads((repo / "competitions" / "graph-coding" / "case-seed.json")
                           .read_text())
    assert row["declared"]["seed_source"] == "secret+digest"
    assert row["case_commitment"] == committed["commitment"]
    # nothing secret is in the repository before the reveal
    for path in repo.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert MASTER not in text and secret.hex() not in text, path
    # what a participant can compute from their files alone is not what they were judged on
    guessed = seed_from_digest(row["digest"])
    assert row["seed"] != guessed
    own = ensure_case_set(repo.parent / "guess", plan="paper", base_seed=guessed, per_cell=1,
                          problems=["lc207"], jobs=1)
    assert cases_sha256(own.path, ["lc207"]) != row["cases_sha256"]
    # before the reveal verify passes and says the cases wait for it
    code, out = _run(capsys, "verify", "--root", repo)
    assert code == 0, out
    assert "case secret not revealed yet" in out


def test_the_revealed_secret_lets_verify_regenerate_the_cases(repo, monkeypatch, capsys):
    released = _reveal(repo, monkeypatch, capsys)
    assert json.loads(released.read_text())["secret"] == version_secret(
        MASTER.encode(), "graph-coding", 1).hex()
    assert MASTER not in released.read_text()  # the version's secret, never the master
    code, out = _run(capsys, "verify", "--root", repo)
    assert code == 0, out
    assert "checked graph-coding: secret case seeds and judged cases" in out
    assert "not revealed" not in out


def test_a_changed_revealed_secret_is_named(repo, monkeypatch, capsys):
    released = _reveal(repo, monkeypatch, capsys)
    data = json.loads(released.read_text())
    data["secret"] = version_secret(OTHER.encode(), "graph-coding", 1).hex()
    released.write_text(json.dumps(data))
    code, out = _run(capsys, "verify", "--root", repo)
    assert code == 1
    first = out.split("MISMATCH: ", 1)[1].splitlines()[0]
    assert "case-seed-v1.json" in first and "does not open the commitment" in first
    assert "line 1" in first


@pytest.mark.parametrize(("change", "named"), [
    (lambda row: row.update(seed=seed_from_digest(row["digest"])), "is not the one the "
     "revealed secret gives its digest"),
    (lambda row: row["cases_sha256"].update(lc207="0" * 64), "problem lc207's recorded cases "
     "hash differs"),
])
def test_changed_case_results_are_named(repo, monkeypatch, capsys, change, named):
    _reveal(repo, monkeypatch, capsys)
    row = _row(repo)
    change(row)
    _write_row(repo, row)
    code, out = _run(capsys, "verify", "--root", repo)
    assert code == 1
    first = out.split("MISMATCH: ", 1)[1].splitlines()[0]
    assert named in first and f"line 1 (submission {row['digest'][:12]})" in first


def test_a_commitment_changed_after_launch_fails_lint(repo, monkeypatch, capsys):
    code, out = _run(capsys, "competition", "lint", "graph-coding", "--root", repo)
    assert code == 0, out
    monkeypatch.setenv("GNNCB_CODE_SEED", OTHER)
    code, out = _run(capsys, "code", "commit-seed", "--root", repo)  # refused: same version
    assert code == 2 and "never changes within a version" in out
    path = repo / "competitions" / "graph-coding" / "case-seed.json"
    data = json.loads(path.read_text())
    data["commitment"] = "f" * 64  # a hand edit
    path.write_text(json.dumps(data))
    code, out = _run(capsys, "competition", "lint", "graph-coding", "--root", repo)
    assert code == 1
    assert "case-seed commitment changed after launch" in out and "ledger line 1" in out
    code, out = _run(capsys, "verify", "--root", repo)
    assert code == 1 and "changed after launch" in out


def test_no_digest_seeded_row_joins_a_committed_board(repo, capsys):
    """After launch, a row judged on digest-seeded cases (which the participant could
    compute) is refused by `submit-score --ledger` into the board's ledger before any judging,
    and one appended by hand fails lint and verify, naming its line. (A scratch ledger
    elsewhere takes it: tests/codetrack/test_cli.py.)"""
    ledger = repo / "leaderboard" / "ledger.jsonl"
    before = ledger.read_bytes()
    solutions = repo.parent / "sub2" / "solutions"
    solutions.mkdir(parents=True)
    (solutions / "lc207.py").write_text(KAHN + "\n# another digest\n")
    code, out = _run(capsys, "code", "submit-score", "--root", repo, "--solutions", solutions,
                     "--participant", "octo", "--per-cell", "1", "--no-memory",
                     "--ledger", ledger)
    assert code == 2
    assert "committed secret" in out and "--secret" in out
    assert ledger.read_bytes() == before  # nothing recorded
    row = _row(repo)
    row.pop("case_commitment")
    row["declared"]["seed_source"] = "digest"
    row["digest"] = "d" * 64
    row["seed"] = seed_from_digest(row["digest"])
    with ledger.open("a") as fh:
        fh.write(json.dumps(row, sort_keys=True, separators=(",", ":")) + "\n")
    code, out = _run(capsys, "competition", "lint", "graph-coding", "--root", repo)
    assert code == 1
    assert "ledger line 2 (submission dddddddddddd)" in out and "digest-seeded" in out
    code, out = _run(capsys, "verify", "--root", repo)
    assert code == 1 and "ledger line 2" in out and "digest-seeded" in out
