"""Re-seal a competition's hidden labels to another key (rotation) or version (a spec bump).

Why a verb of its own: the builder seals labels from raw data and the secret build seed, and a
maintainer rotating the platform key should need neither. The labels are opened in memory with
the old key (the envelope's own claims say which competition and split they belong to, and are
checked), sealed again to the new public key with the spec's current version, and written back
atomically; the plaintext never touches the disk.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator.competition.schedule import revealed
from evaluator.competition.spec import load_spec
from evaluator.errors import ConfigError, Rejection
from evaluator.submission import commit, envelope
from evaluator.submission.keys import thumbprint


@dataclass(frozen=True)
class Resealed:
    path: Path
    old_kid: str
    new_kid: str
    old_version: int
    new_version: int


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def reseal_competition(folder: Path, private_keys: Mapping[str, rsa.RSAPrivateKey],
                       public_key: rsa.RSAPublicKey, *, dry_run: bool = False,
                       rows: list[dict[str, Any]] | None = None) -> list[Resealed]:
    """Re-seal every hidden split of one competition; all splits are opened before any file is
    written, so a wrong key leaves the folder exactly as it was.

    Refused: carrying labels into a new version when the version they were sealed for has
    been revealed (`rows`: the repository's ledger). The labels carry each id's part, so
    version 2 would rank on version 1's private part, whose scores the reveal published; a
    new version after a reveal needs new parts, drawn by a build with a new seed."""
    spec = load_spec(folder)
    sealed: list[tuple[Path, bytes, Resealed]] = []
    for name, split in spec.splits.items():
        path = Path(folder) / split.labels
        try:
            compact = path.read_bytes()
        except OSError as err:
            raise ConfigError(f"{path}: cannot read hidden labels: {err.strerror}") from None
        try:
            header = envelope.read_header(compact)
        except Rejection as err:
            raise ConfigError(f"{path}: not a label envelope: {err}") from None
        old_version = header.get("competition_version")
        if type(old_version) is not int or old_version > spec.version:
            raise ConfigError(f"{path}: sealed for version {old_version!r} of {spec.slug}, but "
                              f"competition.yaml says version {spec.version}; refusing to "
                              "re-seal labels of a newer or unknown version")
        shown = (revealed(rows or [], spec.slug, old_version)
                  if spec.has_parts and old_version < spec.version else None)
        if shown is not None:
            raise ConfigError(
                f"{path}: version {old_version} of {spec.slug} was revealed at "
                f"{shown.get('at', '?')}; re-sealing its labels as version {spec.version} "
                "would keep its public/private parts, so every revealed private-part score "
                f"would be a version-{spec.version} score. Build version {spec.version} with "
                "a new seed (gnncb competition build) to draw new parts")
        plain = envelope.open_labels(compact, private_keys, spec.slug, old_version, name,
                                     source=str(path))
        new = envelope.seal(plain, public_key, envelope.label_claims(spec.slug, spec.version,
                                                                     name))
        sealed.append((path, new, Resealed(path, str(header.get("kid")), thumbprint(public_key),
                                           old_version, spec.version)))
    commitments = _resealed_commitments(Path(folder), spec.slug, spec.version, sealed,
                                        private_keys, public_key)
    if not dry_run:
        for path, data, _ in sealed:
            _write_atomic(path, data)
        if commitments is not None:
            _write_atomic(commit.commitments_path(Path(folder) / "hidden"),
                          (json.dumps(commitments, indent=2, sort_keys=True) + "\n").encode())
    return [r for _, _, r in sealed]


def _resealed_commitments(folder: Path, slug: str, version: int,
                          sealed: list[tuple[Path, bytes, Resealed]],
                          private_keys: Mapping[str, rsa.RSAPrivateKey],
                          public_key: rsa.RSAPublicKey) -> dict[str, Any] | None:
    """The label commitments after a re-seal: the same commitments (same labels, same salt),
    each salt re-sealed to the new key and version, each table's new SHA-256. None when the
    competition has none (built before commitments)."""
    data = commit.read_commitments(commit.commitments_path(folder / "hidden"))
    if data is None:
        return None
    old_version = data["version"]
    by_name = {p.name: (p, new) for p, new, _ in sealed}
    labels = {}
    for split, entry in data["labels"].items():
        salt = commit.open_salt(entry["sealed_salt"], private_keys, slug, old_version,
                                f"labels:{split}")
        _, new = by_name.get(entry["file"], (None, None))
        labels[split] = {**entry,
                         "sealed_salt": commit.seal_salt(salt, public_key, slug, version,
                                                         f"labels:{split}"),
                         "envelope_sha256": (hashlib.sha256(new).hexdigest() if new is not None
                                             else entry["envelope_sha256"])}
    return {**data, "version": version, "labels": labels}
