"""Rendering escapes every participant-controlled string and is deterministic."""

from __future__ import annotations

import re

import pytest

from evaluator.render import competition_page, index_page, md_escape
from evaluator.spec import parse_spec
from tests.test_spec import GOOD

HOSTILE = [
    "[click](https://evil.example)",
    "![img](https://evil.example/x.png)",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "a | b | c",
    "line1\nline2\r\n| injected | row |",
    "@everyone ping",
    "`code` **bold** _it_ ~~s~~",
    "&lt;already&gt; &amp;",
    "javascript:alert(1)",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_md_escape_neutralises(text):
    out = md_escape(text)
    assert "\n" not in out and "\r" not in out
    assert "<" not in out and ">" not in out
    assert not re.search(r"(?<!\\)[\[\]|`*_()~]", out), out  # every special char escaped
    assert not re.search(r"@[A-Za-z0-9]", out)  # no "@login" GitHub could link


def rows_with(method: str, participant: str = "alice") -> list[dict]:
    return [{"type": "submission", "digest": "d1", "slug": "gta", "version": 1,
             "participant": participant, "entrant": "human", "method": method, "model": "",
             "scores": {"f1_ideal": 0.9, "f1_perturbed": 0.8, "robustness_gap": 0.1},
             "scored_at": "2026-01-02T03:04:05Z"}]


@pytest.mark.parametrize("text", HOSTILE)
def test_page_has_no_raw_participant_markup(text):
    page = competition_page(parse_spec(GOOD), rows_with(text))
    table_lines = [line for line in page.splitlines() if line.startswith("| 1 |")]
    assert len(table_lines) == 1  # a newline in the method cannot add rows
    assert table_lines[0].count("|") - table_lines[0].count("\\|") == 10  # columns intact
    assert "<script>" not in page and "<img" not in page and "](" not in page


def test_rendering_is_deterministic():
    spec = parse_spec(GOOD)
    rows = rows_with("GCN")
    assert competition_page(spec, rows) == competition_page(spec, rows)
    assert index_page([spec], rows) == index_page([spec], rows)
    assert "0.8000" in competition_page(spec, rows)


def test_empty_leaderboard_says_so():
    assert "No accepted submissions yet." in competition_page(parse_spec(GOOD), [])
