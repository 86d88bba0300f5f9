"""The pull-request pipeline, in two phases that never share a secret.

Phase 1, `score` (holds the decryption key, read-only token): list the PR's files through the
API, enforce the path policy, download the two blobs at the head commit as DATA, verify their git
hashes, evaluate in memory, write a small non-secret result JSON. Phase 2, `publish` (write token,
no key): append the ledger row, re-render, commit and push with retries, comment, label, close.
Nothing from the pull request is ever checked out or executed in either phase.
"""
