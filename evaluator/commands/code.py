"""`gnncb code ...`: the graph-coding track (GraphEval36K rebuilt sound).

Verbs: `generate` (seeded case set), `judge` (sandboxed batch judge), `report` (pass rates with
baselines, Markdown/CSV/JSON), `import-grapheval` (the published cases, flagged),
`discrimination` (constant and wrong-solution pass shares), `submit-score` (a participant's
solutions on digest-seeded cases, or with `--secret` on the platform's secret cases -> one
ledger row), `commit-seed|reveal-seed` (the board version's case secret), and `llm
run|seed|score` (LLMs on the code track, `commands/_code_llm.py`: `run` drives the LLM
track's providers and repair loop over code-track problems, visible practice cases as the
test and failed visible cases as feedback, then judges the final solutions on hidden cases
exactly like `submit-score`, unless the board's version commits to a case secret; `seed`
derives that secret seed in a separate process that runs no model code, and `score` does the
final judging of a model's run folder with it).
Exit codes: 0 ok, 1 the submission is at fault (`submit-score`; `llm run`: no problem produced
runnable code), 2 usage, configuration, provider or sandbox problems (nothing is blamed on the
model).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evaluator.commands import GROUPS
from evaluator.commands._options import code_board as _board
from evaluator.commands._options import code_board_folder as _board_folder
from evaluator.commands._options import csv_list as _csv
from evaluator.errors import ConfigError
from evaluator.submission.identity import ENTRANTS


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("code", help="graph-coding track: generate cases, judge, report")
    cs = p.add_subparsers(dest="code_command", metavar="ACTION", required=True)
    GROUPS["code"] = cs

    ls = cs.add_parser("problems", help="list the problems (id, direction, concept, difficulty)")
    ls.set_defaults(func=cmd_problems)

    sh = cs.add_parser("show", help="a problem's statement, signature, contract and examples")
    sh.add_argument("problem", help="problem id, e.g. lc207")
    sh.add_argument("--examples", type=int, default=2,
                    help="practice cases to show with their expected answers (default 2)")
    sh.set_defaults(func=cmd_show)

    g = cs.add_parser("generate", help="generate a seeded case set (cached)")
    _set_options(g)
    g.add_argument("--out", type=Path, help="case-set folder (default: the cache path)")
    g.add_argument("--force", action="store_true", help="replace an existing set")
    g.set_defaults(func=cmd_generate)

    j = cs.add_parser("judge", help="judge solutions (or the references) in the sandbox")
    who = j.add_mutually_exclusive_group(required=True)
    who.add_argument("--solutions", type=Path,
                     help="folder of <problem>.py files, each defining class Solution")
    who.add_argument("--reference", action="store_true",
                     help="judge the reference solutions (a self-test of the harness)")
    j.add_argument("--cases", type=Path,
                   help="case-set folder (default: the practice set, generated if absent)")
    _set_options(j)
    _judge_options(j)
    j.add_argument("--out", type=Path, help="run folder (default: runs/codetrack/judge/...)")
    j.add_argument("--label", default="", help="name shown in the report")
    j.add_argument("--shrink-rounds", type=int, default=16,
                   help="judge rounds spent shrinking each problem's first failure to a minimal "
                        "counterexample (default 16; 0 = do not shrink)")
    j.add_argument("--allow-site-packages", action="store_true",
                   help="let solutions import installed packages (default: standard library "
                        "only, as in the competition)")
    j.set_defaults(func=cmd_judge)

    r = cs.add_parser("report", help="pass-rate report of a judge run (md + csv + json)")
    r.add_argument("run", type=Path, help="run folder written by `gnncb code judge`")
    r.add_argument("--cases", type=Path, help="the run's case set, if it moved")
    r.add_argument("--out", type=Path, help="default: <run>/report")
    r.set_defaults(func=cmd_report)

    i = cs.add_parser("import-grapheval",
                      help="import the published GraphEval36K cases (labels flagged)")
    i.add_argument("path", type=Path, help="GraphEval36K data folder, e.g. "
                                           "../shared/datasets/grapheval36k/data")
    i.add_argument("--out", type=Path, help="default: runs/codetrack/cases/grapheval36k")
    i.add_argument("--problems", type=_csv, help="comma-separated problem ids")
    i.add_argument("--jobs", type=int, default=1)
    i.add_argument("--force", action="store_true")
    i.set_defaults(func=cmd_import)

    d = cs.add_parser("discrimination",
                      help="constant-answer and wrong-solution pass shares of a case set")
    d.add_argument("--cases", type=Path,
                   help="case-set folder (default: the practice set, generated if absent)")
    _set_options(d)
    d.add_argument("--before", type=Path, help="an older set of the same plan, for comparison")
    d.add_argument("--published", type=Path,
                   help="the imported GraphEval36K set (`gnncb code import-grapheval`): its "
                        "labels' constant share is the yardstick")
    d.set_defaults(func=cmd_discrimination)

    s = cs.add_parser("submit-score",
                      help="judge a submission on cases seeded by its digest; write a ledger row")
    s.add_argument("--solutions", type=Path, required=True,
                   help="the submission's solutions/ folder (<problem>.py files)")
    s.add_argument("--participant", required=True, help="GitHub login")
    s.add_argument("--entrant", choices=ENTRANTS, help="default: metadata.json's, else human")
    s.add_argument("--method", help="short description (default: metadata.json's)")
    s.add_argument("--model", help="LLM model id for LLM entrants (default: metadata.json's)")
    s.add_argument("--metadata", type=Path,
                   help="the submission's metadata.json (default: beside the solutions folder)")
    s.add_argument("--pr", type=int, help="pull request number")
    s.add_argument("--per-cell", type=int, default=10,
                   help="cases per published cell (default 10: a tenth of the paper's size)")
    s.add_argument("--practice", action="store_true",
                   help="use the public practice seed instead of the digest seed")
    s.add_argument("--secret", action="store_true",
                   help="draw the cases as the platform does: from $GNNCB_CODE_SEED and the "
                        "digest, under the repository's case-seed commitment (maintainers)")
    s.add_argument("--ledger", type=Path,
                   help="append the row here (default: print it only)")
    s.add_argument("--out", type=Path, help="keep the run folder here")
    _judge_options(s)
    s.add_argument("--json", action="store_true", help="print the row as JSON")
    s.set_defaults(func=cmd_submit_score)

    c = cs.add_parser("commit-seed", help="commit the board version's secret case seed "
                                          "(before submissions open; needs $GNNCB_CODE_SEED)")
    c.add_argument("--board", default="graph-coding",
                   help="code-track board (default: %(default)s)")
    c.set_defaults(func=cmd_commit_seed)
    r = cs.add_parser("reveal-seed", help="reveal a closed version's secret case seed into "
                                          "release/ (needs $GNNCB_CODE_SEED)")
    r.add_argument("--board", default="graph-coding",
                   help="code-track board (default: %(default)s)")
    r.add_argument("--version", type=int, required=True, help="the board version to reveal")
    r.add_argument("--closed", action="store_true",
                   help="confirm that submissions to this version are closed (required when "
                        "it is the board's current version)")
    r.set_defaults(func=cmd_reveal_seed)

    from evaluator.commands._code_llm import register_llm

    register_llm(cs)  # `gnncb code llm ...`: its own module (size)


def cmd_discrimination(args: argparse.Namespace) -> int:
    """Print, per problem, the best constant answer's and each mutant's pass share."""
    from evaluator.codetrack.cases import CaseSet, ensure_case_set
    from evaluator.codetrack.discrimination import measure, render, table_rows

    current = (CaseSet(args.cases) if args.cases else ensure_case_set(
        plan=args.plan, base_seed=args.seed, per_cell=args.per_cell, problems=args.problems,
        jobs=args.jobs))
    wanted = args.problems or None
    now = measure(current, wanted)
    before = measure(CaseSet(args.before), wanted) if args.before else None
    published = (measure(CaseSet(args.published), wanted, field="label")
                 if args.published else None)
    print(render(table_rows(now, before, published)))
    return 0


def _set_options(p: argparse.ArgumentParser) -> None:
    from evaluator.codetrack.cases import PRACTICE_SEED

    p.add_argument("--plan", choices=("paper", "full"), default="paper",
                   help="paper: GraphEval36K's cells, 100 each (default); full: every cell")
    p.add_argument("--per-cell", type=int, help="cases per cell (default 100 paper, 20 full)")
    p.add_argument("--seed", type=int, default=PRACTICE_SEED,
                   help=f"base seed (default: the public practice seed {PRACTICE_SEED})")
    p.add_argument("--problems", type=_csv, help="comma-separated problem ids (default: all)")
    p.add_argument("--jobs", type=int, default=2, help="parallel processes (default 2)")


def _judge_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-memory", action="store_true",
                   help="do not record each case's peak RSS (the kernel's VmHWM)")
    p.add_argument("--timeout-factor", type=float, default=10.0,
                   help="case time limit = max(floor, factor x reference time)")
    p.add_argument("--timeout-floor", type=float, default=1.0, help="seconds (default 1)")
    p.add_argument("--memory-mb", type=int, default=1024, help="per worker process")
    p.add_argument("--require-sandbox", action="store_true",
                   help="refuse to run without full isolation (namespaces + own uid)")
    if "--jobs" not in p._option_string_actions:
        p.add_argument("--jobs", type=int, default=2, help="problems judged in parallel")


def _config(args: argparse.Namespace) -> Any:
    from evaluator.codetrack.judge import JudgeConfig

    if args.timeout_factor <= 0 or args.timeout_floor <= 0:
        raise ConfigError("--timeout-factor and --timeout-floor must be positive")
    return JudgeConfig(
        timeout_factor=args.timeout_factor,
        timeout_floor=args.timeout_floor,
        memory_bytes=args.memory_mb * 1024 * 1024,
        measure_memory=not args.no_memory,
        require_sandbox=args.require_sandbox,
    )


# --------------------------------------------------------------------------------------------


def cmd_problems(args: argparse.Namespace) -> int:
    from evaluator.codetrack.problem import all_problems

    seen = []
    for p in all_problems().values():
        status = p.label_status.split(":", 1)[0]
        seen.append(status)
        print(f"{p.id:8s} {'directed' if p.directed else 'undirected':10s} {p.difficulty:6s} "
              f"{p.concept:24s} {p.title}  [{status}]")
    print("\n[tags] say how far the published GraphEval36K labels of a problem can be trusted "
          "(`gnncb code show ID` gives the reason):")
    for tag in sorted(set(seen), key=list(LABEL_TAGS).index):
        print(f"  {tag:16s} {LABEL_TAGS[tag]}")
    return 0


# The legend of the label-status tags printed by `gnncb code problems` (the class before the
# colon of each problem's `label_status`); reports use SUB_ABBREV's legend for cells.
LABEL_TAGS = {
    "consistent": "every published label agrees with our reference",
    "label-wrong": "some published labels are wrong; judged twice: against the true answer "
                   "(corrected) and against the label (as published)",
    "constant-answer": "one constant answer passes (nearly) every published case, so a "
                       "published pass rate says little",
    "input-repaired": "published inputs are repaired on load so the labels fit them",
    "too-few-cases": "too few published cases for a stable pass rate",
    "no-data": "no published cases here; only generated cases",
}


def cmd_show(args: argparse.Namespace) -> int:
    from evaluator.codetrack.cases import PRACTICE_SEED, generate_case, valid_cells
    from evaluator.codetrack.judge import truncate
    from evaluator.codetrack.problem import get_problem

    try:
        problem = get_problem(args.problem)
    except KeyError as err:
        raise ConfigError(str(err.args[0])) from None
    print(f"# {problem.id}: {problem.title}\n")
    print(f"{'directed' if problem.directed else 'undirected'} · {problem.concept} · "
          f"{problem.difficulty} · checker: {getattr(problem.checker, '__name__', 'custom')}\n")
    print(problem.statement.rstrip() + "\n")
    print(f"Input contract: {problem.input_contract}\n")
    tag = problem.label_status.split(":", 1)[0]
    print(f"Published labels: {problem.label_status} ({LABEL_TAGS.get(tag, tag)})\n")
    print("Write solutions/" + problem.id + ".py with:\n")
    print(problem.signature.rstrip() + "\n")
    cells = valid_cells(problem)
    for k in range(max(0, args.examples)):
        category, sub = cells[k % len(cells)].split("/")
        case, _ = generate_case(problem, category, sub, k, PRACTICE_SEED)
        if case is None:
            continue
        print(f"Example {k + 1} ({case.cell}, {case.stats['nodes']} nodes):")
        print(f"  input:    {truncate(dict(case.args), 400)}")
        print(f"  expected: {truncate(case.expected, 200)}")
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from evaluator.codetrack.cases import default_set_path, generate_case_set
    from evaluator.util.progress import Progress

    out = args.out or default_set_path(args.plan, args.seed, args.per_cell)
    bar: Progress | None = None

    def on_problem(pid: str, done: int, total: int) -> None:
        nonlocal bar
        bar = bar or Progress(total, "generating problems")
        bar.update(note=pid)

    case_set = generate_case_set(out, base_seed=args.seed, plan=args.plan,
                                 per_cell=args.per_cell, problems=args.problems,
                                 jobs=args.jobs, force=args.force, on_problem=on_problem)
    if bar is not None:
        bar.close()
    m = case_set.manifest
    print(f"case set {case_set.path}: {m['total']} cases over {len(m['problems'])} problems "
          f"(plan {m['plan']}, seed {m['base_seed']}, case-set version {case_set.version})")
    return 0


def _candidates(args: argparse.Namespace, problem_ids: list[str], registry: dict[str, Any],
                scratch: Path) -> dict[str, Any]:
    from evaluator.codetrack.judge import reference_solution
    from evaluator.codetrack.rundir import Candidate
    from evaluator.codetrack.submission import solution_files

    if getattr(args, "reference", False):
        out = {}
        for pid in problem_ids:
            path, extra = reference_solution(registry[pid], scratch)
            out[pid] = Candidate(path, extra, site_packages=True)
        return out
    return {pid: Candidate(path, site_packages=args.allow_site_packages) for pid, path in
            solution_files(args.solutions, problem_ids, registry).items()}


def _progress(judgement: Any) -> None:
    n = len(judgement.verdicts)
    note = f"  load error: {judgement.load_error.strip().splitlines()[-1]}" \
        if judgement.load_error else ""
    print(f"  {judgement.problem:8s} {judgement.passed:5d}/{n:<5d} passed  "
          f"{judgement.wall_seconds:7.2f} s  {judgement.processes} process(es){note}",
          flush=True)
    minimal = judgement.minimal or {}
    if "size" in minimal:
        print(f"           minimal counterexample: size {minimal['size']} (was "
              f"{minimal['original_size']}), {minimal['verdict']}; structures: "
              f"{', '.join(minimal['features']) or 'none'}; input {minimal['input'][:120]}",
              flush=True)


def _budget(args: argparse.Namespace) -> Any:
    from evaluator.codetrack.shrink import Budget

    return Budget(rounds=args.shrink_rounds) if args.shrink_rounds > 0 else None


def _run_dir(args: argparse.Namespace, label: str) -> Path:
    from evaluator.codetrack.cases import default_cache_dir

    if args.out:
        return Path(args.out)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return default_cache_dir() / "judge" / f"{stamp}-{label or 'run'}"


def cmd_judge(args: argparse.Namespace) -> int:
    from evaluator.codetrack.cases import CaseSet, ensure_case_set
    from evaluator.codetrack.problem import all_problems
    from evaluator.codetrack.rundir import judge_case_set
    from evaluator.codetrack.submission import solution_files

    registry = all_problems()
    wanted = args.problems
    if args.solutions and not wanted:
        wanted = list(solution_files(args.solutions, None, registry))
    if args.cases:
        case_set = CaseSet(args.cases)
    else:
        case_set = ensure_case_set(plan=args.plan, base_seed=args.seed, per_cell=args.per_cell,
                                   problems=wanted, jobs=args.jobs)
    if case_set.stale():
        print(f"warning: {case_set.path} was made by other problem code; expected answers may "
              "be stale (regenerate with `gnncb code generate --force`)", file=sys.stderr)
    available = case_set.problem_ids()
    problem_ids = [pid for pid in registry if pid in available and (not wanted or pid in wanted)]
    skipped = [w for w in (wanted or []) if w not in available]
    if skipped:
        print(f"note: the case set has no cases for {', '.join(skipped)}", file=sys.stderr)
    if not problem_ids:
        raise ConfigError("nothing to judge: no problem has both a solution and cases")
    label = args.label or ("reference" if args.reference else args.solutions.name)
    out = _run_dir(args, label)
    with tempfile.TemporaryDirectory(prefix="gnncb-ref-") as scratch:
        candidates = _candidates(args, problem_ids, registry, Path(scratch))
        print(f"judging {len(candidates)} problem(s) on {case_set.path}")
        summary = judge_case_set(candidates, case_set, registry, out_dir=out,
                                 config=_config(args), jobs=args.jobs, label=label,
                                 progress=_progress, shrink=_budget(args))
    rate = summary["pass_rate"]
    print(f"{summary['passed']}/{summary['cases']} cases passed"
          f"{f' ({100 * rate:.1f} %)' if rate is not None else ''} in {summary['seconds']:.1f} s;"
          f" isolation {', '.join(summary['isolation'])}")
    print(f"run folder: {out}  (next: gnncb code report {shlex.quote(str(out))})")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from evaluator.codetrack.cases import CaseSet
    from evaluator.codetrack.report import LEGEND, build_report, write_report

    report = build_report(args.run, CaseSet(args.cases) if args.cases else None)
    paths = write_report(report, args.out or Path(args.run) / "report")
    overall = report["corrected"]["overall"]
    if overall["rate"] is not None:
        print(f"pass rate {100 * overall['rate']:.1f} % (trivial baseline "
              f"{100 * overall['baseline']:.1f} %) over {overall['n']} cases")
    if report["published"]:
        pub = report["published"]["overall"]
        print(f"as published {100 * pub['rate']:.1f} % (baseline {100 * pub['baseline']:.1f} %)")
    for path in paths:
        print(f"wrote {path}")
    _print_version(report["run"]["case_set_version"])
    _print_strength_and_structures(report, Path(args.run), args.cases)
    print("\n".join(LEGEND.values()))
    return 0


def _print_version(version: int) -> None:
    """The run's case-set version, and the errata since (evaluator/codetrack/errata.json)."""
    from evaluator.codetrack.errata import ERRATA, case_set_version, corrected

    print(f"case-set version {version} (current {case_set_version()}; errata: "
          f"{ERRATA.name} in evaluator/codetrack)")
    for pid, items in sorted(corrected(version).items()):
        print(f"  {pid}: corrected since (version {', '.join(str(e['version']) for e in items)}"
              f"): {items[-1]['what']}")


def _print_strength_and_structures(report: dict[str, Any], run: Path,
                                   cases: Path | None) -> None:
    """Beside each problem's pass rate: the suite's strength on the run's cases (mutants
    killed, best constant, flagged above the set share) and the minimal counterexample's
    structures (counterexamples.json)."""
    from evaluator.codetrack.cases import CaseSet
    from evaluator.codetrack.discrimination import TRIVIAL_FLAG, suite_strength
    from evaluator.codetrack.problem import all_problems

    registry = all_problems()
    case_set = CaseSet(cases) if cases else CaseSet(Path(json.loads(
        (run / "run.json").read_text(encoding="utf-8"))["case_set"]))
    file = run / "counterexamples.json"
    minimal = json.loads(file.read_text(encoding="utf-8")) if file.is_file() else {}
    print(f"suite strength (flag: the best constant passes more than {TRIVIAL_FLAG:.0%}):")
    for item in report["problems"]:
        pid = item["id"]
        suite = suite_strength(registry[pid], case_set.cases(pid))
        rate = (item.get("corrected") or {}).get("rate")
        killed, constant = suite["killed"], suite["constant"]
        print(f"  {pid:8s} pass {'-' if rate is None else f'{100 * rate:.1f} %':>7s}  "
              f"mutants killed {'-' if killed is None else f'{100 * killed:.0f} %':>5s}  "
              f"best constant {'-' if constant is None else f'{100 * constant:.1f} %':>7s}"
              f"{'  FLAGGED' if suite['flagged'] else ''}")
        found = minimal.get(pid) or {}
        if "size" in found:
            print(f"           minimal counterexample: size {found['size']} (was "
                  f"{found['original_size']}); structures: "
                  f"{', '.join(found['features']) or 'none'}")


def cmd_import(args: argparse.Namespace) -> int:
    from evaluator.codetrack.cases import default_cache_dir
    from evaluator.codetrack.importer import agreement_lines, import_grapheval

    out = args.out or default_cache_dir() / "cases" / "grapheval36k"
    case_set = import_grapheval(args.path, out, problems=args.problems, jobs=args.jobs,
                                force=args.force)
    print(f"imported {case_set.manifest['total']} cases into {case_set.path}")
    print("\n".join(agreement_lines(case_set)))
    return 0


def score_submission(args: argparse.Namespace) -> Any:
    """`submit-score`'s options translated into the library call (metadata.json fills what the
    options leave unset)."""
    from evaluator.codetrack.submission import read_metadata
    from evaluator.codetrack.submission import score_submission as score

    meta = read_metadata(args.solutions, args.metadata)
    return score(args.solutions, participant=args.participant,
                 entrant=args.entrant or meta.get("entrant") or "human",
                 method=args.method if args.method is not None else str(meta.get("method", "")),
                 model=args.model if args.model is not None else str(meta.get("model", "")),
                 pr=args.pr, per_cell=args.per_cell, practice=args.practice, out=args.out,
                 config=_config(args), jobs=args.jobs,
                 case_seed=_secret_seed(args) if args.secret else None)


def _secret_seed(args: argparse.Namespace) -> dict[str, Any]:
    """The case seed the platform's keyed seed job would derive for these files."""
    from evaluator.codetrack.caseseed import case_seed
    from evaluator.codetrack.problem import all_problems
    from evaluator.codetrack.submission import solution_files, submission_digest
    from evaluator.errors import Rejection

    board = _board(args, "graph-coding")
    files = solution_files(Path(args.solutions), None, all_problems(), error=Rejection)
    digest = submission_digest({f"{pid}.py": path for pid, path in files.items()})
    return case_seed(_board_folder(args, board.slug), board.slug, board.version, digest)


def cmd_commit_seed(args: argparse.Namespace) -> int:
    """Write competitions/<board>/case-seed.json: the commitment, never the secret."""
    from evaluator.codetrack.caseseed import (
        commitment_path,
        master_secret,
        read_commitment,
        write_commitment,
    )

    board = _board(args)
    folder = _board_folder(args, board.slug)
    before = read_commitment(folder)
    master = master_secret()
    if before is not None and before["version"] == board.version:
        from evaluator.codetrack.caseseed import version_salt, version_secret
        from evaluator.submission.commit import commit

        if commit(version_salt(master, board.slug, board.version),
                  version_secret(master, board.slug, board.version)) != before["commitment"]:
            raise ConfigError(f"{commitment_path(folder)} already commits {board.slug} "
                              f"version {board.version} to another secret; a commitment never "
                              "changes within a version (raise the board's version for a new "
                              "one, or set the GNNCB_CODE_SEED it was made with)")
    data = write_commitment(folder, master, board.slug, board.version)
    print(f"{commitment_path(folder)}: {board.slug} version {board.version} commits to "
          f"{data['commitment']}; commit this file before submissions open")
    return 0


def cmd_reveal_seed(args: argparse.Namespace) -> int:
    """Write release/case-seed-v<N>.json (secret and salt) once the version is closed."""
    from evaluator.codetrack.caseseed import master_secret, reveal

    board = _board(args)
    if args.version > board.version or args.version < 1:
        raise ConfigError(f"{board.slug} has no version {args.version} (current: "
                          f"{board.version})")
    if args.version == board.version and not args.closed:
        raise ConfigError(f"version {args.version} is {board.slug}'s current version: "
                          "revealing its secret makes every later submission's cases "
                          "predictable; close submissions first and pass --closed, or raise "
                          "the board's version")
    path = reveal(_board_folder(args, board.slug), master_secret(), board.slug, args.version)
    print(f"revealed {board.slug} version {args.version}'s case secret into {path}; commit "
          "it, then anyone can check the judged cases with `gnncb verify`")
    return 0


def cmd_submit_score(args: argparse.Namespace) -> int:
    from evaluator.codetrack.caseseed import commitment_path, current_commitment
    from evaluator.ledger.store import Ledger

    if args.ledger and not args.secret:
        # A board that commits to a case secret takes rows judged under it only: a row on
        # digest-seeded cases (which anyone can compute) must not join its ledger by hand
        # either (lint and verify name one that did). A scratch ledger elsewhere is the
        # user's own.
        board = _board(args, "graph-coding")
        folder = _board_folder(args, board.slug)
        own = folder.parent.parent / "leaderboard" / "ledger.jsonl"
        if (Path(args.ledger).resolve() == own.resolve()
                and current_commitment(folder, board.slug, board.version) is not None):
            raise ConfigError(f"{board.slug} version {board.version} draws its cases from a "
                              f"committed secret ({commitment_path(folder)}): a row judged "
                              "without it cannot join its ledger; maintainers add --secret "
                              "(needs $GNNCB_CODE_SEED), participants leave out --ledger to "
                              "score locally")
    row = score_submission(args).row
    written = Ledger(args.ledger).append(row) if args.ledger else False
    if args.json:
        print(json.dumps(row, sort_keys=True))
    else:
        s = row["scores"]
        ci = row["intervals"]["pass_rate"]
        print(f"{row['participant']} ({row['entrant']}): pass rate {100 * s['pass_rate']:.2f} % "
              f"[95% interval over problems: {100 * ci['low']:.2f}-{100 * ci['high']:.2f} %] "
              f"on {s['cases']} cases, {s['problems_solved']}/{s['problems']} problems fully "
              f"solved (seed {row['seed']})")
        if args.ledger:
            print(f"recorded in {args.ledger}" if written else
                  f"already in {args.ledger} (same digest); nothing new recorded")
    return 0
