"""Seeded case sets: which cases a problem is judged on, generated once and cached on disk.

Why cached sets: a case is cheap to describe (a seed) but its graph, its input and its expected
answer take NetworkX and the reference solution to produce; the judge, the report and the
leaderboard all need the same cases, so a set is generated once into a directory
(`manifest.json` + `cases/<problem>.jsonl.gz`) and read many times. Every case records its seed,
category, sub-category, node count and graph statistics, so anyone can regenerate or inspect it.

Plans (how many cases per problem and cell):
- "paper" (the default) mirrors GraphEval36K's breakdown and size: the cells the benchmark
  published for each problem, 100 cases each (the paper's unit, "100 graph samples for each
  sub-category"). Upstream names are mapped to ours (`erdos` -> erdos-renyi, `dense_NN/dense` ->
  dense/connected). Cells a problem's contract rules out, and the upstream `pseudo` cells
  (multigraphs, outside the paper's eight categories), hand their cases to the problem's other
  cells (same category first), so every problem keeps its published size. About 35,900 cases.
- "full": every category x sub-category that the problem's contract and the generator allow,
  `per_cell` cases each (coverage rather than fidelity).
`per_cell` scales the paper plan too (10 gives a tenth of the set).
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import io
import json
import os
import random
import shutil
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from evaluator import __version__, settings
from evaluator.codetrack.costmodel import limit_seconds, model_seconds
from evaluator.codetrack.errata import case_set_version
from evaluator.codetrack.problem import CATEGORIES, SUBCATEGORIES, Problem, all_problems
from evaluator.errors import ConfigError
from evaluator.paths import find_root, no_repository_message

FORMAT = 2  # 2: arguments in a separate aligned file
PAPER_UNIT = 100  # GraphEval36K: "100 graph samples for each sub-category"
PRACTICE_SEED = 20240624  # public seed of the practice set (the paper's arXiv date)
MAX_ATTEMPTS = 40  # draws per case before a cell is declared short

# Upstream file stems that name one of our categories differently.
_CATEGORY_ALIASES = {"erdos": "erdos-renyi", "smallworld": "small-world", "powerlaw": "power-law"}


def map_published_cell(file_stem: str, subcategory: str) -> tuple[str, str] | None:
    """Our (category, sub-category) for an upstream cell, or None (e.g. `pseudo` multigraphs).

    `dense_03` and friends are further dense draws; their key `dense` means a (connected)
    dense graph, which is how the paper's Table 2 lists the dense row.
    """
    stem = file_stem.lower()
    category = _CATEGORY_ALIASES.get(stem, stem)
    if category.startswith("dense"):
        category = "dense"
    sub = "connected" if subcategory == "dense" else subcategory
    if category in CATEGORIES and sub in SUBCATEGORIES:
        return category, sub
    return None


# --------------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------------


class RawArgs(Mapping[str, Any]):
    """A case's arguments kept as the JSON text they are stored as, decoded on first use.

    Why: arguments are most of a case set's bytes (edge lists of dense graphs); the judge only
    forwards them to the sandboxed worker, which decodes them anyway, so decoding them here too
    would double the cost. Checkers that read the arguments decode them transparently.
    """

    __slots__ = ("_data", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._data: dict[str, Any] | None = None

    def _decoded(self) -> dict[str, Any]:
        if self._data is None:
            self._data = json.loads(self.text)
        return self._data

    def __getitem__(self, key: str) -> Any:
        return self._decoded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded())

    def __len__(self) -> int:
        return len(self._decoded())

    def __repr__(self) -> str:
        return f"RawArgs({self.text[:60]!r}...)"


@dataclass
class Case:
    """One input of one problem with its expected answer and its provenance."""

    id: str
    problem: str
    direction: str  # "directed" | "undirected"
    category: str  # one of CATEGORIES, or an upstream name that maps to none (e.g. "pseudo")
    subcategory: str
    index: int
    args: Mapping[str, Any]  # a dict, or RawArgs when read from a case set
    expected: Any = None  # the reference's answer: the truth the judge checks against
    has_expected: bool = True  # False when the reference defines no answer (imported cases)
    source: str = "generated"  # "generated" | "grapheval36k"
    cell: str = ""  # "<category>/<sub-category>"; upstream "<file>/<key>" for imported cases
    seed: int | None = None
    attempt: int = 0  # draws rejected by the generator or the problem before this one
    stats: dict[str, Any] | None = None  # inputgraph.input_stats of the input as received
    # the reference's modelled CPU time (costmodel.py: deterministic, from the input's size);
    # the judge derives the case's time limit from it
    ref_seconds: float | None = None
    limit_seconds: float | None = None  # that limit under the judge's default configuration
    label: Any = None  # the published label (imported cases)
    has_label: bool = False
    flag: str = ""  # why the published label is known to be wrong ("" = not flagged)
    repaired: bool = False  # the published line needed a known repair
    in_contract: bool | None = None

    def args_json(self) -> str:
        """The arguments as compact JSON (the stored text itself when read from a set)."""
        if isinstance(self.args, RawArgs):
            return self.args.text
        return json.dumps(self.args, separators=(",", ":"), allow_nan=False)

    def meta_json(self) -> str:
        """Everything but the arguments, as stored in `cases/<problem>.jsonl.gz`."""
        data = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "args"}
        if not self.has_label:
            for key in ("label", "has_label", "flag", "repaired"):
                data.pop(key)
        return json.dumps(data, separators=(",", ":"), allow_nan=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], args: Mapping[str, Any] | None = None) -> Case:
        known = cls.__dataclass_fields__
        fields = {k: v for k, v in data.items() if k in known}
        if args is not None:
            fields["args"] = args
        return cls(**fields)


def _deterministic_gzip(raw: BinaryIO) -> io.TextIOWrapper:
    """A text stream gzip-compressed into `raw` with no timestamp and no file name in the
    header, so the same cases give the same bytes (a set is byte-identical across runs)."""
    packed = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=3, mtime=0)
    return io.TextIOWrapper(packed, encoding="utf-8", newline="\n")


class CaseWriter:
    """Writes one problem's cases as two aligned gzip files, whole or not at all:
    `<problem>.jsonl.gz` (metadata, expected answer, label) and `<problem>.args.gz` (one JSON
    object of arguments per line, in the same order)."""

    def __init__(self, meta_path: Path) -> None:
        self.paths = (Path(meta_path), args_path(Path(meta_path)))
        # closed in __exit__; a `with` block here would close them before any write
        self.raw = [Path(str(p) + ".part").open("wb") for p in self.paths]  # noqa: SIM115
        self.handles = [_deterministic_gzip(raw) for raw in self.raw]

    def write(self, case: Case) -> None:
        self.handles[0].write(case.meta_json() + "\n")
        self.handles[1].write(case.args_json() + "\n")

    def __enter__(self) -> CaseWriter:
        return self

    def __exit__(self, kind: Any, *_: Any) -> None:
        for handle, raw in zip(self.handles, self.raw, strict=True):
            handle.close()  # writes the gzip trailer; GzipFile leaves `raw` open
            raw.close()
        for path in self.paths:
            part = Path(str(path) + ".part")
            if kind is None:
                os.replace(part, path)
            else:
                part.unlink(missing_ok=True)


def args_path(meta_path: Path) -> Path:
    return meta_path.with_name(meta_path.name.replace(".jsonl.gz", ".args.gz"))


# --------------------------------------------------------------------------------------------
# Plans
# --------------------------------------------------------------------------------------------

Plan = dict[str, dict[str, int]]  # problem id -> {"category/subcategory": count}


def cell_possible(problem: Problem, category: str, subcategory: str) -> bool:
    """The generator can draw this kind of graph and the problem's contract accepts it."""
    from evaluator.codetrack.graphgen import IMPOSSIBLE

    key = (category, subcategory, problem.directed)
    # ("regular", "acyclic", undirected) exists for even n only: the draw loop finds one
    possible = key not in IMPOSSIBLE or key == ("regular", "acyclic", False)
    return possible and f"{category}/{subcategory}" not in problem.skipped_cells


def valid_cells(problem: Problem) -> list[str]:
    return [
        f"{c}/{s}" for c in CATEGORIES for s in SUBCATEGORIES if cell_possible(problem, c, s)
    ]


def paper_plan(problems: Iterable[Problem], per_cell: int = PAPER_UNIT) -> Plan:
    """GraphEval36K's published cells per problem, `per_cell` cases each (module docstring)."""
    plan: Plan = {}
    for problem in problems:
        if not problem.published_cells:
            raise ConfigError(
                f"{problem.id} has no published GraphEval36K cells; use the 'full' plan for it"
            )
        counts: dict[str, int] = {}
        orphans: list[tuple[str | None, int]] = []  # (category or None, count) to re-home
        for cell in problem.published_cells:
            stem, _, key = cell.partition("/")
            mapped = map_published_cell(stem, key)
            if mapped and cell_possible(problem, *mapped):
                name = "/".join(mapped)
                counts[name] = counts.get(name, 0) + per_cell
            else:
                orphans.append((mapped[0] if mapped else None, per_cell))
        fallback = [
            c for c in valid_cells(problem) if c.split("/")[0] in ("sparse", "planar")
        ] or valid_cells(problem)
        if not fallback:
            raise ConfigError(f"{problem.id}: its contract rules out every generated cell")
        valid = valid_cells(problem)
        for category, count in orphans:
            same = [c for c in valid if c.split("/")[0] == category]
            receivers = same or list(counts) or fallback
            for c in receivers:
                counts.setdefault(c, 0)
            _spread(counts, receivers, count, per_cell)
        plan[problem.id] = {c: n for c, n in counts.items() if n > 0}
    return plan


def _spread(counts: dict[str, int], receivers: Sequence[str], total: int, unit: int) -> None:
    """Hand `total` cases out in chunks of `unit`, always to the currently smallest receiver."""
    while total > 0:
        chunk = min(unit, total)
        target = min(receivers, key=lambda c: (counts[c], receivers.index(c)))
        counts[target] += chunk
        total -= chunk


def full_plan(problems: Iterable[Problem], per_cell: int) -> Plan:
    """Every valid cell of every problem, `per_cell` cases each."""
    return {p.id: dict.fromkeys(valid_cells(p), per_cell) for p in problems}


def make_plan(kind: str, problems: Iterable[Problem], per_cell: int | None = None) -> Plan:
    if kind == "paper":
        return paper_plan(problems, PAPER_UNIT if per_cell is None else per_cell)
    if kind == "full":
        return full_plan(problems, 20 if per_cell is None else per_cell)
    raise ConfigError(f"unknown plan {kind!r}; choose 'paper' (the default) or 'full'")


# --------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------


def code_digest() -> str:
    """Digest of the code that decides cases and answers; a set records the one it was made by.

    A cached set made by other problem or generator code may hold stale answers.
    """
    base = Path(__file__).resolve().parent
    files = [base / "graphgen.py", base / "problem.py", base / "checkers.py",
             base / "importer.py", base / "costmodel.py", base / "inputgraph.py"]
    files += sorted((base / "problems").glob("*.py"))
    h = hashlib.sha256()
    for path in files:
        if path.is_file():
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def seed_from_digest(digest: str) -> int:
    """The leaderboard seed of a submission: its content digest decides its cases."""
    return int(hashlib.sha256(f"gnncb-codetrack|{digest}".encode()).hexdigest()[:15], 16)


def generate_case(
    problem: Problem, category: str, subcategory: str, index: int, base_seed: int
) -> tuple[Case | None, list[str]]:
    """Draw one case; (None, reasons) when MAX_ATTEMPTS draws give no usable graph.

    A draw is used only when the input the builder makes from it still has the cell's
    sub-category (builders reshape graphs: planting a judge connects a disconnected one);
    the case's statistics are measured on that input too (inputgraph.py).
    """
    from evaluator.codetrack.graphgen import case_seed, generate_graph, sample_n
    from evaluator.codetrack.inputgraph import input_stats, subcategory_holds

    reasons: list[str] = []
    for attempt in range(MAX_ATTEMPTS):
        salt = problem.id if attempt == 0 else f"{problem.id}~{attempt}"
        seed = case_seed(base_seed, salt, category, subcategory, index)
        n = sample_n(seed)
        try:
            G = generate_graph(category, subcategory, problem.directed, n, seed)
            args = None if G is None else problem.build_case(G, random.Random(f"build|{seed}"))
        except Exception as exc:  # a generator bug on one draw: report it, draw again
            reasons.append(f"seed {seed} (n={n}): drawing the case raised "
                           f"{type(exc).__name__}: {exc}")
            continue
        if G is None or args is None:
            continue
        received = problem.input_graph(args)
        if not subcategory_holds(subcategory, received):
            continue  # the input lost the cell's property: draw again
        try:
            expected = problem.reference(**copy.deepcopy(args))
        except Exception as exc:  # a reference bug: report it, never store a wrong case
            reasons.append(f"seed {seed}: reference raised {type(exc).__name__}: {exc}")
            continue
        expected = json.loads(json.dumps(expected))  # tuples -> lists, as judged
        verdict = problem.checker(args, expected, expected)
        if not verdict.ok:  # the reference's own answer must pass its checker
            reasons.append(f"seed {seed}: the checker rejects the reference's answer "
                           f"({verdict.reason})")
            continue
        stats = input_stats(received)
        cell = f"{category}/{subcategory}"
        return (
            Case(
                id=f"{problem.id}/{cell}/{index}",
                problem=problem.id,
                direction="directed" if problem.directed else "undirected",
                category=category,
                subcategory=subcategory,
                index=index,
                args=args,
                expected=expected,
                cell=cell,
                seed=seed,
                attempt=attempt,
                stats=stats,
                **case_limits(problem, args),
            ),
            reasons,
        )
    return None, reasons


def case_limits(problem: Problem, args: Mapping[str, Any]) -> dict[str, float]:
    """`ref_seconds` and `limit_seconds` of a case from the cost model (never a stopwatch, so
    two generations of one seed get the same limits)."""
    text = json.dumps(args, separators=(",", ":"), allow_nan=False)
    ref = model_seconds(problem.cost_rate, text)
    return {"ref_seconds": ref, "limit_seconds": limit_seconds(ref)}


def _generate_problem(
    problem_id: str, cells: dict[str, int], base_seed: int, out: str
) -> dict[str, Any]:
    """Write one problem's cases to `out` (see CaseWriter: files are always whole)."""
    problem = all_problems()[problem_id]
    written = 0
    short: dict[str, int] = {}
    errors: list[str] = []
    with CaseWriter(Path(out)) as writer:
        for cell, count in cells.items():
            category, subcategory = cell.split("/")
            for index in range(count):
                case, reasons = generate_case(problem, category, subcategory, index, base_seed)
                errors.extend(reasons)
                if case is None:
                    short[cell] = short.get(cell, 0) + 1
                    continue
                writer.write(case)
                written += 1
    return {"cases": written, "cells": cells, "short": short, "draw_errors": errors[:20]}


def generate_case_set(
    dest: Path,
    *,
    base_seed: int = PRACTICE_SEED,
    plan: str = "paper",
    per_cell: int | None = None,
    problems: Sequence[str] | None = None,
    jobs: int = 1,
    name: str | None = None,
    force: bool = False,
    on_problem: Callable[[str, int, int], None] | None = None,
) -> CaseSet:
    """Generate a case set into `dest`, or add missing problems to the set already there.

    `on_problem(problem_id, done, total)` is called as each problem is written (progress).

    Each problem's file is written whole or not at all and the manifest lists a problem only
    once its file is complete, so an interrupted run leaves a usable (smaller) set.
    """
    dest = Path(dest)
    registry = all_problems()
    chosen = select_problems(registry, problems)
    settings = {"plan": plan, "per_cell": per_cell, "base_seed": base_seed}
    manifest: dict[str, Any]
    if (dest / "manifest.json").is_file() and not force:
        manifest = CaseSet(dest).manifest
        mismatch = {k: (manifest.get(k), v) for k, v in settings.items() if manifest.get(k) != v}
        if mismatch or manifest.get("kind") != "generated":
            raise ConfigError(
                f"{dest} holds a different case set ({mismatch or manifest.get('kind')}); "
                "pass --force to replace it or choose another --out"
            )
    else:
        if dest.exists():
            if not force and any(dest.iterdir()):
                raise ConfigError(f"{dest} exists and is not a case set; choose another --out")
            shutil.rmtree(dest)
        manifest = {
            "format": FORMAT,
            "name": name or dest.name,
            "kind": "generated",
            **settings,
            "code_digest": code_digest(),
            "case_set_version": case_set_version(),
            "gnncb_version": __version__,
            "problems": {},
            "total": 0,
        }
    (dest / "cases").mkdir(parents=True, exist_ok=True)
    missing = [p for p in chosen if p.id not in manifest["problems"]]
    layout = make_plan(plan, missing, per_cell)
    order = sorted(layout, key=lambda pid: -sum(layout[pid].values()))
    calls = [(pid, layout[pid], base_seed, str(dest / "cases" / f"{pid}.jsonl.gz"))
             for pid in order]
    def recorded(pid: str, done: int) -> None:
        if on_problem is not None:
            on_problem(pid, done, len(calls))

    if jobs > 1 and len(calls) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(_generate_problem, *c): c[0] for c in calls}
            for done, (future, pid) in enumerate(futures.items(), 1):
                _record(dest, manifest, registry[pid], future.result())
                recorded(pid, done)
    else:
        for done, call in enumerate(calls, 1):
            _record(dest, manifest, registry[call[0]], _generate_problem(*call))
            recorded(call[0], done)
    write_manifest(dest, manifest)
    return CaseSet(dest)


def _record(dest: Path, manifest: dict[str, Any], problem: Problem,
            summary: dict[str, Any]) -> None:
    if summary["short"]:
        warnings.warn(
            f"{problem.id}: {sum(summary['short'].values())} case(s) could not be drawn in "
            f"{MAX_ATTEMPTS} attempts ({summary['short']})",
            stacklevel=3,
        )
    for reason in summary["draw_errors"]:
        warnings.warn(f"{problem.id}: {reason}", stacklevel=3)
    manifest["problems"][problem.id] = {
        "direction": "directed" if problem.directed else "undirected",
        **summary,
    }
    manifest["total"] = sum(p["cases"] for p in manifest["problems"].values())
    write_manifest(dest, manifest)


def select_problems(registry: Mapping[str, Problem], wanted: Sequence[str] | None) -> list[Problem]:
    if not wanted:
        return list(registry.values())
    unknown = [w for w in wanted if w not in registry]
    if unknown:
        raise ConfigError(
            f"unknown problem(s) {', '.join(unknown)}; known: {', '.join(registry)}"
        )
    return [registry[w] for w in wanted]


def write_manifest(directory: Path, manifest: Mapping[str, Any]) -> None:
    """Replace manifest.json atomically (readers never see half a manifest)."""
    tmp = directory / "manifest.json.part"
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, directory / "manifest.json")


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


@dataclass
class CaseSet:
    """A case-set directory: `manifest.json` and `cases/<problem>.jsonl.gz`."""

    path: Path
    manifest: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        file = self.path / "manifest.json"
        if not file.is_file():
            raise ConfigError(
                f"{self.path} is not a case set (no manifest.json); create one with "
                "`gnncb code generate` or `gnncb code import-grapheval`"
            )
        self.manifest = json.loads(file.read_text(encoding="utf-8"))
        if self.manifest.get("format") != FORMAT:
            raise ConfigError(f"{file}: case-set format {self.manifest.get('format')!r} is not "
                              f"{FORMAT}; regenerate the set")

    @property
    def name(self) -> str:
        return str(self.manifest.get("name", self.path.name))

    @property
    def kind(self) -> str:
        return str(self.manifest.get("kind", "generated"))

    @property
    def version(self) -> int:
        """The case-set version it was generated at (errata.py); sets made before versions
        were recorded are version 1, the cases before any erratum."""
        return int(self.manifest.get("case_set_version", 1))

    def problem_ids(self) -> list[str]:
        return list(self.manifest["problems"])

    def fingerprint(self, problem_id: str) -> str:
        """sha256 over a problem's cases: each id, arguments and true answer (not the limits,
        which follow the cost model, nor statistics); errata.py pins cases by it."""
        h = hashlib.sha256()
        for case in self.iter_cases(problem_id):
            h.update(json.dumps([case.id, json.loads(case.args_json()), case.expected],
                                sort_keys=True, separators=(",", ":")).encode())
            h.update(b"\n")
        return h.hexdigest()

    def file(self, problem_id: str) -> Path:
        return self.path / "cases" / f"{problem_id}.jsonl.gz"

    def iter_cases(self, problem_id: str) -> Iterator[Case]:
        """The problem's cases in order; arguments stay JSON text until used (RawArgs)."""
        path = self.file(problem_id)
        if not path.is_file() or not args_path(path).is_file():
            raise ConfigError(f"{path} (or its .args.gz) is missing; the case set {self.path} "
                              "is incomplete: regenerate it")
        with gzip.open(path, "rt", encoding="utf-8") as meta, \
                gzip.open(args_path(path), "rt", encoding="utf-8") as args:
            for line, raw in zip(meta, args, strict=True):
                yield Case.from_dict(json.loads(line), RawArgs(raw.rstrip("\n")))

    def cases(self, problem_id: str) -> list[Case]:
        return list(self.iter_cases(problem_id))

    def stale(self) -> bool:
        """Made by other problem/generator code than the one installed (answers may differ)."""
        return self.manifest.get("code_digest") not in (None, code_digest())


def default_cache_dir() -> Path:
    """Where generated sets live: $GNNCB_CACHE, else the repository's `runs/codetrack/`
    (git-ignored; the repository as every verb finds it, never the package's folder)."""
    env = settings.cache()
    if env:
        return Path(env) / "codetrack"
    found = find_root()
    if found is None:
        raise ConfigError(f"where to cache case sets? {no_repository_message()}; or set "
                          "$GNNCB_CACHE to a folder")
    return found.path / "runs" / "codetrack"


def default_set_path(plan: str = "paper", base_seed: int = PRACTICE_SEED,
                     per_cell: int | None = None) -> Path:
    """A set's cache path names everything that decides its content, code digest included."""
    size = "" if per_cell is None else f"-n{per_cell}"
    return default_cache_dir() / "cases" / f"{plan}{size}-seed{base_seed}-{code_digest()[:10]}"


def ensure_case_set(
    path: Path | None = None,
    *,
    plan: str = "paper",
    base_seed: int = PRACTICE_SEED,
    per_cell: int | None = None,
    problems: Sequence[str] | None = None,
    jobs: int = 1,
) -> CaseSet:
    """Open the set at `path` (default: the practice set's cache path), generating what is
    missing: a fresh clone judges `--problems lc207` without generating all 40 problems."""
    path = Path(path) if path else default_set_path(plan, base_seed, per_cell)
    if (path / "manifest.json").is_file():
        existing = CaseSet(path)
        wanted = problems or list(all_problems())
        if existing.kind != "generated" or all(p in existing.manifest["problems"]
                                                for p in wanted):
            return existing
    return generate_case_set(path, plan=plan, base_seed=base_seed, per_cell=per_cell,
                             problems=problems, jobs=jobs)
