"""Shared pieces of the LLM-track tests: a scripted OpenAI-compatible server and canned answers.

The server is real HTTP (pytest-httpserver) speaking the chat-completions protocol;
tests/llm/test_scripted_server.py proves that with the official `openai` client, so every test
that talks to it through our httpx provider exercises a genuinely OpenAI-compatible exchange.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest
from werkzeug import Request, Response

from evaluator import sandbox
from evaluator.cli import main
from evaluator.llm.execute import LimitOverrides
from evaluator.llm.session import RunOptions
from tests.helpers.paths import REPO

ISOLATION = sandbox.detect_isolation()
needs_sandbox = pytest.mark.skipif(
    not ISOLATION.sandboxed, reason=f"no isolation on this machine: {ISOLATION.detail}")
# Ordinary (non-hostile) loop tests also run on machines without isolation, recorded as such.
UNSANDBOXED_FLAGS = [] if ISOLATION.sandboxed else ["--allow-unsandboxed"]
API_KEY = "sk-test-NEVER-STORE-THIS-0123456789"


def answer(plan: str, code: str) -> str:
    """A well-formed model answer with the code in a Markdown fence inside <code>."""
    body = textwrap.dedent(code).strip()
    return f"<plan>\n{plan}\n</plan>\n<code>\n```python\n{body}\n```\n</code>\n"


# A real, graph-free but sensible solution (features + logistic regression).
GOOD_CODE = """
    import pandas as pd
    from sklearn.linear_model import LogisticRegression

    nodes = pd.read_csv("data/nodes.csv").set_index("id")
    train = pd.read_csv("data/train_labels.csv")
    test = pd.read_csv("data/test_ids.csv")
    model = LogisticRegression(max_iter=2000, random_state=25)
    model.fit(nodes.loc[train["id"]].to_numpy(), train["label"].to_numpy())
    pred = model.predict(nodes.loc[test["id"]].to_numpy())
    pd.DataFrame({"id": test["id"], "label": pred}).to_csv("predictions.csv", index=False)
"""
GOOD = answer("1. read nodes, labels\n2. logistic regression\n3. write predictions.csv",
              GOOD_CODE)

# Stdlib only (fast): the majority class of the training labels for every test id.
MAJORITY_CODE = """
    import csv
    from collections import Counter

    with open("data/train_labels.csv") as fh:
        labels = [row["label"] for row in csv.DictReader(fh)]
    majority = Counter(labels).most_common(1)[0][0]
    with open("data/test_ids.csv") as fh:
        ids = [row["id"] for row in csv.DictReader(fh)]
    with open("predictions.csv", "w") as out:
        out.write("id,label\\n")
        out.writelines(f"{i},{majority}\\n" for i in ids)
"""
MAJORITY = answer("predict the majority class", MAJORITY_CODE)

BROKEN = answer("read the edge list", """
    import csv
    with open("data/edge_list.csv") as fh:
        rows = list(csv.reader(fh))
""")

PARTIAL = answer("write only the first ten ids", """
    import csv
    with open("data/test_ids.csv") as fh:
        ids = [row["id"] for row in csv.DictReader(fh)][:10]
    with open("predictions.csv", "w") as out:
        out.write("id,label\\n")
        out.writelines(f"{i},1\\n" for i in ids)
""")

NO_CODE = "<plan>\nI would train a GCN on the graph.\n</plan>\nI cannot write the code now.\n"


class ScriptedLLM:
    """Serves scripted answers in order at /v1/chat/completions and records every request.

    An answer is a string (finish_reason "stop"), a (text, finish_reason) pair, or an int HTTP
    status to fail with. `answers` is one list, or a dict model -> list for campaigns whose
    pairs run in any order. Running out of script answers "<plan>out of script</plan>".
    """

    def __init__(self, httpserver, answers: list[Any] | dict[str, list[Any]]) -> None:
        self.answers = ({m: list(a) for m, a in answers.items()} if isinstance(answers, dict)
                        else {None: list(answers)})
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.server = httpserver
        httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_handler(
            self._handle)
        self.base_url = httpserver.url_for("/v1")

    def _handle(self, request: Request) -> Response:
        body = request.get_json()
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        queue = self.answers.get(body["model"], self.answers.get(None, []))
        item = queue.pop(0) if queue else "<plan>out of script</plan>"
        if isinstance(item, int):
            return Response(json.dumps({"error": {"message": "scripted failure"}}),
                            status=item, content_type="application/json")
        text, finish = item if isinstance(item, tuple) else (item, "stop")
        prompt_chars = sum(len(m["content"]) for m in body["messages"])
        payload = {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion",
            "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(text) // 4,
                      "total_tokens": prompt_chars // 4 + len(text) // 4},
        }
        return Response(json.dumps(payload), content_type="application/json")


def run_options(keypair: dict, runs: Path, **overrides: Any) -> RunOptions:
    """Options for in-process runs: short limits, isolation required where available."""
    limits = overrides.pop("limits", LimitOverrides(wall_seconds=60, memory_bytes=2 * 1024**3))
    return RunOptions(public_key_pem=keypair["public_path"].read_bytes(), runs_root=runs,
                      limits=limits, require_sandbox=ISOLATION.sandboxed,
                      libraries=(("numpy", "1"), ("pandas", "2"), ("scikit-learn", "1")),
                      **overrides)


def cli_args(keypair: dict, competition: Path, tmp_path: Path, base_url: str,
             *extra: str) -> list[str]:
    """`gnncb llm run` arguments against the scripted server."""
    return ["llm", "run", "--competition", str(competition), "--provider", "openai",
            "--base-url", base_url, "--api-key-env", "GNNCB_TEST_LLM_KEY",
            "--public-key", str(keypair["public_path"]),
            "--private-key", str(keypair["private_path"]),
            "--ledger", str(tmp_path / "ledger.jsonl"), "--runs", str(tmp_path / "runs"),
            "--wall-seconds", "60", "--retries", "0", *UNSANDBOXED_FLAGS, *extra]


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


MODEL = "acme/coder-1.5"


def run_cli(keypair, competition, tmp_path, llm, monkeypatch, *extra):
    """`gnncb llm run` with MODEL against the scripted server; the exit code."""
    monkeypatch.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
    return main(cli_args(keypair, competition, tmp_path, llm.base_url, "--model", MODEL,
                         *extra))


def ledger_of(tmp_path: Path) -> list[dict]:
    """The rows `cli_args`'s ledger holds (none before the first run)."""
    path = tmp_path / "ledger.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# The committed campaign's GNN competitions (campaigns/qwen2.5-coder-0.5b-local).
GNN_RECORDED = ("gnn-cora", "park-gnn", "gnn-bace", "solubility", "mix-props")
GNN_RECORDINGS = REPO / "campaigns" / "qwen2.5-coder-0.5b-local" / "gnn" / "recordings"


def slots_commit(recordings: Path = GNN_RECORDINGS) -> str:
    """The commit the campaign's prompt slots were read from, as its campaign.json names it
    (the generated READMEs changed since: a replay reads them back from this commit), after
    checking that this repository has it (a shallow clone does not: skip, saying so)."""
    commit = read_json(recordings / "campaign.json")["settings"]["slots_commit"]
    done = subprocess.run(["git", "-C", str(REPO), "cat-file", "-e", f"{commit}^{{commit}}"],
                          capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"needs the repository's git history (commit {commit[:12]}, named by "
                    f"{recordings}/campaign.json): "
                    f"{done.stderr.decode(errors='replace').strip()}")
    return str(commit)


def as_recorded(tmp_path: Path, slugs: tuple[str, ...] = GNN_RECORDED) -> tuple[str, ...]:
    """Copies of the competitions outside any git checkout, with the README the campaign saw
    (read from `slots_commit`): for tests of what a replay does without the history."""
    commit = slots_commit()
    folders = []
    for slug in slugs:
        folder = tmp_path / "recorded" / slug
        shutil.copytree(REPO / "competitions" / slug, folder)
        (folder / "README.md").write_bytes(subprocess.run(
            ["git", "-C", str(REPO), "show", f"{commit}:competitions/{slug}/README.md"],
            capture_output=True, check=True).stdout)
        folders.append(str(folder))
    return tuple(folders)


def in_repository(slugs: tuple[str, ...] = GNN_RECORDED) -> tuple[str, ...]:
    """The repository's own competition folders (a replay reads their slots back from the
    recorded commit), once the history holding that commit is known to be here."""
    slots_commit()
    return tuple(str(REPO / "competitions" / slug) for slug in slugs)
