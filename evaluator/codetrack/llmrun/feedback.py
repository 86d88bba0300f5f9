"""What the model is told after an attempt: outcome, load error, failed VISIBLE cases.

Why cleaned: the judge's failure records carry tracebacks through the judge's own worker and
temporary paths that change every run. The model needs only its own frames, and the feedback
must be byte-identical when the same code is judged again, or a replayed campaign would no
longer find its recorded responses by request hash. Nothing here ever sees a hidden case: the
loop passes the visible judgement only.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping
from typing import Any

from evaluator.codetrack.judge import PASS, ProblemJudgement
from evaluator.llm.parse import MISSING_CODE, TRUNCATED, Parsed
from evaluator.llm.providers import Completion
from evaluator.llm.session import limit_phrase, no_code_text

DETAIL_CHARS = 1500
# The exact checker's reason says nothing that "expected" and "your answer" do not show.
_NOISE = {"answer differs from the expected value"}
_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line')
_SOLUTION_PATH = re.compile(r"(?:/[^\s\"':]+)*/(?=solution\.py\b)")
_TEMP_DIR = re.compile(re.escape(tempfile.gettempdir()) + r"/gnncb-[\w.-]+")


def clean_traceback(text: str) -> str:
    """Keep the frames of solution.py (paths shortened to `solution.py`) and the exception
    lines; drop the judge's own frames and the interpreter's frozen ones."""
    kept: list[str] = []
    keep = True
    for line in text.splitlines():
        frame = _FRAME.match(line)
        if frame:
            keep = frame.group("path").endswith("solution.py")
        elif not line.startswith("    "):
            keep = True  # header, exception line, "During handling ..." and similar
        if keep:
            kept.append(line)
    if not any(_FRAME.match(line) for line in kept):  # a bare header says nothing
        kept = [line for line in kept if not line.startswith("Traceback (most recent")]
    cleaned = "\n".join(kept).strip("\n")
    cleaned = _SOLUTION_PATH.sub("", cleaned)
    return _TEMP_DIR.sub("<tmp>", cleaned)


def failure_items(judgement: ProblemJudgement) -> list[dict[str, Any]]:
    """The judge's first failing visible cases, ready for the repair template.

    The case id is left out on purpose: it starts with the upstream problem id."""
    items = []
    for item in judgement.feedback:
        detail = clean_traceback(str(item.get("detail", "")))
        if detail in _NOISE:
            detail = ""
        items.append({
            "cell": item.get("cell", ""),
            "verdict": item.get("verdict", ""),
            "input": item.get("input", ""),
            "expected": item.get("expected", ""),
            "actual": item.get("actual", ""),
            "detail": detail[-DETAIL_CHARS:],
            "printed": item.get("printed", ""),
        })
    return items


def counts_text(counts: Mapping[str, int]) -> str:
    failed = [f"{verdict} {n}" for verdict, n in counts.items() if verdict != PASS and n]
    return ", ".join(failed)


def outcome_text(parsed: Parsed, judgement: ProblemJudgement | None, max_tokens: int | None,
                 method: str, completion: Completion | None = None) -> str:
    """One sentence for the model and the log: how the attempt ended."""
    if parsed.status == MISSING_CODE:
        return no_code_text(parsed)
    if parsed.status == TRUNCATED:
        limit = limit_phrase(completion, max_tokens)
        return (f"the answer was cut off at the output limit{limit} before the code was "
                "complete, so nothing was run; answer with a shorter, complete module")
    assert judgement is not None
    total = len(judgement.verdicts)
    if judgement.load_error:
        return (f"the module could not be loaded (an error at import, or no class Solution "
                f"with a method {method}), so none of the {total} visible test cases ran")
    passed = judgement.passed
    if passed == total:
        return f"passed all {total} visible test cases"
    return (f"passed {passed} of {total} visible test cases; failed: "
            f"{counts_text(judgement.counts())}")


def load_error_text(judgement: ProblemJudgement | None) -> str:
    if judgement is None or not judgement.load_error:
        return ""
    return clean_traceback(judgement.load_error)[-DETAIL_CHARS:]


def failure_mode(parsed: Parsed, judgement: ProblemJudgement | None) -> dict[str, str] | None:
    """A coarse label for the attempt, in the LLM track's taxonomy names where one fits
    (`gnncb llm report` counts them), `wrong_answer` otherwise; None when all visible pass."""
    if not parsed.runnable or judgement is None:
        return {"mode": "response_format", "evidence": parsed.status}
    if judgement.load_error:
        last = (judgement.load_error.strip().splitlines() or [""])[-1]
        mode = "dependency" if re.match(r"(ModuleNotFoundError|ImportError)", last) else \
            "other_code_error"
        return {"mode": mode, "evidence": clean_traceback(last)[:300]}
    counts = judgement.counts()
    failing = {v: n for v, n in counts.items() if v != PASS and n}
    if not failing:
        return None
    worst = max(failing, key=lambda v: (failing[v], v))
    mode = {"timeout": "timeout", "memory": "memory", "runtime error": "other_code_error",
            "invalid output": "malformed_submission"}.get(worst, "wrong_answer")
    return {"mode": mode, "evidence": counts_text(counts)}


def verdict_rows(judgement: ProblemJudgement) -> list[dict[str, Any]]:
    """Per visible case: id, cell, verdict, times (the attempt log's `visible.json`)."""
    return [{"id": v.id, "verdict": v.verdict, "wall": v.wall, "cpu": v.cpu, "ran": v.ran}
            for v in judgement.verdicts]

