"""Every byte sequence a pull request can deliver ends in a verdict, never in a crash.

Each case here crashed (or silently mis-read) an earlier version: CR-only line endings, a `kid`
that is a list or an object, a header nested 1,400 levels deep, a 5,000-digit integer, `NaN` /
`Infinity` in metadata, `true` / `1.0` for the integer `competition_version`, base64url with
stray bits (a second encoding of the same envelope, hence a second digest), regression values of
1e308 that passed `check` and then overflowed scoring, a blank-looking method. The cases run
through the pull-request pipeline (fake GitHub, both phases) and the CLI, and assert the
participant-facing rejection, the answer on the PR and an unchanged ledger.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator.authoring.build import seal_labels, write_csv
from evaluator.cli import main
from evaluator.competition.spec import load_spec
from evaluator.ledger.store import Ledger
from evaluator.pipeline.evaluate import evaluate_bytes
from evaluator.submission import envelope
from evaluator.submission.keys import thumbprint
from tests.helpers.arena import Arena, run_pr
from tests.helpers.fake_github import FakeGitHub
from tests.pipeline.helpers import raw_envelope

OWN = "competitions/toy-nodes/submissions/alice"
META = b'{"participant": "alice", "method": "2-layer GCN"}'


def header_with(public: rsa.RSAPublicKey, **changes: Any) -> bytes:
    header = {"alg": envelope.ALG, "enc": envelope.ENC, "kid": thumbprint(public),
              **envelope.prediction_claims("toy-nodes", 1, "alice"), **changes}
    return json.dumps(header).encode()


def with_stray_bits(sealed: bytes) -> bytes:
    """The same bytes, re-encoded: the tag's last character gets a set unused bit."""
    parts = sealed.split(b".")
    alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    last = alphabet.index(parts[4][-1:])
    parts[4] = parts[4][:-1] + alphabet[(last & ~0b1111) | 0b0101:][:1]
    return b".".join(parts)


def _envelope_case(make: Callable[[Arena], bytes],
                   meta: bytes = META) -> Callable[[Arena], dict[str, bytes]]:
    return lambda a: {f"{OWN}/predictions.csv.enc": make(a), f"{OWN}/metadata.json": meta}


def _meta_case(meta: bytes) -> Callable[[Arena], dict[str, bytes]]:
    return lambda a: {f"{OWN}/predictions.csv.enc": a.envelope("toy-nodes", "alice"),
                      f"{OWN}/metadata.json": meta}


def _sealed(a: Arena, data: bytes) -> bytes:
    return a.envelope("toy-nodes", "alice", data=data)


def _pub(a: Arena) -> rsa.RSAPublicKey:
    return a.keypair.public


CASES: dict[str, tuple[Callable[[Arena], dict[str, bytes]], str, str]] = {
    "cr-only line endings": (
        _envelope_case(lambda a: _sealed(a, a.predictions("toy-nodes").replace(b"\n", b"\r"))),
        "invalid-predictions", "carriage return without a line feed"),
    "nul byte": (
        _envelope_case(lambda a: _sealed(a, a.predictions("toy-nodes").replace(b",", b"\0,", 1))),
        "invalid-predictions", "NUL byte"),
    "kid is a list": (
        _envelope_case(lambda a: raw_envelope(header_with(_pub(a), kid=["x"]),
                                              a.predictions("toy-nodes"), _pub(a))),
        "malformed-envelope", "kid must be strings"),
    "kid is an object": (
        _envelope_case(lambda a: raw_envelope(header_with(_pub(a), kid={"a": 1}),
                                              a.predictions("toy-nodes"), _pub(a))),
        "malformed-envelope", "kid must be strings"),
    "header nested 1400 deep": (
        _envelope_case(lambda a: raw_envelope(
            b'{"alg":"RSA-OAEP-256","x":' + b"[" * 1400 + b"]" * 1400 + b"}",
            a.predictions("toy-nodes"), _pub(a))),
        "malformed-envelope", "nested more than"),
    "header with a 5000-digit number": (
        _envelope_case(lambda a: raw_envelope(
            b'{"alg":"RSA-OAEP-256","x":' + b"9" * 2500 + b"}", a.predictions("toy-nodes"),
            _pub(a))),
        "malformed-envelope", "integer with 2500 digits"),
    "header with a duplicate claim": (
        _envelope_case(lambda a: raw_envelope(
            header_with(_pub(a))[:-1] + b', "participant": "bob"}',
            a.predictions("toy-nodes"), _pub(a))),
        "malformed-envelope", "appears twice"),
    "competition_version true": (
        _envelope_case(lambda a: raw_envelope(header_with(_pub(a), competition_version=True),
                                              a.predictions("toy-nodes"), _pub(a))),
        "claim-mismatch", "competition_version"),
    "competition_version 1.0": (
        _envelope_case(lambda a: raw_envelope(header_with(_pub(a), competition_version=1.0),
                                              a.predictions("toy-nodes"), _pub(a))),
        "claim-mismatch", "competition_version"),
    "non-canonical base64url": (
        _envelope_case(lambda a: with_stray_bits(a.envelope("toy-nodes", "alice"))),
        "malformed-envelope", "not canonical base64url"),
    "metadata nested 1400 deep": (
        _meta_case(b'{"participant": "alice", "method": "m", "notes": '
                   + b"[" * 1400 + b"]" * 1400 + b"}"),
        "invalid-metadata", "nested more than"),
    "metadata 5000-digit integer": (
        _meta_case(b'{"participant": "alice", "method": "m", "seed": ' + b"7" * 5000 + b"}"),
        "invalid-metadata", "integer with 5000 digits"),
    "metadata Infinity": (
        _meta_case(b'{"participant": "alice", "method": "m", "training_time_minutes": Infinity}'),
        "invalid-metadata", "Infinity is not a JSON number"),
    "metadata 1e999": (
        _meta_case(b'{"participant": "alice", "method": "m", "training_time_minutes": 1e999}'),
        "invalid-metadata", "out of range"),
    "metadata NaN": (
        _meta_case(b'{"participant": "alice", "method": "m", "training_time_minutes": NaN}'),
        "invalid-metadata", "NaN is not a JSON number"),
    "metadata bool for an integer": (
        _meta_case(b'{"participant": "alice", "method": "m", "tuning_runs": true}'),
        "invalid-metadata", "tuning_runs"),
    "metadata float for an integer": (
        _meta_case(b'{"participant": "alice", "method": "m", "tuning_runs": 3.0}'),
        "invalid-metadata", "tuning_runs"),
    "method of spaces and zero-width characters": (
        _meta_case(b'{"participant": "alice", "method": " \\u200b\\u2060 \\u00a0"}'),
        "invalid-metadata", "visible character"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_bytes_end_in_a_rejection(name: str, arena: Arena, fake: FakeGitHub) -> None:
    build, code, text = CASES[name]
    fake.open_pr(1, "alice", build(arena))
    head = arena.head()
    result, published = run_pr(arena, fake, 1)
    assert (result.status, result.code) == ("rejected", code), result.reason
    assert text in result.reason
    assert arena.head() == head and arena.rows() == []
    [answer] = fake.bot_comments(1)
    assert "Submission rejected" in answer and published.status == "rejected"


def test_one_envelope_has_one_encoding(arena: Arena, fake: FakeGitHub) -> None:
    """The canonical envelope is recorded once; its re-encoding is refused, not re-counted."""
    sealed = arena.envelope("toy-nodes", "alice")
    fake.open_pr(1, "alice", {f"{OWN}/predictions.csv.enc": sealed,
                              f"{OWN}/metadata.json": META}, author_id=5)
    result, _ = run_pr(arena, fake, 1)
    assert result.status == "accepted"
    rows = arena.rows()
    fake.open_pr(2, "alice", {f"{OWN}/predictions.csv.enc": with_stray_bits(sealed),
                              f"{OWN}/metadata.json": META}, author_id=5)
    result, _ = run_pr(arena, fake, 2)
    assert (result.status, result.code) == ("rejected", "malformed-envelope")
    assert arena.rows() == rows and len(rows) == 1


# -- regression values and the CLI ------------------------------------------------------------


@pytest.fixture
def regression(tmp_path: Path, pipeline_keys: Any) -> Path:
    """A tiny real-valued competition (MAE), labels sealed to the test key."""
    folder = tmp_path / "competitions" / "toy-reg"
    folder.mkdir(parents=True)
    (folder / "competition.yaml").write_text(yaml.safe_dump({
        "slug": "toy-reg", "version": 1, "title": "Toy regression",
        "task": "graph-regression", "category": "homogeneous", "difficulty": "easy",
        "domain": "testing", "id_column": "id",
        "targets": [{"name": "y", "type": "real"}],
        "splits": {"test": {"ids": "data/test_ids.csv", "labels": "hidden/test_labels.jwe"}},
        "metrics": {"mae": {"fn": "mae", "split": "test"}},
        "rank_by": [{"score": "mae", "order": "asc"}],
        "submission": {"file": "predictions.csv", "max_bytes": 4000,
                       "limits": {"per_version": 3, "per_day": 2}},
    }, sort_keys=False))
    truth = pd.DataFrame({"id": range(100, 130), "y": [i / 7 for i in range(30)]})
    write_csv(truth[["id"]], folder / "data" / "test_ids.csv")
    seal_labels(truth, load_spec(folder), "test", pipeline_keys.public,
                folder / "hidden" / "test_labels.jwe")
    return folder


def _predictions(tmp: Path, value: str) -> Path:
    path = tmp / "predictions.csv"
    path.write_text("id,y\n" + "".join(f"{i},{value}\n" for i in range(100, 130)))
    return path


@pytest.mark.parametrize("value", ["1e308", "-1e308", "1e16"])
def test_absurd_regression_values_are_refused_alike_by_check_and_evaluate(
        regression: Path, tmp_path: Path, pipeline_keys: Any, capsys: Any, value: str) -> None:
    preds = _predictions(tmp_path, value)
    assert main(["check", "--competition", str(regression), str(preds)]) == 1
    checked = capsys.readouterr().err
    assert "values beyond ±1e+15" in checked
    sub = tmp_path / "sub"
    assert main(["encrypt", "--competition", str(regression), "--participant", "alice",
                 "--public-key", str(tmp_path / "none.pem"), "--method", "m", str(preds),
                 "-o", str(sub / "predictions.csv.enc")]) == 1  # refused before encrypting
    assert "values beyond" in capsys.readouterr().err and not sub.exists()
    sealed = envelope.seal(preds.read_bytes(), pipeline_keys.public,
                           envelope.prediction_claims("toy-reg", 1, "alice"))
    ledger = Ledger(tmp_path / "ledger.jsonl")
    with pytest.raises(Exception) as err:
        evaluate_bytes(regression, sealed, META, participant="alice",
                       keys=pipeline_keys.private, ledger=ledger)
    assert type(err.value).__name__ == "Rejection" and err.value.code == "invalid-predictions"
    assert "values beyond ±1e+15" in str(err.value)
    assert ledger.rows() == []


def test_largest_allowed_regression_values_score(regression: Path, tmp_path: Path,
                                                 pipeline_keys: Any) -> None:
    preds = _predictions(tmp_path, "-1e15")
    sealed = envelope.seal(preds.read_bytes(), pipeline_keys.public,
                           envelope.prediction_claims("toy-reg", 1, "alice"))
    outcome = evaluate_bytes(regression, sealed, META, participant="alice",
                             keys=pipeline_keys.private)
    assert outcome.accepted and 0.99e15 < outcome.scores["mae"] < 1.01e15


def test_check_stops_reading_a_device_at_the_limit(regression: Path, capsys: Any) -> None:
    assert main(["check", "--competition", str(regression), "/dev/zero"]) == 1
    assert "larger than the limit of 4,000 bytes" in capsys.readouterr().err


def test_check_reads_a_pipe_up_to_the_limit(regression: Path, tmp_path: Path,
                                            capsys: Any) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    pid = os.fork()
    if pid == 0:  # child: write more than the limit, then exit (the reader stops early)
        try:
            with open(fifo, "wb") as fh:
                fh.write(b"id,y\n" + b"100,1\n" * 5000)
        except BrokenPipeError:
            pass
        os._exit(0)
    try:
        assert main(["check", "--competition", str(regression), str(fifo)]) == 1
    finally:
        os.waitpid(pid, 0)
    assert "larger than the limit" in capsys.readouterr().err


def test_check_refuses_cr_only_line_endings(regression: Path, tmp_path: Path,
                                            capsys: Any) -> None:
    preds = _predictions(tmp_path, "1.5")
    preds.write_bytes(preds.read_bytes().replace(b"\n", b"\r"))
    assert main(["check", "--competition", str(regression), str(preds)]) == 1
    assert "line 1: a carriage return without a line feed" in capsys.readouterr().err


def test_crlf_is_still_fine(regression: Path, tmp_path: Path, capsys: Any) -> None:
    preds = _predictions(tmp_path, "1.5")
    preds.write_bytes(preds.read_bytes().replace(b"\n", b"\r\n"))
    assert main(["check", "--competition", str(regression), str(preds)]) == 0


@pytest.mark.parametrize("option, value, message", [
    ("--participant", "not_a_login", "'not_a_login' is neither a GitHub login"),
    ("--method", "\u200b \u200b", "method: must contain a visible character"),
    ("--notes", "x" * 3000, "notes: String should have at most 2000 characters"),
])
def test_encrypt_with_a_bad_option_prints_a_message(regression: Path, tmp_path: Path,
                                                    keypair: dict, capsys: Any, option: str,
                                                    value: str, message: str) -> None:
    preds = _predictions(tmp_path, "1.5")
    argv = {"--participant": "alice", "--method": "m", option: value}
    args = ["encrypt", "--competition", str(regression), "--public-key",
            str(keypair["public_path"]), "-o", str(tmp_path / "out" / "p.enc")]
    for k, v in argv.items():
        args += [k, v]
    assert main([*args, str(preds)]) == 2  # a bad command-line option: usage error
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and "pydantic" not in err
    assert not (tmp_path / "out").exists()
