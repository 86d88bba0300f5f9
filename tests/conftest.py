"""Shared fixtures: a temporary platform key pair and a small real competition.

Why session-scoped: RSA key generation and the demo build take a second each; tests that need
a pristine copy copy the folder instead of rebuilding it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evaluator.submission import keys
from tests.helpers.paths import REPO

SHARED = REPO.parent / "shared"
SHARED_SECRETS = SHARED / "secrets"


@pytest.fixture(scope="session")
def keypair(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A fresh 3072-bit pair: {'dir', 'public', 'private' (by kid), 'kid', 'private_path'}."""
    d = tmp_path_factory.mktemp("keys")
    kid = keys.generate(d, bits=3072)
    return {
        "dir": d,
        "kid": kid,
        "public": keys.load_public_key((d / "public.pem").read_bytes()),
        "private": keys.load_private_keys((d / "private.pem").read_text()),
        "private_path": d / "private.pem",
        "public_path": d / "public.pem",
    }


@pytest.fixture(scope="session")
def _built_demo(tmp_path_factory: pytest.TempPathFactory, keypair: dict) -> Path:
    from evaluator.authoring.demo import SLUG, build_competition

    folder = tmp_path_factory.mktemp("competitions") / SLUG
    build_competition(folder, keypair["public"])
    return folder


@pytest.fixture()
def demo_competition(tmp_path: Path, _built_demo: Path) -> Path:
    """A private copy of the demo competition (breast-cancer kNN graph) per test."""
    dest = tmp_path / "competitions" / _built_demo.name
    shutil.copytree(_built_demo, dest)
    return dest


@pytest.fixture()
def shared_secrets() -> Path:
    if not (SHARED_SECRETS / "deploy-private.pem").is_file():
        pytest.skip("../shared/secrets is absent (fresh clone)")
    return SHARED_SECRETS
