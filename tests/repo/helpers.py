"""Shared setup of the scratch-repository tests in this folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


def keyless_copy(source: Path, dest: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of a prepared scratch repository, with no platform key in the environment.

    Why: each test changes its copy (a label, a ledger line), and the verbs under test must
    show they need no key (or name the one they need), not find one in the runner's env.
    """
    for name in ("GNNCB_PRIVATE_KEY", "GNNCB_PRIVATE_KEY_PREVIOUS"):
        monkeypatch.delenv(name, raising=False)
    shutil.copytree(source, dest)
    return dest
