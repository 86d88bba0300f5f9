"""Where tests find the repository, the sibling ../shared folder and the committed fixtures.

Why one place: test files sit at different depths under tests/, so `Path(__file__).parent...`
arithmetic breaks whenever a file moves; every test imports these constants instead.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
FIXTURES = REPO / "tests" / "fixtures"
