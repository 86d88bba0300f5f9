"""Code-track prompts: variants (vanilla, SSD), slots, examples, repair feedback, hashes.

Why the same two-hash scheme as the LLM track (`evaluator.llm.prompt`): the *template hash*
names the frozen protocol (prompt and repair templates rendered with every slot masked), so it
is identical for all 40 problems and changes only when the wording does; the *prompt hash* names
one instantiated prompt. Slots come from the problem registry only (title, statement in our own
words, input contract, signature, method) plus a few visible examples from the public practice
set; the upstream problem id is never shown, so a model cannot fall back on a LeetCode text that
differs from ours.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evaluator.codetrack.cases import Case
from evaluator.codetrack.judge import truncate
from evaluator.codetrack.problem import Problem
from evaluator.errors import ConfigError

# One prompt environment for both tracks (StrictUndefined, no escaping: plain text for a model).
from evaluator.llm.prompt import Prompt, Variant, render_template, sha256_text

REPAIR_TEMPLATE = "prompts/code_repair_v1.md.j2"
VARIANTS = (
    Variant("code_vanilla_v1", "vanilla", "prompts/code_vanilla_v1.md.j2", REPAIR_TEMPLATE,
            "GraphEval36K setting: statement, examples, constraints, framework; plan then code"),
    Variant("code_ssd_v1", "ssd", "prompts/code_ssd_v1.md.j2", REPAIR_TEMPLATE,
            "vanilla + GraphEval36K SSD (4 parts x cognitive/action step)"),
)
PROMPT_SLOTS = ("title", "statement", "input_contract", "signature", "method")
EXAMPLE_FIELDS = ("cell", "nodes", "input", "expected")
REPAIR_FIELDS = ("attempt", "max_attempts", "outcome", "error")
FAILURE_FIELDS = ("cell", "verdict", "input", "expected", "actual", "detail", "printed")

EXAMPLE_INPUT_CHARS = 600
EXAMPLE_EXPECTED_CHARS = 300


def get_code_variant(name: str) -> Variant:
    for variant in VARIANTS:
        if name in (variant.name, variant.alias):
            return variant
    known = ", ".join(f"{v.alias} ({v.name})" for v in VARIANTS)
    raise ConfigError(f"unknown code-track prompt variant {name!r}; choose one of: {known}")


def pick_examples(problem: Problem, cases: Sequence[Case], count: int) -> list[dict[str, Any]]:
    """The `count` smallest visible cases (by input size), one per cell while cells last, with
    input and expected answer truncated: enough to pin down the format, small enough to read."""
    ordered = sorted(cases, key=lambda c: (len(c.args_json()), c.id))
    chosen: list[Case] = []
    for case in ordered:  # first pass: distinct cells
        if len(chosen) < count and all(c.cell != case.cell for c in chosen):
            chosen.append(case)
    for case in ordered:  # then fill up with the next smallest
        if len(chosen) < count and case not in chosen:
            chosen.append(case)
    chosen.sort(key=lambda c: (len(c.args_json()), c.id))
    return [example_view(problem, case) for case in chosen]


def example_view(problem: Problem, case: Case) -> dict[str, Any]:
    arguments = {name: case.args[name] for name in problem.arg_names if name in case.args}
    return {
        "cell": case.cell,
        "nodes": (case.stats or {}).get("nodes", "?"),
        "input": truncate(arguments, EXAMPLE_INPUT_CHARS),
        "expected": truncate(case.expected, EXAMPLE_EXPECTED_CHARS),
    }


def problem_slots(problem: Problem, examples: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {
        "title": problem.title,
        "statement": problem.statement.strip(),
        "input_contract": problem.input_contract.strip(),
        "signature": problem.signature.strip(),
        "method": problem.method,
        "examples": [dict(e) for e in examples],
    }


def _masked(names: Sequence[str], prefix: str = "") -> dict[str, str]:
    return {name: f"<<slot:{prefix}{name}>>" for name in names}


def template_hash(variant: Variant, directory: Path | None = None) -> str:
    """Hash of the frozen part: prompt and repair templates with every slot masked (one masked
    example and one masked failure, so the loops' wording is covered too)."""
    skeleton = render_template(variant.prompt_template,
                               {**_masked(PROMPT_SLOTS),
                                "examples": [_masked(EXAMPLE_FIELDS, "example.")]}, directory)
    repair = render_template(variant.feedback_template,
                             {**_masked(REPAIR_FIELDS),
                              "failures": [_masked(FAILURE_FIELDS, "failure.")]}, directory)
    return sha256_text(skeleton + "\x00" + repair)


def render_prompt(variant: Variant, problem: Problem, examples: Sequence[Mapping[str, Any]],
                  directory: Path | None = None) -> Prompt:
    text = render_template(variant.prompt_template, problem_slots(problem, examples), directory)
    return Prompt(text=text, variant=variant.name,
                  template_hash=template_hash(variant, directory), prompt_hash=sha256_text(text))


def render_repair(variant: Variant, *, attempt: int, max_attempts: int, outcome: str,
                  error: str = "", failures: Sequence[Mapping[str, Any]] = (),
                  directory: Path | None = None) -> str:
    """The repair turn. `failures` are visible cases only (see `feedback.failure_items`)."""
    items = [{name: str(f.get(name) or "") for name in FAILURE_FIELDS} for f in failures]
    return render_template(variant.feedback_template,
                           {"attempt": attempt, "max_attempts": max_attempts, "outcome": outcome,
                            "error": error, "failures": items}, directory)


def slots_record(problem: Problem, examples: Sequence[Mapping[str, Any]]) -> str:
    """The filled slots as JSON, written beside the prompt in the run log."""
    return json.dumps(problem_slots(problem, examples), indent=2, ensure_ascii=False) + "\n"
