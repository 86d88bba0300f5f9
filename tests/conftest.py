"""Fixtures shared by tests of several layers: a temporary platform key pair, a small real
competition, and the pull-request test bed (a bare "origin" with toy competitions and the fake
GitHub server). Fixtures used by one folder only live in that folder's conftest.py.

Why session-scoped: RSA key generation and the demo build take a second each; tests that need
a pristine copy copy the folder instead of rebuilding it.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from evaluator.submission import keys
from tests.helpers.paths import SHARED

if TYPE_CHECKING:
    from tests.helpers.arena import Arena, KeyPair
    from tests.helpers.fake_github import FakeGitHub

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


@pytest.fixture
def pipeline_keys() -> KeyPair:
    """The pull-request test bed's key pair (one per session, see `shared_keypair`)."""
    from tests.helpers.arena import shared_keypair

    return shared_keypair()


@pytest.fixture
def arena(tmp_path: Path, pipeline_keys: KeyPair) -> Arena:
    """A bare "origin" repository holding the toy competitions, per test."""
    from tests.helpers.arena import Arena

    return Arena(tmp_path, pipeline_keys)


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    """The in-memory GitHub REST server, running for the test."""
    from tests.helpers.fake_github import FakeGitHub

    with FakeGitHub() as server:
        yield server
