"""Validation of a predictions CSV against a competition spec and its public test ids.

Why so strict: GNN-CB repositories scored partial files and matched labels by row order, so a
shuffled or truncated file got a silently wrong score. Here a file is scored only if it covers
exactly the public ids, once each, with well-typed values; every problem is reported with the
file, line and column, the count, and a few examples, in the style of scikit-learn's input checks.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from evaluator.errors import ConfigError, Rejection
from evaluator.spec import CompetitionSpec, Target

MAX_PROBLEMS = 8  # problems listed in one message; the rest are counted
EXAMPLES = 5


@dataclass
class Report:
    """Problems found so far; `raise_if_any` turns them into one Rejection."""

    filename: str
    problems: list[str] = field(default_factory=list)

    def add(self, message: str) -> None:
        self.problems.append(message)

    def raise_if_any(self) -> None:
        if not self.problems:
            return
        shown = self.problems[:MAX_PROBLEMS]
        more = len(self.problems) - len(shown)
        lines = [f"{self.filename} is not a valid submission:"] + [f"  - {p}" for p in shown]
        if more:
            lines.append(f"  - ... and {more} more problems")
        raise Rejection("\n".join(lines), code="invalid-predictions")


def _lines(rows: np.ndarray) -> str:
    """Data row positions (0-based) -> file line numbers (header is line 1)."""
    shown = ", ".join(str(int(r) + 2) for r in rows[:EXAMPLES])
    return shown + (f" (and {len(rows) - EXAMPLES} more)" if len(rows) > EXAMPLES else "")


def _examples(values: Sequence[object]) -> str:
    shown = ", ".join(repr(v) for v in list(values)[:EXAMPLES])
    return shown + (f", ... ({len(values)} in all)" if len(values) > EXAMPLES else "")


def _decode_check(data: bytes, filename: str) -> None:
    if not data.strip():
        raise Rejection(f"{filename} is empty; expected a header line and one row per test id",
                        code="empty")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise Rejection(f"{filename}, line {line}: not UTF-8 (byte {err.start}); save the file "
                        "as UTF-8", code="invalid-predictions") from None


def _check_first_row_width(data: bytes, filename: str) -> None:
    """pandas silently turns a first data row with one extra field into an index (or drops the
    field), so the header and the first row are compared here; pandas checks later rows."""
    head = data[:1 << 16].decode("utf-8", errors="replace").lstrip("\ufeff")
    rows = list(itertools.islice(csv.reader(io.StringIO(head)), 2))
    if len(rows) == 2 and rows[1] and len(rows[1]) != len(rows[0]):
        raise Rejection(f"{filename}: wrong number of columns: expected {len(rows[0])} fields "
                        f"in line 2, saw {len(rows[1])}", code="invalid-predictions")


def read_table(data: bytes, filename: str) -> pd.DataFrame:
    """Parse CSV bytes (UTF-8, BOM and CRLF tolerated); blank lines are kept as empty rows so
    that line numbers in messages match the file."""
    _decode_check(data, filename)
    _check_first_row_width(data, filename)
    try:
        return pd.read_csv(io.BytesIO(data), encoding="utf-8-sig", skip_blank_lines=False,
                           low_memory=False, index_col=False)
    except pd.errors.ParserError as err:
        # pandas says e.g. "Expected 2 fields in line 5, saw 3"
        detail = str(err).strip().splitlines()[-1]
        raise Rejection(f"{filename}: wrong number of columns: {detail}",
                        code="invalid-predictions") from None
    except pd.errors.EmptyDataError:
        raise Rejection(f"{filename} has no header line", code="empty") from None


def _id_key(series: pd.Series) -> pd.Series:
    """Ids compare as integers when both sides are integers, else as stripped strings."""
    if pd.api.types.is_integer_dtype(series.dtype):
        return series
    return series.astype(str).str.strip()


def load_ids(path: Path, id_column: str) -> pd.Series:
    """The public ids a split asks for (platform data: failures are configuration errors)."""
    try:
        table = pd.read_csv(path, encoding="utf-8-sig", low_memory=False)
    except (OSError, ValueError) as err:
        raise ConfigError(f"{path}: cannot read ids: {err}") from None
    if id_column not in table.columns:
        raise ConfigError(f"{path}: no column {id_column!r}")
    return table[id_column]


def _check_header(table: pd.DataFrame, spec: CompetitionSpec, report: Report) -> None:
    want = [spec.id_column] + [t.name for t in spec.targets]
    got = [str(c) for c in table.columns]
    if sorted(got) == sorted(want) and len(got) == len(want):
        return
    missing = [c for c in want if c not in got]
    extra = [c for c in got if c not in want]
    dup = sorted({c for c in got if got.count(c) > 1})
    detail = []
    if missing:
        detail.append(f"missing {missing}")
    if extra:
        detail.append(f"unexpected {extra}")
    if dup:
        detail.append(f"duplicated {dup}")
    raise Rejection(f"{report.filename}, line 1: header must be {','.join(want)} "
                    f"(any order); found {','.join(got)}: {'; '.join(detail)}",
                    code="invalid-predictions")


def _check_target(column: pd.Series, target: Target, report: Report) -> pd.Series:
    """Check one target column; return it converted to its clean dtype."""
    where = f"{report.filename}, column {target.name!r}"
    missing = np.flatnonzero(column.isna().to_numpy())
    if len(missing):
        report.add(f"{where}: {len(missing)} empty or NaN values at line(s) {_lines(missing)}")
        return column
    if target.type == "class":
        classes = target.classes or []
        if isinstance(classes[0], int) and pd.api.types.is_integer_dtype(column.dtype):
            values = column.astype(np.int64)
        elif isinstance(classes[0], int):
            numeric = pd.to_numeric(column, errors="coerce")
            bad = np.flatnonzero(numeric.isna().to_numpy() | (numeric % 1 != 0).to_numpy())
            if len(bad):
                report.add(f"{where}: {len(bad)} values are not integers at line(s) "
                           f"{_lines(bad)}, e.g. {_examples(column.iloc[bad].tolist())}")
                return column
            values = numeric.astype(np.int64)
        else:
            values = column.astype(str).str.strip()
        outside = np.flatnonzero(~values.isin(classes).to_numpy())
        if len(outside):
            report.add(f"{where}: {len(outside)} values are not allowed classes {classes} at "
                       f"line(s) {_lines(outside)}, e.g. "
                       f"{_examples(column.iloc[outside].tolist())}")
        return values
    numeric = pd.to_numeric(column, errors="coerce")
    not_number = np.flatnonzero(numeric.isna().to_numpy())
    if len(not_number):
        report.add(f"{where}: {len(not_number)} values are not numbers at line(s) "
                   f"{_lines(not_number)}, e.g. {_examples(column.iloc[not_number].tolist())}")
        return column
    values = numeric.astype(np.float64)
    arr = values.to_numpy()
    infinite = np.flatnonzero(~np.isfinite(arr))
    if len(infinite):
        report.add(f"{where}: {len(infinite)} infinite values at line(s) {_lines(infinite)}")
        return values
    if target.type == "probability":
        outside = np.flatnonzero((arr < 0) | (arr > 1))
        if len(outside):
            report.add(f"{where}: {len(outside)} probabilities outside [0, 1] at line(s) "
                       f"{_lines(outside)}, e.g. {_examples(arr[outside].tolist())}")
    return values


def _check_ids(ids: pd.Series, expected: pd.Series,
               report: Report) -> tuple[pd.Index, np.ndarray]:
    """Returns the expected ids (as compared) and, per row, its position among them."""
    where = f"{report.filename}, column {ids.name!r}"
    if ids.isna().any():
        rows = np.flatnonzero(ids.isna().to_numpy())
        report.add(f"{where}: {len(rows)} empty ids at line(s) {_lines(rows)}")
        return pd.Index(expected), np.full(len(ids), -1)
    got, want = _id_key(ids), _id_key(expected)
    if got.dtype != want.dtype:
        got, want = got.astype(str).str.strip(), want.astype(str).str.strip()
    # One hash lookup answers all three questions: position -1 = not a test id; a position
    # seen twice = duplicate; a position never seen = missing.
    want_index = pd.Index(want)
    positions = want_index.get_indexer(got)
    extra_rows = np.flatnonzero(positions < 0)
    if len(extra_rows):
        report.add(f"{where}: {len(extra_rows)} ids are not test ids at line(s) "
                   f"{_lines(extra_rows)}, e.g. {_examples(got.iloc[extra_rows].tolist())}; "
                   "predict only the ids in the competition's test id files")
    known = positions[positions >= 0]
    hits = np.bincount(known, minlength=len(want_index))
    if (hits > 1).any():
        repeated = pd.Series(positions).duplicated(keep="first").to_numpy() & (positions >= 0)
        rows = np.flatnonzero(repeated)
        report.add(f"{where}: {len(rows)} duplicate ids at line(s) {_lines(rows)}, e.g. "
                   f"{_examples(got.iloc[rows].tolist())}; give each test id exactly once")
    missing = want_index[hits == 0]
    if len(missing):
        report.add(f"{report.filename}: {len(missing)} of {len(want_index)} test ids are "
                   f"missing, e.g. {_examples(missing.tolist())}; see "
                   "data/sample_submission.csv for the full list")
    return want_index, positions


def validate_predictions(data: bytes, spec: CompetitionSpec, expected_ids: pd.Series,
                         *, filename: str = "predictions.csv") -> pd.DataFrame:
    """Return the predictions indexed by id, one column per target, or raise a Rejection that
    lists every problem found. `expected_ids` is the union of all splits' public ids."""
    if len(data) > spec.submission.max_bytes:
        raise Rejection(f"{filename} is {len(data):,} bytes; the limit is "
                        f"{spec.submission.max_bytes:,}", code="too-large")
    report = Report(filename)
    table = read_table(data, filename)
    _check_header(table, spec, report)
    if len(table) == 0:
        raise Rejection(f"{filename} has a header but no rows; expected one row per test id",
                        code="empty")
    want_index, positions = _check_ids(table[spec.id_column], expected_ids, report)
    columns = {t.name: _check_target(table[t.name], t, report) for t in spec.targets}
    report.raise_if_any()
    # Valid means `positions` is a permutation: put rows in the order of the expected ids, so
    # scoring can align with labels stored in that order without another hash lookup.
    order = np.empty(len(positions), dtype=np.int64)
    order[positions] = np.arange(len(positions))
    out = pd.DataFrame({name: col.to_numpy()[order] for name, col in columns.items()})
    out.index = pd.Index(want_index.to_numpy(), name=spec.id_column)
    return out


def competition_ids(competition_dir: Path, spec: CompetitionSpec) -> dict[str, pd.Series]:
    """Public ids per split; an id may appear once, in one split (a row belongs to one split)."""
    per_split = {name: load_ids(Path(competition_dir) / split.ids, spec.id_column)
                 for name, split in spec.splits.items()}
    keys = [_id_key(ids) for ids in per_split.values()]
    if len({k.dtype for k in keys}) > 1:
        keys = [k.astype(str).str.strip() for k in keys]
    combined = pd.concat(keys, ignore_index=True)
    dup = combined[combined.duplicated()]
    if len(dup):
        raise ConfigError(f"competition {spec.slug}: {len(dup)} ids are listed twice across the "
                          f"split id files, e.g. {_examples(dup.tolist())}")
    return per_split


def all_ids(per_split: dict[str, pd.Series]) -> pd.Series:
    return pd.concat(list(per_split.values()), ignore_index=True)
