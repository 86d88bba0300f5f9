"""gnncb's tests, one folder per layer of `evaluator/` (submission, scoring, ledger, render, ...).

Besides the layers: `catalogue/` checks the committed competitions, `package/` the repository
as a whole (import layering, workflows, guards, the committed ledger, rendered outputs), and
`helpers/` holds shared test code (no tests). Fixtures used by several folders are in
conftest.py, fixtures of one folder in that folder's conftest.py, helpers of one folder in its
helpers.py. `pytest -m "not slow"` is the inner loop; CI runs everything.
"""
