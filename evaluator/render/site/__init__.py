"""The static benchmark site: `gnncb site build --out DIR`.

Why a static site beside the markdown boards: readers of the benchmark want per-task standings
with the uncertainty of each score, the spread of all results, a human vs LLM view and plots;
GitHub's markdown shows none of that. The site is a pure, deterministic function of the ledger,
the competition specs and the results computed from them (same input, same bytes), made of
plain HTML with inline SVG plots drawn at build time, so it works from a `file://` copy, needs
no CDN, font or script from elsewhere, and can be published as it is by GitHub Pages.

Modules: `views` turns ledger rows into plain data, `plots` draws SVG with matplotlib (only the
site imports it: the scoring path never does), `build` writes the pages through an
autoescaping Jinja environment (every participant string is HTML-escaped).
"""
