"""The submission envelope: JWE compact serialization (RFC 7516), RSA-OAEP-256 + A256GCM.

Why JWE and not a home-made format: any JOSE library in any language can make a valid file, so
participants never need our package; GCM authenticates the protected header, so the claims
(competition, version, participant, purpose) cannot be altered, and a ciphertext copied from
another participant's public pull request fails the participant check instead of copying a score.
Only these primitives come from `cryptography`; the compact framing is a few lines and is tested
against two independent JOSE implementations.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from evaluator.errors import ConfigError, Rejection
from evaluator.submission.keys import b64url, b64url_decode, thumbprint
from evaluator.util import jsonsafe

if TYPE_CHECKING:  # only an annotation: the spec module loads SciPy
    from evaluator.competition.spec import CompetitionSpec

ALG = "RSA-OAEP-256"
ENC = "A256GCM"
PURPOSE_PREDICTIONS = "predictions"
PURPOSE_LABELS = "hidden-labels"
PURPOSE_SCORES = "sealed-scores"
# Sealed scores are padded to one length per competition (`scores_size`), so the ciphertext
# length cannot tell a round score (1.0, a perfect private part) from a long one
# (0.9230769230769231). Padding to a multiple of 1 KiB did not: six scores of a perfect part
# took 925 bytes (one block), of an imperfect one 1,190 (two). Per score: the score and its
# interval record (two bounds, method, counts, unit, cluster name) take under 300 bytes plus
# the score's name twice; the budget leaves room above that.
SCORES_PER_SCORE = 400
SCORES_BASE = 64
# A header bigger than this is not a header we made; refuse before parsing JSON.
MAX_HEADER_BYTES = 4096
HEADER_DEPTH = 4  # our header is flat; JOSE allows objects (e.g. "jwk"), never deep ones
_OAEP = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)


@dataclass(frozen=True)
class Opened:
    plaintext: bytes
    header: dict[str, Any]
    digest: str  # sha256 of the compact serialization: the submission's identity in the ledger


def digest(compact: bytes) -> str:
    return hashlib.sha256(compact.strip()).hexdigest()


def seal(plaintext: bytes, public_key: rsa.RSAPublicKey, claims: Mapping[str, Any]) -> bytes:
    """Encrypt to the compact form; `claims` go into the authenticated protected header."""
    reserved = {"alg", "enc", "kid", "zip", "crit"} & set(claims)
    if reserved:
        raise ValueError(f"claims may not set {sorted(reserved)}")
    header = {"alg": ALG, "enc": ENC, "kid": thumbprint(public_key), **claims}
    header_b64 = b64url(json.dumps(header, separators=(",", ":"), sort_keys=True).encode())
    cek, iv = os.urandom(32), os.urandom(12)
    sealed = AESGCM(cek).encrypt(iv, plaintext, header_b64.encode("ascii"))
    ciphertext, tag = sealed[:-16], sealed[-16:]
    parts = [header_b64, b64url(public_key.encrypt(cek, _OAEP)), b64url(iv),
             b64url(ciphertext), b64url(tag)]
    return ".".join(parts).encode("ascii")


def read_header(compact: bytes) -> dict[str, Any]:
    """The protected header, unauthenticated (for routing only, e.g. picking the key)."""
    text = _ascii(compact)
    parts = text.split(b".")
    if len(parts) != 5:
        raise Rejection(
            f"not a JWE compact serialization: expected 5 dot-separated parts, found {len(parts)}"
            + (" (this looks like a plaintext CSV: run `gnncb encrypt` first)"
               if b"," in text[:200] else ""), code="malformed-envelope")
    if len(parts[0]) > MAX_HEADER_BYTES:
        raise Rejection("JWE protected header is too large", code="malformed-envelope")
    try:
        decoded = b64url_decode(parts[0])
    except ValueError as err:
        raise Rejection(f"JWE protected header is not base64url ({err})",
                        code="malformed-envelope") from None
    try:
        header = jsonsafe.loads_bytes(decoded, max_depth=HEADER_DEPTH)
    except jsonsafe.UntrustedJSON as err:
        raise Rejection(f"JWE protected header is not acceptable JSON: {err}",
                        code="malformed-envelope") from None
    if not isinstance(header, dict):
        raise Rejection("JWE protected header is not a JSON object", code="malformed-envelope")
    wrong = sorted(name for name in ("alg", "enc", "kid") if not isinstance(header.get(name), str))
    if wrong:
        raise Rejection(f"JWE protected header: {', '.join(wrong)} must be strings",
                        code="malformed-envelope")
    return header


def _ascii(compact: bytes) -> bytes:
    """The compact serialization, stripped, checked to be ASCII; kept as bytes (decoding a
    15 MB envelope to text and back cost more than the AES-GCM decryption)."""
    stripped = compact.strip()
    if not stripped:
        raise Rejection("the encrypted file is empty", code="empty")
    if not stripped.isascii():
        raise Rejection("not a JWE compact serialization: the file contains non-ASCII bytes",
                        code="malformed-envelope")
    return stripped


def open_envelope(compact: bytes, private_keys: Mapping[str, rsa.RSAPrivateKey],
                  expected: Mapping[str, Any]) -> Opened:
    """Decrypt and authenticate; every `expected` claim must equal the header's value.

    Claims are compared only after GCM has authenticated the header, so a failure message never
    confirms anything about a forged header.
    """
    header = read_header(compact)
    if header.get("alg") != ALG or header.get("enc") != ENC:
        raise Rejection(f"unsupported JWE algorithms alg={header.get('alg')!r} "
                        f"enc={header.get('enc')!r}; use alg={ALG} enc={ENC}",
                        code="malformed-envelope")
    if "zip" in header or "crit" in header:
        raise Rejection("JWE header must not use 'zip' or 'crit'", code="malformed-envelope")
    kid: str = header["kid"]  # read_header checked that it is a string
    if kid not in private_keys:
        raise Rejection(f"encrypted for key {kid!r}, which this competition does not hold; "
                        f"encrypt with the public key in keys/ (kid {', '.join(private_keys)})",
                        code="wrong-key")
    header_b64, ek_b64, iv_b64, ct_b64, tag_b64 = _ascii(compact).split(b".")
    try:
        ek, iv, ct, tag = (b64url_decode(p) for p in (ek_b64, iv_b64, ct_b64, tag_b64))
    except ValueError as err:
        raise Rejection(f"JWE part is not base64url ({err}); commit the output of the "
                        "encryption unmodified", code="malformed-envelope") from None
    if len(iv) != 12 or len(tag) != 16:
        raise Rejection("JWE IV or tag has the wrong length for A256GCM",
                        code="malformed-envelope")
    try:
        cek = private_keys[kid].decrypt(ek, _OAEP)
    except ValueError:
        raise Rejection("cannot decrypt: the key wrap does not match this key "
                        "(wrong key or tampered file)", code="wrong-key") from None
    if len(cek) != 32:
        raise Rejection("cannot decrypt: wrapped content key is not 256 bits",
                        code="malformed-envelope")
    try:
        plaintext = AESGCM(cek).decrypt(iv, ct + tag, header_b64)
    except InvalidTag:
        raise Rejection("cannot decrypt: authentication failed (file truncated or tampered)",
                        code="tampered") from None
    for name, want in expected.items():
        got = header.get(name)
        # the JSON type too: `true` and `1.0` equal 1 in Python, but are not the claim 1
        if type(got) is not type(want) or got != want:
            raise Rejection(f"envelope claim {name!r} is {got!r}, expected {want!r}; "
                            f"{CLAIM_ADVICE.get(name, 'encrypt again')}",
                            code="claim-mismatch")
    return Opened(plaintext=plaintext, header=header, digest=digest(compact))


# What to do about each mismatched claim: the flag that sets it, or why it cannot be set.
CLAIM_ADVICE = {
    "participant": "encrypt again with --participant set to your GitHub login",
    "competition": "encrypt again with --competition set to the competition you submit to",
    "competition_version": ("the competition's competition.yaml has a newer version: update "
                            "your checkout (git pull), re-check your predictions against the "
                            "current README and encrypt again; gnncb encrypt reads the version "
                            "from competition.yaml"),
    "purpose": "this is not a predictions envelope; encrypt your predictions.csv with "
               "gnncb encrypt",
}


def prediction_claims(slug: str, version: int, participant: str) -> dict[str, Any]:
    return {"purpose": PURPOSE_PREDICTIONS, "competition": slug,
            "competition_version": version, "participant": participant}


def label_claims(slug: str, version: int, split: str) -> dict[str, Any]:
    return {"purpose": PURPOSE_LABELS, "competition": slug,
            "competition_version": version, "split": split}


def open_labels(compact: bytes, private_keys: Mapping[str, rsa.RSAPrivateKey],
                slug: str, version: int, split: str, *, source: str) -> bytes:
    """Hidden labels use the same envelope; a failure is the platform's fault (exit 2)."""
    try:
        return open_envelope(compact, private_keys, label_claims(slug, version, split)).plaintext
    except Rejection as err:
        raise ConfigError(f"{source}: cannot open hidden labels: {_maintainer_advice(err)}"
                          ) from None


def _maintainer_advice(err: Rejection) -> str:
    """The participant-facing text of a Rejection tells people to re-encrypt; whoever cannot
    open hidden labels is a maintainer (or a workflow's secret), who needs other advice."""
    if err.code == "wrong-key":
        return (f"{err}. Maintainers: give the private key these labels were sealed to "
                "(--private-key or $GNNCB_PRIVATE_KEY; several PEMs may be concatenated), or, "
                "after a key rotation, re-seal them to the new key with `gnncb keys reseal`")
    if err.code == "claim-mismatch":
        return (f"{err}. Maintainers: the labels were sealed for another competition, version "
                "or split; after raising `version` in competition.yaml run `gnncb keys reseal` "
                "to re-bind them, or rebuild the competition with `gnncb competition build`")
    return str(err)


def score_claims(slug: str, version: int, submission: str) -> dict[str, Any]:
    """Claims of a ledger row's sealed private-part scores: bound to the row's digest, so a
    sealed blob cannot be moved to another row, and never usable as predictions or labels."""
    return {"purpose": PURPOSE_SCORES, "competition": slug, "competition_version": version,
            "submission": submission}


def scores_size(spec: CompetitionSpec) -> int:
    """The one length (bytes of JSON, before sealing) every sealed-scores blob of `spec`'s
    competition is padded to: a budget per metric and derived score, plus the names that
    appear in the content (score names twice, derived scores' parts, the cluster name)."""
    names = [*spec.metrics, *spec.derived]
    cluster = max((len(s.clusters.name) for s in spec.splits.values() if s.clusters),
                  default=0)
    parts = sum(len(ref) + 3 for derived in spec.derived.values() for ref in derived.of)
    return SCORES_BASE + parts + sum(SCORES_PER_SCORE + 2 * len(n) + cluster for n in names)


def seal_scores(content: Mapping[str, Any], public_key: rsa.RSAPublicKey, slug: str,
                version: int, submission: str, *, size: int) -> str:
    """JSON `content` (e.g. {"private": {...}}) sealed to the platform key, padded to `size`
    bytes (`scores_size(spec)`), so every blob of a competition has the same length."""
    data = json.dumps(content, sort_keys=True, separators=(",", ":")).encode()
    if len(data) > size:  # never a longer blob: its length would say something
        raise ConfigError(f"{slug}: sealed scores of {submission[:12]} take {len(data):,} "
                          f"bytes, over the competition's fixed {size:,}; raise "
                          "envelope.SCORES_PER_SCORE (a platform bug, not the submission's)")
    data += b" " * (size - len(data))
    return seal(data, public_key, score_claims(slug, version, submission)).decode("ascii")


def open_scores(compact: str, private_keys: Mapping[str, rsa.RSAPrivateKey], slug: str,
                version: int, submission: str) -> dict[str, Any]:
    """Unseal a ledger row's private-part scores (maintainer-only: needs the private key)."""
    try:
        opened = open_envelope(compact.encode("ascii"), private_keys,
                               score_claims(slug, version, submission))
        content = json.loads(opened.plaintext)
    except (Rejection, ValueError, UnicodeEncodeError) as err:
        raise ConfigError(f"sealed scores of submission {submission[:12]} cannot be opened: "
                          f"{err}") from None
    if not isinstance(content, dict):
        raise ConfigError(f"sealed scores of submission {submission[:12]} are not an object")
    return content
