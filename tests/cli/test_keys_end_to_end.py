"""Keys end to end (issue 25, point 4): lint and build check that hidden labels are sealed to
the committed platform key; reseal says which old keys are still needed and for what; rescore,
reseal and reveal exit non-zero when any row fails and name the key that would open it.

Each test runs the verbs on a small repository (a split competition sealed to the test key,
`keys/platform-public.pem`, a ledger with stored envelopes), as a maintainer would.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaluator.submission import envelope, keys
from tests.cli.helpers import run
from tests.helpers.parts import build, truth

SLUG = "toy-parts"


@pytest.fixture()
def repo(tmp_path, keypair) -> Path:
    root = tmp_path / "repo"
    build(root / "competitions" / SLUG, keypair["public"])
    (root / "keys").mkdir()
    shutil.copy(keypair["public_path"], root / "keys" / "platform-public.pem")
    (root / "leaderboard" / "envelopes").mkdir(parents=True)
    return root


@pytest.fixture(scope="module")
def new_key(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("new-key")
    kid = keys.generate(d, bits=3072)
    return {"kid": kid, "public_path": d / "public.pem", "private_path": d / "private.pem"}


def submit(root: Path, keypair, capsys, login: str) -> str:
    """Encrypt, evaluate into the repository's ledger, store the envelope (as publish does)."""
    csv = root.parent / f"{login}.csv"
    truth().to_csv(csv, index=False)
    out = root.parent / f"sub-{login}" / "predictions.csv.enc"
    code, _, err = run(["encrypt", "--competition", root / "competitions" / SLUG,
                        "--participant", login, "--public-key", keypair["public_path"],
                        "--method", "m", "-o", out, csv], capsys)
    assert code == 0, err
    code, stdout, err = run(["evaluate", "--competition", root / "competitions" / SLUG,
                             "--submission", out.parent, "--participant", login,
                             "--private-key", keypair["private_path"], "--ledger",
                             root / "leaderboard" / "ledger.jsonl", "--json"], capsys)
    assert code == 0, err
    digest = json.loads(stdout)["digest"]
    sealed = out.read_bytes()
    assert envelope.digest(sealed) == digest
    (root / "leaderboard" / "envelopes" / f"{digest}.jwe").write_bytes(sealed)
    return digest


def test_lint_refuses_labels_sealed_to_another_key_than_the_committed_one(repo, new_key,
                                                                          capsys):
    folder = repo / "competitions" / SLUG
    _, out, _ = run(["competition", "lint", folder, "--root", repo], capsys)
    assert "committed platform key" not in out
    shutil.copy(new_key["public_path"], repo / "keys" / "platform-public.pem")
    code, out, _ = run(["competition", "lint", folder, "--root", repo], capsys)
    assert code == 1
    assert f"not to the committed platform key {repo / 'keys' / 'platform-public.pem'} " \
           f"(kid {new_key['kid']})" in out
    assert "gnncb keys reseal" in out


def test_build_into_the_repository_refuses_another_key(repo, new_key, tmp_path, capsys):
    folder = repo / "competitions" / SLUG
    before = (folder / "hidden" / "test_labels.jwe").read_bytes()
    seed = tmp_path / "seed"
    seed.write_text("a-test-seed-that-is-long-enough\n")
    code, _, err = run(["competition", "build", folder, "--raw", tmp_path, "--seed-file", seed,
                        "--public-key", new_key["public_path"], "--root", repo], capsys)
    assert code == 2, err
    assert f"refusing to seal {folder}/hidden to key {new_key['kid']}" in err
    assert "--out" in err
    assert (folder / "hidden" / "test_labels.jwe").read_bytes() == before


@pytest.mark.slow
def test_after_a_reseal_every_verb_says_which_key_opens_what(repo, keypair, new_key, capsys):
    digests = [submit(repo, keypair, capsys, login) for login in ("alice", "bob")]
    old_kid = keypair["kid"]
    code, out, err = run(["keys", "reseal", repo / "competitions" / SLUG, "--private-key",
                          keypair["private_path"], "--public-key", new_key["public_path"]],
                         capsys)
    assert code == 0, err
    assert "no longer needed" not in out
    assert (f"{SLUG}: the old key {old_kid} is still needed: it opens 2 stored envelopes "
            "(ledger rescore), 2 sealed scores (competition reveal)") in out

    # rescore with the new key only: every row fails, exit 1, each names the old key
    code, out, err = run(["ledger", "rescore", SLUG, "--private-key", new_key["private_path"],
                          "--by", "m", "--root", repo], capsys)
    assert code == 1
    for digest in digests:
        assert f"could not re-score {digest[:12]}: stored envelope sealed to key {old_kid}" in out
    assert "2 active submission(s) of toy-parts could not be re-scored" in err

    # reveal with the new key only: exit 2, both rows listed with the key, nothing written
    lines = (repo / "leaderboard" / "ledger.jsonl").read_text().count("\n")
    code, out, err = run(["competition", "reveal", SLUG, "--private-key",
                          new_key["private_path"], "--early", "--by", "m", "--root", repo],
                         capsys)
    assert code == 2
    assert f"sealed scores of 2 of 2 counted submission(s) cannot be opened; the keys " \
           f"needed: {old_kid}" in err
    for digest in digests:
        assert f"{digest[:12]} (" in err
    assert (repo / "leaderboard" / "ledger.jsonl").read_text().count("\n") == lines

    # with both keys, as the reseal said, both work
    both = ["--private-key", keypair["private_path"], "--private-key", new_key["private_path"]]
    code, out, err = run(["ledger", "rescore", SLUG, *both, "--by", "m", "--root", repo],
                         capsys)
    assert code == 0, out + err
    code, out, err = run(["competition", "reveal", SLUG, *both, "--early", "--by", "m",
                          "--root", repo], capsys)
    assert code == 0, out + err


@pytest.mark.slow
def test_a_reseal_with_nothing_sealed_to_the_old_key_says_so(repo, keypair, new_key, capsys):
    code, out, err = run(["keys", "reseal", repo / "competitions" / SLUG, "--private-key",
                          keypair["private_path"], "--public-key", new_key["public_path"]],
                         capsys)
    assert code == 0, err
    assert "still needed" not in out and "the old key is no longer needed here" in out


def test_reseal_of_several_competitions_reports_each_failure(repo, keypair, new_key, capsys):
    other = build(repo / "competitions" / "toy-other", keypair["public"])
    code, out, err = run(["keys", "reseal", repo / "competitions" / SLUG, other,
                          "--private-key", new_key["private_path"], "--public-key",
                          new_key["public_path"]], capsys)
    assert code == 2
    assert err.count("could not re-seal") == 2 and old_kid_named(err, keypair["kid"])
    assert "2 of 2 competition(s) not re-sealed" in err


def old_kid_named(text: str, kid: str) -> bool:
    return kid in text
