"""Plumbing with no knowledge of competitions: garbage-collector pauses for large reads,
strict JSON (no NaN/inf), progress lines for long work."""
