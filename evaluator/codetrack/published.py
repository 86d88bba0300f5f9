"""Read the published GraphEval36K cases of one problem, repairing the two known bad lines.

Why a loader of its own: the published files hold several sub-categories per line, one array
per argument, and two malformed lines (`directed/lc1971/complete.jsonl` lacks its final `}`,
`undirected/lc2685/pseudo.jsonl` has a `, }`). The tests of every problem, the importer and the
reports must read them the same way, so the parsing, the repair and the field mapping live here.
Anything else that does not parse is reported with a warning (file and line) and skipped.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.codetrack.problem import Problem

# A comma directly before a closing bracket, e.g. `[1, 2], }` -> `[1, 2] }`.
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


class PublishedDataWarning(UserWarning):
    """A published line or cell could not be used; the message says where and why."""


@dataclass(frozen=True)
class PublishedCase:
    problem_id: str
    direction: str  # "directed" or "undirected": the upstream folder
    category_file: str  # file stem, e.g. "sparse" or "dense_03"
    subcategory: str  # key inside the line, e.g. "cyclic" or "dense"
    index: int  # position inside the cell's arrays
    args: dict[str, Any]
    label: Any
    repaired: bool  # the line needed one of the known repairs
    line: int = 0  # 1-based line number in the file

    @property
    def cell(self) -> str:
        return f"{self.category_file}/{self.subcategory}"


def problem_dir(root: Path, problem: Problem, direction: str | None = None) -> Path:
    """`<root>/[data/]<direction>/<id>`; root may be the dataset folder or its `data/`."""
    folder = direction or ("directed" if problem.directed else "undirected")
    base = root / "data" if (root / "data").is_dir() else root
    return base / folder / problem.id


def parse_line(text: str) -> tuple[Any, bool]:
    """(object, repaired) for one JSONL line; raises ValueError when no known repair helps."""
    try:
        return json.loads(text), False
    except json.JSONDecodeError as err:
        first_error = err
    for candidate in _repairs(text):
        try:
            return json.loads(candidate), True
        except json.JSONDecodeError:
            continue
    raise ValueError(str(first_error))


def _repairs(text: str) -> Iterator[str]:
    """The two defects seen upstream: missing closing braces and a trailing comma."""
    stripped = text.rstrip()
    no_comma = _TRAILING_COMMA.sub(r"\1", stripped)
    for base in dict.fromkeys((stripped, no_comma)):
        yield base
        for missing in range(1, 3):
            yield base + "}" * missing


def iter_published_cases(
    root: Path,
    problem: Problem,
    *,
    direction: str | None = None,
    adapt: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> Iterator[PublishedCase]:
    """Every published case of `problem`, in file, line, sub-category and index order.

    Fields are renamed with `problem.field_map` (when several fields map to one argument, the
    first present wins); fields not in the map are ignored. `adapt` adds arguments the data
    leaves implicit
    (for example lc1971's fixed source and destination). `direction` overrides the folder
    (`directed`/`undirected`) for upstream artifacts stored under the other one.
    """
    folder = problem_dir(root, problem, direction)
    if not folder.is_dir():
        return
    for path in sorted(folder.glob("*.jsonl")):
        with path.open(encoding="utf-8") as handle:
            for lineno, text in enumerate(handle, start=1):
                if not text.strip():
                    continue
                try:
                    obj, repaired = parse_line(text)
                except ValueError as err:
                    _warn(f"{path}:{lineno}: not valid JSON and no known repair applies ({err})")
                    continue
                if not isinstance(obj, dict):
                    _warn(f"{path}:{lineno}: expected an object of sub-categories, skipped")
                    continue
                for subcategory, cell in obj.items():
                    yield from _cell_cases(
                        problem,
                        folder.parent.name,
                        path,
                        lineno,
                        subcategory,
                        cell,
                        repaired,
                        adapt,
                    )


def _cell_cases(
    problem: Problem,
    direction: str,
    path: Path,
    lineno: int,
    subcategory: str,
    cell: Any,
    repaired: bool,
    adapt: Callable[[dict[str, Any]], dict[str, Any]] | None,
) -> Iterator[PublishedCase]:
    where = f"{path}:{lineno} [{subcategory}]"
    if not isinstance(cell, dict):
        _warn(f"{where}: expected an object of field arrays, skipped")
        return
    # Several dataset fields may map to one argument (upstream renamed fields between files);
    # the first one present in the cell is used.
    sources: dict[str, str] = {}
    for field_name, arg_name in problem.field_map.items():
        if field_name in cell and arg_name not in sources:
            sources[arg_name] = field_name
    missing = [
        " or ".join(f for f, a in problem.field_map.items() if a == arg_name)
        for arg_name in dict.fromkeys(problem.field_map.values())
        if arg_name not in sources
    ]
    if problem.label_field not in cell:
        missing.append(problem.label_field)
    if missing:
        _warn(f"{where}: missing field(s) {', '.join(missing)}; check field_map of {problem.id}")
        return
    used = [*sources.values(), problem.label_field]
    lengths = {f: len(cell[f]) for f in used if isinstance(cell[f], list)}
    if len(lengths) != len(used) or len(set(lengths.values())) != 1:
        _warn(f"{where}: field arrays differ in length or are not arrays ({lengths}), skipped")
        return
    for index in range(next(iter(lengths.values()))):
        args = {arg_name: cell[f][index] for arg_name, f in sources.items()}
        if adapt is not None:
            args = adapt(args)
        yield PublishedCase(
            problem_id=problem.id,
            direction=direction,
            category_file=path.stem,
            subcategory=subcategory,
            index=index,
            args=args,
            label=cell[problem.label_field][index],
            repaired=repaired,
            line=lineno,
        )


def _warn(message: str) -> None:
    warnings.warn(message, PublishedDataWarning, stacklevel=3)
