"""One module per problem; each calls `register(Problem(...))` at import.

NetworkX (and NumPy, SciPy) are imported inside the functions that build, draw or inspect
graphs, never at module level (annotations import them under TYPE_CHECKING): the judge's
sandboxed worker imports a reference's module in every worker process it starts, one per
problem, and those imports cost ~0.5 s CPU each time for nothing a reference computes with
(tests/codetrack/test_reference_imports.py). A reference that does compute with one (lc3017,
NumPy) imports it at module level, so the import is paid at load time, not inside a case's
CPU allowance."""
