"""The CLI contract end to end on a real (small) competition: keys, check, encrypt, evaluate,
leaderboard render, lint, demo. Every bad input: exit 1 or 2, a message, no traceback, and a
byte-identical ledger."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from evaluator.authoring.demo import predict_label_propagation, predict_majority
from evaluator.cli import main
from evaluator.submission import envelope, keys
from tests.helpers.paths import REPO


def run(args, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture()
def submission(tmp_path, demo_competition, keypair, capsys):
    """A valid encrypted submission by 'alice' (label propagation)."""
    preds = tmp_path / "predictions.csv"
    predict_label_propagation(demo_competition).to_csv(preds, index=False)
    out = tmp_path / "sub" / "predictions.csv.enc"
    code, _, err = run(["encrypt", "--competition", demo_competition, "--participant", "Alice",
                        "--public-key", keypair["public_path"], "--method", "label prop",
                        "--tuning-runs", 2, "--seed", 25, "-o", out, preds], capsys)
    assert code == 0, err
    return out.parent


def evaluate(capsys, comp, sub, keypair, ledger, participant="alice", extra=()):
    return run(["evaluate", "--competition", comp, "--submission", sub, "--participant",
                participant, "--private-key", keypair["private_path"], "--ledger", ledger,
                *extra], capsys)


def test_keys_init_permissions_and_kid(tmp_path, capsys):
    code, out, _ = run(["keys", "init", "--out", tmp_path / "k", "--bits", 3072], capsys)
    assert code == 0 and "kid: " in out
    mode = stat.S_IMODE((tmp_path / "k" / "private.pem").stat().st_mode)
    assert mode == 0o600
    code, _, err = run(["keys", "init", "--out", tmp_path / "k", "--bits", 3072], capsys)
    assert code == 2 and "refusing to overwrite" in err


def test_check_accepts_sample_and_rejects_truncated(demo_competition, tmp_path, capsys):
    sample = demo_competition / "data" / "sample_submission.csv"
    code, out, _ = run(["check", "--competition", demo_competition, sample], capsys)
    assert code == 0 and "OK" in out
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(sample.read_text().splitlines()[:-2]) + "\n")
    code, _, err = run(["check", "--competition", demo_competition, bad], capsys)
    assert code == 1 and "2 of 228 test ids are missing" in err


def test_encrypt_writes_valid_metadata_and_refuses_invalid(submission, demo_competition,
                                                          tmp_path, keypair, capsys):
    meta = json.loads((submission / "metadata.json").read_text())
    assert meta["participant"] == "alice" and meta["tuning_runs"] == 2  # as the claim
    header = envelope.read_header((submission / "predictions.csv.enc").read_bytes())
    assert header["participant"] == "alice" and header["competition"] == demo_competition.name
    bad = tmp_path / "bad.csv"
    bad.write_text("id,label\n1,0\n")
    code, _, err = run(["encrypt", "--competition", demo_competition, "--participant", "a",
                        "--public-key", keypair["public_path"], "--method", "m",
                        "-o", tmp_path / "x.enc", bad], capsys)
    assert code == 1 and not (tmp_path / "x.enc").exists()


def test_evaluate_accepts_records_once_and_renders(submission, demo_competition, keypair,
                                                   tmp_path, capsys):
    ledger = tmp_path / "ledger.jsonl"
    code, out, err = evaluate(capsys, demo_competition, submission, keypair, ledger,
                              extra=["--json"])
    assert code == 0, err
    result = json.loads(out)
    assert result["accepted"] and 0.9 < result["scores"]["macro_f1"] <= 1
    assert result["remaining_version"] == 4
    rows = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert len(rows) == 1 and rows[0]["participant"] == "alice"
    assert rows[0]["declared"]["tuning_runs"] == 2
    # the same envelope again: accepted as a duplicate, no second row
    code, out, _ = evaluate(capsys, demo_competition, submission, keypair, ledger)
    assert code == 0 and "already scored" in out
    assert len(ledger.read_text().splitlines()) == 1
    code, out, _ = run(["leaderboard", "render", "--ledger", ledger, "--out", tmp_path / "lb",
                        "--competitions", demo_competition.parent], capsys)
    assert code == 0
    page = (tmp_path / "lb" / f"{demo_competition.name}.md").read_text()
    assert "| 1 | alice |" in page
    assert (tmp_path / "lb" / "README.md").exists()


def test_private_key_from_environment(submission, demo_competition, keypair, tmp_path, capsys,
                                      monkeypatch):
    monkeypatch.setenv("GNNCB_PRIVATE_KEY", keypair["private_path"].read_text())
    code, out, err = run(["evaluate", "--competition", demo_competition, "--submission",
                          submission, "--participant", "alice"], capsys)
    assert code == 0, err
    monkeypatch.delenv("GNNCB_PRIVATE_KEY")
    code, _, err = run(["evaluate", "--competition", demo_competition, "--submission",
                        submission, "--participant", "alice"], capsys)
    assert code == 2 and "GNNCB_PRIVATE_KEY" in err


def _variants(sub: Path, comp: Path, keypair, tmp_path: Path):
    """Yield (name, folder, participant, expected exit code, message fragment)."""
    enc = (sub / "predictions.csv.enc").read_bytes()
    meta = (sub / "metadata.json").read_bytes()
    spec_claims = envelope.prediction_claims(comp.name, 1, "alice")
    good_csv = predict_majority(comp).to_csv(index=False).encode()

    def folder(name, enc_bytes=enc, meta_bytes=meta):
        d = tmp_path / "variants" / name
        d.mkdir(parents=True)
        if enc_bytes is not None:
            (d / "predictions.csv.enc").write_bytes(enc_bytes)
        if meta_bytes is not None:
            (d / "metadata.json").write_bytes(meta_bytes)
        return d

    def sealed(csv: bytes, claims=spec_claims) -> bytes:
        return envelope.seal(csv, keypair["public"], claims)

    lines = good_csv.decode().splitlines()
    yield "plaintext", folder("plaintext", good_csv), "alice", 1, "plaintext CSV"
    yield "truncated", folder("truncated", enc[: len(enc) // 2]), "alice", 1, "not a JWE"
    parts = enc.split(b".")
    # ciphertext shortened by 6 bytes, framing and base64url canonical
    parts[3] = keys.b64url(keys.b64url_decode(parts[3].decode())[:-6]).encode()
    yield "shortened", folder("shortened", b".".join(parts)), "alice", 1, "cannot decrypt"
    tampered = bytearray(enc)
    tampered[-30] = ord("A") if tampered[-30] != ord("A") else ord("B")
    yield "tampered", folder("tampered", bytes(tampered)), "alice", 1, "cannot decrypt"
    yield "malformed", folder("malformed", b"a.b.c"), "alice", 1, "5 dot-separated"
    yield "empty", folder("empty", b""), "alice", 1, "empty"
    yield "other-participant", folder("other", sealed(good_csv, {**spec_claims,
                                                                "participant": "bob"})), \
        "alice", 1, "'participant' is 'bob'"
    yield "other-competition", folder("othercomp", sealed(good_csv, {**spec_claims,
                                                                    "competition": "gnn-cora"})), \
        "alice", 1, "'competition'"
    yield "other-version", folder("otherver", sealed(good_csv, {**spec_claims,
                                                               "competition_version": 2})), \
        "alice", 1, "'competition_version'"
    yield "missing-ids", folder("missing", sealed("\n".join(lines[:-5]).encode())), "alice", 1, \
        "missing"
    yield "extra-ids", folder("extra", sealed((good_csv.decode() + "1,0\n").encode())), \
        "alice", 1, "not a test id"
    yield "dup-ids", folder("dup", sealed((good_csv.decode() + lines[1] + "\n").encode())), \
        "alice", 1, "duplicate id"
    yield "header", folder("header", sealed(good_csv.replace(b"id,label", b"node,label", 1))), \
        "alice", 1, "header must be"
    yield "columns", folder("columns", sealed(
        "\n".join([lines[0], lines[1] + ",7", *lines[2:]]).encode())), "alice", 1, \
        "wrong number of columns"
    yield "nan", folder("nan", sealed("\n".join([lines[0], lines[1].split(",")[0] + ",nan",
                                                 *lines[2:]]).encode())), "alice", 1, "NaN"
    yield "string", folder("string", sealed("\n".join([lines[0], lines[1].split(",")[0] + ",x",
                                                       *lines[2:]]).encode())), "alice", 1, \
        "not an integer"
    yield "class", folder("class", sealed("\n".join([lines[0], lines[1].split(",")[0] + ",5",
                                                     *lines[2:]]).encode())), "alice", 1, \
        "allowed class"
    yield "too-large", folder("large", b"x" * 2_000_000), "alice", 1, "limit"
    yield "no-metadata", folder("nometa", meta_bytes=None), "alice", 1, "metadata.json not found"
    yield "metadata-not-json", folder("metajson", meta_bytes=b"{oops"), "alice", 1, \
        "not valid JSON"
    yield "metadata-schema", folder("metaschema", meta_bytes=json.dumps(
        {"participant": "alice", "method": "m", "entrant": "robot"}).encode()), "alice", 1, \
        "entrant"
    yield "metadata-other", folder("metaother", meta_bytes=json.dumps(
        {"participant": "bob", "method": "m"}).encode()), "alice", 1, "names participant 'bob'"
    yield "no-envelope", folder("noenv", enc_bytes=None), "alice", 1, "not found"


@pytest.mark.slow
def test_every_bad_input_is_rejected_and_ledger_unchanged(submission, demo_competition,
                                                          keypair, tmp_path, capsys):
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text('{"type":"withdrawal","digest":"x","reason":"seed row"}\n')
    before = ledger.read_bytes()
    seen = []
    for name, folder, who, want, fragment in _variants(submission, demo_competition, keypair,
                                                        tmp_path):
        code, out, err = evaluate(capsys, demo_competition, folder, keypair, ledger,
                                  participant=who)
        assert code == want, (name, out, err)
        assert fragment in err, (name, err)
        assert "Traceback" not in err + out, name
        assert ledger.read_bytes() == before, name
        seen.append(name)
    assert len(seen) == 23


def test_bad_competition_spec_is_a_configuration_error(submission, demo_competition, keypair,
                                                       tmp_path, capsys):
    spec = demo_competition / "competition.yaml"
    spec.write_text(spec.read_text().replace("fn: macro_f1", "fn: magic"))
    ledger = tmp_path / "ledger.jsonl"
    code, _, err = evaluate(capsys, demo_competition, submission, keypair, ledger)
    assert code == 2 and "metrics.macro_f1.fn" in err and not ledger.exists()


def test_wrong_private_key_is_rejected(submission, demo_competition, tmp_path, capsys):
    from evaluator.submission import keys

    keys.generate(tmp_path / "other", bits=3072)
    code, _, err = run(["evaluate", "--competition", demo_competition, "--submission",
                        submission, "--participant", "alice", "--private-key",
                        tmp_path / "other" / "private.pem"], capsys)
    assert code == 1 and "does not hold" in err


def test_submission_limits_checked_before_scoring(demo_competition, keypair, tmp_path, capsys):
    spec = demo_competition / "competition.yaml"
    spec.write_text(spec.read_text().replace("per_day: 5", "per_day: 1"))
    ledger = tmp_path / "ledger.jsonl"
    preds = predict_majority(demo_competition)
    outcomes = []
    for i in range(2):
        d = tmp_path / f"s{i}"
        d.mkdir()
        p = d / "p.csv"
        preds.to_csv(p, index=False)
        run(["encrypt", "--competition", demo_competition, "--participant", "alice",
             "--public-key", keypair["public_path"], "--method", f"m{i}", "-o",
             d / "predictions.csv.enc", p], capsys)
        outcomes.append(evaluate(capsys, demo_competition, d, keypair, ledger))
    assert outcomes[0][0] == 0
    assert outcomes[1][0] == 1 and "last 24 hours" in outcomes[1][2]
    assert "macro_f1" not in outcomes[1][1] + outcomes[1][2]  # no score leaks
    assert len(ledger.read_text().splitlines()) == 1


def test_lint_demo_competition(demo_competition, capsys):
    from evaluator.commands.competition import cmd_competition_lint  # noqa: F401  (verb exists)

    (demo_competition / "README.md").write_text("# Demo\n")
    code, out, _ = run(["competition", "lint", demo_competition], capsys)
    assert code == 1 and "missing section '## Task'" in out
    (demo_competition / "data" / "leak.csv").write_text(
        pd.read_csv(demo_competition / "data" / "test_ids.csv").assign(label=0).to_csv(
            index=False))
    code, out, _ = run(["competition", "lint", demo_competition], capsys)
    assert "hidden labels leak" in out


@pytest.mark.slow
def test_demo_command_runs_and_ranks_ties(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "evaluator.cli", "demo", "--workdir",
                           str(tmp_path / "demo")], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "REJECTED mallory" in out and "REJECTED eve" in out
    ranks = [line.split()[0] for line in out.splitlines()
             if line.strip() and line.split()[0].isdigit() and len(line.split()) > 3]
    assert ranks == ["1", "2", "2", "4"]  # bob and carol tie
    md = tmp_path / "demo" / "leaderboard" / "demo-cancer-knn.md"
    assert md.exists() and str(md) in out
    assert "&lt;b&gt;" in md.read_text()


@pytest.mark.slow
def test_scoring_path_imports_no_torch():
    code = ("import sys, evaluator.cli, evaluator.pipeline.evaluate, evaluator.render.boards, "
            "evaluator.authoring.lint;"
            "evaluator.cli.build_parser();"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('torch', 'torch_geometric')];"
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_demo_refuses_non_empty_workdir(tmp_path, capsys):
    (tmp_path / "x").write_text("keep me")
    code, out, _ = run(["demo", "--workdir", tmp_path], capsys)
    assert code == 2 and (tmp_path / "x").read_text() == "keep me"


def test_deeply_nested_metadata_is_a_rejection_not_a_crash():
    from evaluator.errors import Rejection
    from evaluator.submission.metadata import parse_metadata

    with pytest.raises(Rejection, match="nested more than 16 levels deep"):
        parse_metadata(b"[" * 5000 + b"]" * 5000)
