"""The LLM track (GNN-CB section 3.3): frozen prompt, plan-then-code, sandboxed execute-and-repair.

Why a package of small modules: the protocol is only comparable across models if every step is
fixed and inspectable on its own, so each concern lives in one file:

- `datasummary`, `slots`: the five slots filled from a competition folder, never by hand;
- `prompt`: the versioned Jinja templates (frozen and SSD variants) and their hashes;
- `parse`: `<plan>` / `<code>` extraction with a recorded parse status;
- `providers`: OpenAI-compatible HTTP, recording and replay behind one small interface;
- `execute`: public-files workspace, sandboxed `python solution.py`, the `gnncb check` rules;
- `runlog`: the on-disk record of every attempt and the run summary;
- `loop` (API mode) and `agent` (external agent command): the execute-and-repair loops;
- `submit`: seal with the platform key and score through `evaluator.pipeline` into the ledger;
- `campaign`, `taxonomy`, `report`: models x competitions, failure modes, tables.
"""
