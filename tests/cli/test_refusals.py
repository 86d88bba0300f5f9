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


@pytest.mark.parametrize("line", [2, 300])
def test_check_names_the_line_and_field_of_a_giant_id(line, tmp_path, capsys):
    """A 140,000-character id in the first row was reported as "line 2 has 1 field" (the
    first-row check read a 64 KiB window and saw half a line); further down, the id was quoted
    whole in the answer. Both now name the line, the column, the field's size and the limit."""
    lines = _sample(LINKS)
    giant = "7" * 140_000
    lines[line - 1] = f"{giant},0.5"
    bad = tmp_path / "predictions.csv"
    bad.write_text("\n".join(lines) + "\n")
    code, out, err = run(["check", "--competition", "netlinkarena", bad], capsys)
    assert code == 1, out + err
    assert (f"{bad}, line {line}: the line is 140,004 bytes long, over the limit of 65,536: "
            "column 'id' (from byte 1 of the line) holds 140,000 bytes") in err, err
    assert "1 field" not in err and "Traceback" not in err
    assert len(err) < 1000, len(err)  # the id is not echoed back


def test_check_shortens_a_long_value_it_quotes(tmp_path, capsys):
    """An id under the line limit but not a test id is quoted shortened, with its length."""
    lines = _sample(LINKS)
    lines[299] = f"{'7' * 60_000},0.5"
    bad = tmp_path / "predictions.csv"
    bad.write_text("\n".join(lines) + "\n")
    code, out, err = run(["check", "--competition", "netlinkarena", bad], capsys)
    assert code == 1, out + err
    assert f"1 id is not a test id at line(s) 300, e.g. '{'7' * 60}'... (60,000 characters)" \
        in err, err
    assert len(err) < 1000, len(err)


@pytest.mark.parametrize("place", ["under a file", "a folder"])
def test_encrypt_into_an_unwritable_place_names_the_path(place, keypair, tmp_path, capsys):
    """`gnncb encrypt -o` where nothing can be written ended in a traceback (OSError)."""
    preds = tmp_path / "predictions.csv"
    preds.write_text("\n".join(_sample(LINKS)) + "\n")
    blocker = tmp_path / "blocker"
    if place == "under a file":
        blocker.write_text("a file where the folder should be\n")
        output = blocker / "predictions.csv.enc"
    else:
        blocker.mkdir()
        output = blocker
    code, out, err = run(["encrypt", "--competition", "netlinkarena", "--participant", "alice",
                          "--method", "m", "--public-key", keypair["public_path"], "-o", output,
                          preds], capsys)
    assert code == 2, out + err
    if place == "under a file":
        assert (f"error: cannot write {output}: {blocker}: File exists (a file stands where a "
                "folder is needed); give -o/--output a path in a folder you can write") in err
    else:
        assert (f"error: cannot write {output}: Is a directory; -o/--output names a folder; "
                f"give a file in it, e.g. {output / 'predictions.csv.enc'}") in err, err
    assert "Traceback" not in err
