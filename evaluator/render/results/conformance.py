"""Protocol conformance of a ledger row: is this score comparable with the papers' protocol?

Why recorded and checked: GNN-CB compares humans who trained under fixed rules (seed 25, at
most 5 tuning runs, 3 CPU hours, GNN only) with LLMs run under a frozen protocol (temperature 0,
10K output tokens, a seed where supported, at most k = 5 repairs, sandboxed execution). A row
that broke a rule is kept in the ledger and on the boards, but marked, listed apart, and never
counted in the human-vs-LLM tables. A row that does not record a rule at all is "unverified":
counted, marked.

The reading of "k <= 5": the paper's text says "at most five repairs" while its Listing 2 makes
five model calls in all (`for attempt in range(REPAIR_LIMIT)`). gnncb's LLM track uses the text's
reading (`--repairs 5`: one first answer + up to five repairs = at most six calls). The other
reading is `k_reading="calls"` here (`gnncb results ... --k-reading calls`): a run that made more
than five model calls is then outside the protocol (run `gnncb llm run --repairs 4` to stay
inside both).
"""

from __future__ import annotations

import re
from typing import Any

from evaluator.competition.spec import CompetitionSpec

OK, UNVERIFIED, OUT = "ok", "unverified", "out"
K = 5  # GNN-CB's k <= 5
PROTOCOL_TEMPERATURE = 0.0
PROTOCOL_MAX_TOKENS = 10_000  # GNN-CB Table 4: max_output_tokens = 10K (API-only runs)
K_READINGS = ("repairs", "calls")
_NOT_GNN = re.compile(r"not a gnn|non-gnn|no gnn|without (?:a )?gnn|not gnn", re.IGNORECASE)


def _verdict(deviations: list[str], unverified: list[str]) -> dict[str, Any]:
    status = OUT if deviations else UNVERIFIED if unverified else OK
    return {"status": status, "deviations": deviations, "unverified": unverified}


def check_human(spec: CompetitionSpec, row: dict[str, Any]) -> dict[str, Any]:
    """The human protocol (GNN-CB Protocol 2) against what the submission declared."""
    rules, declared = spec.rules, row.get("declared") or {}
    seed, runs = declared.get("seed"), declared.get("tuning_runs")
    minutes, gnn = declared.get("training_time_minutes"), declared.get("gnn_only")
    # the common row, which declares every rule and keeps to it: the same verdict as the
    # checks below, without them (the results check every row of a ledger)
    if (seed is not None and seed == rules.seed and runs is not None
            and runs <= rules.max_tuning_runs and minutes is not None
            and minutes <= rules.cpu_hours * 60
            and (not rules.gnn_only or (gnn is not None and gnn is not False
                                        and not _says_not_gnn(row, declared)))):
        return {"status": OK, "deviations": [], "unverified": []}
    deviations: list[str] = []
    unverified: list[str] = []
    if seed is None:
        unverified.append("seed not declared")
    elif seed != rules.seed:
        deviations.append(f"seed {seed} (the rules fix seed {rules.seed})")
    if runs is None:
        unverified.append("tuning runs not declared")
    elif runs > rules.max_tuning_runs:
        deviations.append(f"{runs} tuning runs (at most {rules.max_tuning_runs})")
    if minutes is None:
        unverified.append("training time not declared")
    elif minutes > rules.cpu_hours * 60:
        deviations.append(f"{minutes:g} training minutes (at most {rules.cpu_hours:g} CPU "
                          "hours)")
    if rules.gnn_only:
        if gnn is False:
            deviations.append("declares a non-GNN model (the rules allow GNNs only)")
        elif _says_not_gnn(row, declared):
            deviations.append("the method says it is not a GNN (the rules allow GNNs only)")
        elif gnn is None:
            unverified.append("GNN-only not declared")
    return _verdict(deviations, unverified)


def _says_not_gnn(row: dict[str, Any], declared: dict[str, Any]) -> bool:
    """The method or the notes say the model is not a GNN (remembered per text: a ledger
    repeats a few method descriptions over thousands of rows)."""
    text = f"{row.get('method') or ''} {declared.get('notes') or ''}"
    found = _SAYS_NOT_GNN.get(text)
    if found is None:
        found = _NOT_GNN.search(text) is not None
        if len(_SAYS_NOT_GNN) >= 4096:  # bounded: a ledger of unique texts only refills it
            _SAYS_NOT_GNN.clear()
        _SAYS_NOT_GNN[text] = found
    return found


_SAYS_NOT_GNN: dict[str, bool] = {}


def llm_record(row: dict[str, Any]) -> dict[str, Any]:
    """The LLM run facts of a row, flattened: decoding as requested and applied folded in
    (temperature, max_tokens, seed, seed_sent), `model_calls` from `calls`."""
    llm = dict((row.get("declared") or {}).get("llm") or {})
    decoding = llm.get("decoding")
    if isinstance(decoding, dict):  # the track's record: decoding as requested and applied
        for key in ("temperature", "max_tokens", "seed", "seed_sent"):
            if key in decoding:
                llm.setdefault(key, decoding[key])
        if decoding.get("seed") is not None and decoding.get("seed_sent") is False:
            llm["seed_unsupported"] = True  # the endpoint refused it: "where supported"
    if isinstance(llm.get("calls"), int):
        llm.setdefault("model_calls", llm["calls"])
    return llm


def llm_items(row: dict[str, Any]) -> list[dict[str, str]]:
    """The LLM protocol items an LLM row is checked on, each as {"rule", "protocol",
    "recorded"}: what an entry page shows beside the verdict (the human rules do not apply
    to an LLM entry, so "not declared" under them would say nothing)."""
    llm = llm_record(row)

    def shown(key: str) -> str:
        value = llm.get(key)
        return "not recorded" if value is None else str(value)

    overrides = llm.get("limit_overrides")
    sandbox = llm.get("sandboxed")
    agent = row.get("entrant") == "llm-agent"
    seed = shown("seed") + (" (the endpoint does not take a seed)"
                            if llm.get("seed_unsupported") else "")
    return [
        {"rule": "temperature", "protocol": f"{PROTOCOL_TEMPERATURE:g}",
         "recorded": shown("temperature")},
        {"rule": "output-token budget per call",
         "protocol": "the agent's session budget" if agent else f"≤ {PROTOCOL_MAX_TOKENS:,}",
         "recorded": shown("max_tokens")},
        {"rule": "seed", "protocol": "25 where the API supports one", "recorded": seed},
        {"rule": "repairs allowed", "protocol": f"≤ {K}", "recorded": shown("repairs_allowed")},
        {"rule": "repairs used", "protocol": f"≤ {K}", "recorded": shown("repair_depth")},
        {"rule": "model calls", "protocol": f"first answer + ≤ {K} repairs",
         "recorded": shown("model_calls")},
        {"rule": "execution limits", "protocol": "the competition's (no overrides)",
         "recorded": "not recorded" if overrides is None else (
             "none overridden" if not overrides else ", ".join(
                 f"{k}={v}" for k, v in sorted(overrides.items())))},
        {"rule": "sandbox", "protocol": "model code runs sandboxed",
         "recorded": "not recorded" if sandbox is None else (
             f"{'sandboxed' if sandbox else 'NOT sandboxed'} (isolation "
             f"{llm.get('isolation') or 'none'})")},
    ]


def check_llm(spec: CompetitionSpec, row: dict[str, Any], *, k_reading: str = "repairs"
              ) -> dict[str, Any]:
    """The LLM protocol (GNN-CB Protocol 3) against what the LLM track recorded in the row."""
    if k_reading not in K_READINGS:
        raise ValueError(f"k_reading {k_reading!r}: use one of {K_READINGS}")
    llm = llm_record(row)
    deviations: list[str] = []
    unverified: list[str] = []
    temperature = llm.get("temperature")
    if temperature is None:
        unverified.append("temperature not recorded")
    elif float(temperature) != PROTOCOL_TEMPERATURE:
        deviations.append(f"temperature {temperature:g} (the protocol decodes at 0)")
    agent = row.get("entrant") == "llm-agent"
    max_tokens = llm.get("max_tokens")
    if not agent:  # agents run under their own session budget (GNN-CB Table 4)
        if max_tokens is None:
            unverified.append("output-token limit not recorded")
        elif int(max_tokens) > PROTOCOL_MAX_TOKENS:
            deviations.append(f"{int(max_tokens):,} output tokens per call (the protocol "
                              f"allows {PROTOCOL_MAX_TOKENS:,})")
    if "seed" not in llm:
        unverified.append("seed not recorded")
    elif llm.get("seed") is None and not llm.get("seed_unsupported"):
        deviations.append("no seed sent (the protocol sends seed 25 where the API supports it)")
    allowed = llm.get("repairs_allowed")
    if allowed is None:
        unverified.append("repair budget not recorded")
    elif int(allowed) > K:
        deviations.append(f"{allowed} repairs allowed (k <= {K})")
    used = llm.get("repair_depth")
    calls = llm.get("model_calls")
    if k_reading == "calls":
        n = calls if calls is not None else (used + 1 if used is not None else None)
        if n is None:
            unverified.append("model calls not recorded")
        elif int(n) > K:
            deviations.append(f"{n} model calls (reading k <= {K} as calls in all)")
    elif used is not None and int(used) > K:
        deviations.append(f"{used} repairs used (k <= {K})")
    overrides = llm.get("limit_overrides")
    if overrides is None:
        unverified.append("limit overrides not recorded")
    elif overrides:
        shown = ", ".join(f"{k}={v:g}" if isinstance(v, int | float) else f"{k}={v}"
                          for k, v in sorted(overrides.items()))
        deviations.append(f"execution limits overridden ({shown})")
    if llm.get("stop_on_repeat") is True:
        deviations.append(f"the loop stops at a repeated answer (the protocol runs up to "
                          f"k = {K} repairs)")
    if llm.get("model_listed") is False:
        deviations.append(f"model not verified: the endpoint did not list "
                          f"{row.get('model') or 'the model'} (the answers may come from "
                          "another model)")
    sandboxed = llm.get("sandboxed")
    if sandboxed is None:
        unverified.append("isolation not recorded")
    elif not sandboxed:
        deviations.append(f"model code ran without a sandbox (isolation "
                          f"{llm.get('isolation') or 'none'})")
    del spec  # the LLM protocol is the same on every competition
    return _verdict(deviations, unverified)


def check_row(spec: CompetitionSpec, row: dict[str, Any], *, k_reading: str = "repairs"
              ) -> dict[str, Any]:
    """Status `ok`, `unverified` or `out` (+ the reasons) for any submission row."""
    entrant = row.get("entrant") or "human"
    if entrant == "human":
        return check_human(spec, row)
    if entrant.startswith("llm"):
        return check_llm(spec, row, k_reading=k_reading)
    return _verdict([], [])  # baselines are references, not contestants


def mark(status: str) -> str:
    """The mark boards put beside a row: '' / '†' (unverified) / '✗' (outside the protocol)."""
    return {OK: "", UNVERIFIED: "†", OUT: "✗"}[status]
