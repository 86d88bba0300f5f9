"""`<plan>`/`<code>` extraction and the recorded parse status."""

from __future__ import annotations

import pytest

from evaluator.llm.parse import parse_response

FENCE = "```"


@pytest.mark.parametrize(("text", "finish", "status", "code", "source"), [
    ("<plan>p</plan><code>print(1)</code>", "stop", "ok", "print(1)\n", "tag"),
    (f"<plan>p</plan>\n<code>\n{FENCE}python\nprint(1)\n{FENCE}\n</code>", "stop", "ok",
     "print(1)\n", "tag-fence"),
    (f"<PLAN>p</PLAN><CODE>{FENCE}py\nx = 1\n{FENCE}</CODE>", None, "ok", "x = 1\n",
     "tag"),
    # no tags: the last python fence wins, other languages are ignored
    (f"text\n{FENCE}python\nprint(1)\n{FENCE}\nthen\n{FENCE}python\nprint(2)\n{FENCE}\n"
     f"{FENCE}bash\nls\n{FENCE}\n", "stop", "missing_plan", "print(2)\n", "fence"),
    ("<plan>p</plan>no code at all", "stop", "missing_code", "", ""),
    ("<plan>p</plan>no code at all", "length", "truncated", "", ""),
    ("<plan>p</plan><code>\nimport os\nfor i in", "length", "truncated",
     "import os\nfor i in\n", "tag-unclosed"),
    # a forgotten closing tag without a cut-off is accepted
    ("<plan>p</plan><code>print(3)\n", "stop", "ok", "print(3)\n", "tag-unclosed"),
    # a plan that runs straight into the code
    ("<plan>steps<code>print(4)</code>", "stop", "ok", "print(4)\n", "tag"),
    (f"{FENCE}python\nprint(5)\n", "length", "truncated", "print(5)\n", "fence"),
    # complete code that happens to end at the token limit is fine
    ("<plan>p</plan><code>print(6)</code>", "length", "ok", "print(6)\n", "tag"),
    # a stray <code> in prose does not beat a complete python fence
    (f"<plan>p</plan>Here's the <code> block:\n{FENCE}python\nprint(7)\n{FENCE}\nDone.",
     "stop", "ok", "print(7)\n", "fence"),
    # an unclosed <code> around a shell line and prose is not a program
    (f"<plan>p</plan>\n<code>\npython solution.py\n{FENCE}\n\nThis script trains a GNN.",
     "stop", "missing_code", "", ""),
    # a bare fence holding a traceback (the model echoing feedback) is not run
    (f"<plan>p</plan>\n{FENCE}\nTraceback (most recent call last):\n  File \"solution.py\", "
     f"line 1\nSyntaxError: invalid syntax\n{FENCE}\nFix the program.", "stop",
     "missing_code", "", ""),
    # a bare fence holding a program is run
    (f"{FENCE}\nimport sys\nprint(sys.argv)\n{FENCE}\n", "stop", "missing_plan",
     "import sys\nprint(sys.argv)\n", "fence-bare"),
    # declared code that does not compile is still the model's program (its error, repairable)
    ("<plan>p</plan><code>def f(:\n  pass</code>", "stop", "ok", "def f(:\n  pass\n", "tag"),
    # an unclosed <code> with a real program and then prose after a fence
    (f"<plan>p</plan><code>\nimport os\nprint(os.sep)\n{FENCE}\nThis prints.", "stop", "ok",
     "import os\nprint(os.sep)\n", "tag-unclosed"),
])
def test_parse_statuses(text, finish, status, code, source):
    parsed = parse_response(text, finish)
    assert (parsed.status, parsed.code, parsed.code_source) == (status, code, source)
    assert parsed.runnable == (status in ("ok", "missing_plan"))


def test_plan_text_is_kept_and_last_closed_code_block_is_used():
    text = ("<plan>\n1. load\n2. train\n</plan>\nFirst try:\n<code>print('old')</code>\n"
            "Better:\n<code>print('new')</code>")
    parsed = parse_response(text)
    assert parsed.plan == "1. load\n2. train"
    assert parsed.code == "print('new')\n"
