"""The evidence a reveal publishes: labels, salts and every accepted submission's predictions.

Why: after the reveal a reader should be able to recompute every number on the boards without
any key. The reveal (which holds the platform key) decrypts the hidden label tables and the
stored envelope of every accepted (not withdrawn) submission of the version, opens the salts
sealed with their commitments, and writes them into `leaderboard/releases/<slug>/v<version>/`
with a machine-readable `index.json` and, per submission and split, its per-item results
(`items/<split>/<digest>.csv`: true and predicted value of each id, derived from the two).
Each file is checkable on its own: its salted SHA-256 must
equal the commitment published long before (`hidden/commitments.json` for labels, the ledger
row for predictions). The keyed workflow job hands the folder to the unkeyed one, which checks
every commitment before it commits anything (`check_release`).

Rows recorded before commitments existed are released too (their predictions are what they
were scored on: the envelope's digest is the row's identity), marked `"commitment": null`.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator.competition.spec import CompetitionSpec
from evaluator.errors import ConfigError, Rejection
from evaluator.ledger.store import SUBMISSION, active_submissions
from evaluator.submission import commit, envelope

FORMAT = 1
INDEX = "index.json"


def release_dir(root: Path, slug: str, version: int) -> Path:
    return Path(root) / "leaderboard" / "releases" / slug / f"v{version}"


def released_submissions(spec: CompetitionSpec, rows: list[dict[str, Any]]
                         ) -> list[dict[str, Any]]:
    """The accepted (not withdrawn) submission rows of the version, in ledger order: what a
    release holds (the rules say every accepted submission is published at the reveal)."""
    return [r for r in active_submissions(rows)
            if r["slug"] == spec.slug and r["version"] == spec.version]


def build_release(root: Path, spec: CompetitionSpec, rows: list[dict[str, Any]],
                  keys: Mapping[str, rsa.RSAPrivateKey], *, at: str) -> dict[str, bytes]:
    """Every file of the release (relative path -> bytes), `index.json` included. Needs the
    platform key; nothing is written."""
    root = Path(root)
    folder = root / "competitions" / spec.slug
    committed = commit.read_commitments(commit.commitments_path(folder / "hidden"))
    if committed is not None and committed.get("version") != spec.version:
        committed = None
    files: dict[str, bytes] = {}
    labels: dict[str, Any] = {}
    for name, split in spec.splits.items():
        path = folder / split.labels
        plain = envelope.open_labels(path.read_bytes(), keys, spec.slug, spec.version, name,
                                     source=str(path))
        entry = (committed or {}).get("labels", {}).get(name)
        salt = (commit.open_salt(entry["sealed_salt"], keys, spec.slug, spec.version,
                                 f"labels:{name}") if entry else None)
        if entry and salt is not None and commit.commit(salt, plain) != entry["commitment"]:
            raise ConfigError(f"{path}: the labels do not match their commitment; the table "
                              "changed after launch and nothing is released (gnncb competition "
                              "lint says more)")
        rel = f"labels/{name}.csv"
        files[rel] = plain
        labels[name] = {"file": rel, "sha256": hashlib.sha256(plain).hexdigest(),
                        "salt": salt.hex() if salt is not None else None,
                        "commitment": entry["commitment"] if entry else None}
    submissions = []
    stored = root / "leaderboard" / "envelopes"
    for row in released_submissions(spec, rows):
        digest = row["digest"]
        path = stored / f"{digest}.jwe"
        if not path.is_file():
            submissions.append({"digest": digest, "participant": row["participant"],
                                "file": None, "missing": "no stored envelope"})
            continue
        try:
            opened = envelope.open_envelope(path.read_bytes(), keys, envelope.prediction_claims(
                spec.slug, spec.version, row["participant"].lower()))
        except Rejection as err:
            raise ConfigError(f"{path}: the stored envelope of {digest[:12]} cannot be "
                              f"opened: {err}") from None
        if opened.digest != digest:
            raise ConfigError(f"{path}: does not hash to its name; restore it from git")
        salt = (commit.open_salt(row["sealed_salt"], keys, spec.slug, spec.version, digest)
                if row.get("sealed_salt") else None)
        rel = f"predictions/{digest}.csv"
        files[rel] = opened.plaintext
        for name, plain in _label_plaintexts(files, labels).items():
            files[f"items/{name}/{digest}.csv"] = item_table(spec, plain, opened.plaintext)
        submissions.append({"digest": digest, "participant": row["participant"], "file": rel,
                            "sha256": hashlib.sha256(opened.plaintext).hexdigest(),
                            "salt": salt.hex() if salt is not None else None,
                            "commitment": row.get("commitment")})
    index = {"format": FORMAT, "slug": spec.slug, "version": spec.version, "revealed_at": at,
             "algorithm": commit.ALGORITHM, "labels": labels, "submissions": submissions}
    files[INDEX] = (json.dumps(index, indent=2, sort_keys=True) + "\n").encode("utf-8")
    return files


def _label_plaintexts(files: Mapping[str, bytes], labels: Mapping[str, Any]
                      ) -> dict[str, bytes]:
    return {name: files[entry["file"]] for name, entry in labels.items()
            if isinstance(entry, dict) and entry.get("file") in files}


def item_table(spec: CompetitionSpec, labels: bytes, predictions: bytes) -> bytes:
    """Per-item results of one submission on one split: each labelled id with its part
    (where the competition has parts), the true and the predicted value of every target, in
    the label table's order. Derived from the two released files (`gnncb verify` rebuilds it)."""
    import io

    import pandas as pd

    from evaluator.competition.spec import PART_COLUMN

    truth = pd.read_csv(io.BytesIO(labels), dtype=str, keep_default_na=False)
    pred = pd.read_csv(io.BytesIO(predictions), dtype=str, keep_default_na=False)
    targets = [t.name for t in spec.targets if t.name in truth.columns]
    keep = [c for c in [spec.id_column, PART_COLUMN] if c in truth.columns]
    table = truth[keep + targets].rename(columns={t: f"{t}_true" for t in targets})
    if PART_COLUMN in table.columns:
        table = table.rename(columns={PART_COLUMN: "part"})
    shown = pred[[spec.id_column, *[t for t in targets if t in pred.columns]]]
    table = table.merge(shown.rename(columns={t: f"{t}_predicted" for t in targets}),
                        on=spec.id_column, how="left", sort=False)
    text: str = table.to_csv(index=False, lineterminator="\n")
    return text.encode("utf-8")


def index_sha256(files: Mapping[str, bytes]) -> str:
    return hashlib.sha256(files[INDEX]).hexdigest()


def write_release(target: Path, files: Mapping[str, bytes]) -> list[Path]:
    """Write the release folder (replacing an earlier one of the same version)."""
    target = Path(target)
    if target.exists():
        shutil.rmtree(target)
    written = []
    for rel, data in sorted(files.items()):
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written


def read_release(folder: Path) -> dict[str, bytes]:
    """A release folder's files (relative path -> bytes), refusing links and stray files."""
    folder = Path(folder)
    out: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            raise ConfigError(f"{path}: a release holds no symbolic links")
        if path.is_file():
            out[path.relative_to(folder).as_posix()] = path.read_bytes()
    if INDEX not in out:
        raise ConfigError(f"{folder}: no {INDEX}; not a release folder")
    return out


def load_index(files: Mapping[str, bytes], where: str) -> dict[str, Any]:
    try:
        index = json.loads(files[INDEX])
    except ValueError as err:
        raise ConfigError(f"{where}/{INDEX}: not JSON: {err}") from None
    if not isinstance(index, dict) or not isinstance(index.get("labels"), dict) \
            or not isinstance(index.get("submissions"), list):
        raise ConfigError(f"{where}/{INDEX}: not a release index (labels, submissions)")
    return index


def commitment_problems(files: Mapping[str, bytes], where: str, spec: CompetitionSpec,
                        committed: Mapping[str, Any] | None,
                        rows: list[dict[str, Any]]) -> list[str]:
    """Every released file against its public commitment (no key needed): each label table
    against `hidden/commitments.json`, each predictions file against its ledger row; and the
    release holds exactly the accepted submissions of the version."""
    index = load_index(files, where)
    problems = []
    if index.get("slug") != spec.slug or index.get("version") != spec.version:
        problems.append(f"{where}/{INDEX}: is for {index.get('slug')} v{index.get('version')}, "
                        f"not {spec.slug} v{spec.version}")
    promised = (committed or {}).get("labels", {}) if (
        committed and committed.get("version") == spec.version) else {}
    for name in spec.splits:
        entry = index["labels"].get(name)
        if not isinstance(entry, dict) or entry.get("file") not in files:
            problems.append(f"{where}: the label table of split {name!r} is not released")
            continue
        data = files[entry["file"]]
        want = promised.get(name, {}).get("commitment")
        if want is None:
            continue  # built before commitments: nothing was promised
        if _committed(entry.get("salt"), data) != want:
            problems.append(f"{where}/{entry['file']}: the released labels of split {name!r} "
                            f"do not match the commitment published at build "
                            f"(competitions/{spec.slug}/hidden/{commit.COMMITMENTS_NAME}: "
                            f"{want[:16]}...)")
    by_digest = {r["digest"]: (n, r) for n, r in enumerate(rows, 1)
                 if r["type"] == SUBMISSION}
    listed = set()
    for item in index["submissions"]:
        if not isinstance(item, dict):
            item = {}
        digest = str(item.get("digest"))
        if digest not in by_digest:
            problems.append(f"{where}/{INDEX}: lists {str(digest)[:12]}, which is not a "
                            "submission in the ledger")
            continue
        listed.add(digest)
        lineno, row = by_digest[digest]
        rel = item.get("file")
        if rel is None:
            continue  # no stored envelope: listed as missing
        if rel not in files:
            problems.append(f"{where}: {rel} (submission {digest[:12]}) is listed but missing")
            continue
        want = row.get("commitment")
        if want is not None and _committed(item.get("salt"), files[rel]) != want:
            problems.append(f"{where}/{rel}: the released predictions of submission "
                            f"{digest[:12]} do not match the commitment in ledger line "
                            f"{lineno}")
    expected = {r["digest"] for r in released_submissions(spec, rows)}
    if expected - listed:
        problems.append(f"{where}/{INDEX}: {len(expected - listed)} accepted submission(s) "
                        f"not released (e.g. {sorted(expected - listed)[0][:12]})")
    return problems


def _committed(salt: object, data: bytes) -> str | None:
    if not isinstance(salt, str):
        return None
    try:
        return commit.commit(bytes.fromhex(salt), data)
    except ValueError:
        return None
