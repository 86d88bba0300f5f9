"""LLMs on the code track: the LLM track's providers and repair loop on code-track problems.

Why a package of its own: the GNN-CB loop (`evaluator.llm`) runs a program that writes
`predictions.csv`; here the model writes `class Solution`, the visible practice cases are its
test, and the final judging happens on hidden cases seeded by the solution's digest. Providers,
parsing, run logs, costs and the prompt environment are reused from `evaluator.llm`; judging
from `evaluator.codetrack.judge`; scoring from `gnncb code submit-score`.

- `prompting`: the vanilla and SSD templates, slots, visible examples, the repair turn, hashes;
- `feedback`: outcome sentences, cleaned tracebacks and the failed visible cases;
- `repair`: one model on one problem, every attempt logged;
- `scoring`: final solutions -> one submission judged on its hidden cases -> a ledger row.
"""
