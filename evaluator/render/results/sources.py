"""Reference sources: external result tables (e.g. a paper's) imported as data with provenance.

Why a separate store: a published number was never scored here, so it must never be mixed with
ledger rows; a source is kept as its own JSON file (`<ledger folder>/sources/NAME.json`) holding
the rows as read, where they came from (path, SHA-256, time) and how they were read.

Contract (tools rely on it): CSV columns `entrant,family,competition,score`, optional `kind`
(`human-top`, `human-mean`, `human`, `llm-api`, `llm-agent`, `baseline`; default `llm-api`, an
entrant named `Human Top` means `human-top`), `metric`, `note`. `competition` is a slug or a
GNN-CB id `C01`..`C18`; an id whose competition has a folder here (`replicates:`) becomes that
slug, other ids stay external competitions described by `reference.gnncb_competitions()`.
`percent=True` divides classification scores by 100 (papers print them in percent).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import re
from pathlib import Path
from typing import Any

from evaluator.competition.spec import CompetitionSpec
from evaluator.errors import ConfigError
from evaluator.ledger.store import now_iso
from evaluator.metrics.registry import METRICS
from evaluator.render.results import reference

KINDS = ("human-top", "human-mean", "human", "llm-api", "llm-agent", "baseline")
LLM_KINDS = ("llm-api", "llm-agent")
REQUIRED = ("entrant", "family", "competition", "score")
OPTIONAL = ("kind", "metric", "note")
SOURCE_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
MAX_SOURCE_BYTES = 5_000_000


def check_source_name(name: str) -> str:
    if not SOURCE_NAME_RE.match(name) or ".." in name:
        raise ConfigError(f"source name {name!r}: use letters, digits, '.', '_' or '-' "
                          "(at most 64 characters), e.g. gnncb-table3")
    return name


def competition_meta(spec: CompetitionSpec) -> dict[str, Any]:
    """What the results need to know about a local competition (its primary score)."""
    primary = spec.primary_score
    fn = spec.metrics[primary].fn if primary in spec.metrics else None
    bounded = fn is not None and METRICS[fn].bounded
    return {"id": spec.slug, "gnncb_id": reference.gnncb_id(spec.replicates),
            "title": spec.title, "score": primary, "metric": fn or primary,
            "higher_is_better": spec.higher_is_better(primary),
            "difficulty": spec.difficulty, "classification": bounded,
            "splits": _splits_of(spec, primary), "all_splits": sorted(spec.splits),
            "public_part": spec.has_parts}


def _splits_of(spec: CompetitionSpec, score: str) -> list[str]:
    """The test splits a score is measured on (a derived score: those of its parts)."""
    if score in spec.metrics:
        return [spec.metrics[score].split]
    derived = spec.derived.get(score)
    if derived is None:
        return []
    return sorted({s for part in derived.of for s in _splits_of(spec, part)})


def external_meta(gnncb: str) -> dict[str, Any]:
    c = reference.gnncb_competitions()[gnncb]
    return {"id": gnncb, "gnncb_id": gnncb, "title": c.name, "score": c.metric,
            "metric": c.metric, "higher_is_better": c.higher_is_better,
            "difficulty": c.difficulty, "classification": METRICS[c.metric].bounded}


def resolve_competition(value: str, specs: list[CompetitionSpec]) -> dict[str, Any]:
    """A slug or a GNN-CB id -> competition meta. A GNN-CB id keeps the paper's metric and
    difficulty (the local primary score may differ, e.g. gta ranks f1_perturbed)."""
    value = value.strip()
    by_slug = {s.slug: s for s in specs}
    if value in by_slug:
        return competition_meta(by_slug[value])
    upper = value.upper()
    if upper in reference.gnncb_competitions():
        meta = external_meta(upper)
        for s in specs:
            if reference.gnncb_id(s.replicates) == upper:
                meta = {**meta, "id": s.slug, "title": s.title}
                break
        return meta
    if re.fullmatch(r"C\d\d", upper):
        raise ConfigError(f"{value!r} is not one of GNN-CB's competitions C01..C18")
    known = ", ".join(sorted(by_slug)) or "none"
    raise ConfigError(f"{value!r} is neither a competition folder here ({known}) nor a GNN-CB "
                      "id C01..C18")


def parse_source(data: bytes, specs: list[CompetitionSpec], *, filename: str,
                 percent: bool = False) -> list[dict[str, Any]]:
    """Validate a source CSV; every error names the file, line and column."""
    if len(data) > MAX_SOURCE_BYTES:
        raise ConfigError(f"{filename}: {len(data):,} bytes; a source holds at most "
                          f"{MAX_SOURCE_BYTES:,}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ConfigError(f"{filename}: not UTF-8 ({err})") from None
    reader = csv.reader(io.StringIO(text))
    header = [h.strip().lower() for h in next(reader, [])]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise ConfigError(f"{filename}, line 1: missing column(s) {', '.join(missing)}; a "
                          f"source has columns {','.join(REQUIRED)} (+ optional "
                          f"{','.join(OPTIONAL)})")
    unknown = [c for c in header if c not in REQUIRED + OPTIONAL]
    if unknown:
        raise ConfigError(f"{filename}, line 1: unknown column(s) {', '.join(unknown)}; allowed "
                          f"are {','.join(REQUIRED + OPTIONAL)}")
    rows: list[dict[str, Any]] = []
    seen: dict[tuple[str, str, str], int] = {}
    for lineno, cells in enumerate(reader, 2):
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            raise ConfigError(f"{filename}, line {lineno}: {len(cells)} fields, the header has "
                              f"{len(header)}")
        cell = {h: c.strip() for h, c in zip(header, cells, strict=True)}

        def where(column: str, _lineno: int = lineno) -> str:
            return f"{filename}, line {_lineno}, column {header.index(column) + 1} ({column})"

        if not cell["entrant"]:
            raise ConfigError(f"{where('entrant')}: empty entrant")
        kind = cell.get("kind") or ("human-top" if cell["entrant"].lower() == "human top"
                                    else "llm-api")
        if kind not in KINDS:
            raise ConfigError(f"{where('kind')}: unknown kind {kind!r}; use one of "
                              f"{', '.join(KINDS)}")
        try:
            meta = resolve_competition(cell["competition"], specs)
        except ConfigError as err:
            raise ConfigError(f"{where('competition')}: {err}") from None
        printed = cell.get("metric", "")
        try:
            score = float(cell["score"]) if cell["score"] else None
        except ValueError:
            raise ConfigError(f"{where('score')}: {cell['score']!r} is not a number (leave it "
                              "empty for a run that produced no valid file)") from None
        if score is not None and not math.isfinite(score):
            raise ConfigError(f"{where('score')}: {cell['score']!r} is not finite")
        if score is None and kind not in LLM_KINDS:
            raise ConfigError(f"{where('score')}: only LLM rows may leave the score empty "
                              "(a run with no valid file)")
        if score is not None and percent and meta["classification"]:
            score = score / 100.0
        if score is not None and meta["classification"] and not 0.0 <= score <= 1.0:
            hint = "" if percent else "; pass --percent if the table prints percentages"
            raise ConfigError(f"{where('score')}: {cell['score']} is outside [0, 1] for "
                              f"{meta['metric']}{hint}")
        key = (cell["entrant"].lower(), meta["id"], kind)
        if key in seen:
            raise ConfigError(f"{where('entrant')}: {cell['entrant']!r} on {meta['id']} is "
                              f"already given on line {seen[key]}")
        seen[key] = lineno
        rows.append({"entrant": cell["entrant"], "family": cell["family"], "kind": kind,
                     "competition": meta["id"], "gnncb_id": meta["gnncb_id"],
                     "metric": meta["metric"], "metric_printed": printed,
                     "higher_is_better": meta["higher_is_better"],
                     "difficulty": meta["difficulty"], "classification": meta["classification"],
                     "title": meta["title"], "score": score, "note": cell.get("note", ""),
                     "line": lineno})
    if not rows:
        raise ConfigError(f"{filename}: no rows")
    return rows


def import_source(path: Path, name: str, specs: list[CompetitionSpec], store: Path, *,
                  percent: bool = False, now: str | None = None) -> Path:
    """Read, validate and store a source; returns the stored JSON path."""
    check_source_name(name)
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ConfigError(f"{path}: cannot read: {err}") from None
    rows = parse_source(data, specs, filename=str(path), percent=percent)
    source = {"schema": 1, "name": name,
              "provenance": {"file": path.name, "sha256": hashlib.sha256(data).hexdigest(),
                             "imported_at": now or now_iso(), "percent": percent,
                             "rows": len(rows)},
              "rows": rows}
    out = Path(store) / f"{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(source, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                   encoding="utf-8")
    return out


def load_source(store: Path, name: str) -> dict[str, Any]:
    path = Path(store) / f"{check_source_name(name)}.json"
    if not path.is_file():
        have = sorted(p.stem for p in Path(store).glob("*.json")) if Path(store).is_dir() else []
        raise ConfigError(f"{path}: no source named {name!r} (imported: "
                          f"{', '.join(have) or 'none'}); run `gnncb results import CSV "
                          f"--source {name}` first")
    try:
        source = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as err:
        raise ConfigError(f"{path}: corrupt source: {err}") from None
    if not isinstance(source, dict) or not isinstance(source.get("rows"), list):
        raise ConfigError(f"{path}: not a results source (no 'rows')")
    return source
