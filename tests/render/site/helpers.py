"""A ledger for site tests: the committed rows plus humans, LLM runs and a hostile name.

The extra rows have the shape `evaluator.pipeline.evaluate` writes (declared rules, LLM run facts,
per-score 95 % intervals), so the pages are exercised on every kind of entrant."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.helpers.paths import REPO

ROOT = REPO
HOSTILE = '<script>alert("x")</script> [click](javascript:alert(1)) @everyone & <b>bold</b>'
HOSTILE_LOGIN = "mallory"


def _account(login: str) -> int:
    """A stable GitHub account id for a login (people are counted by account id)."""
    return 1000 + int(hashlib.sha256(login.encode()).hexdigest()[:6], 16)


def _row(i: int, slug: str, participant: str, entrant: str, method: str, score: float,
         model: str = "", llm: dict | None = None) -> dict:
    declared = {"gnn_only": True, "seed": 25, "training_time_minutes": 12.5, "tuning_runs": 2,
                "hardware": "laptop, 4 cores"}
    if llm is not None:
        declared["llm"] = llm
    return {"type": "submission", "digest": f"{i:064x}", "slug": slug, "version": 1,
            "participant": participant, "entrant": entrant, "method": method, "model": model,
            "team": "",
            # a login's row came from its pull request; a platform entrant (llm:...) from the
            # platform's own run, with no pull request and no account id (submission.identity)
            # (one account per login: bob's two rows are one person's)
            "participant_id": _account(participant) if entrant == "human" else None,
            "pr": 40 + i if entrant == "human" else None,
            "scores": {"accuracy": score, "macro_f1": score - 0.01},
            "intervals": {"accuracy": {"low": score - 0.03, "high": score + 0.03},
                          "macro_f1": {"low": score - 0.04, "high": score + 0.02}},
            "declared": declared, "kid": "k", "scored_at": f"2026-11-30T10:{i % 60:02d}:00Z",
            "submitted_at": f"2026-11-30T10:{i % 60:02d}:00Z"}


def code_rows() -> list[dict]:
    """Two graph-coding entries (a human and an LLM with the SSD prompt), shaped as
    tests/helpers/codetrack.py's code_row (the counts agree with the case plan)."""
    from tests.helpers.codetrack import code_row

    human = code_row("dana", {"lc997": 3, "lc207": 5}, digest="e" * 64)
    llm = code_row("llm:qwen2.5-coder-7b-instruct", {"lc997": 2}, digest="f" * 64,
                   entrant="llm-api", pr=None, participant_id=None)
    llm["model"] = "qwen2.5-coder-7b-instruct"
    # suite strength and the minimal counterexamples' structures, as score_submission records
    human["per_problem"]["lc997"].update(
        suite={"killed": 1.0, "mutants": 2, "constant": 0.6, "flagged": True,
               "categories": {"sparse": {"killed": 0.5, "mutants": 2, "constant": 0.6,
                                         "flagged": True}}},
        features=["isolated node", "disconnected"])
    llm["per_problem"]["lc997"].update(
        suite={"killed": 0.5, "mutants": 2, "constant": 0.4, "flagged": False,
               "categories": {"sparse": {"killed": 0.5, "mutants": 2, "constant": 0.4,
                                         "flagged": False}}},
        features=["self-loop", "cycle"])
    llm["declared"]["llm"] = {"prompt_variant": "ssd", "repair_depth": 1, "tokens_in": 900,
                              "tokens_out": 300, "prompt_hash": "ef" * 32}
    return [human, llm]


def site_rows() -> list[dict]:
    rows = [json.loads(line) for line in
            (ROOT / "leaderboard" / "ledger.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    extra = [
        _row(1, "gnn-cora", "alice", "human", "GAT, 2 heads", 0.74),
        _row(2, "gnn-cora", "bob", "human", "GraphSAGE-mean", 0.61),
        _row(3, "gnn-cora", HOSTILE_LOGIN, "human", HOSTILE, 0.58),
        _row(4, "gnn-cora", "carol", "human", "label propagation + MLP", 0.52),
        _row(5, "gnn-cora", "llm:qwen2.5-coder-7b-instruct", "llm-api",
             "GCN written by the model", 0.66,
             model="qwen2.5-coder-7b-instruct",
             llm={"provider": "local", "repair_depth": 2, "tokens_in": 5120,
                  "tokens_out": 880, "prompt_hash": "ab" * 32, "prompt_variant": "frozen",
                  "campaign": "c2026-11-30"}),
        _row(6, "gnn-cora", "llm:gpt-4o", "llm-api", "APPNP by the model", 0.71, model="gpt-4o",
             llm={"provider": "openai", "repair_depth": 0, "tokens_in": 4000,
                  "tokens_out": 1200, "prompt_hash": "cd" * 32, "campaign": "c2026-11-30"}),
        _row(7, "gnn-cora", "bob", "human", "GraphSAGE-mean, tuned", 0.63),
    ]
    return rows + extra + code_rows()


def write_ledger(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in site_rows()),
                    encoding="utf-8")
    return path
