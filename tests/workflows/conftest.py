"""The act test bed shared by the workflow tests: skip cleanly without act or ../shared/actions.

Why module-scoped beds (see helpers.py): an act run costs seconds of set-up (checkout, the
tool-cache Python, `pip install .`), so each module builds one origin and one fake GitHub and
its tests share them, each test on its own pull request.
"""

from __future__ import annotations

import pytest

from tests.helpers import act


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mine = [item for item in items
            if "tests/workflows/" in str(item.path).replace("\\", "/")]
    reason = act.missing() if mine else None
    for item in mine:
        item.add_marker(pytest.mark.slow)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))
