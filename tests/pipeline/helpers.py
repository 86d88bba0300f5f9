"""Hand-made envelopes for the pipeline's hostile-input and fuzz tests.

Why by hand: `envelope.seal` only writes well-formed headers; these tests need a valid JWE
around any header bytes at all, so the pipeline's parser is what decides.
"""

from __future__ import annotations

import os

from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from evaluator.submission import envelope
from evaluator.submission.keys import b64url


def raw_envelope(header: bytes, plaintext: bytes, public: rsa.RSAPublicKey) -> bytes:
    """A JWE compact serialization with an arbitrary protected header (as raw bytes)."""
    header_b64 = b64url(header)
    cek, iv = os.urandom(32), os.urandom(12)
    sealed = AESGCM(cek).encrypt(iv, plaintext, header_b64.encode("ascii"))
    parts = [header_b64, b64url(public.encrypt(cek, envelope._OAEP)), b64url(iv),
             b64url(sealed[:-16]), b64url(sealed[-16:])]
    return ".".join(parts).encode("ascii")
