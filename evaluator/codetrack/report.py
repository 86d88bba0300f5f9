"""Code-track reports: pass rates the way GraphEval36K reports them, with the checks it lacked.

Why each figure carries a baseline: several published cells have a single answer, so a program
that prints a constant "passes" them. Beside every pass rate stands the *trivial baseline*: the
pass rate of the best constant answer, chosen per problem within the group shown (for a cell,
the cell's most common answer; for a row that spans problems, the sum of each problem's best
constant). A figure close to its baseline says little about the solution.

Figures: pass rate per problem, per category x sub-category shown "directed | undirected" like
the paper's Table 2, per concept and difficulty; mean time and peak memory per category; a
directed-vs-undirected significance test (case level: Fisher's exact test on the 2x2 table; and,
because cases of one problem are not independent, a problem-level permutation test); for
imported cases, "as published" (against the upstream labels) beside "corrected" (against the
reference); and our generated set's graph statistics beside the paper's Table 4.
Outputs: Markdown (Jinja, `templates/codetrack_report.md.j2`), CSV files and one JSON file.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from markupsafe import Markup

from evaluator.codetrack.cases import CaseSet
from evaluator.codetrack.checkers import exact
from evaluator.codetrack.judge import PASS, VERDICTS, truncate
from evaluator.codetrack.problem import CATEGORIES, SUBCATEGORIES, Problem, all_problems
from evaluator.codetrack.rundir import load_verdict_rows
from evaluator.errors import ConfigError

SUB_ABBREV = {"connected": "c", "disconnected": "dc", "cyclic": "cy", "acyclic": "acy"}
# What the report's abbreviations mean: printed by `gnncb code report` and written above the
# tables that use them (report.md), so no reader has to guess a column.
LEGEND = {
    "subcategories": "Sub-categories: " + ", ".join(f"{a} = {name}"
                                                    for name, a in SUB_ABBREV.items()) + ".",
    "problems": ("Columns: dir. = direction (D directed, U undirected); diff. = difficulty; "
                 "pass [base] = pass rate with the trivial baseline in brackets; verdicts per "
                 "case: WA = wrong answer, RE = runtime error (an exception or a non-zero "
                 "exit), TLE = time limit exceeded (wall or CPU), MLE = memory limit exceeded, "
                 "invalid = output that cannot be read as an answer, JL = judge limit (the "
                 "checker ran out of its budget on the answer); not run = cases skipped "
                 "(repeated timeouts, a crashed worker, or a solution that did not load)."),
}
DIRECTIONS = ("directed", "undirected")

# GraphEval36K, Table 4 (label, direction or None for both, category, nodes, edges, degree,
# degree variance).
PAPER_TABLE4: tuple[tuple[str, str | None, str, float, float, float, float], ...] = (
    ("Directed Sparse", "directed", "sparse", 103.97, 268.21, 4.79, 3.72),
    ("Directed Planar", "directed", "planar", 41.09, 43.64, 2.28, 1.18),
    ("Undirected Sparse", "undirected", "sparse", 88.51, 89.16, 1.95, 0.72),
    ("Undirected Planar", "undirected", "planar", 70.52, 71.89, 1.98, 0.74),
    ("Undirected Regular", "undirected", "regular", 82.96, 201.16, 5.01, 0.64),
    ("Undirected Complete", "undirected", "complete", 73.04, 4019.89, 72.05, 0.0),
    ("Small-world", None, "small-world", 101.22, 1660.99, 26.05, 4.33),
    ("Erdos-Renyi", None, "erdos-renyi", 103.43, 824.91, 12.74, 10.65),
    ("Power-law", None, "power-law", 103.17, 543.54, 10.18, 46.09),
)
PERMUTATIONS = 20_000
NO_TRUTH = "no true answer"  # a case judged only "as published"
TOP_CONSTANTS = 3  # candidate constants per problem for checkers other than exact match


# --------------------------------------------------------------------------------------------
# Trivial baseline
# --------------------------------------------------------------------------------------------


def _key(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()[:16]


def constant_hits(problem: Problem, cases: Sequence[Any], field: str) -> dict[str, frozenset[str]]:
    """Case id -> the constant answers (by key) that would pass it, for `field` "expected" or
    "label". Exact match: a case is passed only by its own answer. Other checkers: the problem's
    most common answers (overall, and per cell when repeated there) are tried on every case with
    the checker; a case's own answer always counts without asking the checker."""
    flag = "has_expected" if field == "expected" else "has_label"
    usable = [c for c in cases if getattr(c, flag)]
    keys = {c.id: _key(getattr(c, field)) for c in usable}
    if problem.checker is exact:
        return {cid: frozenset((k,)) for cid, k in keys.items()}
    overall: Counter[str] = Counter()
    per_cell: dict[str, Counter[str]] = defaultdict(Counter)
    values: dict[str, Any] = {}
    for c in usable:
        k = keys[c.id]
        values[k] = getattr(c, field)
        overall[k] += 1
        per_cell[c.cell][k] += 1
    candidates = {k for k, _ in overall.most_common(TOP_CONSTANTS)}
    for counter in per_cell.values():
        candidates.update(k for k, n in counter.most_common(1) if n > 1)
    hits: dict[str, frozenset[str]] = {}
    for c in usable:
        own = keys[c.id]
        passing = {own}
        for k in candidates:
            if k != own and _passes(problem, c.args, getattr(c, field), values[k]):
                passing.add(k)
        hits[c.id] = frozenset(passing)
    return hits


def _passes(problem: Problem, args: Any, expected: Any, constant: Any) -> bool:
    try:
        return problem.checker(args, expected, constant).ok
    except Exception:  # a constant of the wrong shape for this case is not a pass
        return False


# --------------------------------------------------------------------------------------------
# Aggregation
# --------------------------------------------------------------------------------------------


class Tally:
    """Pass counts of one group of cases, with its trivial baseline (module docstring)."""

    def __init__(self) -> None:
        self.n = 0
        self.passed = 0
        self.constants: dict[str, Counter[str]] = defaultdict(Counter)  # problem -> key counts

    def add(self, problem: str, passed: bool, hits: Iterable[str]) -> None:
        self.n += 1
        self.passed += passed
        self.constants[problem].update(hits)

    @property
    def rate(self) -> float | None:
        return self.passed / self.n if self.n else None

    @property
    def baseline(self) -> float | None:
        if not self.n:
            return None
        best = sum(max(c.values(), default=0) for c in self.constants.values())
        return best / self.n

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.n, "passed": self.passed, "rate": self.rate,
                "baseline": self.baseline}


def tallies(
    rows: Sequence[Mapping[str, Any]],
    key: Callable[[Mapping[str, Any]], Any],
    field: str,
    hits: Mapping[str, frozenset[str]],
) -> dict[Any, Tally]:
    out: dict[Any, Tally] = defaultdict(Tally)
    for row in rows:
        verdict = row[field]
        if verdict is None:
            continue
        out[key(row)].add(row["problem"], verdict == PASS, hits.get(row["id"], ()))
    return dict(out)


def _mean(values: Iterable[float | int | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def significance(rows: Sequence[Mapping[str, Any]], field: str) -> dict[str, Any]:
    """Directed vs undirected: Fisher's exact test and chi-square on the case-level 2x2 table,
    and a permutation test on per-problem pass rates (cases of one problem are correlated, so
    the case-level p-value overstates the evidence; the problem-level one does not)."""
    import numpy as np
    from scipy import stats

    counts = {d: [0, 0] for d in DIRECTIONS}
    per_problem: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    direction_of: dict[str, str] = {}
    for row in rows:
        if row[field] is None:
            continue
        ok = row[field] == PASS
        counts[row["direction"]][0 if ok else 1] += 1
        per_problem[row["problem"]][0 if ok else 1] += 1
        direction_of[row["problem"]] = row["direction"]
    out: dict[str, Any] = {
        "directed": {"passed": counts["directed"][0], "n": sum(counts["directed"])},
        "undirected": {"passed": counts["undirected"][0], "n": sum(counts["undirected"])},
    }
    if not all(sum(counts[d]) for d in DIRECTIONS):
        out["note"] = "one direction has no judged cases; no test"
        return out
    table = [counts["directed"], counts["undirected"]]
    odds, p_fisher = stats.fisher_exact(table)
    out["fisher"] = {"odds_ratio": _finite(odds), "p": float(p_fisher)}
    if all(sum(col) for col in zip(*table, strict=True)):
        chi2, p_chi, _, _ = stats.chi2_contingency(table)
        out["chi2"] = {"statistic": float(chi2), "p": float(p_chi)}
    rates = {pid: c[0] / sum(c) for pid, c in per_problem.items()}
    groups = [np.array([r for pid, r in rates.items() if direction_of[pid] == d])
              for d in DIRECTIONS]
    if min(len(g) for g in groups) >= 2:
        observed = groups[0].mean() - groups[1].mean()
        pooled = np.concatenate(groups)
        rng = np.random.default_rng(0)
        k = len(groups[0])
        perms = rng.permuted(np.tile(pooled, (PERMUTATIONS, 1)), axis=1)
        diffs = perms[:, :k].mean(axis=1) - perms[:, k:].mean(axis=1)
        extreme = int(np.count_nonzero(np.abs(diffs) >= abs(observed) - 1e-12))
        out["permutation"] = {
            "difference": float(observed),
            "p": (extreme + 1) / (PERMUTATIONS + 1),
            "problems": [len(g) for g in groups],
            "permutations": PERMUTATIONS,
        }
    return out


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def table4(case_set: CaseSet, problem_ids: Iterable[str]) -> list[dict[str, Any]]:
    """Our set's mean nodes, edges, degree and degree variance beside the paper's Table 4."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for pid in problem_ids:
        for case in case_set.iter_cases(pid):
            if case.stats:
                groups[(case.direction, case.category)].append(case.stats)
    rows: list[dict[str, Any]] = []
    used: set[tuple[str, str]] = set()

    def ours(keys: list[tuple[str, str]]) -> dict[str, Any]:
        stats = [s for k in keys for s in groups.get(k, [])]
        used.update(keys)
        return {
            "cases": len(stats),
            "nodes": _mean(s["nodes"] for s in stats),
            "edges": _mean(s["edges"] for s in stats),
            "degree": _mean(s["avg_degree"] for s in stats),
            "variance": _mean(s["degree_variance"] for s in stats),
        }

    for label, direction, category, *paper in PAPER_TABLE4:
        keys = [(d, category) for d in ([direction] if direction else DIRECTIONS)]
        rows.append({"label": label, "paper": dict(zip(("nodes", "edges", "degree", "variance"),
                                                       paper, strict=True)), "ours": ours(keys)})
    for key in sorted(set(groups) - used):
        rows.append({"label": f"{key[0].capitalize()} {key[1]}", "paper": None,
                     "ours": ours([key])})
    return [r for r in rows if r["ours"]["cases"]]


# --------------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------------


def build_report(run_dir: Path, case_set: CaseSet | None = None) -> dict[str, Any]:
    """Everything the Markdown, CSV and JSON outputs show, as plain data."""
    run_dir = Path(run_dir)
    run_file = run_dir / "run.json"
    if not run_file.is_file():
        raise ConfigError(f"{run_dir} is not a judge run (no run.json); run `gnncb code judge`")
    run = json.loads(run_file.read_text(encoding="utf-8"))
    rows = load_verdict_rows(run_dir)
    if case_set is None:
        path = Path(run["case_set"])
        if not (path / "manifest.json").is_file():
            raise ConfigError(f"the run's case set {path} is gone; pass --cases PATH")
        case_set = CaseSet(path)
    registry = all_problems()
    judged = [pid for pid in registry if pid in run["problems"]]
    truth_hits: dict[str, frozenset[str]] = {}
    label_hits: dict[str, frozenset[str]] = {}
    imported = any(r["published"] is not None for r in rows)
    for pid in judged:
        cases = case_set.cases(pid)
        truth_hits.update(constant_hits(registry[pid], cases, "expected"))
        if imported:
            label_hits.update(constant_hits(registry[pid], cases, "label"))

    def views(field: str, hits: Mapping[str, frozenset[str]]) -> dict[str, Any]:
        by_problem = tallies(rows, lambda r: r["problem"], field, hits)
        by_cell = tallies(rows, lambda r: (r["category"], r["subcategory"], r["direction"]),
                          field, hits)
        by_concept = tallies(rows, lambda r: (r["concept"], r["direction"]), field, hits)
        by_concept_all = tallies(rows, lambda r: r["concept"], field, hits)
        by_difficulty = tallies(rows, lambda r: (r["difficulty"], r["direction"]), field, hits)
        by_difficulty_all = tallies(rows, lambda r: r["difficulty"], field, hits)
        by_direction = tallies(rows, lambda r: r["direction"], field, hits)
        overall = tallies(rows, lambda r: "all", field, hits).get("all", Tally())
        return {
            "overall": overall.as_dict(),
            "directions": {d: t.as_dict() for d, t in by_direction.items()},
            "problems": {p: t.as_dict() for p, t in by_problem.items()},
            "table2": _table2(by_cell),
            "concepts": _split(by_concept, by_concept_all),
            "difficulties": _split(by_difficulty, by_difficulty_all,
                                   order=("easy", "medium", "hard")),
            "significance": significance(rows, field),
        }

    corrected = views("verdict", truth_hits)
    published = views("published", label_hits) if imported else None
    problems = []
    # one count per view: a case without a true answer (e.g. lc2097's non-Eulerian published
    # inputs) has no corrected verdict and is counted as such, never under its published one
    verdict_counts: dict[str, Counter[str]] = defaultdict(Counter)
    published_counts: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        verdict_counts[r["problem"]][r["verdict"] or NO_TRUTH] += 1
        if r["published"] is not None:
            published_counts[r["problem"]][r["published"]] += 1
    for pid in judged:
        p = registry[pid]
        mine = [r for r in rows if r["problem"] == pid]
        problems.append({
            "id": pid,
            "title": p.title,
            "direction": "directed" if p.directed else "undirected",
            "concept": p.concept,
            "difficulty": p.difficulty,
            "label_class": p.label_status.split(":", 1)[0],
            "cases": len(mine),
            "corrected": corrected["problems"].get(pid),
            "published": published["problems"].get(pid) if published else None,
            "flagged": sum(1 for r in mine if r["flag"]),
            "verdicts": {v: verdict_counts[pid].get(v, 0) for v in VERDICTS},
            "no_truth": verdict_counts[pid].get(NO_TRUTH, 0),
            "published_verdicts": ({v: published_counts[pid].get(v, 0) for v in VERDICTS}
                                   if published else None),
            "labelled": sum(published_counts[pid].values()),
            "not_run": sum(1 for r in mine if not r["ran"]),
            "wall_ms": _ms(_mean(r["wall"] for r in mine)),
            "cpu_ms": _ms(_mean(r["cpu"] for r in mine)),
            "memory_kib": _kib(_mean(r["memory"] for r in mine)),
            "processes": run["problems"][pid]["processes"],
            "load_error": run["problems"][pid].get("load_error", ""),
        })
    feedback_file = run_dir / "feedback.json"
    feedback = json.loads(feedback_file.read_text()) if feedback_file.is_file() else {}
    return {
        "run": {**{k: run[k] for k in ("label", "case_set_name", "case_set_kind", "base_seed",
                                       "isolation", "started", "seconds", "cases", "config")},
                # runs judged before versions were recorded: version 1 (errata.py)
                "case_set_version": run.get("case_set_version", 1)},
        "imported": imported,
        "corrected": corrected,
        "published": published,
        "flag_classes": dict(Counter(r["flag"].split(":", 1)[0] for r in rows if r["flag"])),
        "problems": problems,
        "timing": _timing(rows),
        "table4": table4(case_set, judged) if case_set.kind == "generated" else [],
        "feedback": {pid: items[:1] for pid, items in feedback.items() if items},
    }


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1000.0


def _kib(value: float | None) -> float | None:
    return None if value is None else value / 1024.0


def _table2(by_cell: Mapping[tuple[str, str, str], Tally]) -> list[dict[str, Any]]:
    """Rows of (category, sub-category) with a directed and an undirected cell each."""
    present = {(c, s) for c, s, _ in by_cell}
    categories = [c for c in CATEGORIES if any(k[0] == c for k in present)]
    categories += sorted({c for c, _ in present} - set(CATEGORIES))
    rows = []
    for category in categories:
        subs = [s for s in SUBCATEGORIES if (category, s) in present]
        subs += sorted({s for c, s in present if c == category} - set(SUBCATEGORIES))
        for sub in subs:
            rows.append({
                "category": category,
                "subcategory": sub,
                "abbrev": SUB_ABBREV.get(sub, sub),
                **{d: by_cell[(category, sub, d)].as_dict() if (category, sub, d) in by_cell
                   else None for d in DIRECTIONS},
            })
    return rows


def _split(by_pair: Mapping[tuple[str, str], Tally], by_one: Mapping[str, Tally],
           order: Sequence[str] | None = None) -> list[dict[str, Any]]:
    names = list(order or sorted(by_one))
    return [
        {"name": name, "all": by_one[name].as_dict(),
         **{d: by_pair[(name, d)].as_dict() if (name, d) in by_pair else None
            for d in DIRECTIONS}}
        for name in names if name in by_one
    ]


def _timing(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        if r["ran"]:
            groups[(r["category"], r["direction"])].append(r)
    order = {c: i for i, c in enumerate(CATEGORIES)}
    out = []
    for (category, direction), rs in sorted(groups.items(),
                                            key=lambda kv: (order.get(kv[0][0], 99), kv[0])):
        out.append({
            "category": category, "direction": direction, "cases": len(rs),
            "wall_ms": _ms(_mean(r["wall"] for r in rs)),
            "cpu_ms": _ms(_mean(r["cpu"] for r in rs)),
            "memory_kib": _kib(_mean(r["memory"] for r in rs)),
        })
    return out


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


def _pct(value: float | None) -> Markup:
    return Markup("–") if value is None else Markup(f"{100.0 * value:.1f}")  # noqa: S704


def _fig(tally: Mapping[str, Any] | None) -> Markup:
    """"pass [baseline]" in percent, e.g. `68.0 [40.0]`; NA where a cell has no cases."""
    if not tally or not tally["n"]:
        return Markup("NA")
    return Markup(f"{_pct(tally['rate'])} [{_pct(tally['baseline'])}]")  # noqa: S704


def _num(value: float | None, digits: int = 2) -> Markup:
    return Markup("–") if value is None else Markup(f"{value:,.{digits}f}")  # noqa: S704


def _p(value: float | None) -> Markup:
    if value is None:
        return Markup("–")
    return Markup(f"{value:.2e}" if value < 1e-3 else f"{value:.3f}")  # noqa: S704


def _code(value: Any, limit: int = 200) -> Markup:
    """A Markdown code span of untrusted text: no backtick can close it, no newline split it,
    and code spans are never interpreted (links, HTML, mentions stay text)."""
    text = truncate(value, limit).replace("`", "\u02cb").replace("\r", " ").replace("\n", " ")
    return Markup(f"`{text}`")  # noqa: S704 - a code span cannot be escaped from (see above)


def render_markdown(report: Mapping[str, Any]) -> str:
    from evaluator.render.boards import environment

    env = environment()
    env.filters.update({"pct": _pct, "fig": _fig, "num": _num, "p": _p,
                        "trunc": lambda v, n=300: truncate(v, n), "code": _code})
    return env.get_template("codetrack_report.md.j2").render(report=report, legend=LEGEND)


def _write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        for row in rows:
            writer.writerow(["" if v is None else v for v in row])


def write_report(report: Mapping[str, Any], out_dir: Path) -> list[Path]:
    """report.md, report.json and CSV tables; returns the paths written."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    md = out_dir / "report.md"
    md.write_text(render_markdown(report), encoding="utf-8")
    js = out_dir / "report.json"
    js.write_text(json.dumps(report, indent=1, default=str) + "\n", encoding="utf-8")
    paths += [md, js]
    views = [("corrected", report["corrected"])]
    if report["published"]:
        views.append(("published", report["published"]))
    # one file per view, so no row mixes a corrected figure with an as-published one
    problems_csv = out_dir / "problems.csv"
    _write_csv(problems_csv, [
        "problem", "direction", "concept", "difficulty", "cases", "pass_rate", "baseline",
        *VERDICTS, "no_true_answer", "not_run", "wall_ms", "cpu_ms", "memory_kib"],
        ([p["id"], p["direction"], p["concept"], p["difficulty"], p["cases"],
          (p["corrected"] or {}).get("rate"), (p["corrected"] or {}).get("baseline"),
          *(p["verdicts"][v] for v in VERDICTS), p["no_truth"], p["not_run"],
          p["wall_ms"], p["cpu_ms"], p["memory_kib"]] for p in report["problems"]))
    paths.append(problems_csv)
    if report["published"]:
        published_csv = out_dir / "problems_published.csv"
        _write_csv(published_csv, [
            "problem", "direction", "labelled", "pass_rate", "baseline", "flagged", *VERDICTS],
            ([p["id"], p["direction"], p["labelled"], (p["published"] or {}).get("rate"),
              (p["published"] or {}).get("baseline"), p["flagged"],
              *(p["published_verdicts"][v] for v in VERDICTS)] for p in report["problems"]))
        paths.append(published_csv)
    cells_csv = out_dir / "cells.csv"
    _write_csv(cells_csv, ["view", "category", "subcategory", "direction", "n", "passed",
                           "pass_rate", "baseline"],
               ([name, r["category"], r["subcategory"], d, r[d]["n"], r[d]["passed"],
                 r[d]["rate"], r[d]["baseline"]]
                for name, view in views for r in view["table2"] for d in DIRECTIONS if r[d]))
    paths.append(cells_csv)
    for key, file in (("concepts", "concepts.csv"), ("difficulties", "difficulties.csv")):
        path = out_dir / file
        _write_csv(path, ["view", key[:-1] if key == "concepts" else "difficulty",
                          "direction", "n", "passed", "pass_rate", "baseline"],
                   ([name, r["name"], d, r[d]["n"], r[d]["passed"], r[d]["rate"],
                     r[d]["baseline"]]
                    for name, view in views for r in view[key]
                    for d in ("all", *DIRECTIONS) if r[d]))
        paths.append(path)
    timing_csv = out_dir / "timing.csv"
    _write_csv(timing_csv, ["category", "direction", "cases", "wall_ms", "cpu_ms",
                            "memory_kib"],
               ([t["category"], t["direction"], t["cases"], t["wall_ms"], t["cpu_ms"],
                 t["memory_kib"]] for t in report["timing"]))
    paths.append(timing_csv)
    if report["table4"]:
        t4 = out_dir / "table4.csv"
        _write_csv(t4, ["graph_type", "cases", "nodes", "edges", "degree", "variance",
                        "paper_nodes", "paper_edges", "paper_degree", "paper_variance"],
                   ([r["label"], r["ours"]["cases"], r["ours"]["nodes"], r["ours"]["edges"],
                     r["ours"]["degree"], r["ours"]["variance"],
                     *((r["paper"] or {}).get(k) for k in ("nodes", "edges", "degree",
                                                           "variance"))]
                    for r in report["table4"]))
        paths.append(t4)
    return paths
