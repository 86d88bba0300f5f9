"""Fixtures of the pull-request pipeline tests that only this folder uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ci.helpers import add_code_folder
from tests.helpers.arena import Arena


@pytest.fixture
def code_arena(arena: Arena, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Arena:
    """The arena with the code track opened, its version committing to no case secret (the
    flow's checks do not depend on where the seed comes from; the deployed, secret-seeded
    board is tests/ci/test_code_case_seed.py's and the act test's); generated cases cached
    under tmp_path."""
    monkeypatch.setenv("GNNCB_CACHE", str(tmp_path / "cache"))
    add_code_folder(arena)
    return arena
