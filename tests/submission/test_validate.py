"""Prediction-file validation: every bad input is rejected with file, line and column."""

from __future__ import annotations

import pandas as pd
import pytest

from evaluator.competition.spec import parse_spec
from evaluator.errors import Rejection
from evaluator.submission.validate import validate_predictions

SPEC_YAML = """
slug: toy-comp
version: 1
title: Toy
task: node-classification
category: homogeneous
difficulty: easy
domain: test
targets: [{name: label, type: class, classes: [0, 1, 2]}]
splits: {test: {ids: data/test_ids.csv, labels: hidden/test.jwe}}
metrics: {acc: {fn: accuracy, split: test}}
rank_by: [{score: acc, order: desc}]
submission: {max_bytes: 2000}
"""
PROB_YAML = SPEC_YAML.replace("type: class, classes: [0, 1, 2]", "type: probability").replace(
    "fn: accuracy", "fn: roc_auc")
IDS = pd.Series([10, 11, 12, 13], name="id")


def check(text: str | bytes, yaml: str = SPEC_YAML) -> pd.DataFrame:
    data = text.encode() if isinstance(text, str) else text
    return validate_predictions(data, parse_spec(yaml), IDS)


def rejected(text, yaml: str = SPEC_YAML) -> str:
    with pytest.raises(Rejection) as err:
        check(text, yaml)
    return str(err.value)


def test_valid_file_any_order_bom_crlf():
    out = check("\ufefflabel,id\r\n2,13\r\n0,10\r\n1,11\r\n1,12\r\n")
    assert out.loc[13, "label"] == 2 and out.loc[10, "label"] == 0
    assert list(out.index) == [10, 11, 12, 13]  # rows come back in test-id order


def test_missing_ids_are_counted_with_examples():
    msg = rejected("id,label\n10,0\n11,1\n")
    assert "2 of 4 test ids are missing" in msg and "12" in msg and "13" in msg


def test_extra_ids_name_the_line():
    msg = rejected("id,label\n10,0\n11,1\n12,1\n13,1\n99,1\n")
    assert "1 id is not a test id at line(s) 6" in msg and "99" in msg


def test_duplicate_ids():
    msg = rejected("id,label\n10,0\n11,1\n12,1\n13,1\n10,2\n")
    assert "duplicate id at line(s) 6" in msg


def test_wrong_header():
    msg = rejected("node,label\n10,0\n")
    assert "line 1" in msg and "missing ['id']" in msg and "unexpected ['node']" in msg


def test_wrong_column_count():
    msg = rejected("id,label\n10,0\n11,1,5\n12,1\n13,1\n")
    assert "wrong number of columns" in msg and "line 3" in msg


def test_short_row_is_an_empty_value():
    msg = rejected("id,label\n10,0\n11\n12,1\n13,1\n")
    assert "column 'label'" in msg and "line(s) 3" in msg


@pytest.mark.parametrize(("value", "says"), [("nan", "1 NaN value at line(s) 3, e.g. 'nan'"),
                                             ("NaN", "1 NaN value at line(s) 3, e.g. 'NaN'"),
                                             ("", "1 empty cell at line(s) 3")])
def test_nan_values(value, says):
    assert says in rejected(f"id,label\n10,0\n11,{value}\n12,1\n13,1\n")


def test_every_problem_of_a_column_in_one_pass():
    """NaN on line 2, inf on line 3, an empty cell on line 4: all three in one message."""
    msg = rejected("id,label\n10,NaN\n11,inf\n12,\n13,0.5\n", PROB_YAML)
    assert "1 NaN value at line(s) 2" in msg
    assert "1 infinite value at line(s) 3, e.g. 'inf'" in msg
    assert "1 empty cell at line(s) 4" in msg


def test_classes_are_quoted_as_written_not_as_pandas_floats():
    msg = rejected("id,label\n10,0\n11,7\n12,\n13,1\n")
    assert "e.g. '7'" in msg and "7.0" not in msg and "empty cell at line(s) 4" in msg


@pytest.mark.parametrize("spelling", ["3.0", "1.0", "1e0"])
def test_non_canonical_class_spelling_is_rejected(spelling):
    msg = rejected(f"id,label\n10,0\n11,{spelling}\n12,1\n13,1\n")
    assert "not an integer (write classes as integers, e.g. 3, not 3.0) at line(s) 3" in msg
    assert repr(spelling) in msg


def test_utf16_gets_a_hint():
    data = "id,label\n10,0\n11,1\n12,1\n13,1\n".encode("utf-16")
    assert "looks like UTF-16" in rejected(data) and "save it as CSV UTF-8" in rejected(data)


@pytest.mark.parametrize(("sep", "says"), [(";", "separated by ';'"), ("\t", "separated by a tab")])
def test_other_delimiters_get_a_hint(sep, says):
    msg = rejected(f"id{sep}label\n10{sep}0\n11{sep}1\n12{sep}1\n13{sep}1\n")
    assert says in msg and "use commas" in msg


def test_spreadsheet_formulas_get_a_hint():
    msg = rejected("id,label\n10,0.1\n11,=A2*2\n12,0.2\n13,0.5\n", PROB_YAML)
    assert "'=A2*2'" in msg and "spreadsheet formulas" in msg


def test_string_in_class_column():
    msg = rejected("id,label\n10,0\n11,cat\n12,1\n13,1\n")
    assert "not an integer" in msg and "'cat'" in msg and "line(s) 3" in msg


def test_class_outside_allowed_set():
    msg = rejected("id,label\n10,0\n11,7\n12,1\n13,1\n")
    assert "not an allowed class [0, 1, 2]" in msg and "line(s) 3" in msg


def test_fractional_class():
    assert "not an integer" in rejected("id,label\n10,0\n11,1.5\n12,1\n13,1\n")


def test_probability_outside_unit_interval():
    msg = rejected("id,label\n10,0.1\n11,1.2\n12,-0.1\n13,0.5\n", PROB_YAML)
    assert "2 probabilities outside [0, 1]" in msg and "line(s) 3, 4" in msg


@pytest.mark.parametrize("value", ["inf", "-inf"])
def test_infinite_values(value):
    assert "infinite" in rejected(f"id,label\n10,0.1\n11,{value}\n12,0.2\n13,0.5\n", PROB_YAML)


def test_string_in_numeric_column():
    assert "not a number" in rejected("id,label\n10,0.1\n11,high\n12,0.2\n13,0.5\n", PROB_YAML)


def test_empty_and_header_only():
    assert "empty" in rejected("")
    assert "no rows" in rejected("id,label\n")


def test_over_size_limit_before_parsing():
    assert "limit is 2,000" in rejected("id,label\n" + "10,0\n" * 1000)


def test_not_utf8():
    msg = rejected(b"id,label\n10,0\n11,\xff\n")
    assert "line 3: not UTF-8 (byte 4 of the line is 0xff)" in msg


def test_many_problems_reported_together():
    msg = rejected("id,label\n10,9\n10,0\n")
    assert "duplicate" in msg and "missing" in msg and "allowed class" in msg


def test_string_ids_compare_as_text():
    yaml = SPEC_YAML
    spec = parse_spec(yaml)
    ids = pd.Series(["n-1", "n-2"], name="id")
    out = validate_predictions(b"id,label\nn-2,1\nn-1,0\n", spec, ids)
    assert sorted(out.index) == ["n-1", "n-2"]


def test_duplicate_public_ids_are_the_platforms_fault_not_the_participants(tmp_path):
    """The scoring path leaves the uniqueness of the public ids to validation (one hash table);
    a competition whose id files repeat an id stops with a platform error, whoever submits."""
    from evaluator.errors import ConfigError
    from evaluator.submission.validate import competition_ids

    with pytest.raises(ConfigError, match=r"1 ids are listed twice .* e\.g\. 11"):
        validate_predictions(b"id,label\n10,0\n11,1\n12,2\n", parse_spec(SPEC_YAML),
                             pd.Series([10, 11, 12, 11], name="id"))
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "test_ids.csv").write_text("id\n10\n11\n11\n")
    with pytest.raises(ConfigError, match="listed twice"):
        competition_ids(tmp_path, parse_spec(SPEC_YAML))
    assert len(competition_ids(tmp_path, parse_spec(SPEC_YAML), check_unique=False)["test"]) == 3
