"""Extract `<plan>` and `<code>` from a model's answer, with a recorded parse status.

Why fence-first and tag-aware: real small models (see tests/fixtures/llm-recordings) write
`<code>` in prose ("Here's the <code> block:") right before a complete ```python fence, leave
`<code>` unclosed around a shell command and prose, or echo gnncb's own traceback in a bare
fence. Taking "the text after the last `<code>`" turned prose into the program. So the parser
looks for *code-shaped* spans first and treats tags as hints:

1. a closed ```python (py, python3) fence: the last one inside a closed `<code>` pair if there
   is one, else the last one anywhere (`fence`, `tag-fence`);
2. a closed `<code>...</code>` pair whose body (its bare fence removed) compiles as Python
   (`tag`); a pair whose body does not compile is still run when no other candidate exists, as
   the model clearly declared it code (its syntax error is then the model's, and repairable);
3. a bare fence (no language) or an unclosed `<code>` counts only if its body compiles as
   Python (`fence-bare`, `tag-unclosed`): a traceback, a shell line (`python build.py`) or
   prose after an unclosed tag is not a program;
4. an answer cut off at the output limit (`finish_reason: length`) whose only code is an
   unclosed fence or tag is `truncated` (not run).

Statuses: `ok`, `missing_plan` (code found, no plan: still run), `missing_code` (nothing to
run; `reason` says why) and `truncated`.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass

OK = "ok"
MISSING_PLAN = "missing_plan"
MISSING_CODE = "missing_code"
TRUNCATED = "truncated"
STATUSES = (OK, MISSING_PLAN, MISSING_CODE, TRUNCATED)
CUT_INSIDE = "cut off at the output limit inside an unfinished code block"

_PLAN = re.compile(r"<plan>(.*?)(?:</plan>|(?=<code>)|(?=^```)|\Z)",
                   re.IGNORECASE | re.DOTALL | re.MULTILINE)
_CODE_OPEN = re.compile(r"<code>", re.IGNORECASE)
_CODE_CLOSE = re.compile(r"</code>", re.IGNORECASE)
# A fenced block: ``` or ~~~ with an optional language, up to the matching closing fence.
_FENCE = re.compile(r"^[ \t]*(?P<fence>```|~~~)[ \t]*(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)"
                    r"^[ \t]*(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)
_OPEN_FENCE = re.compile(r"^[ \t]*(```|~~~)[ \t]*(?P<lang>[\w+-]*)[^\n]*\n", re.MULTILINE)
PYTHON_LANGS = {"python", "py", "python3"}


@dataclass(frozen=True)
class Parsed:
    status: str
    plan: str
    code: str
    code_source: str  # "tag-fence" | "fence" | "tag" | "fence-bare" | "tag-unclosed" | ""
    reason: str = ""  # for missing_code / truncated: what was found instead of a program

    @property
    def runnable(self) -> bool:
        return self.status in (OK, MISSING_PLAN)


def compiles(code: str) -> bool:
    """True when `code` is syntactically valid Python with at least one statement."""
    if not code.strip():
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning on odd escapes is still code
            tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    # A lone name or constant ("solution", "python") is prose, not a program.
    return not all(isinstance(node, ast.Expr) and isinstance(node.value, (ast.Name,
                   ast.Constant)) for node in tree.body)


def _tag_pairs(text: str) -> list[tuple[int, int, int, int]]:
    """(open start, body start, body end, close end) of each closed <code>...</code> pair;
    an opening tag pairs with the first closing tag after it (nested opens are ignored)."""
    pairs, position = [], 0
    while True:
        opened = _CODE_OPEN.search(text, position)
        if not opened:
            return pairs
        closing = _CODE_CLOSE.search(text, opened.end())
        if not closing:
            return pairs
        pairs.append((opened.start(), opened.end(), closing.start(), closing.end()))
        position = closing.end()


def _unfence(block: str) -> str:
    """A <code> body: drop a Markdown fence around it if there is one."""
    stripped = block.strip("\n")
    match = _FENCE.search(stripped)
    if match and not stripped[:match.start()].strip():
        return match.group("body")
    opened = _OPEN_FENCE.match(stripped)
    if opened:  # opening fence without a closing one: keep everything after it
        return stripped[opened.end():]
    return stripped


def _norm(code: str) -> str:
    return code.strip("\n") + "\n" if code.strip() else ""


def _inside(start: int, pairs: list[tuple[int, int, int, int]]) -> bool:
    return any(body_start <= start < body_end for _, body_start, body_end, _ in pairs)


def _find_code(text: str, cut_off: bool) -> tuple[str, str, str]:
    """(code, source, reason); code "" when there is nothing to run."""
    pairs = _tag_pairs(text)
    fences = list(_FENCE.finditer(text))
    python = [m for m in fences if m.group("lang").lower() in PYTHON_LANGS]
    if python:  # 1. fence-first
        tagged = [m for m in python if _inside(m.start(), pairs)]
        chosen = (tagged or python)[-1]
        return chosen.group("body"), "tag-fence" if tagged else "fence", ""
    bodies = [_unfence(text[b:e]) for _, b, e, _ in pairs]
    for body in reversed(bodies):  # 2. a closed tag pair holding a program
        if compiles(body):
            return body, "tag", ""
    closed_end = fences[-1].end() if fences else 0
    unclosed_python = [m for m in _OPEN_FENCE.finditer(text) if m.start() >= closed_end
                       and m.group("lang").lower() in PYTHON_LANGS]
    last_close = pairs[-1][3] if pairs else 0
    dangling = [m for m in _CODE_OPEN.finditer(text) if m.start() >= last_close]
    if cut_off and (unclosed_python or dangling):  # 4. the code was still being written
        partial = (text[unclosed_python[-1].end():] if unclosed_python
                   else _unfence(text[dangling[-1].end():]))
        source = "fence" if unclosed_python else "tag-unclosed"
        return partial, source, CUT_INSIDE
    if unclosed_python:  # a ```python fence the model forgot to close
        return text[unclosed_python[-1].end():], "fence", ""
    bare = [m for m in fences if not m.group("lang") and not _inside(m.start(), pairs)]
    for match in reversed(bare):  # 3. bare fences that are programs
        if compiles(match.group("body")):
            return match.group("body"), "fence-bare", ""
    for opened in reversed(dangling):
        body = _unfence(text[opened.end():])
        fence_end = _OPEN_FENCE.search(body)  # prose usually follows a closing fence
        candidate = body[:fence_end.start()] if fence_end else body
        if compiles(candidate):
            return candidate, "tag-unclosed", ""
    if bodies and any(b.strip() for b in bodies):  # declared code that does not compile
        body = next(b for b in reversed(bodies) if b.strip())
        return body, "tag", ""
    if dangling or bare:
        what = "an unclosed <code> tag" if dangling else "a fence without a language"
        return "", "", f"{what} whose content is not Python (prose, a shell command or a " \
                       "traceback)"
    return "", "", "no <code> block and no ```python fence"


def parse_response(text: str, finish_reason: str | None = None) -> Parsed:
    """Split an answer into plan and code. `finish_reason == "length"` marks a cut-off answer."""
    cut_off = finish_reason == "length"
    plan_match = _PLAN.search(text)
    plan = plan_match.group(1).strip() if plan_match else ""
    code, source, reason = _find_code(text, cut_off)
    code = _norm(code)
    if reason == CUT_INSIDE:  # keep the partial code for the log; it is not run
        return Parsed(TRUNCATED, plan, code, source, reason)
    if not code:
        status = TRUNCATED if cut_off else MISSING_CODE
        if cut_off and not reason:
            reason = "cut off at the output limit before any code"
        return Parsed(status, plan, "", "", reason)
    return Parsed(OK if plan else MISSING_PLAN, plan, code, source)
