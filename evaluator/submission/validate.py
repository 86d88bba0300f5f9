"""Validation of a predictions CSV against a competition spec and its public test ids.

Why so strict: GNN-CB repositories scored partial files and matched labels by row order, so a
shuffled or truncated file got a silently wrong score. Here a file is scored only if it covers
exactly the public ids, once each, with well-typed values; every problem is reported with the
file, line and column, the count, and a few examples, in the style of scikit-learn's input checks.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evaluator.competition.spec import CompetitionSpec, Target
from evaluator.errors import ConfigError, Rejection

MAX_PROBLEMS = 8  # problems listed in one message; the rest are counted
# A real-valued prediction beyond this is a mistake, and sums of such values overflow the
# metrics (1e308 passed `check` and then crashed scoring); refusing it keeps `check` and
# `evaluate` in exact agreement.
MAX_ABS_VALUE = 1e15
EXAMPLES = 5
# No id or value comes near this; a longer line is a lost line break or a pasted blob. Without
# the limit a 140,000-character id in the first row was cut by the first-row check's window and
# reported as "line 2 has 1 field", and a long id further down was quoted whole in the message.
MAX_LINE_BYTES = 1 << 16
EXAMPLE_CHARS = 60  # a quoted value longer than this is shortened in messages


def plural(n: int, one: str, many: str) -> str:
    """`1 value is` / `2 values are`: the count with the word (and verb) that agrees with it."""
    return f"{n} {one if n == 1 else many}"


def problem(filename: str, message: str, code: str, *, line: int | None = None,
            column: str | int | None = None, rows: np.ndarray | None = None,
            count: int | None = None) -> dict[str, Any]:
    """One problem as `gnncb check --json` gives it: the file, the first line it is on (1 =
    the header), the CSV column's name (or the byte of the line, for byte-level problems),
    a stable code, the count of rows, the first lines, and the sentence a person reads.
    Why structured: an editor or a script places a marker from `line`/`column`; parsing the
    sentence breaks when its wording improves."""
    lines = [int(r) + 2 for r in rows[:EXAMPLES]] if rows is not None else []
    if lines and line is None:
        line = lines[0]
    return {"file": filename, "line": line, "column": column, "code": code,
            "count": count if count is not None else len(rows) if rows is not None else 1,
            "lines": lines,
            "message": message}


def reject(filename: str, message: str, *, code: str = "invalid-predictions",
           problem_code: str, line: int | None = None,
           column: str | int | None = None) -> Rejection:
    """A Rejection for a file-level problem that stops validation, carrying its one problem."""
    return Rejection(message, code=code,
                     problems=[problem(filename, message, problem_code, line=line,
                                       column=column)])


@dataclass
class Report:
    """Problems found so far; `raise_if_any` turns them into one Rejection."""

    filename: str
    problems: list[dict[str, Any]] = field(default_factory=list)

    def add(self, message: str, code: str, *, column: str | None = None,
            rows: np.ndarray | None = None, count: int | None = None) -> None:
        self.problems.append(problem(self.filename, message, code, column=column, rows=rows,
                                     count=count))

    def raise_if_any(self) -> None:
        if not self.problems:
            return
        shown = [p["message"] for p in self.problems[:MAX_PROBLEMS]]
        more = len(self.problems) - len(shown)
        lines = [f"{self.filename} is not a valid submission:"] + [f"  - {p}" for p in shown]
        if more:
            lines.append(f"  - ... and {plural(more, 'more problem', 'more problems')}")
        raise Rejection("\n".join(lines), code="invalid-predictions",
                        problems=list(self.problems))


def _lines(rows: np.ndarray) -> str:
    """Data row positions (0-based) -> file line numbers (header is line 1)."""
    shown = ", ".join(str(int(r) + 2) for r in rows[:EXAMPLES])
    return shown + (f" (and {len(rows) - EXAMPLES} more)" if len(rows) > EXAMPLES else "")


def _quote(value: object) -> str:
    text = repr(value)
    if isinstance(value, str) and len(value) > EXAMPLE_CHARS:
        text = f"{value[:EXAMPLE_CHARS]!r}... ({len(value):,} characters)"
    return text


def _examples(values: Sequence[object]) -> str:
    shown = ", ".join(_quote(v) for v in list(values)[:EXAMPLES])
    return shown + (f", ... ({len(values)} in all)" if len(values) > EXAMPLES else "")


def _decode_check(data: bytes, filename: str) -> None:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(data) > 1 and data[1:2] == b"\x00"):
        raise reject(filename, f"{filename} looks like UTF-16 (as Excel's 'Unicode text' "
                     "saves it); save it as CSV UTF-8", problem_code="encoding", line=1)
    if not data.strip():
        raise reject(filename, f"{filename} is empty; expected a header line and one row per "
                     "test id", code="empty", problem_code="empty")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise reject(filename, f"{filename}, line {line}: not UTF-8 (byte {column} of the line "
                     f"is 0x{data[err.start]:02x}); save the file as UTF-8",
                     problem_code="encoding", line=line, column=column) from None
    for byte, name in ((b"\x00", "a NUL byte"), (b"\r", "a carriage return without a line feed")):
        # CR-only line endings crash the csv module; CRLF stays fine (same offsets after this)
        at = data.find(byte)
        if at >= 0 and byte == b"\r":  # (the copy only when some CR is there at all)
            at = data.replace(b"\r\n", b"\n\n").find(byte)
        if at >= 0:
            line = data.count(b"\n", 0, at) + 1
            column = at - (data.rfind(b"\n", 0, at) + 1) + 1  # the message names a line
            raise reject(filename, f"{filename}, line {line}: {name} (byte {column} of the "
                         "line); save the file as plain UTF-8 text with LF or CRLF line endings",
                         problem_code="encoding", line=line, column=column)


def _check_line_lengths(data: bytes, filename: str) -> None:
    """Refuse the first line longer than MAX_LINE_BYTES, naming its line, the field that makes
    it long (column name, byte where it starts, its length) and the limit.

    Why blocks: a line of MAX_LINE_BYTES bytes covers a whole aligned block of half that size,
    so only blocks without a line feed (one `find` each, which stops at the first line feed)
    need a closer look; a 20 MB file costs a few hundred calls.
    """
    block = MAX_LINE_BYTES // 2
    for start in range(0, len(data), block):
        if data.find(b"\n", start, start + block) >= 0 or len(data) - start < block:
            continue
        begin = data.rfind(b"\n", 0, start) + 1
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        line = data[begin:end].rstrip(b"\r")
        if len(line) <= MAX_LINE_BYTES:
            continue
        number = data.count(b"\n", 0, begin) + 1
        # where the long field starts; quoted commas are rare in a file this broken, so
        # plain commas are good enough to point at it
        fields = line.split(b",")
        longest = max(range(len(fields)), key=lambda k: len(fields[k]))
        column = sum(len(f) + 1 for f in fields[:longest]) + 1
        header = data[:data.find(b"\n")].lstrip(codecs.BOM_UTF8).rstrip(b"\r").split(b",")
        name = (f"column {header[longest].decode('utf-8', 'replace').strip()!r}"
                if number > 1 and len(header) == len(fields) else f"field {longest + 1}")
        raise reject(filename, f"{filename}, line {number}: the line is {len(line):,} bytes "
                        f"long, over the limit of {MAX_LINE_BYTES:,}: {name} (from byte "
                        f"{column} of the line) holds {len(fields[longest]):,} bytes. No id or "
                        "value is that long: check the line for a lost line break or pasted text",
                        problem_code="line-too-long", line=number, column=column)


def _check_first_row_width(data: bytes, filename: str) -> None:
    """pandas silently turns a first data row with one extra field into an index (or drops the
    field), so the header and the first row are compared here; pandas checks later rows.
    Lines were checked to be at most MAX_LINE_BYTES, so the window holds both whole."""
    window = data[:2 * (MAX_LINE_BYTES + 2) + len(codecs.BOM_UTF8)]
    head = window.decode("utf-8", errors="replace").lstrip("\ufeff")
    try:
        rows = list(itertools.islice(csv.reader(io.StringIO(head)), 2))
    except csv.Error as err:
        raise reject(filename, f"{filename}: not a CSV file the evaluator can read: {err}",
                     problem_code="not-csv") from None
    if len(rows) == 2 and rows[1] and len(rows[1]) != len(rows[0]):
        raise reject(filename, f"{filename}: wrong number of columns: expected {len(rows[0])} "
                     f"fields in line 2, saw {len(rows[1])}", problem_code="field-count",
                     line=2)


def read_table(data: bytes, filename: str) -> pd.DataFrame:
    """Parse CSV bytes (UTF-8, BOM and CRLF tolerated); blank lines are kept as empty rows so
    that line numbers in messages match the file."""
    _decode_check(data, filename)
    _check_line_lengths(data, filename)
    _check_first_row_width(data, filename)
    # The BOM is cut here rather than by pandas' "utf-8-sig" codec, which costs a fifth more
    # on a large file; the bytes were checked to be UTF-8 above.
    body = data[len(codecs.BOM_UTF8):] if data.startswith(codecs.BOM_UTF8) else data
    try:
        return pd.read_csv(io.BytesIO(body), encoding="utf-8", skip_blank_lines=False,
                           low_memory=False, index_col=False)
    except pd.errors.ParserError as err:
        # pandas says e.g. "Expected 2 fields in line 5, saw 3"
        detail = str(err).strip().splitlines()[-1]
        found = re.search(r"in line (\d+)", detail)
        raise reject(filename, f"{filename}: wrong number of columns: {detail}",
                     problem_code="field-count",
                     line=int(found.group(1)) if found else None) from None
    except pd.errors.EmptyDataError:
        raise reject(filename, f"{filename} has no header line", code="empty",
                     problem_code="empty") from None
    except (ValueError, OverflowError, csv.Error) as err:  # any other parser refusal
        detail = (str(err).strip().splitlines() or [type(err).__name__])[-1][:300]
        raise reject(filename, f"{filename}: not a CSV file the evaluator can read: {detail}",
                     problem_code="not-csv") from None


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
    if len(got) == 1 and any(sep in got[0] for sep in (";", "\t")):
        sep = "';'" if ";" in got[0] else "a tab"
        detail.append(f"the file is separated by {sep}; use commas (save as CSV, comma "
                      "delimited)")
    raise reject(report.filename, f"{report.filename}, line 1: header must be "
                 f"{','.join(want)} (any order); found {','.join(got)}: {'; '.join(detail)}",
                 problem_code="header", line=1)


class RawCells:
    """The cells of the file as written, read only when a problem must be reported.

    Why: pandas turns `7` into `7.0` in a column that also holds an empty cell, and `NaN` and
    an empty cell into the same float; a message must quote what the participant wrote. The
    second parse costs nothing on valid files because it happens only on the error path.
    """

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._table: pd.DataFrame | None = None

    def column(self, name: str) -> pd.Series:
        if self._table is None:
            self._table = pd.read_csv(io.BytesIO(self._data), encoding="utf-8-sig", dtype=str,
                                      keep_default_na=False, na_filter=False,
                                      skip_blank_lines=False, index_col=False)
        return self._table[name].str.strip()


_INTEGER_TEXT = r"[+-]?[0-9]+"


def _formula_hint(texts: Sequence[str]) -> str:
    if any(t.startswith("=") for t in texts):
        return "; these look like spreadsheet formulas: export the values, not the formulas"
    return ""


def _check_target(column: pd.Series, target: Target, report: Report,
                  raw: RawCells) -> pd.Series:
    """Check one target column and report every kind of problem in it in one pass (an empty
    cell does not hide an infinite value two lines below); return the clean values."""
    where = f"{report.filename}, column {target.name!r}"
    missing_mask = column.isna().to_numpy()
    if missing_mask.any():
        rows = np.flatnonzero(missing_mask)
        text = raw.column(target.name).iloc[rows].to_numpy()
        empty, spelled = rows[text == ""], rows[text != ""]
        if len(empty):
            report.add(f"{where}: {plural(len(empty), 'empty cell', 'empty cells')} at "
                       f"line(s) {_lines(empty)}", "empty-cell", column=target.name, rows=empty)
        if len(spelled):
            report.add(f"{where}: {plural(len(spelled), 'NaN value', 'NaN values')} at "
                       f"line(s) {_lines(spelled)}, e.g. "
                       f"{_examples(raw.column(target.name).iloc[spelled].tolist())}; "
                       "give a prediction for every test id", "nan", column=target.name,
                       rows=spelled)
    present = ~missing_mask
    if target.type == "class":
        return _check_classes(column, target, report, raw, present)
    if pd.api.types.is_bool_dtype(column.dtype) or pd.api.types.is_object_dtype(column.dtype):
        # pandas reads True/False (any case) as booleans, and `to_numeric` turns those into
        # 1/0: a column of words would be scored. The text as written decides instead.
        column = raw.column(target.name).where(present)
    numeric = pd.to_numeric(column, errors="coerce")
    arr = numeric.to_numpy(dtype=np.float64, na_value=np.nan)
    not_number = np.flatnonzero(present & np.isnan(arr))
    if len(not_number):
        texts = raw.column(target.name).iloc[not_number].tolist()
        words = plural(len(not_number), "value is not a number", "values are not numbers")
        report.add(f"{where}: {words} at line(s) {_lines(not_number)}, e.g. "
                   f"{_examples(texts)}{_formula_hint(texts)}", "not-a-number", column=target.name,
                   rows=not_number)
    infinite = np.flatnonzero(np.isinf(arr))
    if len(infinite):
        report.add(f"{where}: {plural(len(infinite), 'infinite value', 'infinite values')} "
                   f"at line(s) {_lines(infinite)}, "
                   f"e.g. {_examples(raw.column(target.name).iloc[infinite].tolist())}",
                   "infinite", column=target.name, rows=infinite)
    absurd = np.flatnonzero(np.isfinite(arr) & (np.abs(np.nan_to_num(arr)) > MAX_ABS_VALUE))
    if len(absurd):
        report.add(f"{where}: {plural(len(absurd), 'value', 'values')} beyond "
                   f"±{MAX_ABS_VALUE:g} at line(s) {_lines(absurd)}, e.g. "
                   f"{_examples(raw.column(target.name).iloc[absurd].tolist())}",
                   "too-large-value", column=target.name, rows=absurd)
    if target.type == "probability":
        with np.errstate(invalid="ignore"):
            outside = np.flatnonzero(np.isfinite(arr) & ((arr < 0) | (arr > 1)))
        if len(outside):
            report.add(f"{where}: {plural(len(outside), 'probability', 'probabilities')} "
                       f"outside [0, 1] at line(s) {_lines(outside)}, e.g. "
                       f"{_examples(raw.column(target.name).iloc[outside].tolist())}",
                       "probability-range", column=target.name, rows=outside)
    return pd.Series(arr, index=column.index, name=column.name)


def _check_classes(column: pd.Series, target: Target, report: Report, raw: RawCells,
                   present: np.ndarray) -> pd.Series:
    """Classes must be spelled as the spec lists them: `3`, never `3.0` or ` +3`, because a
    spelling pandas happens to normalise is one a participant's other tools may not."""
    where = f"{report.filename}, column {target.name!r}"
    classes = target.classes or []
    if isinstance(classes[0], int) and pd.api.types.is_integer_dtype(column.dtype):
        values = column.astype(np.int64)
        valid = present
    elif isinstance(classes[0], int):
        texts = raw.column(target.name)
        canonical = texts.str.fullmatch(_INTEGER_TEXT).to_numpy(dtype=bool)
        bad = np.flatnonzero(present & ~canonical)
        if len(bad):
            shown = texts.iloc[bad].tolist()
            report.add(f"{where}: "
                       f"{plural(len(bad), 'value is not an integer', 'values are not integers')} "
                       f"(write classes as integers, e.g. 3, not 3.0) at line(s) "
                       f"{_lines(bad)}, e.g. {_examples(shown)}{_formula_hint(shown)}",
                       "not-an-integer", column=target.name, rows=bad)
        valid = present & canonical
        values = pd.Series(np.where(valid, pd.to_numeric(texts.where(valid, "0")), 0),
                           index=column.index, name=column.name).astype(np.int64)
    else:
        if pd.api.types.is_object_dtype(column.dtype):
            values = column.astype(str).str.strip()
        else:
            values = raw.column(target.name)
        valid = present
    outside = np.flatnonzero(valid & ~values.isin(classes).to_numpy())
    if len(outside):
        words = plural(len(outside), "value is not an allowed class",
                       "values are not allowed classes")
        report.add(f"{where}: {words} {classes} at line(s) {_lines(outside)}, e.g. "
                   f"{_examples(raw.column(target.name).iloc[outside].tolist())}",
                   "unknown-class", column=target.name, rows=outside)
    return values


def _check_ids(ids: pd.Series, expected: pd.Series,
               report: Report) -> tuple[pd.Index, np.ndarray]:
    """Returns the expected ids (as compared) and, per row, its position among them."""
    where = f"{report.filename}, column {ids.name!r}"
    if ids.isna().any():
        rows = np.flatnonzero(ids.isna().to_numpy())
        report.add(f"{where}: {plural(len(rows), 'empty id', 'empty ids')} at line(s) "
                   f"{_lines(rows)}", "empty-id", column=str(ids.name), rows=rows)
        return pd.Index(expected), np.full(len(ids), -1)
    got, want = _id_key(ids), _id_key(expected)
    if got.dtype != want.dtype:
        got, want = got.astype(str).str.strip(), want.astype(str).str.strip()
    # One hash lookup answers all three questions: position -1 = not a test id; a position
    # seen twice = duplicate; a position never seen = missing.
    want_index = pd.Index(want)
    if not want_index.is_unique:  # the platform's id files, not the participant's fault
        dup = want[want.duplicated()]
        raise ConfigError(f"{len(dup)} ids are listed twice across the competition's split id "
                          f"files, e.g. {_examples(dup.tolist())}")
    positions = want_index.get_indexer(got)
    extra_rows = np.flatnonzero(positions < 0)
    if len(extra_rows):
        report.add(f"{where}: "
                   f"{plural(len(extra_rows), 'id is not a test id', 'ids are not test ids')} "
                   f"at line(s) {_lines(extra_rows)}, e.g. "
                   f"{_examples(got.iloc[extra_rows].tolist())}; "
                   "predict only the ids in the competition's test id files", "unknown-id",
                   column=str(ids.name), rows=extra_rows)
    known = positions[positions >= 0]
    hits = np.bincount(known, minlength=len(want_index))
    if (hits > 1).any():
        repeated = pd.Series(positions).duplicated(keep="first").to_numpy() & (positions >= 0)
        rows = np.flatnonzero(repeated)
        report.add(f"{where}: {plural(len(rows), 'duplicate id', 'duplicate ids')} at "
                   f"line(s) {_lines(rows)}, e.g. "
                   f"{_examples(got.iloc[rows].tolist())}; give each test id exactly once",
                   "duplicate-id", column=str(ids.name), rows=rows)
    missing = want_index[hits == 0]
    if len(missing):
        report.add(f"{report.filename}: {len(missing)} of {len(want_index)} test ids "
                   f"{'is' if len(missing) == 1 else 'are'} missing, e.g. "
                   f"{_examples(missing.tolist())}; see "
                   "data/sample_submission.csv for the full list", "missing-id",
                   column=str(ids.name), count=len(missing))
    return want_index, positions


def validate_predictions(data: bytes, spec: CompetitionSpec, expected_ids: pd.Series,
                         *, filename: str = "predictions.csv") -> pd.DataFrame:
    """Return the predictions indexed by id, one column per target, or raise a Rejection that
    lists every problem found. `expected_ids` is the union of all splits' public ids."""
    if len(data) > spec.submission.max_bytes:
        raise reject(filename, f"{filename} is {len(data):,} bytes; the limit is "
                     f"{spec.submission.max_bytes:,}", code="too-large",
                     problem_code="too-large")
    report = Report(filename)
    table = read_table(data, filename)
    _check_header(table, spec, report)
    if len(table) == 0:
        raise reject(filename, f"{filename} has a header but no rows; expected one row per "
                     "test id", code="empty", problem_code="empty")
    want_index, positions = _check_ids(table[spec.id_column], expected_ids, report)
    raw = RawCells(data)
    columns = {t.name: _check_target(table[t.name], t, report, raw) for t in spec.targets}
    report.raise_if_any()
    # Valid means `positions` is a permutation: put rows in the order of the expected ids, so
    # scoring can align with labels stored in that order without another hash lookup.
    order = np.empty(len(positions), dtype=np.int64)
    order[positions] = np.arange(len(positions))
    out = pd.DataFrame({name: col.to_numpy()[order] for name, col in columns.items()})
    out.index = pd.Index(want_index.to_numpy(), name=spec.id_column)
    return out


def competition_ids(competition_dir: Path, spec: CompetitionSpec, *,
                    check_unique: bool = True) -> dict[str, pd.Series]:
    """Public ids per split; an id may appear once, in one split (a row belongs to one split).

    `check_unique=False` leaves that check to `validate_predictions`, which makes it on the
    hash table it builds anyway (the scoring path: a 1M-id table costs 0.04 s to check twice).
    """
    per_split = {name: load_ids(Path(competition_dir) / split.ids, spec.id_column)
                 for name, split in spec.splits.items()}
    if not check_unique:
        return per_split
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
