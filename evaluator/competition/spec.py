"""`competition.yaml`: the one declarative description of a competition.

Why a strict schema: the GNN-CB repositories encoded task, metric and file layout in ad-hoc
scripts per repository, so every change meant hand repair. Here a competition is data plus this
spec; the evaluator, the linter, the README template and the LLM prompt all read the same model,
and a bad spec fails at load time with the field path and what is wrong.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from evaluator.errors import ConfigError
from evaluator.metrics.registry import METRICS, TargetKind, by_printed_name

SLUG_RE = r"^[a-z0-9][a-z0-9-]{1,62}[a-z0-9]$"
NAME_RE = r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"
TASKS = (
    "node-classification",
    "edge-classification",
    "link-prediction",
    "graph-classification",
    "graph-regression",
    "node-regression",
)
CATEGORIES = (
    "homogeneous",
    "heterogeneous",
    "temporal",
    "spatial",
    "hierarchical",
    "molecular",
    "generalization",
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Target(_Strict):
    """One predicted column. `class` = a label from `classes`; `probability` = a score in
    [0, 1] (for ROC-AUC); `real` = any finite number (regression)."""

    name: Annotated[str, Field(pattern=NAME_RE)]
    type: TargetKind
    classes: list[int] | list[str] | None = None
    positive_class: int | str | None = None  # what binary F1 and ROC-AUC call "positive"
    # `real` targets: the range every true value lies in (lint checks the labels against it)
    range: Annotated[list[float], Field(min_length=2, max_length=2)] | None = None

    @model_validator(mode="after")
    def _classes_match_type(self) -> Target:
        if self.type == "class":
            if not self.classes or len(self.classes) < 2:
                raise ValueError("a 'class' target needs 'classes' with at least two values")
            if len(set(map(str, self.classes))) != len(self.classes):
                raise ValueError("'classes' has duplicate values")
        elif self.classes is not None:
            raise ValueError(f"'classes' is only allowed on 'class' targets, not {self.type!r}")
        if self.range is not None:
            if self.type != "real":
                raise ValueError(f"'range' is only allowed on 'real' targets, not {self.type!r}")
            if not self.range[0] < self.range[1]:
                raise ValueError(f"'range' {self.range}: the low end must be below the high end")
        return self

    @property
    def positive(self) -> int | str:
        """What binary F1 and ROC-AUC call positive: `positive_class`, else the last declared
        class (a class target) or 1 (a score)."""
        if self.positive_class is not None:
            return self.positive_class
        return self.classes[-1] if self.classes else 1


class Clusters(_Strict):
    """Test rows that are not independent samples (all recordings of one speaker, the two twin
    graphs of one molecule): bootstrap intervals resample whole clusters. Either `column` (a
    column of the hidden labels, or of the split's public ids file) or the connected components
    of `edges` (a public CSV of `src`,`dst` ids) restricted to the rows whose `where` column is 1.
    Splits whose clusters have the same `name` draw the same clusters."""

    name: Annotated[str, Field(pattern=NAME_RE)] = "clusters"
    column: str | None = None
    edges: str | None = None
    where: str | None = None
    src: str = "src"
    dst: str = "dst"

    @model_validator(mode="after")
    def _one_source(self) -> Clusters:
        if (self.column is None) == (self.edges is None):
            raise ValueError("give exactly one of 'column' or 'edges'")
        if self.where is not None and self.edges is None:
            raise ValueError("'where' filters 'edges'; it needs 'edges'")
        return self


class Split(_Strict):
    """A hidden evaluation set: public ids (what to predict) + encrypted labels."""

    ids: str  # path relative to the competition folder, CSV with the id column
    labels: str  # path to the JWE of the labels CSV (id column + targets)
    clusters: Clusters | None = None  # resampling units for the score intervals
    rows: Annotated[int, Field(ge=1)] | None = None  # declared size; lint checks ids + labels


class Metric(_Strict):
    fn: str  # a name in the metric registry (evaluator.metrics.registry.METRICS)
    split: str
    target: str | None = None  # defaults to the only target; nmae uses all real targets
    description: str = ""

    @field_validator("fn", mode="before")
    @classmethod
    def _registered(cls, value: object) -> object:
        """Only registered metrics; read at validation time, so a registered metric is allowed
        with no edit here. The message is pydantic's own for a closed set of names, plus the
        registered name when the value is a printed one ("AUC" -> 'roc_auc')."""
        if isinstance(value, str) and value in METRICS:
            return value
        names = [repr(name) for name in METRICS]
        expected = " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        known = by_printed_name(value) if isinstance(value, str) else None
        hint = f"; {value!r} is called {known.name!r} here" if known else ""
        raise PydanticCustomError("literal_error", "Input should be {expected}{hint}",
                                  {"expected": expected, "hint": hint})


class Derived(_Strict):
    """A score computed from other scores, e.g. robustness_gap = f1_ideal - f1_perturbed."""

    op: Literal["subtract", "mean"]
    of: Annotated[list[str], Field(min_length=2)]
    higher_is_better: bool
    description: str = ""


class RankKey(_Strict):
    score: str
    order: Literal["asc", "desc"]


class SubmissionLimits(_Strict):
    per_version: Annotated[int, Field(ge=1)] = 5
    per_day: Annotated[int, Field(ge=1)] = 2


class Submission(_Strict):
    file: str = "predictions.csv"
    max_bytes: Annotated[int, Field(ge=100, le=500_000_000)] = 20_000_000
    limits: SubmissionLimits = SubmissionLimits()
    # LLM-track entrants (llm-*/agent-*) have a quota of their own, checked before any model
    # call; None = the same numbers as `limits`, counted apart from the human submissions.
    llm_limits: SubmissionLimits | None = None


PHASE_RE = r"^[a-z][a-z0-9-]{0,31}$"
PART_COLUMN = "__part__"  # column of the sealed labels naming each id's part (public/private)


class Phase(_Strict):
    """A period of the competition with its own submission limits (Codabench-style).

    Why explicit dates: the reveal of the private part must come after the last submission, and
    participants must know in advance until when they can submit and how often.
    """

    name: Annotated[str, Field(pattern=PHASE_RE)]
    start: datetime
    end: datetime
    limits: SubmissionLimits = SubmissionLimits()
    description: str = ""

    @model_validator(mode="after")
    def _ordered(self) -> Phase:
        for field_name in ("start", "end"):
            if getattr(self, field_name).utcoffset() is None:
                raise ValueError(f"{field_name}: give a time zone, e.g. 2026-03-01T00:00:00Z")
        if self.end <= self.start:
            raise ValueError(f"phase {self.name!r} ends ({self.end.isoformat()}) before it "
                             f"starts ({self.start.isoformat()})")
        return self


class Rules(_Strict):
    gnn_only: bool = True
    seed: int = 25
    cpu_hours: Annotated[float, Field(gt=0)] = 3
    max_tuning_runs: Annotated[int, Field(ge=0)] = 5
    final_submissions_per_version: Annotated[int, Field(ge=1)] = 1


class Source(_Strict):
    name: str
    url: str = ""
    license: str
    citation: str


class HumanReference(_Strict):
    top: float | None = None
    mean: float | None = None
    note: str = ""


class CompetitionSpec(_Strict):
    slug: Annotated[str, Field(pattern=SLUG_RE)]
    version: Annotated[int, Field(ge=1)]
    title: Annotated[str, Field(min_length=3, max_length=200)]
    summary: str = ""
    description: str = ""  # participant-facing task description (Markdown, maintainer-written)
    replicates: str = ""  # e.g. "C12 GNN-CoRA"
    task: Literal[
        "node-classification",
        "edge-classification",
        "link-prediction",
        "graph-classification",
        "graph-regression",
        "node-regression",
    ]
    category: Literal[
        "homogeneous",
        "heterogeneous",
        "temporal",
        "spatial",
        "hierarchical",
        "molecular",
        "generalization",
    ]
    difficulty: Literal["easy", "medium", "hard"]
    domain: str
    id_column: Annotated[str, Field(pattern=NAME_RE)] = "id"
    targets: Annotated[list[Target], Field(min_length=1)]
    splits: Annotated[dict[str, Split], Field(min_length=1)]
    metrics: Annotated[dict[str, Metric], Field(min_length=1)]
    derived: dict[str, Derived] = {}
    rank_by: Annotated[list[RankKey], Field(min_length=1)]
    submission: Submission = Submission()
    rules: Rules = Rules()
    # public file (relative path) -> what it holds; rendered into the README and the LLM prompt
    files: dict[str, str] = {}
    source: Source | None = None
    human_reference: HumanReference | None = None
    # Share of every hidden split's ids in the public part (the only part scored back to
    # participants before the reveal); None = no split, every score is on the whole split.
    public_fraction: Annotated[float, Field(gt=0, lt=1)] | None = None
    phases: list[Phase] = []
    reveal_at: datetime | None = None  # when the private part is revealed (final standings)
    late_submissions: Literal["refuse", "accept"] = "refuse"  # after the last phase / reveal

    @model_validator(mode="after")
    def _cross_references(self) -> CompetitionSpec:
        target_names = [t.name for t in self.targets]
        if len(set(target_names)) != len(target_names):
            raise ValueError("targets: duplicate target names")
        if self.id_column in target_names:
            raise ValueError(f"targets: {self.id_column!r} is the id column, not a target")
        for name in self.splits:
            if not re.match(NAME_RE, name):
                raise ValueError(f"splits: {name!r} is not a valid split name ({NAME_RE})")
        for name, metric in self.metrics.items():
            where = f"metrics.{name}"
            if metric.split not in self.splits:
                raise ValueError(f"{where}.split: unknown split {metric.split!r}; "
                                 f"splits are {sorted(self.splits)}")
            if metric.target is not None and metric.target not in target_names:
                raise ValueError(f"{where}.target: unknown target {metric.target!r}")
            record = METRICS[metric.fn]
            read = self.targets_for(metric)
            if not read:
                raise ValueError(f"{where}: {metric.fn} needs at least one "
                                 f"{record.target!r} target")
            for target in read:
                if target.type != record.target:
                    raise ValueError(f"{where}: {metric.fn} needs a {record.target!r} target, "
                                     f"{target.name!r} is {target.type!r}")
                if record.binary and target.type == "class" and len(target.classes or []) != 2:
                    raise ValueError(f"{where}: binary {metric.fn} needs exactly 2 classes")
        known = set(self.metrics)
        for name, derived in self.derived.items():
            if name in known:
                raise ValueError(f"derived.{name}: the name is already a metric")
            for ref in derived.of:
                if ref not in known:
                    raise ValueError(f"derived.{name}.of: unknown score {ref!r}")
            known.add(name)
        for i, key in enumerate(self.rank_by):
            if key.score not in known:
                raise ValueError(f"rank_by[{i}].score: unknown score {key.score!r}; "
                                 f"known scores are {sorted(known)}")
        if PART_COLUMN in (*target_names, self.id_column):
            raise ValueError(f"targets: {PART_COLUMN!r} is reserved for the public/private part")
        self._check_schedule()
        return self

    def _check_schedule(self) -> None:
        names = [p.name for p in self.phases]
        if len(set(names)) != len(names):
            raise ValueError(f"phases: duplicate phase names {names}")
        for i, (a, b) in enumerate(zip(self.phases, self.phases[1:], strict=False), 1):
            if b.start < a.end:
                raise ValueError(f"phases[{i}]: {b.name!r} starts before {a.name!r} ends; "
                                 "list phases in time order without overlap")
        if self.reveal_at is not None:
            if self.reveal_at.utcoffset() is None:
                raise ValueError("reveal_at: give a time zone, e.g. 2026-03-15T00:00:00Z")
            if self.public_fraction is None:
                raise ValueError("reveal_at: set public_fraction too; without a private part "
                                 "there is nothing to reveal")
            if self.phases and self.reveal_at < self.phases[-1].end:
                raise ValueError(f"reveal_at: {self.reveal_at.isoformat()} is before the last "
                                 f"phase ends ({self.phases[-1].end.isoformat()})")

    def target_for(self, metric: Metric) -> Target:
        """The target a metric reads: the named one, else the only one."""
        if metric.target is not None:
            return next(t for t in self.targets if t.name == metric.target)
        if len(self.targets) != 1:
            raise ValueError(f"metric on {metric.split!r} must name a target "
                             f"(there are {len(self.targets)})")
        return self.targets[0]

    def targets_for(self, metric: Metric) -> list[Target]:
        """Every target a metric reads: the named one, else the only one; a multi-target metric
        naming none (NMAE) reads every target of its kind."""
        record = METRICS[metric.fn]
        if record.multi_target and metric.target is None:
            return [t for t in self.targets if t.type == record.target]
        return [self.target_for(metric)]

    def higher_is_better(self, score: str) -> bool:
        if score in self.metrics:
            return METRICS[self.metrics[score].fn].higher_is_better
        return self.derived[score].higher_is_better

    @property
    def primary_score(self) -> str:
        return self.rank_by[0].score

    @property
    def has_parts(self) -> bool:
        """True when hidden splits have a public and a private part."""
        return self.public_fraction is not None


def _format_errors(err: ValidationError) -> str:
    lines = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "(top level)"
        msg = e["msg"].removeprefix("Value error, ")
        lines.append(f"  - {loc}: {msg}")
    return "\n".join(lines)


def parse_spec(text: str, *, source: str = "competition.yaml") -> CompetitionSpec:
    """Parse and validate a spec; errors name the file and every bad field path."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ConfigError(f"{source}: not valid YAML: {err}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: expected a mapping at the top level")
    try:
        return CompetitionSpec.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(f"{source}: invalid competition spec:\n{_format_errors(err)}") from None


def load_spec(competition_dir: Path) -> CompetitionSpec:
    """Load `competition.yaml` from a competition folder and check its slug matches the folder."""
    path = Path(competition_dir) / "competition.yaml"
    if not path.is_file():
        raise ConfigError(f"{path}: not found; is {competition_dir} a competition folder?")
    spec = parse_spec(path.read_text(encoding="utf-8"), source=str(path))
    if spec.slug != Path(competition_dir).resolve().name:
        raise ConfigError(f"{path}: slug {spec.slug!r} does not match the folder name "
                          f"{Path(competition_dir).resolve().name!r}")
    return spec


def load_specs(competitions: Path) -> list[CompetitionSpec]:
    """The spec of every competition folder (one holding competition.yaml) under
    `competitions`, in slug order."""
    return [load_spec(p.parent) for p in sorted(Path(competitions).glob("*/competition.yaml"))]
