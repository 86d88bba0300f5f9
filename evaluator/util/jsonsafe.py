"""JSON from a pull request, parsed with bounds: depth, number length, finiteness, unique keys.

Why not plain `json.loads`: it recurses once per nesting level (1,400 nested arrays raise
RecursionError), converts a 5,000-digit integer by raising ValueError (Python's int limit),
accepts `NaN`/`Infinity` (which then reach the ledger as non-JSON tokens) and keeps the last of
two equal keys (another JOSE library may keep the first, so two readers would disagree about an
authenticated header). Every one of these ends here in `UntrustedJSON`, a ValueError the caller
turns into a participant-facing rejection naming the file.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 16  # our files are flat objects with at most one nested object
MAX_INT_DIGITS = 30  # far above any count, seed or size a submission declares
# One forward pass: a search to the next structural character, then, at a quote, one anchored
# match to the string's end (unrolled: linear on success and on failure). A single regex
# tokenizer retried its string pattern at every escaped quote: quadratic (20 KB: 15 s).
_STRUCTURAL = re.compile(r'["\[\]{}]')
_STRING_REST = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


class UntrustedJSON(ValueError):
    """The text is not JSON we accept; `str(err)` says what and where."""


def _where(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {column}"


def _check_depth(text: str, max_depth: int) -> int:
    """Nesting depth by a linear scan (strings skipped), before any recursive parser runs.
    Returns the characters examined (each at most once; the linearity test counts them)."""
    pos = depth = steps = 0
    end = len(text)
    while pos < end:
        found = _STRUCTURAL.search(text, pos)
        if found is None:
            return steps + end - pos
        at = found.start()
        steps += at + 1 - pos
        mark = text[at]
        if mark == '"':
            rest = _STRING_REST.match(text, at + 1)
            if rest is None:  # json.loads would refuse it too; say where
                raise UntrustedJSON(f"not valid JSON: a string never ends ({_where(text, at)})")
            steps += rest.end() - at - 1
            pos = rest.end()
            continue
        if mark in "[{":
            depth += 1
            if depth > max_depth:
                raise UntrustedJSON(f"nested more than {max_depth} levels deep at "
                                    f"{_where(text, at)}")
        else:
            depth -= 1
        pos = at + 1
    return steps


def _parse_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise UntrustedJSON(f"integer with {len(digits.lstrip('-'))} digits (at most "
                            f"{MAX_INT_DIGITS})")
    return int(digits)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise UntrustedJSON(f"number {text[:40]} is out of range (not a finite double)")
    return value


def _parse_constant(name: str) -> Any:
    raise UntrustedJSON(f"{name} is not a JSON number; use a finite number or null")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise UntrustedJSON(f"key {key[:60]!r} appears twice in one object")
        out[key] = value
    return out


def loads(text: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse untrusted JSON text; raises UntrustedJSON (a ValueError) for anything refused."""
    _check_depth(text, max_depth)
    try:
        return json.loads(text, parse_int=_parse_int, parse_float=_parse_float,
                          parse_constant=_parse_constant, object_pairs_hook=_unique_keys)
    except UntrustedJSON:
        raise
    except json.JSONDecodeError as err:
        raise UntrustedJSON(f"not valid JSON: {err.msg} at line {err.lineno}, column "
                            f"{err.colno}") from None
    except RecursionError:  # unreachable after the depth scan; kept as a last bound
        raise UntrustedJSON(f"nested more than {max_depth} levels deep") from None
    except ValueError as err:
        raise UntrustedJSON(f"not valid JSON: {err}") from None


def loads_bytes(data: bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """UTF-8 (a BOM tolerated) bytes -> JSON value, with the same bounds as `loads`."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise UntrustedJSON(f"not UTF-8 (byte {err.start})") from None
    return loads(text, max_depth=max_depth)
