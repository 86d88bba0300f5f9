"""Extract `<plan>` and `<code>` from a model's answer, with a recorded parse status.

Why tolerant but explicit: models wrap code in Markdown fences inside the tags, forget a closing
tag, or skip the tags and answer with a fenced block. We accept all of that (so a formatting
slip does not count as a modelling failure), but every answer gets a status that reports can
count: `ok`, `missing_plan` (code found, no plan: still run), `missing_code` (nothing to run)
and `truncated` (the answer hit the output limit before the code was complete: not run).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OK = "ok"
MISSING_PLAN = "missing_plan"
MISSING_CODE = "missing_code"
TRUNCATED = "truncated"
STATUSES = (OK, MISSING_PLAN, MISSING_CODE, TRUNCATED)

_PLAN = re.compile(r"<plan>(.*?)(?:</plan>|(?=<code>)|\Z)", re.IGNORECASE | re.DOTALL)
_CODE_OPEN = re.compile(r"<code>", re.IGNORECASE)
_CODE_CLOSE = re.compile(r"</code>", re.IGNORECASE)
# A fenced block: ``` or ~~~ with an optional language, up to the matching closing fence.
_FENCE = re.compile(r"^(?P<fence>```|~~~)[ \t]*(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)"
                    r"^(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)
_OPEN_FENCE = re.compile(r"^(```|~~~)[ \t]*(?P<lang>[\w+-]*)[^\n]*\n", re.MULTILINE)
PYTHON_LANGS = {"python", "py", "python3", ""}


@dataclass(frozen=True)
class Parsed:
    status: str
    plan: str
    code: str
    code_source: str  # "tag" | "tag-unclosed" | "fence" | "" (no code)

    @property
    def runnable(self) -> bool:
        return self.status in (OK, MISSING_PLAN)


def _unfence(block: str) -> str:
    """Code inside <code>: drop a Markdown fence around it if there is one."""
    stripped = block.strip("\n")
    match = _FENCE.search(stripped)
    if match and not stripped[:match.start()].strip():
        return match.group("body")
    opened = _OPEN_FENCE.match(stripped.lstrip())
    if opened:  # opening fence without a closing one: keep everything after it
        return stripped.lstrip()[opened.end():]
    return stripped


def _last_python_fence(text: str) -> tuple[str, bool]:
    """(code, complete) of the last python fence; complete False for an unclosed last fence."""
    every = list(_FENCE.finditer(text))  # fences pair up left to right, any language
    blocks = [m for m in every if m.group("lang").lower() in PYTHON_LANGS]
    closed_end = every[-1].end() if every else 0
    for opened in _OPEN_FENCE.finditer(text):
        if opened.start() >= closed_end and opened.group("lang").lower() in PYTHON_LANGS:
            return text[opened.end():], False
    if blocks:
        return blocks[-1].group("body"), True
    return "", False


def parse_response(text: str, finish_reason: str | None = None) -> Parsed:
    """Split an answer into plan and code. `finish_reason == "length"` marks a cut-off answer."""
    cut_off = finish_reason == "length"
    plan_match = _PLAN.search(text)
    plan = plan_match.group(1).strip() if plan_match else ""
    opens = list(_CODE_OPEN.finditer(text))
    code, source, complete = "", "", True
    if opens:
        # The last <code> that has a closing tag after it; else the last one, unclosed.
        for opened in reversed(opens):
            closing = _CODE_CLOSE.search(text, opened.end())
            if closing:
                code, source = _unfence(text[opened.end():closing.start()]), "tag"
                break
        else:
            code, source, complete = _unfence(text[opens[-1].end():]), "tag-unclosed", False
    else:
        code, complete = _last_python_fence(text)
        source = "fence" if code.strip() else ""
    code = code.strip("\n") + "\n" if code.strip() else ""
    if cut_off and not complete:
        return Parsed(TRUNCATED, plan, code, source)
    if not code:
        return Parsed(TRUNCATED if cut_off else MISSING_CODE, plan, "", "")
    return Parsed(OK if plan else MISSING_PLAN, plan, code, source)
