"""Benchmark: rendering at scale. Markdown boards (+ CSVs), the site and its results pages from
a synthetic ledger of 10k, 30k and 100k rows over the committed competitions, against a bare
`json.loads` of every line of the same ledger, in the same run.

What is timed, per size (seconds of wall time and of this process's CPU time):
  load     Ledger.rows()  (json.loads per line + checks)
  boards   write_leaderboards (every competition page, its CSV, the index)
  site     build_site (every page, plots, results through evaluator.results)
  publish  what one accepted submission re-renders: its board + index, its site pages + index
           + results (`changed=[slug]`)
The goal (issue 13) is load + boards + site < 5 s at 100k rows on 2 cores, growing linearly;
the ratio column is (load + boards + site) / bare json.loads, both in CPU seconds.

    python benchmarks/render_scale.py [--sizes 10000,30000,100000] [--repeats 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evaluator.commands.core import load_all_specs  # noqa: E402
from evaluator.ledger import Ledger  # noqa: E402
from evaluator.paths import competitions_dir  # noqa: E402
from evaluator.render import write_leaderboards  # noqa: E402
from evaluator.site.build import build_site  # noqa: E402

MODELS = ["gpt-4o", "claude-3-5-sonnet", "qwen2.5-coder-7b-instruct", "llama-3.1-8b-instruct",
          "deepseek-coder-v2", "gemini-1.5-pro", "mistral-large", "phi-3-mini"]


def synthetic_rows(specs: list, n: int, seed: int = 13) -> list[dict]:
    """n submission rows spread over the prediction competitions, shaped as the pipeline writes
    them (declared rules, intervals, LLM facts); ~80 % of rows are distinct participants."""
    rng = random.Random(seed)
    comps = [s for s in specs if hasattr(s, "metrics")]
    per = n // len(comps) + 1
    rows = []
    for i in range(n):
        spec = comps[i % len(comps)]
        kind = rng.random()
        entrant = "human" if kind < 0.8 else ("llm-api" if kind < 0.97 else "baseline")
        model = rng.choice(MODELS) if entrant == "llm-api" else ""
        # platform entrants are namespaced and have no pull request (evaluator.identity): a
        # row with a pull request is read as a human's, whatever it declares
        who = (f"llm:{model}" if entrant == "llm-api" else
               f"baseline:{rng.choice(['gnn', 'nongraph'])}" if entrant == "baseline" else
               f"user{rng.randrange(int(per * 1.6))}")
        human = entrant == "human"
        scores = {}
        intervals = {}
        for name in [*spec.metrics, *spec.derived]:
            v = rng.random()
            scores[name] = v
            intervals[name] = {"low": v - 0.02, "high": v + 0.02}
        declared = {"gnn_only": True, "seed": 25, "training_time_minutes": rng.random() * 90,
                    "tuning_runs": rng.randrange(6), "hardware": "laptop, 4 cores",
                    "notes": ""}
        if entrant == "llm-api":
            declared["llm"] = {"provider": "api", "repair_depth": rng.randrange(6),
                               "tokens_in": 4000, "tokens_out": 900, "temperature": 0.0,
                               "max_tokens": 10_000, "seed": 25, "repairs_allowed": 5,
                               "limit_overrides": {}, "sandboxed": True,
                               "template_hash": f"sha256:{i:064x}", "campaign": "bench"}
        rows.append({"type": "submission", "digest": f"{rng.getrandbits(256):064x}",
                     "slug": spec.slug, "version": spec.version, "participant": who,
                     "participant_id": i if human else None, "entrant": entrant,
                     "method": f"GNN variant {i % 97} (hidden {32 * (1 + i % 4)})",
                     "model": model, "team": "", "pr": i + 1 if human else None,
                     "kid": "bench",
                     "scores": scores, "intervals": intervals, "declared": declared,
                     "scored_at": f"2026-11-{1 + i % 28:02d}T00:00:00Z",
                     "submitted_at": f"2026-11-{1 + i % 28:02d}T00:00:00Z"})
    return rows


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, float]:
    """(best wall seconds, best CPU seconds of this process) over `repeats` runs."""
    walls, cpus = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return min(walls), min(cpus)


def run(n: int, repeats: int, specs: list, tmp: Path) -> dict[str, tuple[float, float]]:
    ledger = tmp / f"ledger-{n}.jsonl"
    with ledger.open("w", encoding="utf-8") as fh:
        for row in synthetic_rows(specs, n):
            fh.write(json.dumps(row, sort_keys=True, separators=(",", ":")) + "\n")

    def bare() -> None:
        with ledger.open(encoding="utf-8") as fh:
            for line in fh:
                json.loads(line)

    out: dict[str, tuple[float, float]] = {"json.loads": timed(bare, repeats)}
    rows = Ledger(ledger).rows()
    out["load"] = timed(lambda: Ledger(ledger).rows(), repeats)
    out["boards"] = timed(lambda: write_leaderboards(specs, rows, tmp / f"lb-{n}",
                                                     ledger=ledger), repeats)
    out["site"] = timed(lambda: build_site(specs, rows, tmp / f"site-{n}", ledger=ledger),
                        repeats)
    slug = rows[-1]["slug"]
    out["publish"] = timed(lambda: (
        write_leaderboards(specs, rows, tmp / f"lb-{n}", ledger=ledger, changed=[slug]),
        build_site(specs, rows, tmp / f"site-{n}", ledger=ledger, changed=[slug])), repeats)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10000,30000,100000")
    p.add_argument("--repeats", type=int, default=1)
    args = p.parse_args()
    specs = load_all_specs(competitions_dir())
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"machine: {os.cpu_count()} cores, {_load()}")
    print(f"{'rows':>7} {'json.loads':>10} {'load':>7} {'boards':>7} {'site':>7} "
          f"{'total':>7} {'publish':>8} {'ratio':>6}   (CPU s; wall s in brackets)")
    results = {}
    with tempfile.TemporaryDirectory(prefix="gnncb-render-bench-") as tmp:
        for n in sizes:
            r = run(n, args.repeats, specs, Path(tmp))
            results[n] = r
            total_cpu = r["load"][1] + r["boards"][1] + r["site"][1]
            total_wall = r["load"][0] + r["boards"][0] + r["site"][0]
            print(f"{n:>7} {r['json.loads'][1]:>10.2f} {r['load'][1]:>7.2f} "
                  f"{r['boards'][1]:>7.2f} {r['site'][1]:>7.2f} {total_cpu:>7.2f} "
                  f"{r['publish'][1]:>8.2f} {total_cpu / r['json.loads'][1]:>6.1f}   "
                  f"[total {total_wall:.2f}, publish {r['publish'][0]:.2f}]")
    if len(sizes) > 1:
        a, b = sizes[0], sizes[-1]
        grow = ((results[b]["load"][1] + results[b]["boards"][1] + results[b]["site"][1])
                / (results[a]["load"][1] + results[a]["boards"][1] + results[a]["site"][1]))
        print(f"growth {a} -> {b} rows: x{grow:.1f} for x{b / a:.1f} rows")
    print(f"machine after: {_load()}")
    return 0


def _load() -> str:
    """The load average (other processes share the cores: wall time depends on it)."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f}"


if __name__ == "__main__":
    sys.exit(main())
