"""gnncb: GitHub-native GNN competitions for humans and LLMs, and a graph-coding benchmark.

The scoring path (spec, envelope, validate, metrics, scoring, ledger, render) imports neither
torch nor torch-geometric, so the evaluation workflow installs in seconds.
"""

__version__ = "0.1.0"
