"""Leaderboard cases nobody can compute before submitting: a secret seed, committed in advance.

Why: seeded from the submission's digest alone, a participant computes exactly the cases their
files will be judged on, and "seed shops" (the same wrong solution with another comment scored
17/20 or 20/20). The cases of a submission are now drawn from `seed_for(secret, digest)`, an
HMAC of the digest under a per-version secret, by the same generator as before; without the
secret the seed is unpredictable, and knowing the seeds of judged submissions says nothing about
the next digest (HMAC-SHA256 is a PRF).

Trust without faith, with the existing commitment machinery (`evaluator.submission.commit`):

- the platform holds one master secret, `$GNNCB_CODE_SEED` (an Actions secret of the keyed
  `seed` job of evaluate-code.yml only: the judge job, which runs participant code, never sees
  it; it receives only the one derived seed of the submission it judges). Each board version's
  secret and salt are HMACs of the master, so raising the version gives a fresh secret and
  revealing one version's secret reveals nothing of the master or of other versions;
- before submissions open, a maintainer commits `case-seed.json` in the competition folder:
  `commit(salt, secret)` (SHA-256(salt || secret)). Every row judged on secret cases records
  that commitment, so the first such row fixes it ("launch"): lint and `gnncb verify` fail
  if the file changes afterwards;
- after the version closes, `gnncb code reveal-seed` writes the secret and its salt to
  `release/case-seed-v<N>.json`; `gnncb verify` (no key) then checks the commitment, every
  row's seed, and regenerates every judged submission's cases, comparing their number and
  content hash with what the row recorded.
"""

from __future__ import annotations

import gzip
import hashlib
import hmac
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from evaluator import settings
from evaluator.errors import ConfigError
from evaluator.submission.commit import ALGORITHM, FORMAT, commit, write_commitments

COMMITMENT_NAME = "case-seed.json"
RELEASE_DIR = "release"
FIELD = "case_commitment"  # the row's record of the commitment its cases were drawn under
SOURCE = "secret+digest"  # declared.seed_source of such a row
MIN_MASTER_CHARS = 32


def master_secret() -> bytes:
    """$GNNCB_CODE_SEED, checked: only the keyed seed job and the maintainers hold it."""
    text = settings.code_seed()
    if not text:
        raise ConfigError("no case secret: set GNNCB_CODE_SEED (the Actions secret of the "
                          "code-track seed job; maintainers keep it like the platform key)")
    if len(text) < MIN_MASTER_CHARS:
        raise ConfigError(f"GNNCB_CODE_SEED is too short to be secret (under "
                          f"{MIN_MASTER_CHARS} characters); use e.g. `python -c \"import "
                          "secrets; print(secrets.token_hex(32))\"`")
    return text.encode()


def _derive(master: bytes, what: str, slug: str, version: int) -> bytes:
    return hmac.new(master, f"{what}\x00{slug}\x00{version}".encode(), hashlib.sha256).digest()


def version_secret(master: bytes, slug: str, version: int) -> bytes:
    """The secret of one board version (revealed after it closes)."""
    return _derive(master, "code-case-secret", slug, version)


def version_salt(master: bytes, slug: str, version: int) -> bytes:
    """The commitment's salt, derived too, so re-running `commit-seed` with the same master
    reproduces the same file: only another secret changes it."""
    return _derive(master, "code-case-salt", slug, version)


def seed_for(secret: bytes, digest: str) -> int:
    """The leaderboard seed of a submission: HMAC of its digest under the version's secret
    (the same 60-bit range `cases.seed_from_digest` gives the generator)."""
    return int(hmac.new(secret, f"gnncb-codetrack|{digest}".encode(),
                        hashlib.sha256).hexdigest()[:15], 16)


def commitment_path(folder: Path) -> Path:
    return Path(folder) / COMMITMENT_NAME


def release_path(folder: Path, version: int) -> Path:
    return Path(folder) / RELEASE_DIR / f"case-seed-v{version}.json"


def write_commitment(folder: Path, master: bytes, slug: str, version: int) -> dict[str, Any]:
    """Commit to the version's secret: `case-seed.json` (commitment only; nothing secret)."""
    data = {"format": FORMAT, "slug": slug, "version": version, "algorithm": ALGORITHM,
            "commitment": commit(version_salt(master, slug, version),
                                 version_secret(master, slug, version))}
    write_commitments(commitment_path(folder), data)
    return data


def read_commitment(folder: Path) -> dict[str, Any] | None:
    """`case-seed.json`, checked for shape; None when there is none (digest-seeded board)."""
    path = commitment_path(folder)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"{path}: unreadable case-seed commitment: {err}; restore it from "
                          "git (only `gnncb code commit-seed` writes it)") from None
    if not (isinstance(data, dict) and isinstance(data.get("slug"), str)
            and type(data.get("version")) is int and isinstance(data.get("commitment"), str)):
        raise ConfigError(f"{path}: not a case-seed commitment (slug, version, commitment); "
                          "restore it from git")
    return data


def current_commitment(folder: Path, slug: str, version: int) -> str | None:
    """The commitment the board's current version draws its cases under (None: no secret
    committed for this version, so cases stay seeded by the digest alone)."""
    data = read_commitment(folder)
    if data is None or (data["slug"], data["version"]) != (slug, version):
        return None
    return str(data["commitment"])


def case_seed(folder: Path, slug: str, version: int, digest: str) -> dict[str, Any]:
    """What the keyed seed job hands the judge for one submission: its seed and the
    commitment it was drawn under. Refuses when the secret does not open the committed
    commitment (a wrong or rotated GNNCB_CODE_SEED would judge on cases nobody can check)."""
    committed = current_commitment(folder, slug, version)
    if committed is None:
        raise ConfigError(f"{commitment_path(folder)}: no case-seed commitment for {slug} "
                          f"version {version}; a maintainer runs `gnncb code commit-seed` "
                          "and commits the file before submissions open")
    master = master_secret()
    secret = version_secret(master, slug, version)
    if commit(version_salt(master, slug, version), secret) != committed:
        raise ConfigError(f"{commitment_path(folder)}: GNNCB_CODE_SEED does not match the "
                          f"committed commitment of {slug} version {version}; set the secret "
                          "the file was made with (never re-commit after launch)")
    return {"digest": digest, "seed": seed_for(secret, digest), FIELD: committed}


def reveal(folder: Path, master: bytes, slug: str, version: int) -> Path:
    """Write the version's secret and salt to `release/case-seed-v<N>.json` (after it
    closed), checked against the committed commitment first."""
    secret, salt = version_secret(master, slug, version), version_salt(master, slug, version)
    committed = read_commitment(folder)
    if committed is None or committed.get("version") != version:
        raise ConfigError(f"{commitment_path(folder)} does not commit to version {version}; "
                          "nothing to reveal")
    if commit(salt, secret) != committed["commitment"]:
        raise ConfigError(f"GNNCB_CODE_SEED does not open {commitment_path(folder)}; reveal "
                          "with the secret the commitment was made with")
    path = release_path(folder, version)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_commitments(path, {"format": FORMAT, "slug": slug, "version": version,
                             "algorithm": ALGORITHM, "secret": secret.hex(),
                             "salt": salt.hex(), "commitment": committed["commitment"]})
    return path


def read_revealed(folder: Path, version: int) -> tuple[bytes, bytes] | None:
    """(secret, salt) of a revealed version; None before its reveal."""
    path = release_path(folder, version)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return bytes.fromhex(data["secret"]), bytes.fromhex(data["salt"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ConfigError(f"{path}: not a revealed case seed (secret, salt as hex): {err}; "
                          "restore it from git") from None


def cases_sha256(case_dir: Path, problems: Iterable[str]) -> dict[str, str]:
    """Per problem, SHA-256 of its cases as stored (metadata and arguments, uncompressed: the
    gzip framing is not part of what was judged). Recorded in the row; verify recomputes it."""
    out = {}
    for pid in problems:
        h = hashlib.sha256()
        for name in (f"{pid}.jsonl.gz", f"{pid}.args.gz"):
            with gzip.open(Path(case_dir) / "cases" / name, "rb") as fh:
                h.update(name.encode() + b"\0" + fh.read() + b"\0")
        out[pid] = h.hexdigest()
    return out


def commitment_problems(folder: Path, slug: str, version: int,
                        rows: list[dict[str, Any]]) -> list[str]:
    """The commitment never changes once a row was judged under it (lint and verify)."""
    path = commitment_path(folder)
    judged = [(n, r) for n, r in enumerate(rows, 1)
              if r.get("type") == "submission" and r.get("slug") == slug
              and r.get("version") == version and isinstance(r.get(FIELD), str)]
    try:
        data = read_commitment(folder)
    except ConfigError as err:
        return [str(err)]
    if data is None:
        return [f"{path}: missing, but {len(judged)} submission(s) of {slug} version "
                f"{version} were judged on cases drawn under it; restore it from git"
                ] if judged else []
    if judged:  # after launch, every row of the version is judged under the commitment
        first = judged[0][0]
        for lineno, row in enumerate(rows, 1):
            if (lineno > first and row.get("type") == "submission"
                    and row.get("slug") == slug and row.get("version") == version
                    and not isinstance(row.get(FIELD), str)):
                return [f"ledger line {lineno} (submission {str(row.get('digest'))[:12]}): "
                        f"judged on digest-seeded cases after {slug} version {version} "
                        f"committed to a case secret (line {first} was judged under it); "
                        "remove the line and judge the files again with the secret"]
    for lineno, row in judged:
        if row[FIELD] != data["commitment"] or data["version"] != version:
            return [f"{path}: the case-seed commitment changed after launch: ledger line "
                    f"{lineno} (submission {str(row.get('digest'))[:12]}) was judged under "
                    f"{row[FIELD][:16]}..., the file now says {data['commitment'][:16]}... "
                    f"(version {data['version']}); restore it from git, or raise the board's "
                    "version for a new secret"]
    return []


def verify_cases(folder: Path, slug: str, version: int, rows: list[dict[str, Any]],
                 ledger: str = "leaderboard/ledger.jsonl") -> tuple[list[str], list[str]]:
    """(problems, notes) of `gnncb verify` for one code-track board, with no key: the
    commitment kept and, for every version revealed, every row judged on secret cases: its
    commitment opened by the revealed secret, its seed the HMAC of its digest, and its cases
    regenerated and compared (number and content hash per problem) with what it recorded."""
    import tempfile

    from evaluator.codetrack.cases import code_digest, ensure_case_set

    problems = commitment_problems(folder, slug, version, rows)
    notes: list[str] = []
    revealed: dict[int, tuple[bytes, bytes] | None] = {}
    shown = f"competitions/{slug}/{RELEASE_DIR}"
    for lineno, row in enumerate(rows, 1):
        if not (row.get("type") == "submission" and row.get("slug") == slug
                and isinstance(row.get(FIELD), str)):
            continue
        v = row.get("version")
        if not isinstance(v, int):
            continue
        if v not in revealed:
            try:
                revealed[v] = read_revealed(folder, v)
            except ConfigError as err:
                problems.append(str(err))
                revealed[v] = None
            if revealed[v] is None:
                notes.append(f"{slug} version {v}: case secret not revealed yet; its judged "
                             "cases are checked after `gnncb code reveal-seed`")
        opened = revealed[v]
        if opened is None:
            continue
        secret, salt = opened
        at = f"{ledger}, line {lineno} (submission {str(row.get('digest'))[:12]})"
        if commit(salt, secret) != row[FIELD]:
            problems.append(f"{shown}/case-seed-v{v}.json: the revealed secret does not open "
                            f"the commitment {at} was judged under")
            continue
        if row.get("seed") != seed_for(secret, str(row.get("digest"))):
            problems.append(f"{at}: seed {row.get('seed')} is not the one the revealed secret "
                            f"gives its digest ({seed_for(secret, str(row.get('digest')))})")
            continue
        if row.get("generator") != code_digest():
            notes.append(f"{at}: judged by another version of the case generator; its cases "
                         "are not regenerated (the seed was checked)")
            continue
        per = row.get("per_problem") or {}
        per_cell = int((row.get("declared") or {}).get("per_cell", 0))
        with tempfile.TemporaryDirectory(prefix="gnncb-verify-cases-") as tmp:
            case_set = ensure_case_set(Path(tmp) / "set", plan="paper", base_seed=row["seed"],
                                       per_cell=per_cell, problems=sorted(per), jobs=1)
            hashes = cases_sha256(case_set.path, sorted(per))
        recorded = row.get("cases_sha256") or {}
        for pid in sorted(per):
            count = case_set.manifest["problems"][pid]["cases"]
            if per[pid].get("cases") != count:
                problems.append(f"{at}: problem {pid} records {per[pid].get('cases')} judged "
                                f"cases, the regenerated set has {count}")
            elif recorded.get(pid) != hashes[pid]:
                problems.append(f"{at}: problem {pid}'s recorded cases hash differs from the "
                                "cases regenerated from the revealed secret")
    return problems, notes
