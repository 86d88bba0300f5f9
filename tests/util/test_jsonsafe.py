"""The untrusted-JSON reader's depth scan is one linear pass (issue 23.4): escaped quotes,
which made the old single-regex tokenizer quadratic, cost one examined character each. Work is
counted (characters examined), never timed."""

from __future__ import annotations

import json

import pytest

from evaluator.util import jsonsafe


def _escaped(n: int, *, closed: bool) -> str:
    return '{"a":[[["' + '\\"' * n + ('"]]]}' if closed else "")


def test_depth_scan_work_scales_with_the_input() -> None:
    small, big = _escaped(20_000, closed=True), _escaped(200_000, closed=True)
    counts = [jsonsafe._check_depth(text, 16) for text in (small, big)]
    assert counts == [len(small), len(big)]  # every character examined exactly once


def test_unterminated_escaped_quotes_are_refused_in_one_pass() -> None:
    text = _escaped(200_000, closed=False)  # the old tokenizer: n^2 / 2 character steps
    with pytest.raises(jsonsafe.UntrustedJSON, match="a string never ends"):
        jsonsafe.loads(text)


def test_strings_never_count_towards_the_depth() -> None:
    value = {"k[": ['a"]', "\\[", ['{"x":', "\\\\", {"q\\": ['\\"]]']}]]}
    text = json.dumps(value)
    assert jsonsafe.loads(text, max_depth=5) == value
    with pytest.raises(jsonsafe.UntrustedJSON, match="nested more than 4 levels deep"):
        jsonsafe.loads(text, max_depth=4)
