"""The JWE envelope: round trips, interoperability with independent JOSE libraries, and every
way a file can be wrong."""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.errors import ConfigError, Rejection
from evaluator.submission import envelope, keys

CLAIMS = envelope.prediction_claims("demo-comp", 1, "alice")
DATA = b"id,label\n1,0\n2,1\n"


def test_round_trip_and_digest(keypair):
    sealed = envelope.seal(DATA, keypair["public"], CLAIMS)
    opened = envelope.open_envelope(sealed, keypair["private"], CLAIMS)
    assert opened.plaintext == DATA
    assert opened.header["kid"] == keypair["kid"]
    assert opened.header["alg"] == "RSA-OAEP-256" and opened.header["enc"] == "A256GCM"
    assert opened.digest == envelope.digest(sealed)
    # randomized: the same plaintext seals differently each time
    assert envelope.seal(DATA, keypair["public"], CLAIMS) != sealed


def _jwk_pair(keypair):
    jwk = pytest.importorskip("jwcrypto.jwk")
    pem_priv = keypair["private_path"].read_bytes()
    return jwk.JWK.from_pem(pem_priv), jwk.JWK.from_pem(keypair["public_path"].read_bytes())


def test_jwcrypto_decrypts_ours(keypair):
    jwe = pytest.importorskip("jwcrypto.jwe")
    private, _ = _jwk_pair(keypair)
    sealed = envelope.seal(DATA, keypair["public"], CLAIMS)
    token = jwe.JWE()
    token.deserialize(sealed.decode(), key=private)
    assert token.payload == DATA
    assert json.loads(token.objects["protected"])["participant"] == "alice"


def _jwcrypto_seal(keypair, claims) -> bytes:
    jwe = pytest.importorskip("jwcrypto.jwe")
    _, public = _jwk_pair(keypair)
    header = {"alg": "RSA-OAEP-256", "enc": "A256GCM", "kid": keypair["kid"], **claims}
    token = jwe.JWE(DATA, protected=json.dumps(header))
    token.add_recipient(public)
    return token.serialize(compact=True).encode()


def test_ours_decrypts_jwcrypto(keypair):
    opened = envelope.open_envelope(_jwcrypto_seal(keypair, CLAIMS), keypair["private"], CLAIMS)
    assert opened.plaintext == DATA


def test_jwcrypto_file_for_another_participant_is_rejected(keypair):
    sealed = _jwcrypto_seal(keypair, envelope.prediction_claims("demo-comp", 1, "mallory"))
    with pytest.raises(Rejection, match="participant"):
        envelope.open_envelope(sealed, keypair["private"], CLAIMS)


def test_joserfc_round_trip_both_ways(keypair):
    joserfc_jwe = pytest.importorskip("joserfc.jwe")
    from joserfc.jwk import RSAKey

    private = RSAKey.import_key(keypair["private_path"].read_bytes())
    ours = envelope.seal(DATA, keypair["public"], CLAIMS)
    # joserfc wants non-default algorithms and private header names declared
    registry = joserfc_jwe.JWERegistry(algorithms=["RSA-OAEP-256", "A256GCM"],
                                       strict_check_header=False)
    assert joserfc_jwe.decrypt_compact(ours, private, registry=registry).plaintext == DATA
    header = {"alg": "RSA-OAEP-256", "enc": "A256GCM", "kid": keypair["kid"], **CLAIMS}
    theirs = joserfc_jwe.encrypt_compact(header, DATA, RSAKey.import_key(
        keypair["public_path"].read_bytes()), registry=registry)
    assert envelope.open_envelope(theirs.encode() if isinstance(theirs, str) else theirs,
                                  keypair["private"], CLAIMS).plaintext == DATA


@pytest.mark.parametrize("claim,value", [("participant", "bob"), ("competition", "other"),
                                         ("competition_version", 2),
                                         ("purpose", "hidden-labels")])
def test_claim_mismatch_rejected(keypair, claim, value):
    sealed = envelope.seal(DATA, keypair["public"], {**CLAIMS, claim: value})
    with pytest.raises(Rejection) as err:
        envelope.open_envelope(sealed, keypair["private"], CLAIMS)
    assert err.value.code == "claim-mismatch" and claim in str(err.value)


def _flip(sealed: bytes, part: int) -> bytes:
    parts = sealed.split(b".")
    p = bytearray(parts[part])
    p[len(p) // 2] = ord("A") if p[len(p) // 2] != ord("A") else ord("B")
    parts[part] = bytes(p)
    return b".".join(parts)


@pytest.mark.parametrize("part", [2, 3, 4])
def test_tampering_is_detected(keypair, part):
    sealed = envelope.seal(DATA * 20, keypair["public"], CLAIMS)
    with pytest.raises(Rejection):
        envelope.open_envelope(_flip(sealed, part), keypair["private"], CLAIMS)


def test_tampered_header_claim_fails_authentication(keypair):
    """Re-labelling a copied envelope (editing the participant claim) breaks the GCM tag."""
    sealed = envelope.seal(DATA, keypair["public"], envelope.prediction_claims("demo-comp", 1,
                                                                               "bob"))
    header = envelope.read_header(sealed)
    header["participant"] = "alice"
    forged = keys.b64url(json.dumps(header).encode()).encode() + sealed[sealed.index(b"."):]
    with pytest.raises(Rejection) as err:
        envelope.open_envelope(forged, keypair["private"], CLAIMS)
    assert err.value.code == "tampered"


def test_truncated(keypair):
    sealed = envelope.seal(DATA, keypair["public"], CLAIMS)
    with pytest.raises(Rejection):
        envelope.open_envelope(sealed[: len(sealed) - 10], keypair["private"], CLAIMS)


def test_wrong_key(keypair, tmp_path):
    other = keys.generate(tmp_path / "other", bits=3072)
    other_public = keys.load_public_key((tmp_path / "other" / "public.pem").read_bytes())
    sealed = envelope.seal(DATA, other_public, CLAIMS)
    with pytest.raises(Rejection) as err:
        envelope.open_envelope(sealed, keypair["private"], CLAIMS)
    assert err.value.code == "wrong-key" and other in str(err.value)


def test_rotation_picks_key_by_kid(keypair, tmp_path):
    keys.generate(tmp_path / "new", bits=3072)
    both = {**keypair["private"], **keys.load_private_keys(
        (tmp_path / "new" / "private.pem").read_text())}
    new_public = keys.load_public_key((tmp_path / "new" / "public.pem").read_bytes())
    for public in (keypair["public"], new_public):
        assert envelope.open_envelope(envelope.seal(DATA, public, CLAIMS), both,
                                      CLAIMS).plaintext == DATA


@pytest.mark.parametrize("blob,code", [
    (b"", "empty"),
    (b"   \n", "empty"),
    (b"id,label\n1,0\n", "malformed-envelope"),
    (b"a.b.c.d", "malformed-envelope"),
    (b"!!!.b.c.d.e", "malformed-envelope"),
    (keys.b64url(b"[1,2]").encode() + b".a.b.c.d", "malformed-envelope"),
    (b"\xff\xfe.a.b.c.d", "malformed-envelope"),
])
def test_malformed_inputs(keypair, blob, code):
    with pytest.raises(Rejection) as err:
        envelope.open_envelope(blob, keypair["private"], CLAIMS)
    assert err.value.code == code


def test_plaintext_csv_gets_a_hint(keypair):
    with pytest.raises(Rejection, match="gnncb encrypt"):
        envelope.open_envelope(b"id,label\n1,0\n2,1\n", keypair["private"], CLAIMS)


@pytest.mark.parametrize("header", [
    {"alg": "dir", "enc": "A256GCM"},
    {"alg": "RSA-OAEP-256", "enc": "A128CBC-HS256"},
    {"alg": "RSA1_5", "enc": "A256GCM"},
])
def test_other_algorithms_refused(keypair, header):
    forged = keys.b64url(json.dumps({**header, "kid": keypair["kid"]}).encode()) + ".a.b.c.d"
    with pytest.raises(Rejection, match="unsupported JWE algorithms"):
        envelope.open_envelope(forged.encode(), keypair["private"], CLAIMS)


def test_zip_header_refused(keypair):
    forged = keys.b64url(json.dumps({"alg": "RSA-OAEP-256", "enc": "A256GCM", "zip": "DEF",
                                     "kid": keypair["kid"]}).encode()) + ".a.b.c.d"
    with pytest.raises(Rejection, match="zip"):
        envelope.open_envelope(forged.encode(), keypair["private"], CLAIMS)


def test_small_rsa_keys_refused():
    small = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = small.public_key().public_bytes(serialization.Encoding.PEM,
                                          serialization.PublicFormat.SubjectPublicKeyInfo)
    with pytest.raises(ConfigError, match="3072"):
        keys.load_public_key(pem)


def test_thumbprint_matches_jwcrypto(keypair):
    jwk = pytest.importorskip("jwcrypto.jwk")
    assert jwk.JWK.from_pem(keypair["public_path"].read_bytes()).thumbprint() == keypair["kid"]


def test_reserved_claims_cannot_be_overridden(keypair):
    with pytest.raises(ValueError):
        envelope.seal(DATA, keypair["public"], {"alg": "none"})


def _reference_b64url_decode(text: str) -> bytes:
    """RFC 4648 section 3.5 without padding, canonical, written plainly as the oracle: every
    character in the base64url alphabet, no length of 1 mod 4, zero unused bits at the end."""
    import base64
    import string

    alphabet = string.ascii_uppercase + string.ascii_lowercase + string.digits + "-_"
    if any(c not in alphabet for c in text) or len(text) % 4 == 1:
        raise ValueError("not base64url")
    unused = {2: 0b1111, 3: 0b11}.get(len(text) % 4)
    if unused and alphabet.index(text[-1]) & unused:
        raise ValueError("not canonical")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@settings(max_examples=500, deadline=None)
@given(st.one_of(
    st.binary(max_size=64).map(lambda b: keys.b64url(b)),  # valid encodings
    st.text(alphabet="ABCDab01-_+/=? \n\u00e9", max_size=12),  # near misses
    st.binary(max_size=16).map(lambda b: keys.b64url(b) + "A"),  # wrong length or bits
))
def test_b64url_decode_accepts_and_decodes_exactly_what_the_rfc_allows(text):
    try:
        expected: bytes | None = _reference_b64url_decode(text)
    except ValueError:
        expected = None
    raw = text.encode("utf-8")  # the envelope parts arrive as bytes
    if expected is None:
        with pytest.raises(ValueError):
            keys.b64url_decode(text)
        with pytest.raises(ValueError):
            keys.b64url_decode(raw)
    else:
        assert keys.b64url_decode(text) == keys.b64url_decode(raw) == expected
