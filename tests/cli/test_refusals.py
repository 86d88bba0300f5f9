"""Issue 24, "still open from the earlier round": files and options a participant gets wrong are
refused by the real command with a message naming what is wrong, where, and how to fix it --
never scored under another reading, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import run
from tests.helpers.paths import REPO

LINKS = REPO / "competitions" / "netlinkarena"  # one probability target, `link`


def _sample(competition: Path) -> list[str]:
    return (competition / "data" / "sample_submission.csv").read_text().splitlines()


@pytest.mark.parametrize("spelling", [("True", "False"), ("TRUE", "false"),
                                      ("True", "")])  # True and empty: an object column
def test_check_refuses_booleans_as_probabilities(spelling, tmp_path, capsys):
    """pandas reads a column of True/False as booleans, and `to_numeric` turned them into 1/0:
    a file of words was scored although the docs say strings in numeric columns are refused."""
    lines = _sample(LINKS)
    ids = [line.split(",")[0] for line in lines[1:]]
    yes, no = spelling
    rows = [f"{i},{yes if n % 2 else no}" for n, i in enumerate(ids)]
    bad = tmp_path / "predictions.csv"
    bad.write_text("\n".join([lines[0], *rows]) + "\n")
    code, out, err = run(["check", "--competition", "netlinkarena", bad], capsys)
    assert code == 1, out + err
    assert "column 'link'" in err and "not numbers at line(s) " in err, err
    assert repr(yes) in err.split("e.g. ", 1)[1], err
    assert "Traceback" not in err
