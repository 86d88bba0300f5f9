"""Property test: whatever bytes a pull request holds, the keyed job answers with a verdict.

Random and mutated envelopes, metadata and CSVs go through `evaluate_bytes` (the one scoring
path) and through the pull-request flow (the keyed scoring job, its artifact, the unkeyed publish
job, against the fake GitHub server).
The property: the only exception is a Rejection (the participant's fault, answered on the PR),
and the ledger is byte-for-byte unchanged after a rejection. A ConfigError here would be the
keyed job failing with no answer, which is exactly what a hostile PR must never cause.

Each property also checks that the random inputs reached the layer it aims at (accepted files and
rejections of the predictions themselves, not only of the metadata or the envelope), so a
strategy that stopped reaching the CSV validator would fail here rather than pass vacuously.

Budget: a fixed seed (`derandomize`) and a small number of examples in CI; set
GNNCB_FUZZ_EXAMPLES (e.g. 5000) for a nightly-sized run (ci.yml's scheduled job does).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluator.errors import Rejection
from evaluator.ledger.store import Ledger
from evaluator.pipeline.evaluate import evaluate_bytes
from evaluator.submission import envelope
from tests.helpers.arena import Arena, run_publish, run_score, shared_keypair, truth_for
from tests.helpers.fake_github import FakeGitHub
from tests.pipeline.helpers import raw_envelope

pytestmark = pytest.mark.slow

EXAMPLES = int(os.environ.get("GNNCB_FUZZ_EXAMPLES", "0")) or None
# CI: a fixed seed (derandomize) and a small budget; nightly (GNNCB_FUZZ_EXAMPLES set): fresh
# random inputs every night (hypothesis prints the seed of a failure to reproduce it).
FUZZ = settings(max_examples=EXAMPLES or 120, derandomize=EXAMPLES is None, deadline=None,
                suppress_health_check=list(HealthCheck), database=None)
CSV_FUZZ = settings(FUZZ, max_examples=EXAMPLES or 80)
PR_FUZZ = settings(FUZZ, max_examples=EXAMPLES or 25)
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
    arena = Arena(tmp, shared_keypair())
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


def _evaluate(world: dict[str, Any], ledger: Ledger, sealed: bytes, meta: bytes) -> str:
    """One submission through evaluate_bytes; returns 'accepted' or the rejection code and
    checks the ledger invariant either way."""
    competition = world["root"] / "competitions" / SLUG
    before = _ledger_bytes(ledger.path)
    try:
        outcome = evaluate_bytes(competition, sealed, meta, participant="alice",
                                 keys=world["arena"].keypair.private, ledger=ledger,
                                 participant_id=1)
    except Rejection as err:
        assert _ledger_bytes(ledger.path) == before
        assert str(err).strip(), "a rejection must say what is wrong"
        return err.code
    assert outcome.accepted and set(outcome.scores) == {"accuracy", "macro_f1"}
    rows = ledger.rows()
    assert len(rows) == 1 and rows[0]["digest"] == envelope.digest(sealed)
    json.loads(json.dumps(rows[0], allow_nan=False))  # plain, finite JSON
    return "accepted"


def test_evaluate_bytes_answers_every_input(world: dict[str, Any], tmp_path: Path) -> None:
    fresh = iter(range(10**9))
    seen: Counter[str] = Counter()

    @FUZZ
    @given(sealed=envelopes(world), meta=metadatas(world))
    def run(sealed: bytes, meta: bytes) -> None:
        # a fresh ledger per example: the daily limit must not hide the later layers
        seen[_evaluate(world, Ledger(tmp_path / f"l{next(fresh)}.jsonl"), sealed, meta)] += 1

    run()
    assert seen["accepted"] > 0, seen
    assert {"invalid-metadata", "invalid-predictions"} <= set(seen), seen
    assert sum(n for code, n in seen.items() if code != "accepted") > seen["accepted"], seen


def test_random_prediction_files_answer_with_a_verdict(world: dict[str, Any],
                                                      tmp_path: Path) -> None:
    """Valid envelope and metadata around random and mutated CSV bytes: the validator and
    the scorer answer every one."""
    fresh = iter(range(10**9))
    seen: Counter[str] = Counter()
    public = world["arena"].keypair.public
    claims = envelope.prediction_claims(SLUG, 1, "alice")

    @CSV_FUZZ
    @given(data=csv_text(world["ids"]))
    def run(data: bytes) -> None:
        sealed = envelope.seal(data, public, claims)
        seen[_evaluate(world, Ledger(tmp_path / f"c{next(fresh)}.jsonl"), sealed,
                       world["meta"])] += 1

    run()
    assert seen["accepted"] > 0 and seen["invalid-predictions"] > 0, seen


def test_pr_flow_answers_every_input(world: dict[str, Any]) -> None:
    """The whole pull-request flow: the keyed scoring job (result round-tripped through the
    artifact JSON) then the unkeyed publish job. A rejection leaves origin's ledger as it was;
    an acceptance adds exactly that envelope's row; every PR gets exactly one answer."""
    arena = world["arena"]
    counter = iter(range(1, 10**6))
    folder = f"competitions/{SLUG}/submissions/alice"
    seen: Counter[str] = Counter()
    with FakeGitHub() as fake:

        @PR_FUZZ
        @given(sealed=envelopes(world), meta=metadatas(world))
        def run(sealed: bytes, meta: bytes) -> None:
            number = next(counter)
            before = arena.rows()
            fake.open_pr(number, "alice", {f"{folder}/predictions.csv.enc": sealed,
                                           f"{folder}/metadata.json": meta}, author_id=1)
            result = run_score(arena, fake, number)
            assert result.status in ("accepted", "rejected"), result
            run_publish(arena, fake, result)
            after = arena.rows()
            if result.status == "rejected":
                assert result.reason and result.code and result.row is None
                assert after == before
            else:
                new = after[len(before):]
                assert after[: len(before)] == before
                assert [r["digest"] for r in new] == [envelope.digest(sealed)]
            assert len(fake.bot_comments(number)) == 1
            seen[result.status if result.status == "accepted" else result.code] += 1

        run()
    assert len(seen) > 1, seen
