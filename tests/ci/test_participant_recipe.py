"""The participant guide's "encrypt without our package" recipe, run as written, is accepted by
the pipeline: a standard JOSE library is all a participant needs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from tests.helpers.arena import Arena, run_pr
from tests.helpers.fake_github import FakeGitHub
from tests.helpers.paths import REPO

DOC = REPO / "docs" / "participants.md"
SETTINGS = 'COMPETITION, VERSION, LOGIN = "gnn-cora", 1, "your-login"'


def test_jose_recipe_from_the_docs_is_accepted(arena: Arena, fake: FakeGitHub, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("jwcrypto")
    text = DOC.read_text(encoding="utf-8")
    [code] = re.findall(r"```python\n(.*?)```", text, re.S)
    [meta_text] = re.findall(r"```json\n(.*?)```", text, re.S)
    assert SETTINGS in code, "the recipe's settings line changed; update this test"
    code = code.replace(SETTINGS, 'COMPETITION, VERSION, LOGIN = "toy-nodes", 1, "Alice"')

    work = tmp_path / "participant"
    (work / "keys").mkdir(parents=True)
    (work / "keys" / "platform-public.pem").write_bytes(arena.keypair.public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    (work / "predictions.csv").write_bytes(arena.predictions("toy-nodes", wrong=3))
    monkeypatch.chdir(work)
    exec(compile(code, str(DOC), "exec"), {})  # noqa: S102 - our own documentation

    meta = json.loads(meta_text)
    meta["participant"] = "Alice"
    folder = "competitions/toy-nodes/submissions/Alice"
    fake.open_pr(1, "Alice", {
        f"{folder}/predictions.csv.enc": (work / "predictions.csv.enc").read_bytes(),
        f"{folder}/metadata.json": json.dumps(meta).encode()})
    result, _ = run_pr(arena, fake, 1)
    assert result.status == "accepted", result.reason
    assert result.scores["accuracy"] == pytest.approx(0.85)
    assert arena.rows()[0]["participant"] == "alice"
