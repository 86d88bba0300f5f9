"""The one writer of a submission folder (evaluator.submission.seal): it seals the very bytes it
checked, read once and never past the competition's size limit."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from evaluator.competition.spec import load_spec
from evaluator.errors import Rejection
from evaluator.submission import envelope
from evaluator.submission.metadata import Metadata, parse_metadata
from evaluator.submission.seal import seal_submission


class _Reads:
    """Every open of one path, and how many bytes were read through each handle."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, target: Path) -> None:
        self.opens: list[int] = []
        real_open = Path.open
        reads = self

        class Counting(io.BufferedReader):
            def read(self, size: int | None = -1) -> bytes:
                data = super().read(size)
                reads.opens[-1] += len(data)
                return data

        def spy(path: Path, mode: str = "r", *args, **kwargs):
            handle = real_open(path, mode, *args, **kwargs)
            if Path(path).resolve() != target.resolve():
                return handle
            assert mode == "rb", f"predictions opened with mode {mode!r}"
            reads.opens.append(0)
            return Counting(handle.detach())

        monkeypatch.setattr(Path, "open", spy)


def test_the_sealed_plaintext_is_the_checked_bytes_read_once(demo_competition, keypair,
                                                             tmp_path, monkeypatch):
    predictions = tmp_path / "predictions.csv"
    predictions.write_bytes((demo_competition / "data" / "sample_submission.csv").read_bytes())
    sent = predictions.read_bytes()
    reads = _Reads(monkeypatch, predictions)
    out = tmp_path / "alice" / "predictions.csv.enc"
    sealed = seal_submission(demo_competition, predictions,
                             Metadata(participant="Alice", method="sample"),
                             keypair["public_path"], out)
    assert reads.opens == [len(sent)]  # one read: a pipe or a changing file cannot differ
    spec = load_spec(demo_competition)
    opened = envelope.open_envelope(out.read_bytes(), keypair["private"],
                                    envelope.prediction_claims(spec.slug, spec.version, "alice"))
    assert opened.plaintext == sent
    assert sealed.rows == len(sent.splitlines()) - 1 and sealed.kid == keypair["kid"]
    assert parse_metadata(sealed.metadata.read_bytes()).method == "sample"


def test_an_over_size_csv_is_refused_without_reading_it_whole(demo_competition, keypair,
                                                              tmp_path, monkeypatch):
    limit = load_spec(demo_competition).submission.max_bytes
    predictions = tmp_path / "predictions.csv"
    predictions.write_bytes(b"id,label\n" + b"1,0\n" * (limit // 2))  # twice the limit
    reads = _Reads(monkeypatch, predictions)
    out = tmp_path / "bob" / "predictions.csv.enc"
    with pytest.raises(Rejection) as err:
        seal_submission(demo_competition, predictions, Metadata(participant="bob", method="x"),
                        keypair["public_path"], out)
    assert err.value.code == "too-large"
    assert reads.opens == [limit + 1]
    assert not out.parent.exists()
