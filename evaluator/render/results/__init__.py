"""Results: the papers' comparisons (GNN-CB Tables 2-3, Figures 4, 10-16; GraphEval36K Tables
2, 3, 5) computed from the ledger or from an imported reference source.

Data flows ledger rows / source -> `entries` (one comparable entry per entrant) -> `tables`
(pure functions returning plain dicts) -> `render` (Markdown, CSV, JSON). `api` is what the CLI
and the site call.
"""
