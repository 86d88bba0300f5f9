"""Check, seal and describe a predictions file: what `gnncb encrypt` does, as a function.

Why a core module: the CLI verb and `gnncb baseline run` must produce exactly the same folder
(checked CSV, JWE to the platform key, metadata.json), and a core module (baselines) may not
import the CLI to get it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evaluator.competition.spec import CompetitionSpec, load_spec
from evaluator.errors import ConfigError
from evaluator.submission import envelope, keys
from evaluator.submission.metadata import Metadata, dump_metadata


@dataclass(frozen=True)
class Sealed:
    spec: CompetitionSpec
    rows: int
    kid: str
    envelope: Path
    metadata: Path


def read_predictions(path: Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise ConfigError(f"{path}: cannot read: {err.strerror}") from None


def check_predictions(competition: Path, predictions: Path) -> tuple[CompetitionSpec, int]:
    """Validate a predictions CSV against the competition's spec and public ids."""
    from evaluator.submission.validate import all_ids, competition_ids, validate_predictions

    spec = load_spec(competition)
    ids = all_ids(competition_ids(competition, spec))
    table = validate_predictions(read_predictions(predictions), spec, ids,
                                 filename=str(predictions))
    return spec, len(table)


def seal_submission(competition: Path, predictions: Path, meta: Metadata, public_key: Path,
                    output: Path) -> Sealed:
    """Check `predictions`, encrypt it to `public_key` as `output`, and write metadata.json
    beside it. The envelope's participant claim is the lower-cased login."""
    spec, n = check_predictions(competition, predictions)
    try:
        public = keys.load_public_key(Path(public_key).read_bytes(), source=str(public_key))
    except OSError as err:
        raise ConfigError(f"{public_key}: cannot read public key: {err.strerror}") from None
    sealed = envelope.seal(read_predictions(predictions), public,
                           envelope.prediction_claims(spec.slug, spec.version,
                                                      meta.participant.lower()))
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(sealed)
    meta_path = output.parent / "metadata.json"
    meta_path.write_text(dump_metadata(meta), encoding="utf-8")
    return Sealed(spec=spec, rows=n, kid=keys.thumbprint(public), envelope=output,
                  metadata=meta_path)
