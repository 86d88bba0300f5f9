"""Salted commitments: public promises to bytes that stay secret until the reveal.

Why: the hidden labels and every scored predictions file are sealed to the platform key, so
until the reveal a reader has to take every score on faith, and after it nothing proved that
the labels published are the ones the submissions were scored on. A commitment is
SHA-256(salt || bytes) with a 32-byte secret salt (`hashlib`, nothing hand-made): it is
published at once (the label tables' in `hidden/commitments.json` at build, each
submission's in its ledger row) and says nothing about the bytes while the salt is secret
(without a salt a small test set could be guessed and checked hash by hash). The salt is
sealed to the platform key beside the commitment (a JWE whose claims bind it to the
competition, version and split or submission), and the reveal publishes it with the bytes, so
anyone can recompute the commitment with no key.

The label commitments of one competition version live in `hidden/commitments.json` beside the
sealed tables: per split the commitment, the sealed salt and the SHA-256 of the sealed table
file (so a table re-sealed or swapped shows without any key). A label correction
(`gnncb competition relabel`) is a new *label version* of the same competition version: its
commitments replace the current ones and the earlier label version's are kept, unchanged,
under `superseded` (rows scored on them keep pointing at them; see `label_versions`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator.errors import ConfigError, Rejection
from evaluator.submission import envelope

PURPOSE_SALT = "commitment-salt"
COMMITMENTS_NAME = "commitments.json"
ALGORITHM = "sha256(salt || bytes)"
SALT_BYTES = 32
FORMAT = 1


def commit(salt: bytes, data: bytes) -> str:
    """The commitment to `data` under `salt` (hex SHA-256 of salt followed by the bytes)."""
    return hashlib.sha256(salt + data).hexdigest()


def new_salt() -> bytes:
    return os.urandom(SALT_BYTES)


def derived_salt(seed: str, slug: str, version: int, split: str) -> bytes:
    """A label table's salt derived from the secret build seed (HMAC-SHA256), so rebuilding
    the same labels from the same seed reproduces the same commitment: only a real change of
    the labels changes it."""
    return hmac.new(seed.encode(), f"label-salt\x00{slug}\x00{version}\x00{split}".encode(),
                    hashlib.sha256).digest()


def salt_claims(slug: str, version: int, of: str) -> dict[str, Any]:
    """Claims of a sealed salt: `of` is `labels:<split>` or a submission's digest, so a salt
    cannot be moved to another table or row."""
    return {"purpose": PURPOSE_SALT, "competition": slug, "competition_version": version,
            "of": of}


def seal_salt(salt: bytes, public_key: rsa.RSAPublicKey, slug: str, version: int,
              of: str) -> str:
    return envelope.seal(salt.hex().encode("ascii"), public_key,
                         salt_claims(slug, version, of)).decode("ascii")


def open_salt(sealed: str, private_keys: Mapping[str, rsa.RSAPrivateKey], slug: str,
              version: int, of: str) -> bytes:
    """The salt sealed with a commitment (needs the platform key: the reveal's step)."""
    try:
        opened = envelope.open_envelope(sealed.encode("ascii"), private_keys,
                                        salt_claims(slug, version, of))
        salt = bytes.fromhex(opened.plaintext.decode("ascii"))
    except (Rejection, ValueError, UnicodeError) as err:
        raise ConfigError(f"the sealed salt of {slug} v{version} {of[:20]} cannot be opened: "
                          f"{err}") from None
    if len(salt) != SALT_BYTES:
        raise ConfigError(f"the sealed salt of {slug} v{version} {of[:20]} is not "
                          f"{SALT_BYTES} bytes")
    return salt


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def commitments_path(hidden: Path) -> Path:
    return Path(hidden) / COMMITMENTS_NAME


def read_commitments(path: Path) -> dict[str, Any] | None:
    """`hidden/commitments.json`, checked for shape; None when there is none (a competition
    built before commitments existed)."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"{path}: unreadable label commitments: {err}; restore it from git "
                          "(it is written only by the competition build)") from None
    labels = data.get("labels") if isinstance(data, dict) else None
    if (not isinstance(labels, dict) or type(data.get("version")) is not int
            or not all(isinstance(v, dict) and isinstance(v.get("commitment"), str)
                       and isinstance(v.get("sealed_salt"), str)
                       and isinstance(v.get("envelope_sha256"), str)
                       for v in labels.values())):
        raise ConfigError(f"{path}: not a label commitments file (slug, version, labels: "
                          "{split: commitment, sealed_salt, envelope_sha256}); restore it "
                          "from git")
    checked: dict[str, Any] = data
    return checked


def label_version(data: Mapping[str, Any]) -> int:
    """The label version a commitments file commits to now (1 until a label correction)."""
    found = data.get("label_version", 1)
    return found if type(found) is int and found >= 1 else 1


def label_versions(data: Mapping[str, Any]) -> dict[int, dict[str, Any]]:
    """Every label version of a commitments file -> its commitments per split: the superseded
    ones (never changed after a correction replaced them) and the current one."""
    found: dict[int, dict[str, Any]] = {}
    for old in data.get("superseded") or []:
        if isinstance(old, dict) and type(old.get("label_version")) is int \
                and isinstance(old.get("labels"), dict):
            found[old["label_version"]] = old["labels"]
    found[label_version(data)] = data["labels"]
    return found


def record_label_commitment(labels_path: Path, slug: str, version: int, split: str,
                            plaintext: bytes, public_key: rsa.RSAPublicKey, *,
                            seed: str | None = None, correction: str | None = None
                            ) -> dict[str, Any]:
    """Commit to one sealed label table: add its entry to `commitments.json` beside it (the
    entries of other splits of the same version are kept; another version's are replaced).
    Called by the builder right after sealing the table at `labels_path`.

    `correction` (a label fix, `authoring.relabel`: why): the commitments become a new label
    version; the current one is first copied, unchanged, into `superseded`, so the promise
    every row scored on it recorded stays checkable (lint, `gnncb verify`)."""
    labels_path = Path(labels_path)
    salt = derived_salt(seed, slug, version, split) if seed else new_salt()
    path = commitments_path(labels_path.parent)
    current = read_commitments(path)
    if current is None or current.get("version") != version or current.get("slug") != slug:
        current = {"format": FORMAT, "slug": slug, "version": version,
                   "algorithm": ALGORITHM, "labels": {}}
    elif correction is not None:
        old = label_version(current)
        current["superseded"] = [*(current.get("superseded") or []),
                                 {"label_version": old,
                                  "labels": json.loads(json.dumps(current["labels"]))}]
        current["label_version"] = old + 1
        current["correction"] = correction
    entry = {"file": labels_path.name, "commitment": commit(salt, plaintext),
             "sealed_salt": seal_salt(salt, public_key, slug, version, f"labels:{split}"),
             "envelope_sha256": file_sha256(labels_path)}
    current["labels"][split] = entry
    write_commitments(path, current)
    return entry


def write_commitments(path: Path, data: Mapping[str, Any]) -> None:
    Path(path).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
