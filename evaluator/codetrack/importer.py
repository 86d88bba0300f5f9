"""`gnncb code import-grapheval PATH`: the published GraphEval36K cases as a judgeable case set.

Why import rather than only regenerate: to run the harness on the original benchmark and to
show, case by case, where its labels go wrong. Every published case is kept. Each gets the
reference's answer as its truth; a case whose label the problem's checker rejects against that
truth is *flagged* with the problem's label class from the spec (section 3: "label-wrong",
"input-repaired", ...), never dropped, so reports can show "as published" (judged against the
labels, flagged cases included) beside "corrected" (judged against the reference) pass rates.
A case on which the reference defines no answer keeps its label and is flagged too.

Problem-specific reading rules (fixed arguments the data leaves implicit, repairs of inputs that
upstream mutated after labelling) come from the problem module's `adapt_published(args)`; the
`in_contract(args)` predicate of the module, when present, marks in-contract cases.
"""

from __future__ import annotations

import copy
import json
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evaluator import __version__
from evaluator.codetrack.cases import (
    FORMAT,
    Case,
    CaseSet,
    CaseWriter,
    args_path,
    code_digest,
    map_published_cell,
    select_problems,
    write_manifest,
)
from evaluator.codetrack.problem import Problem, all_problems
from evaluator.errors import ConfigError


def module_hook(problem: Problem, name: str) -> Callable[..., Any] | None:
    """A module-level helper of the problem (`adapt_published`, `in_contract`), if defined.

    The `Problem` record has no field for these, so they are found beside its reference.
    """
    module = sys.modules.get(getattr(problem.reference, "__module__", ""), None)
    hook = getattr(module, name, None) if module else None
    return hook if callable(hook) else None


def label_class(problem: Problem) -> str:
    """The spec's class of a problem's label issues: the text before ':' in `label_status`."""
    return problem.label_status.split(":", 1)[0].strip() or "consistent"


def import_problem(root: str, problem_id: str, out: str) -> dict[str, Any]:
    """Read, answer and flag one problem's published cases into `out` (gzip JSONL)."""
    from evaluator.codetrack.published import iter_published_cases

    problem = all_problems()[problem_id]
    adapt = module_hook(problem, "adapt_published")
    contract = module_hook(problem, "in_contract")
    direction = "directed" if problem.directed else "undirected"
    stats: Counter[str] = Counter()
    flags: Counter[str] = Counter()
    caught: list[str] = []
    with warnings.catch_warnings(record=True) as seen, CaseWriter(Path(out)) as writer:
        warnings.simplefilter("always")
        for pc in iter_published_cases(Path(root), problem, adapt=adapt):
            case = _case(problem, pc, direction, contract)
            stats["cases"] += 1
            stats["repaired"] += pc.repaired
            if case.in_contract:
                stats["in_contract"] += 1
                stats["in_contract_agree"] += not case.flag
            if case.flag:
                flags[case.flag.split(":", 1)[0]] += 1
            else:
                stats["agree"] += 1
            writer.write(case)
        caught = [str(w.message) for w in seen]
    return {
        "direction": direction,
        "cases": stats["cases"],
        "agree": stats["agree"],
        "in_contract": stats["in_contract"] if contract else None,
        "in_contract_agree": stats["in_contract_agree"] if contract else None,
        "repaired_lines_cases": stats["repaired"],
        "flags": dict(flags),
        "label_class": label_class(problem),
        "warnings": caught[:50],
    }


def _case(problem: Problem, pc: Any, direction: str,
          contract: Callable[..., Any] | None) -> Case:
    mapped = map_published_cell(pc.category_file, pc.subcategory)
    category, subcategory = mapped or (pc.category_file, pc.subcategory)
    label = json.loads(json.dumps(pc.label))
    case = Case(
        id=f"{problem.id}/gx/{pc.category_file}/{pc.subcategory}/{pc.index}",
        problem=problem.id,
        direction=direction,
        category=category,
        subcategory=subcategory,
        index=pc.index,
        args=pc.args,
        source="grapheval36k",
        cell=pc.cell,
        label=label,
        has_label=True,
        repaired=pc.repaired,
    )
    if contract is not None:
        try:
            case.in_contract = bool(contract(pc.args))
        except Exception:
            case.in_contract = False
    started = time.perf_counter()
    try:
        expected = problem.reference(**copy.deepcopy(pc.args))
    except Exception as exc:
        case.has_expected = False
        case.flag = (f"{label_class(problem)}: the reference defines no answer for this input "
                     f"({type(exc).__name__}: {str(exc)[:200]})")
        return case
    case.ref_seconds = round(time.perf_counter() - started, 6)
    case.expected = json.loads(json.dumps(expected))
    try:
        own = problem.checker(pc.args, case.expected, case.expected)
        own_ok, own_reason = own.ok, own.reason
    except Exception as exc:
        own_ok, own_reason = False, f"{type(exc).__name__}: {exc}"
    if not own_ok:  # no answer is valid here (e.g. no Eulerian trail): there is no truth
        case.has_expected = False
        case.expected = None
        case.flag = (f"{label_class(problem)}: no answer is valid for this input under the "
                     f"statement ({own_reason})")
        return case
    try:
        verdict = problem.checker(pc.args, case.expected, label)
        ok, reason = verdict.ok, verdict.reason
    except Exception as exc:
        ok, reason = False, f"the checker rejects the label: {type(exc).__name__}: {exc}"
    if not ok:
        cls = label_class(problem)
        if cls == "consistent":
            cls = "unexpected"  # a problem marked consistent must agree: surface it loudly
        case.flag = f"{cls}: the label differs from the reference ({reason})"
    return case


def import_grapheval(
    root: Path,
    dest: Path,
    *,
    problems: Sequence[str] | None = None,
    jobs: int = 1,
    force: bool = False,
) -> CaseSet:
    """Import every problem's published cases from `root` (the dataset folder or its data/)."""
    root = Path(root)
    base = root / "data" if (root / "data").is_dir() else root
    if not (base / "directed").is_dir() and not (base / "undirected").is_dir():
        raise ConfigError(
            f"{root} does not look like the GraphEval36K data (expected directed/ and "
            "undirected/ folders, e.g. ../shared/datasets/grapheval36k/data)"
        )
    dest = Path(dest)
    if (dest / "manifest.json").is_file() and not force:
        raise ConfigError(f"{dest} already holds a case set; pass --force to re-import")
    registry = all_problems()
    chosen = select_problems(registry, problems)
    (dest / "cases").mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "name": "grapheval36k",
        "kind": "grapheval36k",
        "source": str(root.resolve()),
        "code_digest": code_digest(),
        "gnncb_version": __version__,
        "created": datetime.now(UTC).replace(microsecond=0).isoformat(),
        "problems": {},
        "total": 0,
    }
    calls = [(str(root), p.id, str(dest / "cases" / f"{p.id}.jsonl.gz")) for p in chosen]
    if jobs > 1 and len(calls) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [(c[1], pool.submit(import_problem, *c)) for c in calls]
            summaries = {pid: f.result() for pid, f in futures}
    else:
        summaries = {c[1]: import_problem(*c) for c in calls}
    for p in chosen:
        summary = summaries[p.id]
        if not summary["cases"]:
            empty = dest / "cases" / f"{p.id}.jsonl.gz"
            empty.unlink(missing_ok=True)
            args_path(empty).unlink(missing_ok=True)
            continue  # no published data (lc2328)
        manifest["problems"][p.id] = summary
        for flag, count in summary["flags"].items():
            if flag == "unexpected":
                warnings.warn(
                    f"{p.id} is marked consistent but {count} published label(s) differ from "
                    "its reference; check the reference or the field mapping", stacklevel=2)
    manifest["total"] = sum(s["cases"] for s in manifest["problems"].values())
    write_manifest(dest, manifest)
    return CaseSet(dest)


def agreement_table(case_set: CaseSet) -> list[dict[str, Any]]:
    """Per problem: cases, agreement with the labels, in-contract agreement, flags by class
    (the figures of the spec's summary table, recomputed)."""
    rows = []
    for pid, s in case_set.manifest["problems"].items():
        rows.append({
            "problem": pid,
            "direction": s["direction"],
            "cases": s["cases"],
            "agree": s["agree"],
            "agreement": s["agree"] / s["cases"] if s["cases"] else None,
            "in_contract": s.get("in_contract"),
            "in_contract_agree": s.get("in_contract_agree"),
            "flags": s["flags"],
            "label_class": s["label_class"],
        })
    return rows
