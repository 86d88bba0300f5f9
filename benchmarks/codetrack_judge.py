"""Benchmark: judge every published GraphEval36K case with the reference solutions, sandboxed.

Goal (issue 6): all ~32,000 published cases in under 60 s on 2 cores, and at least 20x faster
than running one sandboxed process per case. Both are measured in the same run on the same
cases: the batch judge over everything, then one sandbox process per case on a seeded sample
(spread over all problems, same worker, same solution, same parallelism), extrapolated to the
full set. Both use the strict judge (one case at a time within the worker's reach, each timed
by the sandbox's PID 1 on the kernel's exact CPU clock). The machine's load average before and
after is printed: on a shared machine the wall figures scale with it.

Why CPU seconds too: wall time on a shared machine measures the other users as much as the judge
(the same code took 286 s at load 11-17). The CPU seconds the judge and every process it started
consumed (its own rusage plus its children's: PID 1, the workers, the checker processes) hardly
depend on the load, so they are printed beside the wall times, with the speed-up on both, and
the wall time an idle machine would take, CPU / cores used, clearly labelled a projection. The
system-call filter's cost is measured the same way: a few problems judged with and without it.
For a fair wall figure run it with a high priority, e.g. as root
`echo -20 > /proc/$$/autogroup` in the shell first; the autogroup it ran in is printed.

    PYTHONPATH=. python benchmarks/codetrack_judge.py [--data PATH] [--sample 80] [--jobs 2]

The import of the published cases (parsing, reference answers, label flags) is done once and
cached (`runs/codetrack/cases/grapheval36k`); its time is reported separately when it runs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from unittest import mock

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from evaluator import sandbox  # noqa: E402
from evaluator.codetrack.cases import CaseSet, code_digest, default_cache_dir  # noqa: E402
from evaluator.codetrack.importer import import_grapheval  # noqa: E402
from evaluator.codetrack.judge import (  # noqa: E402
    PASS,
    JudgeConfig,
    judge_problem,
    reference_solution,
)
from evaluator.codetrack.problem import all_problems  # noqa: E402
from evaluator.codetrack.rundir import Candidate, judge_case_set  # noqa: E402
from evaluator.sandbox import spawn  # noqa: E402


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of every child it has waited for: the
    sandboxes' PID 1 processes account for their workers, so this is the judge's whole cost."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def autogroup() -> str:
    """This process's scheduling group and its nice value (Linux autogroups), for the record."""
    try:
        return Path("/proc/self/autogroup").read_text().strip()
    except OSError:
        return "unknown"


def per_case_processes(case_set: CaseSet, problems: dict, sample: int, jobs: int,
                       config: JudgeConfig, scratch: Path) -> dict:
    """One sandboxed worker process per case for a seeded sample of cases."""
    rng = random.Random(6)
    counts = {pid: case_set.manifest["problems"][pid]["cases"] for pid in case_set.problem_ids()}
    total = sum(counts.values())
    chosen: list[tuple[str, int]] = []
    for pid, n in counts.items():  # proportional, at least one per problem
        k = max(1, round(sample * n / total))
        chosen += [(pid, i) for i in sorted(rng.sample(range(n), min(k, n)))]
    refs = {pid: reference_solution(problems[pid], scratch / "ref")
            for pid in sorted({pid for pid, _ in chosen})}
    cases = {pid: case_set.cases(pid) for pid in refs}

    def one(slot: int, item: tuple[str, int]) -> tuple[float, bool]:
        """The same judge, worker and solution, but a fresh sandboxed process for one case."""
        pid, i = item
        solution, extra = refs[pid]
        started = time.perf_counter()
        judgement = judge_problem(problems[pid], solution, [cases[pid][i]], config=config,
                                  extra_files=extra, site_packages=True)
        elapsed = time.perf_counter() - started
        ok = judgement.processes == 1 and judgement.verdicts[0].ran and not judgement.load_error
        return elapsed, ok

    def lane(slot: int) -> list[tuple[float, bool]]:
        return [one(slot, item) for item in chosen[slot::jobs]]

    started, cpu0 = time.perf_counter(), cpu_seconds()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        outcomes = [o for lane_out in pool.map(lane, range(jobs)) for o in lane_out]
    wall = time.perf_counter() - started
    cpu = cpu_seconds() - cpu0
    return {
        "sampled": len(chosen),
        "wall_seconds": wall,
        "seconds_per_case": wall / len(chosen),
        "cpu_seconds": cpu,
        "cpu_seconds_per_case": cpu / len(chosen),
        "mean_process_seconds": sum(t for t, _ in outcomes) / len(outcomes),
        "all_ran": all(ok for _, ok in outcomes),
    }


def filter_cost(case_set: CaseSet, candidates: dict, problems: dict, config: JudgeConfig,
                jobs: int, scratch: Path, count: int) -> dict | None:
    """CPU seconds per case of the batch judge on the `count` problems with the most cases,
    with the system-call filter and without it (the judge's own code, the filter switched off
    by withholding libseccomp's binding from PID 1 for the second run only)."""
    binding, why = spawn.seccomp_binding()
    if binding is None:
        print(f"system-call filter: not in force here ({why}); its cost is not measured")
        return None
    chosen = sorted(candidates, key=lambda pid: -case_set.manifest["problems"][pid]["cases"])
    chosen = chosen[:count]
    cases = sum(case_set.manifest["problems"][pid]["cases"] for pid in chosen)
    figures = {}
    for label, off in (("with", False), ("without", True)):
        with contextlib.ExitStack() as stack:
            if off:
                stack.enter_context(mock.patch.object(
                    spawn, "seccomp_binding",
                    lambda: (None, "off for the benchmark's comparison")))
            cpu0 = cpu_seconds()
            judge_case_set({pid: candidates[pid] for pid in chosen}, case_set, problems,
                           out_dir=scratch / label, config=config, jobs=jobs, shrink=None)
            figures[label] = (cpu_seconds() - cpu0) / cases
    extra = figures["with"] - figures["without"]
    print(f"system-call filter's cost ({', '.join(chosen)}: {cases} cases, CPU seconds): "
          f"{1000 * figures['with']:.3f} ms per case with it, {1000 * figures['without']:.3f} "
          f"ms without: {1000 * extra:+.3f} ms per case ({extra / figures['without']:+.1%})")
    return {"problems": chosen, "cases": cases, "cpu_per_case_with": figures["with"],
            "cpu_per_case_without": figures["without"], "cpu_per_case_extra": extra}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path,
                        default=REPO.parent / "shared" / "datasets" / "grapheval36k" / "data")
    parser.add_argument("--cases", type=Path, help="imported case set (default: the cache)")
    parser.add_argument("--sample", type=int, default=80, help="cases run one process each")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--memory", action="store_true",
                        help="also record each case's peak RSS (kernel VmHWM)")
    parser.add_argument("--filter-problems", type=int, default=3,
                        help="problems judged with and without the system-call filter (0: skip)")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()

    problems = all_problems()
    isolation = sandbox.detect_isolation()
    print(f"machine: {os.cpu_count()} cores; sandbox isolation: {isolation.level}; "
          f"scheduling: {autogroup()}")
    set_dir = args.cases or default_cache_dir() / "cases" / "grapheval36k"
    import_seconds = None
    manifest_path = set_dir / "manifest.json"
    stale = manifest_path.is_file() and json.loads(manifest_path.read_text()).get(
        "code_digest") != code_digest()
    if stale:
        print("cached import was made by other problem/importer code: importing again")
    if stale or not manifest_path.is_file():
        if not args.data.is_dir():
            print(f"GraphEval36K data not found at {args.data}; pass --data", file=sys.stderr)
            return 2
        started = time.perf_counter()
        import_grapheval(args.data, set_dir, jobs=args.jobs, force=True)
        import_seconds = time.perf_counter() - started
        print(f"import (once, cached): {import_seconds:.1f} s")
    case_set = CaseSet(set_dir)
    total = case_set.manifest["total"]
    config = JudgeConfig(measure_memory=args.memory)
    load_before = os.getloadavg()
    scratch = Path(tempfile.mkdtemp(prefix="gnncb-bench-"))
    try:
        candidates = {}
        for pid in case_set.problem_ids():
            solution, extra = reference_solution(problems[pid], scratch / "ref")
            candidates[pid] = Candidate(solution, extra, site_packages=True)
        started, cpu0 = time.perf_counter(), cpu_seconds()
        summary = judge_case_set(candidates, case_set, problems, out_dir=scratch / "run",
                                 config=config, jobs=args.jobs, label="reference benchmark")
        batch = time.perf_counter() - started
        batch_cpu = cpu_seconds() - cpu0
        cores_used = max(1, min(args.jobs, len(os.sched_getaffinity(0))))
        idle_wall = batch_cpu / cores_used
        processes = sum(p["processes"] for p in summary["problems"].values())
        published = sum(1 for line in (scratch / "run" / "verdicts.jsonl").open()
                        if json.loads(line)["published"] == PASS)
        print(f"batch judge: {total} cases, {len(candidates)} problems, {processes} sandboxed "
              f"processes, {batch:.1f} s ({total / batch:,.0f} cases/s), jobs={args.jobs}"
              f"{', with per-case peak RSS' if args.memory else ''}")
        print(f"  CPU: {batch_cpu:.1f} s (judge + PID 1 + workers + checkers; "
              f"{1000 * batch_cpu / total:.2f} ms per case); projected on an idle machine: "
              f"{idle_wall:.1f} s (CPU / {cores_used} cores, both lanes busy throughout: "
              "a projection, not a measurement)")
        judged = sum(1 for line in (scratch / "run" / "verdicts.jsonl").open()
                     if json.loads(line)["verdict"] is not None)
        print(f"  references vs the truth (corrected view): {summary['passed']}/{judged} pass "
              f"({total - judged} cases have no valid answer); vs the published labels: "
              f"{published}/{total}")
        single = per_case_processes(case_set, problems, args.sample, args.jobs, config,
                                    scratch / "single")
        projected = single["seconds_per_case"] * total
        ratio = projected / batch
        projected_cpu = single["cpu_seconds_per_case"] * total
        ratio_cpu = projected_cpu / batch_cpu
        print(f"one process per case: {single['sampled']} sampled cases in "
              f"{single['wall_seconds']:.1f} s ({single['mean_process_seconds']:.3f} s per "
              f"process, jobs={args.jobs}) -> {projected:,.0f} s projected for {total} cases; "
              f"CPU {single['cpu_seconds_per_case']:.3f} s per process -> {projected_cpu:,.0f} s")
        print(f"speed-up of the batch judge: {ratio:,.0f}x wall, {ratio_cpu:,.0f}x CPU")
        filtered = (filter_cost(case_set, candidates, problems, config, args.jobs,
                                scratch / "filter", args.filter_problems)
                    if args.filter_problems > 0 else None)
        load_after = os.getloadavg()
        print(f"goals: all cases < 60 s: {'yes' if batch < 60 else 'NO'} ({batch:.1f} s wall "
              f"at load {load_before[0]:.1f}-{load_after[0]:.1f}; idle-machine projection "
              f"{idle_wall:.1f} s: {'yes' if idle_wall < 60 else 'NO'}); >= 20x faster than "
              f"per-case processes: {'yes' if min(ratio, ratio_cpu) >= 20 else 'NO'} "
              f"({ratio:,.0f}x wall, {ratio_cpu:,.0f}x CPU)")
        print("load average (1, 5, 15 min): before "
              + ", ".join(f"{x:.2f}" for x in load_before) + "; after "
              + ", ".join(f"{x:.2f}" for x in load_after))
        figures = {
            "cases": total, "problems": len(candidates), "cores": os.cpu_count(),
            "isolation": isolation.level, "jobs": args.jobs, "memory_pass": args.memory,
            "load_before": load_before, "load_after": load_after,
            "scheduling": autogroup(),
            "import_seconds": import_seconds, "batch_seconds": batch,
            "batch_cpu_seconds": batch_cpu, "idle_wall_projection_seconds": idle_wall,
            "speedup_cpu": ratio_cpu, "filter": filtered,
            "batch_processes": processes, "reference_pass": summary["passed"],
            "published_pass": published, "per_case": single, "projected_per_case_seconds":
            projected, "speedup": ratio,
        }
        if args.out:
            args.out.write_text(json.dumps(figures, indent=1) + "\n")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
