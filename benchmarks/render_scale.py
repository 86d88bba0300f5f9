"""Benchmark: rendering at scale. Markdown boards (+ CSVs), the site and its results pages from
a synthetic ledger of 10k, 30k and 100k rows over the committed competitions, against a bare
`json.loads` of every line of the same ledger, in the same run.

What is timed, per size, in CPU seconds (this process and the site build's worker processes)
and in wall seconds (which depend on what else the machine runs: the load average is printed):
  load      Ledger.rows()  (the JSON scanner on every line + checks, see evaluator.ledger.store)
  boards    write_leaderboards alone (every competition page, its CSV, the index)
  site      build_site alone (every page, figures, results through evaluator.render.results)
  l+b+s     load + boards + site
  shared    boards and site from one shared view: `build_site(..., boards=DIR)`, as
            `gnncb site build --boards DIR` does
  l+shared  load + shared (the build process alone is printed below the tables: on two free
            cores the wall time is about that, the worker drawing beside it)
  publish   what one accepted submission re-renders: its board + index, its site pages +
            index + results (`changed=[slug]`), from one shared view
  cli       `gnncb leaderboard render` then `gnncb site build`, each a fresh process (imports,
            ledger read, everything)
  cli-both  one fresh process: `gnncb site build --boards DIR` (site, results and boards)
The goal (issue 13) is boards + site + results < 5 s at 100k rows on 2 cores, growing linearly;
the ratio column is l+shared / bare json.loads. One untimed build of a 300-row ledger first
imports the libraries and compiles the templates, so the first size is not charged for them
(the cli column is).

    python benchmarks/render_scale.py [--sizes 10000,30000,100000] [--repeats 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evaluator.codetrack.board import load_all_specs  # noqa: E402
from evaluator.ledger.store import Ledger  # noqa: E402
from evaluator.paths import competitions_dir  # noqa: E402
from evaluator.render.boards import write_leaderboards  # noqa: E402
from evaluator.render.site.build import build_site  # noqa: E402

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
        # platform entrants are namespaced and have no pull request (submission.identity): a
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


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended (the site build's
    worker processes are joined before it returns, so their time is counted here)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _self_cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime


SELF: dict[str, float] = {}  # CPU seconds of this process alone, per measurement (last run)


def timed(fn: Callable[[], object], repeats: int, label: str = "") -> tuple[float, float]:
    """(best wall seconds, best CPU seconds of this process and its workers) over `repeats`."""
    walls, cpus = [], []
    for _ in range(repeats):
        w, c, own = time.perf_counter(), _cpu(), _self_cpu()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(_cpu() - c)
        SELF[label] = _self_cpu() - own
    return min(walls), min(cpus)


def _cli(*commands: list[str]) -> None:
    """Each command as CI and a maintainer run it: a fresh `gnncb` process (imports, ledger
    read and all)."""
    for argv in commands:
        subprocess.run([sys.executable, "-c", "import sys; from evaluator.cli import main; "
                        f"sys.exit(main({argv!r}))"], check=True, stdout=subprocess.DEVNULL,
                       cwd=ROOT)


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

    def both(changed: list[str] | None = None) -> None:
        build_site(specs, rows, tmp / f"site-{n}", ledger=ledger, changed=changed,
                   boards=tmp / f"lb-{n}")

    out["shared"] = timed(both, repeats, f"shared-{n}")
    out["self"] = (0.0, SELF[f"shared-{n}"])  # the build process alone, without its worker
    slug = rows[-1]["slug"]
    out["publish"] = timed(lambda: both([slug]), repeats)
    cli = tmp / f"cli-{n}"
    out["cli"] = timed(lambda: _cli(
        ["leaderboard", "render", "--ledger", str(ledger), "--out", str(cli / "lb")],
        ["site", "build", "--ledger", str(ledger), "--out", str(cli / "site")]), repeats)
    out["cli-both"] = timed(lambda: _cli(
        ["site", "build", "--ledger", str(ledger), "--out", str(cli / "both"),
         "--boards", str(cli / "both-lb")]), repeats)
    return out


COLUMNS = ("json.loads", "load", "boards", "site", "l+b+s", "shared", "l+shared", "publish",
           "cli", "cli-both")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10000,30000,100000")
    p.add_argument("--repeats", type=int, default=1)
    args = p.parse_args()
    specs = load_all_specs(competitions_dir())
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"machine: {os.cpu_count()} cores, {_load()}")
    results: dict[int, dict[str, tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="gnncb-render-bench-") as tmp:
        warm = Ledger(Path(tmp) / "warm.jsonl")  # imports and template compilation, untimed
        warm.append_many(synthetic_rows(specs, 300))
        build_site(specs, warm.rows(), Path(tmp) / "warm")
        for n in sizes:
            r = run(n, args.repeats, specs, Path(tmp))
            r["l+b+s"] = (r["load"][0] + r["boards"][0] + r["site"][0],
                          r["load"][1] + r["boards"][1] + r["site"][1])
            r["l+shared"] = (r["load"][0] + r["shared"][0], r["load"][1] + r["shared"][1])
            results[n] = r
    for unit, i in (("CPU seconds (this process and its workers)", 1), ("wall seconds", 0)):
        print(f"\n{unit}")
        print(f"{'rows':>7} " + " ".join(f"{c:>10}" for c in COLUMNS) + f" {'ratio':>6}")
        for n, r in results.items():
            print(f"{n:>7} " + " ".join(f"{r[c][i]:>10.2f}" for c in COLUMNS)
                  + f" {r['l+shared'][i] / r['json.loads'][i]:>6.1f}")
    print("\nthe build process alone (its drawing worker runs beside it, on the other core):")
    for n, r in results.items():
        print(f"{n:>7} rows: load + shared in this process = {r['load'][1] + r['self'][1]:.2f}"
              f" CPU s; worker {r['shared'][1] - r['self'][1]:.2f} CPU s")
    if len(sizes) > 1:
        a, b = sizes[0], sizes[-1]
        for c in ("l+b+s", "l+shared"):
            grow = results[b][c][1] / results[a][c][1]
            print(f"growth of {c} (CPU) {a} -> {b} rows: x{grow:.1f} for x{b / a:.1f} rows")
    print(f"\nmachine after: {_load()}")
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
