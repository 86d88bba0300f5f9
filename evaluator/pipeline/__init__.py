"""The one scoring path: admit -> validate -> score -> append. Every entry point that turns an
envelope into a ledger row (CLI, pull requests, baselines, the LLM track, the demo) calls it."""
