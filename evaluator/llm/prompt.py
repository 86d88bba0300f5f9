"""Frozen prompt templates: variants, rendering and the hashes that name them.

Why two hashes: the *template hash* identifies the frozen part of the protocol (prompt and
repair templates rendered with every slot masked), so it is identical for every competition
and changes only when the wording changes; the *prompt hash* identifies one instantiated prompt
(slots filled). Every run records both, so "same protocol" is checkable from the logs alone.
Templates only see the five slots (StrictUndefined), so a template cannot accidentally pull in
anything competition-specific outside a slot.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, TemplateNotFound

from evaluator.errors import ConfigError
from evaluator.llm.slots import SLOT_NAMES, Slots
from evaluator.paths import templates_dir

FEEDBACK_FIELDS = ("attempt", "max_attempts", "outcome", "validation", "stderr", "stdout")


@dataclass(frozen=True)
class Variant:
    name: str  # recorded in metadata, e.g. "gnn_frozen_v1"
    alias: str  # short name for the command line
    prompt_template: str
    feedback_template: str
    description: str
    readme: str = "verbatim"  # or "solver": the README slot keeps task/data/evaluation/rules


VARIANTS = (
    Variant("gnn_frozen_v1", "frozen", "prompts/gnn_frozen_v1.md.j2",
            "prompts/gnn_repair_v1.md.j2", "GNN-CB frozen prompt (Listing 1), plan-then-code"),
    Variant("gnn_ssd_v1", "ssd", "prompts/gnn_ssd_v1.md.j2", "prompts/gnn_repair_v1.md.j2",
            "frozen prompt + GraphEval36K SSD instructions (4 parts x cognitive/action step)"),
    Variant("gnn_frozen_v1_solver", "frozen-solver", "prompts/gnn_frozen_v1.md.j2",
            "prompts/gnn_repair_v1.md.j2", "the frozen prompt, README slot abridged to the "
            "sections a solver needs (task, data, evaluation, rules)", readme="solver"),
)


def get_variant(name: str) -> Variant:
    for variant in VARIANTS:
        if name in (variant.name, variant.alias):
            return variant
    known = ", ".join(f"{v.alias} ({v.name})" for v in VARIANTS)
    raise ConfigError(f"unknown prompt variant {name!r}; choose one of: {known}")


@dataclass(frozen=True)
class Prompt:
    text: str
    variant: str
    template_hash: str  # "sha256:<hex>" of the masked templates: same for every competition
    prompt_hash: str  # "sha256:<hex>" of `text`


def sha256_text(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@cache
def _environment(directory: str) -> Environment:
    return Environment(
        loader=FileSystemLoader(directory),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        # Prompts are plain text sent to a model API, never rendered as HTML.
        autoescape=False,  # noqa: S701
    )


def render_template(template: str, values: dict[str, object], directory: Path | None) -> str:
    env = _environment(str(directory or templates_dir()))
    try:
        return env.get_template(template).render(**values)
    except TemplateNotFound:
        raise ConfigError(f"prompt template {template} not found under "
                          f"{directory or templates_dir()}") from None


def _mask(names: tuple[str, ...]) -> dict[str, str]:
    return {name: f"<<slot:{name}>>" for name in names}


def template_hash(variant: Variant, directory: Path | None = None) -> str:
    """Hash of the frozen part: both templates rendered with every slot masked."""
    skeleton = render_template(variant.prompt_template, _mask(SLOT_NAMES), directory)
    feedback = render_template(variant.feedback_template, _mask(FEEDBACK_FIELDS), directory)
    # How a slot is filled is part of the protocol too (verbatim variants keep their hash).
    filling = "" if variant.readme == "verbatim" else f"\x00readme={variant.readme}"
    return sha256_text(skeleton + "\x00" + feedback + filling)


def render_prompt(variant: Variant, slots: Slots, directory: Path | None = None) -> Prompt:
    text = render_template(variant.prompt_template, slots.as_dict(), directory)
    return Prompt(text=text, variant=variant.name,
                  template_hash=template_hash(variant, directory), prompt_hash=sha256_text(text))


def render_feedback(variant: Variant, *, attempt: int, max_attempts: int, outcome: str,
                    validation: str = "", stderr: str = "", stdout: str = "",
                    directory: Path | None = None) -> str:
    return render_template(variant.feedback_template,
                   {"attempt": attempt, "max_attempts": max_attempts, "outcome": outcome,
                    "validation": validation, "stderr": stderr, "stdout": stdout}, directory)
