"""What rebuilding and opening the committed competitions needs: the build seed and the
deployment key pair of ../shared (module-scoped; the tests skip on a fresh clone)."""

from __future__ import annotations

from typing import Any

import pytest

from evaluator.authoring.build import read_seed
from evaluator.submission import keys
from tests.helpers.paths import REPO, SHARED


@pytest.fixture(scope="module")
def build_inputs() -> tuple[str, Any]:
    """The secret build seed and the committed platform public key."""
    seed_file = SHARED / "secrets" / "build-seed.txt"
    if not seed_file.is_file() or not (SHARED / "datasets").is_dir():
        pytest.skip("../shared (datasets and build seed) is absent (fresh clone)")
    return read_seed(seed_file), keys.load_public_key(
        (REPO / "keys" / "platform-public.pem").read_bytes())


@pytest.fixture(scope="module")
def private_keys() -> dict[str, Any]:
    """The deployment private keys, by kid."""
    path = SHARED / "secrets" / "deploy-private.pem"
    if not path.is_file():
        pytest.skip("../shared/secrets is absent (fresh clone)")
    return keys.load_private_keys(path.read_text())
