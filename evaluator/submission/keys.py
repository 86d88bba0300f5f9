"""RSA key pairs: generation, loading and RFC 7638 thumbprints (the JWE `kid`).

Why thumbprints: a `kid` derived from the public key itself needs no registry, and lets the
evaluator hold several private keys during a rotation and pick the right one per envelope.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator import settings
from evaluator.errors import ConfigError

MIN_RSA_BITS = 3072
_PEM_BLOCK = re.compile(
    r"-----BEGIN ([A-Z ]*PRIVATE KEY)-----.+?-----END \1-----", re.DOTALL
)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


_B64URL_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


_TO_BASE64 = bytes.maketrans(b"-_", b"+/")

# In a 2- or 3-character final group, the last character carries 4 or 2 unused low bits.
_UNUSED_BITS = {2: 0b1111, 3: 0b11}


def b64url_decode(text: str | bytes) -> bytes:
    """Strict, canonical base64url without padding (RFC 7515 section 2 and RFC 4648 section
    3.5); C-speed on large payloads.

    Canonical means the unused low bits of the last character are zero: otherwise one byte
    string has several encodings, and the same envelope re-encoded would get a new digest (the
    ledger's identity of a submission) and be counted twice. The alphabet is checked by
    binascii's strict mode after mapping base64url onto base64 ('+', '/' and '=' are refused
    first, so only '-' and '_' can become them): one pass over a 15 MB envelope part instead of
    a separate validating pass.
    """
    # (a non-ASCII character becomes '?', and non-ASCII bytes stay as they are: both refused)
    raw = text if isinstance(text, bytes) else text.encode("ascii", errors="replace")
    if len(raw) % 4 == 1 or b"+" in raw or b"/" in raw or b"=" in raw:
        raise ValueError("not base64url")
    unused = _UNUSED_BITS.get(len(raw) % 4)
    if unused and _B64URL_ALPHABET.index(raw[-1:]) & unused:  # ValueError if not base64url
        raise ValueError("not canonical base64url (stray bits in the last character)")
    try:
        return binascii.a2b_base64(raw.translate(_TO_BASE64) + b"=" * (-len(raw) % 4),
                                   strict_mode=True)
    except binascii.Error:
        raise ValueError("not base64url") from None


def _int_bytes(n: int) -> bytes:
    return n.to_bytes((n.bit_length() + 7) // 8 or 1, "big")


def public_jwk(key: rsa.RSAPublicKey) -> dict[str, str]:
    nums = key.public_numbers()
    return {"e": b64url(_int_bytes(nums.e)), "kty": "RSA", "n": b64url(_int_bytes(nums.n))}


def thumbprint(key: rsa.RSAPublicKey) -> str:
    """RFC 7638 SHA-256 thumbprint: required members, lexicographic order, no whitespace."""
    canonical = json.dumps(public_jwk(key), sort_keys=True, separators=(",", ":"))
    return b64url(hashlib.sha256(canonical.encode("ascii")).digest())


def _check_size(key: rsa.RSAPublicKey | rsa.RSAPrivateKey, source: str) -> None:
    if key.key_size < MIN_RSA_BITS:
        raise ConfigError(f"{source}: RSA key has {key.key_size} bits; at least "
                          f"{MIN_RSA_BITS} are required")


def load_public_key(data: bytes, *, source: str = "public key") -> rsa.RSAPublicKey:
    try:
        key = serialization.load_pem_public_key(data)
    except ValueError:
        raise ConfigError(f"{source}: not a PEM public key") from None
    if not isinstance(key, rsa.RSAPublicKey):
        raise ConfigError(f"{source}: not an RSA key")
    _check_size(key, source)
    return key


def read_public_key(path: Path) -> rsa.RSAPublicKey:
    """The public key in the PEM file `path` (what `--public-key` names)."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise ConfigError(f"{path}: cannot read public key: {err.strerror}") from None
    return load_public_key(data, source=str(path))


def load_private_keys(pem_text: str, *,
                      source: str = "private key") -> dict[str, rsa.RSAPrivateKey]:
    """All RSA private keys in a PEM bundle, by kid (several keys = rotation)."""
    blocks = [m.group(0) for m in _PEM_BLOCK.finditer(pem_text)]
    if not blocks:
        raise ConfigError(f"{source}: no PEM private key found")
    keys: dict[str, rsa.RSAPrivateKey] = {}
    for i, block in enumerate(blocks, 1):
        try:
            key = serialization.load_pem_private_key(block.encode("ascii"), password=None)
        except (ValueError, TypeError):
            raise ConfigError(f"{source}: PEM block {i} is not an unencrypted private key"
                              ) from None
        if not isinstance(key, rsa.RSAPrivateKey):
            raise ConfigError(f"{source}: PEM block {i} is not an RSA key")
        _check_size(key, source)
        keys[thumbprint(key.public_key())] = key
    return keys


def private_keys_from(paths: list[Path] | None) -> dict[str, rsa.RSAPrivateKey]:
    """Keys from `--private-key` files, else from the environment variable holding PEM text."""
    keys: dict[str, rsa.RSAPrivateKey] = {}
    if paths:
        for path in paths:
            try:
                text = Path(path).read_text(encoding="ascii")
            except (OSError, UnicodeDecodeError) as err:
                raise ConfigError(f"{path}: cannot read private key: {err}") from None
            keys.update(load_private_keys(text, source=str(path)))
        return keys
    text, env_var = settings.private_key_pem(), settings.PRIVATE_KEY.name
    if not text.strip():
        raise ConfigError(f"no private key: pass --private-key PEM or set {env_var} "
                          "to the PEM text")
    return load_private_keys(text, source=f"${env_var}")


def generate(out_dir: Path, bits: int = 4096) -> str:
    """Write `private.pem` (0600) and `public.pem` into out_dir; return the kid."""
    if bits < MIN_RSA_BITS:
        raise ConfigError(f"--bits {bits}: at least {MIN_RSA_BITS} are required")
    out_dir.mkdir(parents=True, exist_ok=True)
    private_path, public_path = out_dir / "private.pem", out_dir / "public.pem"
    for path in (private_path, public_path):
        if path.exists():
            raise ConfigError(f"{path} exists; refusing to overwrite a key (move it away first)")
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    public_path.write_bytes(key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return thumbprint(key.public_key())
