"""Untrusted code (LLM-written scripts, code-track solutions) run under namespaces, rlimits and
a trusted PID 1 that measures it from outside; see docs/sandbox.md."""
