"""Ledger rows for the `gnncb results` tests, shaped as the pipeline writes them.

Every row declares the papers' protocol unless a test says otherwise, so a test changes only
the field whose effect it checks.
"""

from __future__ import annotations

PROTOCOL_LLM = {"provider": "openai", "temperature": 0.0, "max_tokens": 10000, "seed": 25,
                "repairs_allowed": 5, "repair_depth": 1, "model_calls": 2,
                "limit_overrides": {}, "sandboxed": True, "isolation": "namespaces"}


PROTOCOL_HUMAN = {"seed": 25, "tuning_runs": 3, "training_time_minutes": 30.0, "gnn_only": True}


def ledger_row(n: int, slug: str, participant: str, score: dict, *, entrant: str = "human",
               model: str = "", declared: dict | None = None, method: str = "GCN") -> dict:
    return {"type": "submission", "digest": f"{n:064x}", "slug": slug, "version": 1,
            "participant": participant, "participant_id": None, "entrant": entrant,
            "method": method, "model": model, "team": "", "scores": score,
            "declared": declared if declared is not None else dict(PROTOCOL_HUMAN),
            "kid": "k", "pr": None, "submitted_at": f"2026-01-01T00:00:{n:02d}Z",
            "scored_at": f"2026-01-01T00:00:{n:02d}Z"}


def llm_row(n: int, slug: str, model: str, score: dict, **llm) -> dict:
    return ledger_row(n, slug, "llm-" + model.lower().replace(".", "-"), score, entrant="llm-api",
                      model=model, declared={"llm": {**PROTOCOL_LLM, **llm}})
