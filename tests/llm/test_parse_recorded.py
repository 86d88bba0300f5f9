"""The parser on every real small-model answer gnncb has recorded (tests/fixtures/llm-recordings).

Each answer's expected extraction is asserted: parse status, where the code came from, and the
SHA-256 (first 12 hex digits) of the extracted program, plus a line it must (not) contain. The
fixtures are copies of ../shared/llm-recordings (SOURCE.md says where they came from), so these
tests run on a fresh clone; one `shared` test checks the copy still matches the shared folder.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from evaluator.llm.parse import parse_response
from tests.helpers import paths

FIXTURES = paths.FIXTURES / "llm-recordings"
SHARED = paths.SHARED / "llm-recordings"
EMPTY = hashlib.sha256(b"").hexdigest()[:12]
CAN_FINISH = "3f20cb0c041c"  # the lc207 DFS answer, repeated byte for byte

# folder, recording hash prefix -> (status, code_source, code sha256[:12], must contain)
EXPECTED = {
    # Gemma 270M base model: rambling code after a stray </code>, cut at the output limit.
    ("gemma-clamp", "3ad1a54f"): ("truncated", "tag-unclosed", "26af9b0bf048", "import numpy"),
    ("gemma-code", "21dfb477"): ("truncated", "tag-unclosed", "ffa0755e45b9", "import numpy"),
    ("gemma-code", "d22752d1"): ("truncated", "tag-unclosed", "ebe9bce7e959", "import sys"),
    # Qwen on park-gnn: unclosed <code> around `python solution.py` + prose: not a program.
    ("qwen-1500", "946bc26d"): ("missing_code", "", EMPTY, ""),
    **{("qwen-park", h): ("missing_code", "", EMPTY, "") for h in
       ("250255ac", "3de67749", "946bc26d", "972738e2", "be236ba6", "c2249616")},
    # Qwen on gnn-cora: `python build.py` (the README's maintainer instructions) + prose.
    **{("qwen-cora", h): ("missing_code", "", EMPTY, "") for h in
       ("10eeeb0c", "4e87eaec", "79a84ad8", "aac5572e", "ba72815f", "cb336db2")},
    # Qwen on the code track: "Here's the <code> block:" in prose, then a complete fence.
    ("qwen-code", "6b243fb0"): ("ok", "fence", CAN_FINISH, "class Solution:"),
    ("qwen-code", "ffce7404"): ("ok", "fence", CAN_FINISH, "class Solution:"),
    ("qwen-code", "1a1734fe"): ("ok", "fence", CAN_FINISH, "class Solution:"),
    ("qwen-code", "7a066c0b"): ("ok", "fence", "fbe8c0248541", "def validPath"),
    # "The <code>block` contains ..." after the fence: the fence still wins.
    ("qwen-code", "f6bc5a7d"): ("ok", "fence", "77b059941e8d", "def findJudge"),
    # The model echoed gnncb's traceback in a bare fence: not run as Python.
    ("qwen-code", "880c83bd"): ("missing_code", "", EMPTY, ""),
    ("qwen-code", "f9f7a09b"): ("missing_code", "", EMPTY, ""),
    # SmolLM2: one plain sentence, no code at all.
    **{(folder, h): ("missing_code", "", EMPTY, "")
       for folder, hashes in {
           "smol-ctx4864": ("1e71cc60", "b05c748f"), "smol-ctx4900": ("1e71cc60", "b05c748f"),
           "smol-overflow": ("110e5255", "9bb92857", "b32ddb6d", "b5c20260", "b99f7d4c",
                             "c552140e"),
           "smol-park": ("0a029174", "1e71cc60", "5b0a33df", "68fda02f", "b05c748f",
                         "bfef5650")}.items() for h in hashes},
}


def recordings(root: Path) -> dict[tuple[str, str], dict]:
    out = {}
    for path in sorted(root.glob("*/recordings/sha256-*.json")):
        out[(path.parts[-3], path.stem.removeprefix("sha256-")[:8])] = json.loads(
            path.read_text(encoding="utf-8"))
    return out


def test_every_recorded_answer_has_an_expected_extraction():
    assert set(recordings(FIXTURES)) == set(EXPECTED)


@pytest.mark.parametrize("key", sorted(EXPECTED), ids=lambda k: f"{k[0]}-{k[1]}")
def test_recorded_answer_extraction(key):
    record = recordings(FIXTURES)[key]
    response = record["response"]
    parsed = parse_response(response["text"], response["finish_reason"])
    status, source, digest, contains = EXPECTED[key]
    assert (parsed.status, parsed.code_source) == (status, source)
    assert hashlib.sha256(parsed.code.encode()).hexdigest()[:12] == digest
    assert contains in parsed.code
    # Never run prose or shell lines as the program.
    assert "python solution.py" not in parsed.code and "python build.py" not in parsed.code
    assert "Here's the" not in parsed.code and "Traceback" not in parsed.code
    if status == "missing_code":
        assert parsed.reason  # the model is told what was found instead


@pytest.mark.shared
def test_fixtures_are_the_shared_recordings():
    if not SHARED.is_dir():
        pytest.skip("../shared/llm-recordings is absent (fresh clone)")
    assert recordings(FIXTURES) == recordings(SHARED)
