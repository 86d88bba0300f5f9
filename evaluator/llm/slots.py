"""The five prompt slots, filled from a competition folder without manual edits.

Why exactly these five (README, repository tree, dataset summary, submission specification,
allowed libraries and constraints): GNN-CB's frozen prompt (Listing 1) is task-agnostic and
only these slots vary per competition, so a score difference between two competitions cannot
come from prompt wording. Everything here is derived from the public files a participant also
gets, plus facts about the execution environment; hidden/ is never read.
"""

from __future__ import annotations

import importlib.metadata
import platform
import re
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from evaluator.competition.spec import CompetitionSpec, Target
from evaluator.llm.datasummary import binary_size, public_data_files, summarize_data
from evaluator.sandbox import Limits

SLOT_NAMES = ("readme", "tree", "dataset", "submission", "environment")
# The files a solution's workspace holds; mirrored by execute.public_sources.
PUBLIC_TOP_LEVEL = ("README.md", "competition.yaml")
# Libraries a solution may import, when installed in the interpreter that runs solutions.
CANDIDATE_LIBRARIES = (
    "numpy", "scipy", "pandas", "scikit-learn", "networkx", "torch", "torch-geometric",
    "torch-scatter", "torch-sparse", "rdkit", "xgboost", "lightgbm",
)
SAMPLE_ROWS = 3


@dataclass(frozen=True)
class Slots:
    readme: str
    tree: str
    dataset: str
    submission: str
    environment: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def readme_slot(competition_dir: Path, spec: CompetitionSpec) -> str:
    path = Path(competition_dir) / "README.md"
    if path.is_file():
        return path.read_text(encoding="utf-8", errors="replace").strip()
    # No README: the same facts a README template would show, taken from competition.yaml.
    parts = [f"# {spec.title}", "", "(This competition folder has no README.md; the text "
             "below is taken from competition.yaml.)"]
    for text in (spec.summary, spec.description):
        if text.strip():
            parts += ["", text.strip()]
    parts += ["", f"Task: {spec.task}; graph category: {spec.category}; difficulty: "
              f"{spec.difficulty}; domain: {spec.domain}."]
    return "\n".join(parts)


# The README sections a solver needs; the rest (how to submit a pull request, `gnncb
# encrypt`, baselines in baseline/, sources) is about files and steps that are not in the
# sandbox: a small model answered `python build.py` six times after reading them.
SOLVER_SECTIONS = ("task", "data", "evaluation", "rules")
README_MODES = ("verbatim", "solver")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
_COMMENT = re.compile(r"<!--.*?-->\n?", re.DOTALL)


def solver_readme(text: str, keep: tuple[str, ...] = SOLVER_SECTIONS) -> str:
    """The README reduced to its title, its introduction and the level-2 sections whose
    heading starts with one of `keep` (their own subsections named "Baselines" dropped)."""
    lines = _COMMENT.sub("", text).splitlines()
    out: list[str] = []
    keeping, skipping_sub, fenced = True, False, False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading:
            level, title = len(heading.group(1)), heading.group(2).strip().lower()
            if level == 2:
                keeping, skipping_sub = title.startswith(keep), False
            elif level > 2 and keeping:
                skipping_sub = title.startswith("baseline")
        if keeping and not skipping_sub:
            out.append(line)
    kept = [t for t in keep if any(_HEADING.match(x) and x.lstrip("# ").lower().startswith(t)
                                   for x in out)]
    note = ("(README abridged by gnncb to the sections a solver needs: "
            + ", ".join(k.capitalize() for k in kept) + ".)") if kept else ""
    body = "\n".join(out).strip()
    return f"{body}\n\n{note}".strip() if note else body


def tree_slot(competition_dir: Path, spec: CompetitionSpec) -> str:
    """The workspace as the solution will see it (public files only), with sizes. File
    descriptions from competition.yaml appear once, in the dataset summary."""
    competition_dir = Path(competition_dir)
    lines = ["./"]
    for name in PUBLIC_TOP_LEVEL:
        path = competition_dir / name
        if path.is_file():
            lines.append(f"  {name}  ({binary_size(path.stat().st_size)})")
    files = public_data_files(competition_dir)
    shown_dirs: set[str] = set()
    for path in files:
        rel = path.relative_to(competition_dir)
        for depth in range(1, len(rel.parts)):
            folder = "/".join(rel.parts[:depth])
            if folder not in shown_dirs:
                shown_dirs.add(folder)
                lines.append(f"{'  ' * depth}{rel.parts[depth - 1]}/")
        lines.append(f"{'  ' * len(rel.parts)}{rel.name}  ({binary_size(path.stat().st_size)})")
    return "\n".join(lines)


def _target_text(target: Target) -> str:
    if target.type == "class":
        return f"a class label, one of {list(target.classes or [])}"
    if target.type == "probability":
        return f"a probability in [0, 1] that the true value is {target.positive!r}"
    return "a finite real number"


def submission_slot(competition_dir: Path, spec: CompetitionSpec) -> str:
    competition_dir = Path(competition_dir)
    columns = [spec.id_column] + [t.name for t in spec.targets]
    lines = [f"File: {spec.submission.file} in the working directory: CSV, UTF-8, comma "
             f"separated, one header line, at most {spec.submission.max_bytes:,} bytes.",
             f"Header (columns in any order): {','.join(columns)}"]
    for name, split in spec.splits.items():
        path = competition_dir / split.ids
        count = ""
        if path.is_file():
            count = f" ({len(pd.read_csv(path, usecols=[spec.id_column])):,} ids)"
        lines.append(f"- `{spec.id_column}`: every id listed in {split.ids}{count} exactly once "
                     f"(split {name!r}); no other ids")
    for target in spec.targets:
        lines.append(f"- `{target.name}`: {_target_text(target)}")
    lines.append("Scores computed on hidden labels:")
    primary = spec.primary_score
    for name, metric in spec.metrics.items():
        better = "higher" if spec.higher_is_better(name) else "lower"
        rank = " (ranking score)" if name == primary else ""
        lines.append(f"- {name}: {metric.fn} on split {metric.split!r}, {better} is better{rank}")
    for name, derived in spec.derived.items():
        rank = " (ranking score)" if name == primary else ""
        lines.append(f"- {name}: {derived.op} of {', '.join(derived.of)}{rank}")
    sample = competition_dir / "data" / "sample_submission.csv"
    if sample.is_file():
        with sample.open(encoding="utf-8", errors="replace") as fh:
            head = [next(fh, "").rstrip("\r\n") for _ in range(SAMPLE_ROWS + 1)]
        lines.append("Example (first lines of data/sample_submission.csv, a valid but "
                     "uninformed submission):")
        lines += [f"    {line}" for line in head if line]
    return "\n".join(lines)


def installed_libraries(candidates: tuple[str, ...] = CANDIDATE_LIBRARIES
                        ) -> list[tuple[str, str]]:
    """(name, version) of the candidates installed for this interpreter (the one that runs
    solutions in the sandbox)."""
    found = []
    for name in candidates:
        try:
            found.append((name, importlib.metadata.version(name)))
        except importlib.metadata.PackageNotFoundError:
            continue
    return found


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:g} hours"
    if seconds >= 60:
        return f"{seconds / 60:g} minutes"
    return f"{seconds:g} seconds"


def environment_slot(spec: CompetitionSpec, limits: Limits,
                     libraries: list[tuple[str, str]], python: str | None = None) -> str:
    """`python`: the version to state (a replay states the recorded one); None: this one."""
    lines = [f"Python {python or platform.python_version()}. Libraries you may import (nothing "
             "else is installed and nothing can be installed):"]
    lines += [f"- {name} {version}" for name, version in libraries]
    lines.append("- the Python standard library")
    lines.append("Execution limits per run of solution.py:")
    lines.append(f"- wall-clock time: {_duration(limits.wall_seconds)}")
    if limits.cpu_seconds is not None:
        lines.append(f"- CPU time: {_duration(limits.cpu_seconds)} "
                     f"(competition rule: {spec.rules.cpu_hours:g} CPU hours)")
    if limits.memory_bytes is not None:
        lines.append(f"- memory: {limits.memory_bytes / 1024**3:.1f} GiB")
    lines.append("- CPU only (no GPU); no network access")
    rules = spec.rules
    lines.append("Competition rules (from competition.yaml):")
    lines.append(f"- seed: {rules.seed} (seed every random number generator with it)")
    if rules.gnn_only:
        lines.append("- GNN only: the predictive model must be a graph neural network")
    lines.append(f"- at most {rules.max_tuning_runs} hyper-parameter tuning runs")
    return "\n".join(lines)


def fill_slots(competition_dir: Path, spec: CompetitionSpec, limits: Limits,
               libraries: list[tuple[str, str]] | None = None,
               readme: str = "verbatim", python: str | None = None) -> Slots:
    """The five slots; `readme="solver"` keeps only the solver's README sections. `libraries`
    and `python` (None: what this interpreter has) are what the environment slot states."""
    competition_dir = Path(competition_dir)
    text = readme_slot(competition_dir, spec)
    return Slots(
        readme=solver_readme(text) if readme == "solver" else text,
        tree=tree_slot(competition_dir, spec),
        dataset=summarize_data(competition_dir, spec),
        submission=submission_slot(competition_dir, spec),
        environment=environment_slot(spec, limits,
                                     installed_libraries() if libraries is None else libraries,
                                     python),
    )
