"""The "dataset summary" slot: what is in `data/`, generated from the files themselves.

Why generated: GNN-CB's prompt slots must be filled "without manual modification", so the
summary a model sees is a pure function of the public files: shapes, columns and dtypes, the
first rows verbatim, and the class balance of the training labels. Wide tables (e.g. 1,433 Cora
word features) are abbreviated so one file cannot blow up the prompt; binary formats are
described from their headers only (pickles are never loaded).
"""

from __future__ import annotations

import json
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from evaluator.competition.spec import CompetitionSpec

DTYPE_SAMPLE_ROWS = 10_000  # dtypes are inferred from this many rows
HEAD_ROWS = 3
MAX_COLUMNS_LISTED = 12
MAX_LINE_CHARS = 300
MAX_JSON_BYTES = 20_000_000
TEXT_SUFFIXES = (".txt", ".md")
TABLE_SUFFIXES = {".csv": ",", ".tsv": "\t"}


def binary_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


def public_data_files(competition_dir: Path) -> list[Path]:
    """Regular files under data/, sorted; hidden files and symlinks leading elsewhere skipped."""
    data = Path(competition_dir) / "data"
    if not data.is_dir():
        return []
    root = data.resolve()
    out = []
    for path in sorted(data.rglob("*")):
        rel = path.relative_to(data)
        if any(part.startswith(".") for part in rel.parts):
            continue
        if path.is_file() and path.resolve().is_relative_to(root):
            out.append(path)
    return out


def _count_lines(path: Path) -> int:
    count, last = 0, b"\n"
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (0 if last == b"\n" else 1)


def _head_lines(path: Path, n: int) -> list[str]:
    lines = []
    with path.open("r", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            line = line.rstrip("\r\n")
            if len(line) > MAX_LINE_CHARS:
                line = line[:MAX_LINE_CHARS] + " …"
            lines.append(line)
            if len(lines) >= n:
                break
    return lines


def _columns_text(sample: pd.DataFrame) -> list[str]:
    dtypes = [(str(c), str(t)) for c, t in sample.dtypes.items()]
    if len(dtypes) <= MAX_COLUMNS_LISTED:
        return ["- columns: " + ", ".join(f"{c} ({t})" for c, t in dtypes)]
    shown = ", ".join(f"{c} ({t})" for c, t in dtypes[:MAX_COLUMNS_LISTED - 2])
    counts = Counter(t for _, t in dtypes)
    mix = ", ".join(f"{t} x {n}" for t, n in sorted(counts.items()))
    return [f"- columns: {shown}, … ({len(dtypes) - MAX_COLUMNS_LISTED + 2} more; last is "
            f"{dtypes[-1][0]} ({dtypes[-1][1]}))",
            f"- dtypes of all {len(dtypes)} columns: {mix}"]


def _label_columns(path: Path, columns: list[str], spec: CompetitionSpec,
                   id_files: set[str], rel: str) -> list[str]:
    """Targets present in a training-label file (not a test-id file, not the sample)."""
    if rel in id_files or "sample" in path.name.lower():
        return []
    if spec.id_column not in columns:
        return []
    return [t.name for t in spec.targets if t.name in columns]


def _balance_text(path: Path, sep: str, names: list[str], spec: CompetitionSpec) -> list[str]:
    table = pd.read_csv(path, sep=sep, usecols=names, low_memory=False)
    lines = []
    for target in spec.targets:
        if target.name not in names:
            continue
        column = table[target.name]
        distinct = column.nunique(dropna=True)
        if target.type == "class" or distinct <= 20:
            counts = column.value_counts(dropna=False)
            order = [c for c in (target.classes or []) if c in counts.index]
            order += sorted((c for c in counts.index if c not in order), key=str)
            total = int(counts.sum())
            parts = [f"{c}: {int(counts[c])} ({100 * counts[c] / total:.1f}%)" for c in order]
            lines.append(f"- class balance of `{target.name}` ({total} labelled rows): "
                         + ", ".join(parts))
        else:
            values = pd.to_numeric(column, errors="coerce")
            lines.append(f"- distribution of `{target.name}` ({int(values.count())} rows): "
                         f"mean {values.mean():.4g}, std {values.std():.4g}, "
                         f"min {values.min():.4g}, max {values.max():.4g}")
    return lines


def _describe_table(path: Path, sep: str, spec: CompetitionSpec, id_files: set[str],
                    rel: str) -> list[str]:
    try:
        sample = pd.read_csv(path, sep=sep, nrows=DTYPE_SAMPLE_ROWS, low_memory=False)
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as err:
        return [f"- could not be parsed as a table: {str(err).splitlines()[0]}"]
    rows = max(0, _count_lines(path) - 1)
    lines = [f"- shape: {rows} rows x {sample.shape[1]} columns (header line not counted)"]
    lines += _columns_text(sample)
    head = _head_lines(path, HEAD_ROWS + 1)
    lines.append(f"- first {len(head) - 1} rows, verbatim:")
    lines += [f"    {line}" for line in head]
    targets = _label_columns(path, [str(c) for c in sample.columns], spec, id_files, rel)
    if targets:
        lines += _balance_text(path, sep, targets, spec)
    return lines


def _npy_header(fh) -> tuple[tuple[int, ...], str]:
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(fh)
    else:
        shape, _, dtype = np.lib.format.read_array_header_2_0(fh)
    return shape, str(dtype)


def _describe_binary(path: Path) -> list[str]:
    suffix = path.suffix.lower()
    try:
        if suffix == ".npy":
            with path.open("rb") as fh:
                shape, dtype = _npy_header(fh)
            return [f"- NumPy array: shape {shape}, dtype {dtype}"]
        if suffix == ".npz":
            lines = ["- NumPy archive with arrays:"]
            with zipfile.ZipFile(path) as archive:
                for name in sorted(archive.namelist()):
                    with archive.open(name) as fh:
                        shape, dtype = _npy_header(fh)
                    lines.append(f"    {name.removesuffix('.npy')}: shape {shape}, dtype {dtype}")
            return lines
        if suffix == ".json" and path.stat().st_size <= MAX_JSON_BYTES:
            value = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(value, dict):
                keys = list(value)
                more = f", … ({len(keys) - 20} more)" if len(keys) > 20 else ""
                return [f"- JSON object with keys: {', '.join(map(str, keys[:20]))}{more}"]
            if isinstance(value, list):
                return [f"- JSON array of {len(value)} items"]
            return [f"- JSON {type(value).__name__}"]
        if suffix in TEXT_SUFFIXES:
            return ["- first lines:"] + [f"    {line}" for line in _head_lines(path, 5)]
    except (OSError, ValueError, zipfile.BadZipFile) as err:
        return [f"- could not be read: {err}"]
    return ["- binary file (contents not summarized)"]


def summarize_data(competition_dir: Path, spec: CompetitionSpec) -> str:
    """One Markdown section per public data file, in path order."""
    competition_dir = Path(competition_dir)
    id_files = {split.ids for split in spec.splits.values()}
    sections = []
    for path in public_data_files(competition_dir):
        rel = path.relative_to(competition_dir).as_posix()
        lines = [f"### {rel} ({binary_size(path.stat().st_size)})"]
        if rel in spec.files:
            lines.append(f"- description: {spec.files[rel]}")
        sep = TABLE_SUFFIXES.get(path.suffix.lower())
        lines += (_describe_table(path, sep, spec, id_files, rel) if sep is not None
                  else _describe_binary(path))
        sections.append("\n".join(lines))
    if not sections:
        return "(the competition has no data/ folder)"
    return "\n\n".join(sections)
