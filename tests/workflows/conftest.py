"""The act test bed shared by the workflow tests: skip cleanly without act or ../shared/actions.

Why module-scoped beds (see helpers.py): an act run costs seconds of set-up (checkout, the
tool-cache Python, `pip install .`), so each module builds one origin and one fake GitHub and
its tests share them, each test on its own pull request.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers import act
from tests.helpers.arena import shared_keypair
from tests.helpers.fake_github import FakeGitHub
from tests.workflows.helpers import Bed


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mine = [item for item in items
            if "tests/workflows/" in str(item.path).replace("\\", "/")]
    reason = act.missing() if mine else None
    for item in mine:
        item.add_marker(pytest.mark.slow)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="module")
def bed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bed]:
    """One bed per test module (origin, fake GitHub, act set-up), shared by its tests."""
    name = request.module.__name__.rsplit(".", 1)[-1]
    with FakeGitHub() as fake:
        yield Bed.build(tmp_path_factory.mktemp(f"act-{name}"), shared_keypair(), fake)
