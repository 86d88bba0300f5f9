"""The code-track pull-request pipeline: phase 1 judges in the sandbox, phase 2 publishes.

A participant adds `competitions/<board>/submissions/<login>/solutions/<problem id>.py` files
(plain source) and an optional `metadata.json`. The modules mirror `evaluator.ci`'s and
`evaluator.ci.predictions`' and share their pieces: `policy` (which files a PR may change),
`fetch` (the files read at the head commit as data, the metadata, the digest), `result` (the
`CodeResult` artifact on the shared base), `score` (phase 1: the shared guards of
`evaluator.ci.guards`, then the judge in the sandbox; read-only token, no secret) and `publish`
(phase 2: record, render, commit, answer; write token, no participant code).
"""
