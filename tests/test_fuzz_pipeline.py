"""Property test: whatever bytes a pull request holds, the keyed job answers with a verdict.

Random and mutated envelopes, metadata and CSVs go through `evaluate_bytes` (the one scoring
path) and through `score_pr` (the pull-request scoring job, against the fake GitHub server).
The property: the only exception is a Rejection (the participant's fault, answered on the PR),
and the ledger is byte-for-byte unchanged after a rejection. A ConfigError here would be the
keyed job failing with no answer, which is exactly what a hostile PR must never cause.

Budget: a fixed seed (`derandomize`) and a small number of examples in CI; set
GNNCB_FUZZ_EXAMPLES (e.g. 5000) for a nightly-sized run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluator import envelope
from evaluator.ci.score import score_pr
from evaluator.errors import Rejection
from evaluator.ledger import Ledger
from evaluator.pipeline import evaluate_bytes
from tests.conftest_github import Arena, _shared_keypair, client, truth_for
from tests.fake_github import BOT_LOGIN, READ_TOKEN, FakeGitHub
from tests.test_hostile_inputs import raw_envelope

EXAMPLES = int(os.environ.get("GNNCB_FUZZ_EXAMPLES", "0")) or None
FUZZ = settings(max_examples=EXAMPLES or 120, derandomize=True, deadline=None,
                suppress_health_check=list(HealthCheck), database=None)
PR_FUZZ = settings(FUZZ, max_examples=EXAMPLES or 30)
SLUG = "toy-nodes"


# -- strategies ---------------------------------------------------------------------------------

json_scalars = (st.none() | st.booleans() | st.integers(-10**40, 10**40)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30))
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=12), inner, max_size=4),
                           max_leaves=12)
TOKENS = [b"NaN", b"Infinity", b"-Infinity", b"1e999", b"9" * 5000, b"[" * 1500, b"true",
          b"1.0", b'"\\ud800"', b"\xff\xfe", b"\x00", b"\r", b"\r\n", b",", b'"', b"\n"]


def mutated(data: bytes) -> st.SearchStrategy[bytes]:
    """Bit flips, cuts, insertions of hostile tokens, and duplications of a valid byte string."""
    n = max(len(data), 1)

    def flip(i: int, bit: int) -> bytes:
        j = i % n
        return data[:j] + bytes([data[j] ^ (1 << bit)]) + data[j + 1:] if data else data

    return st.one_of(
        st.just(data),
        st.builds(flip, st.integers(0, n - 1), st.integers(0, 7)),
        st.builds(lambda i: data[: i % n], st.integers(0, n)),
        st.builds(lambda i, t: data[: i % n] + t + data[i % n:], st.integers(0, n),
                  st.sampled_from(TOKENS) | st.binary(max_size=16)),
        st.builds(lambda i, j: data[: i % n] + data[j % n:], st.integers(0, n),
                  st.integers(0, n)),
        st.just(data + data),
    )


def csv_text(ids: list[int]) -> st.SearchStrategy[bytes]:
    cell = st.sampled_from(["0", "1", "2", "", "nan", "inf", "-1e308", "1e308", "0.5", "x",
                            '"1"', "1,1", " 1 ", "0x1", "9" * 400, "\u00a0"])
    id_cell = st.sampled_from([str(i) for i in ids] + ["", "id", "-1", "1e3", "9" * 50])
    ending = st.sampled_from(["\n", "\r\n", "\r", "\n\n"])
    header = st.sampled_from(["id,label", "label,id", "id,label,extra", "id", "\ufeffid,label",
                              "id,id", ""])

    @st.composite
    def build(draw: Any) -> bytes:
        rows = draw(st.lists(st.tuples(id_cell, cell), max_size=len(ids) + 3))
        end = draw(ending)
        body = draw(header) + end + "".join(f"{a},{b}{end}" for a, b in rows)
        return body.encode()

    valid = ("id,label\n" + "".join(f"{i},{i % 2}\n" for i in ids)).encode()
    return st.one_of(build(), mutated(valid), st.binary(max_size=200))


# -- fixtures -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One arena (competitions in a git origin), a base checkout, and the keys."""
    tmp = tmp_path_factory.mktemp("fuzz")
    arena = Arena(tmp, _shared_keypair())
    root = arena.clone("base")
    ids = truth_for(SLUG)["id"].tolist()
    valid = arena.envelope(SLUG, "alice")
    meta = json.dumps({"participant": "alice", "method": "GCN"}).encode()
    return {"arena": arena, "root": root, "ids": ids, "valid": valid, "meta": meta}


def envelopes(world: dict[str, Any]) -> st.SearchStrategy[bytes]:
    arena, public = world["arena"], world["arena"].keypair.public
    claims = envelope.prediction_claims(SLUG, 1, "alice")

    def sealed_csv(data: bytes) -> bytes:
        return envelope.seal(data, public, claims)

    def header_json(extra: dict) -> bytes:
        header = {"alg": envelope.ALG, "enc": envelope.ENC, "kid": arena.keypair.kid, **claims}
        header.update(extra)
        return raw_envelope(json.dumps(header).encode(), arena.predictions(SLUG), public)

    return st.one_of(
        csv_text(world["ids"]).map(sealed_csv),
        mutated(world["valid"]),
        st.dictionaries(st.sampled_from(["alg", "enc", "kid", "zip", "crit", "participant",
                                         "competition", "competition_version", "purpose"]),
                        json_values, max_size=3).map(header_json),
        st.binary(max_size=300),
        st.text(alphabet="ABCDabcd0123-_.=", max_size=300).map(str.encode),
    )


def metadatas(world: dict[str, Any]) -> st.SearchStrategy[bytes]:
    base = {"participant": "alice", "method": "GCN"}
    fields = st.sampled_from(["participant", "method", "entrant", "model", "team", "seed",
                              "tuning_runs", "training_time_minutes", "gnn_only", "notes", "llm",
                              "hardware", "extra"])
    edited = st.dictionaries(fields, json_values, max_size=3).map(
        lambda d: json.dumps({**base, **d}).encode())
    return st.one_of(st.just(world["meta"]), edited, mutated(world["meta"]),
                     json_values.map(lambda v: json.dumps(v).encode()), st.binary(max_size=100))


def _ledger_bytes(path: Path) -> bytes:
    return path.read_bytes() if path.exists() else b""


# -- properties ---------------------------------------------------------------------------------


def test_evaluate_bytes_answers_every_input(world: dict[str, Any], tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.jsonl")
    competition = world["root"] / "competitions" / SLUG
    keys = world["arena"].keypair.private
    seen = {"accepted": 0, "rejected": 0}

    @FUZZ
    @given(sealed=envelopes(world), meta=metadatas(world))
    def run(sealed: bytes, meta: bytes) -> None:
        before = _ledger_bytes(ledger.path)
        try:
            outcome = evaluate_bytes(competition, sealed, meta, participant="alice",
                                     keys=keys, ledger=ledger, participant_id=1)
        except Rejection:
            seen["rejected"] += 1
            assert _ledger_bytes(ledger.path) == before
            return
        seen["accepted"] += 1
        assert outcome.accepted and set(outcome.scores) == {"accuracy", "macro_f1"}
        for row in ledger.rows():  # every accepted row is plain, finite JSON
            json.loads(json.dumps(row, allow_nan=False))

    run()
    assert seen["rejected"] > 0


def test_pr_scoring_answers_every_input(world: dict[str, Any]) -> None:
    arena, root = world["arena"], world["root"]
    ledger = root / "leaderboard" / "ledger.jsonl"
    before = _ledger_bytes(ledger)
    counter = iter(range(1, 10**6))
    folder = f"competitions/{SLUG}/submissions/alice"
    with FakeGitHub() as fake:
        gh = client(fake, READ_TOKEN)

        @PR_FUZZ
        @given(sealed=envelopes(world), meta=metadatas(world))
        def run(sealed: bytes, meta: bytes) -> None:
            number = next(counter)
            fake.open_pr(number, "alice", {f"{folder}/predictions.csv.enc": sealed,
                                           f"{folder}/metadata.json": meta}, author_id=1)
            result = score_pr(gh, number, root=root, load_keys=lambda: arena.keypair.private,
                              bot_login=BOT_LOGIN)
            assert result.status in ("accepted", "rejected"), result
            if result.status == "rejected":
                assert result.reason and result.code and result.row is None
            assert _ledger_bytes(ledger) == before  # the scoring job never writes

        run()
