"""The one writer of a submission folder: check, then seal exactly the checked bytes.

Why one writer: `gnncb encrypt`, `gnncb baseline run`, the LLM track and `gnncb demo` must all
produce the same folder (`predictions.csv.enc`, a JWE to the platform key whose claims name the
competition, its version and the lower-cased participant, beside `metadata.json`), and every
one of them must seal the bytes that passed `gnncb check`, not a second read of the file (a pipe
can be read once; a file can change between two reads). The read stops at the competition's
size limit, so `/dev/zero` ends in a rejection, not in the OOM killer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator.competition.spec import CompetitionSpec, load_spec
from evaluator.submission import envelope, keys
from evaluator.submission.files import METADATA_NAME, read_limited
from evaluator.submission.metadata import Metadata, dump_metadata


@dataclass(frozen=True)
class Checked:
    """Predictions that passed the check: the competition, the row count, the bytes checked."""

    spec: CompetitionSpec
    rows: int
    data: bytes


@dataclass(frozen=True)
class Sealed:
    spec: CompetitionSpec
    rows: int
    kid: str
    envelope: Path
    metadata: Path


def check_data(competition: Path, spec: CompetitionSpec, data: bytes, *,
               filename: str) -> Checked:
    """Validate predictions already in memory against the spec and the public test ids."""
    return _validated(spec, _test_ids(competition, spec), data, filename)


def check_predictions(competition: Path, predictions: Path) -> Checked:
    """`gnncb check`: read at most the competition's size limit of `predictions`, validate it."""
    spec = load_spec(competition)
    ids = _test_ids(competition, spec)  # a broken competition is reported before the file
    data = read_limited(predictions, spec.submission.max_bytes, what="predictions file")
    return _validated(spec, ids, data, str(predictions))


def _test_ids(competition: Path, spec: CompetitionSpec) -> Any:
    from evaluator.submission.validate import all_ids, competition_ids

    return all_ids(competition_ids(competition, spec))


def _validated(spec: CompetitionSpec, ids: Any, data: bytes, filename: str) -> Checked:
    from evaluator.submission.validate import validate_predictions

    table = validate_predictions(data, spec, ids, filename=filename)
    return Checked(spec=spec, rows=len(table), data=data)


def write_submission(checked: Checked, public_key: rsa.RSAPublicKey, meta: Metadata,
                     output: Path) -> Sealed:
    """Seal `checked.data` to `public_key` as `output` and write metadata.json beside it.

    The one place a submission folder is written. `checked` normally comes from
    `check_predictions` / `check_data`; only the demo builds one by hand, for its participant
    who skips the check and is rejected by the evaluator."""
    spec = checked.spec
    sealed = envelope.seal(checked.data, public_key,
                           envelope.prediction_claims(spec.slug, spec.version,
                                                      meta.participant.lower()))
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(sealed)
    meta_path = output.parent / METADATA_NAME
    meta_path.write_text(dump_metadata(meta), encoding="utf-8")
    return Sealed(spec=spec, rows=checked.rows, kid=keys.thumbprint(public_key),
                  envelope=output, metadata=meta_path)


def seal_submission(competition: Path, predictions: Path, meta: Metadata,
                    public_key: Path | rsa.RSAPublicKey, output: Path) -> Sealed:
    """`gnncb encrypt` as one call: check `predictions`, then write the folder."""
    checked = check_predictions(competition, predictions)
    public = (public_key if isinstance(public_key, rsa.RSAPublicKey)
              else keys.read_public_key(public_key))
    return write_submission(checked, public, meta, output)
