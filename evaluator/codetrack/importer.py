"""`gnncb code import-grapheval PATH`: the published GraphEval36K cases as a judgeable case set.

Why import rather than only regenerate: to run the harness on the original benchmark and to
show, case by case, where its labels go wrong. Every published case is kept, with its label
(the "as published" view) and, where one exists, its *true* answer (the "corrected" view).

How a case is read and judged (see `assess`), with the problem module's optional hooks:
- `adapt_published(args)` reads the published fields into arguments (implicit arguments such as
  lc1971's fixed ends, lc2050's index base); it includes `repair_published(args)`, which undoes
  a known upstream defect of the stored input (lc1782's node count, lc2467's mutated amounts).
- `in_contract(args)` is checked on the input *as published*, after repairs: a reading may add
  arguments the data leaves implicit but cannot bring published values into the contract (a
  0-based lc2050 case stays out of contract although we shift it to 1..n).
- The truth is the reference's answer, except on out-of-contract inputs of a problem with
  `published_truth(args)`: there the statement defines no answer (a tree problem given a graph
  with cycles), and `published_truth` gives the natural one (the true minimum, the longest path
  of the whole graph) or raises `NoTrueAnswer` (none exists, or none is computed here).

A case is *affected* (spec section 3) when its label is not the truth, when it has no truth, or,
for problems with `published_truth`, when its input is outside the contract at all (such inputs
should be regenerated even where the label happens to be right). Affected cases are flagged
"<label class>: <kind>: <why>", never dropped. A case whose label is wrong for the input as
stored but right once `repair_published` restores the input upstream labelled is *repaired*,
not affected.
"""

from __future__ import annotations

import copy
import json
import time
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
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
    case_limits,
    code_digest,
    map_published_cell,
    select_problems,
    write_manifest,
)
from evaluator.codetrack.problem import NoTrueAnswer, Problem, all_problems
from evaluator.errors import ConfigError

# Kinds of affected cases, in the order tables list them.
LABEL_WRONG = "label wrong"  # the truth exists and the checker rejects the label
NOT_MINIMAL = "not minimal"  # no exact truth, but the label exceeds a valid answer
OUT_OF_CONTRACT = "out of contract"  # label right by chance on an input the statement excludes
NO_ANSWER = "no answer"  # no valid answer exists (e.g. no Eulerian trail, no arborescence)
KIND_ORDER = (LABEL_WRONG, NOT_MINIMAL, NO_ANSWER, "infeasible", "not computed", OUT_OF_CONTRACT)
REPAIRED = "repaired"
# label classes (spec section 3) under which affected cases are expected
WRONG_LABEL_CLASSES = frozenset({"label-wrong"})


def label_class(problem: Problem) -> str:
    """The spec's class of a problem's label issues: the text before ':' in `label_status`."""
    return problem.label_status.split(":", 1)[0].strip() or "consistent"


# --------------------------------------------------------------------------------------------
# One case
# --------------------------------------------------------------------------------------------


@dataclass
class Assessment:
    """What the importer concludes about one published case (module docstring)."""

    args: dict[str, Any]  # the arguments judged (read and repaired)
    in_contract: bool | None  # None: the problem states no contract predicate
    has_truth: bool
    truth: Any  # JSON-normalised; None when has_truth is False
    agree: bool  # the label is accepted against the truth
    agree_reference: bool  # the label is accepted against the reference's own answer
    reference_on_truth: bool | None  # the reference's answer is accepted against the truth
    agree_unrepaired: bool | None  # same as agree, on the unrepaired input (None: no repair)
    repaired: bool  # the repair turned a disagreeing label into an agreeing one
    kind: str  # "" when not affected, else one of KIND_ORDER
    detail: str  # why, for the flag
    ref_seconds: float | None


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _accepts(problem: Problem, args: Mapping[str, Any], expected: Any, actual: Any
             ) -> tuple[bool, str]:
    try:
        verdict = problem.checker(args, expected, actual)
    except Exception as exc:  # a label of the wrong shape is a rejected label
        return False, f"{type(exc).__name__}: {exc}"
    return verdict.ok, verdict.reason


def _reference(problem: Problem, args: Mapping[str, Any]) -> tuple[bool, Any, str]:
    """(valid, answer, why not): the reference's answer, if it is one its checker accepts."""
    try:
        answer = _json(problem.reference(**copy.deepcopy(dict(args))))
    except Exception as exc:
        return False, None, (f"the reference defines no answer for this input "
                             f"({type(exc).__name__}: {str(exc)[:200]})")
    ok, reason = _accepts(problem, args, answer, answer)
    if not ok:  # e.g. no Eulerian trail: the reference's best effort is no answer
        return False, None, f"no answer is valid for this input under the statement ({reason})"
    return True, answer, ""


def _contract(problem: Problem, args: dict[str, Any], published: dict[str, Any]) -> bool | None:
    """The contract on the input as published (after repair): published values win over the
    reading, which only fills in the arguments the data leaves implicit."""
    if problem.in_contract is None:
        return None
    try:
        return bool(problem.in_contract({**args, **published}))
    except Exception:  # an input the predicate cannot even read is outside the contract
        return False


def _truth(problem: Problem, args: Mapping[str, Any], extension: bool,
           reference: tuple[bool, Any, str]) -> tuple[bool, Any, str, int | None]:
    """(has truth, truth, "<kind>: <why>" when none, upper bound): the reference's answer, or
    `published_truth`'s on an out-of-contract input the statement defines no answer for."""
    ref_ok, ref, ref_why = reference
    if not extension or problem.published_truth is None:
        return ref_ok, ref, ("" if ref_ok else f"{NO_ANSWER}: {ref_why}"), None
    try:
        return True, _json(problem.published_truth(args)), "", None
    except NoTrueAnswer as exc:
        return False, None, f"{exc.kind}: {exc.reason}", exc.upper_bound


def assess(problem: Problem, raw: Mapping[str, Any], label: Any) -> Assessment:
    """Read, repair and judge one published case against its label (module docstring)."""
    raw = dict(raw)
    repaired_input = problem.repair_published(dict(raw)) if problem.repair_published else raw
    args = problem.adapt_published(dict(raw)) if problem.adapt_published else raw
    label = _json(label)
    contract = _contract(problem, args, repaired_input)

    started = time.perf_counter()
    reference = _reference(problem, args)
    ref_ok, ref, _ = reference
    ref_seconds = round(time.perf_counter() - started, 6) if ref_ok else None
    agree_reference = ref_ok and _accepts(problem, args, ref, label)[0]

    extension = contract is False and problem.published_truth is not None
    has_truth, truth, why, bound = _truth(problem, args, extension, reference)
    agree, reason, reference_on_truth = False, "", None
    if has_truth:
        agree, reason = _accepts(problem, args, truth, label)
        reference_on_truth = ref_ok and _accepts(problem, args, truth, ref)[0]

    # the same reading with the published values the repair changed put back
    unrepaired = {**args, **{k: v for k, v in raw.items() if repaired_input.get(k) != v}}
    agree_unrepaired: bool | None = None
    if unrepaired != args:
        base_ok, base, _ = _reference(problem, unrepaired)
        agree_unrepaired = base_ok and _accepts(problem, unrepaired, base, label)[0]

    outside = ("" if contract is not False
               else f" (input outside the contract: {problem.input_contract})")
    kind, detail = "", ""
    if not has_truth:
        kind, _, detail = why.partition(": ")
        if bound is not None and isinstance(label, int) and label > bound:
            kind = NOT_MINIMAL
            detail = f"the label {label} exceeds a valid answer of {bound}; {detail}"
    elif not agree:
        kind, detail = LABEL_WRONG, f"the label differs from the true answer ({reason}){outside}"
    elif extension:
        kind = OUT_OF_CONTRACT
        detail = (f"the statement defines no answer here{outside}; the label equals the "
                  "answer of the natural reading by chance")
    return Assessment(
        args=args, in_contract=contract, has_truth=has_truth, truth=truth, agree=agree,
        agree_reference=agree_reference, reference_on_truth=reference_on_truth,
        agree_unrepaired=agree_unrepaired,
        repaired=bool(agree and agree_unrepaired is False), kind=kind, detail=detail,
        ref_seconds=ref_seconds,
    )


# --------------------------------------------------------------------------------------------
# One problem
# --------------------------------------------------------------------------------------------


_COUNTS = ("cases", "agree", "agree_reference", "in_contract", "in_contract_agree", "affected",
           "repaired", "truth_cases", "reference_on_truth")


def _tally(stats: Counter[str], a: Assessment) -> None:
    stats["cases"] += 1
    stats["agree"] += a.agree
    stats["agree_reference"] += a.agree_reference
    stats["agree_unrepaired"] += a.agree if a.agree_unrepaired is None else a.agree_unrepaired
    stats["in_contract"] += a.in_contract is not False
    stats["in_contract_agree"] += a.in_contract is not False and a.agree
    stats["affected"] += bool(a.kind)
    stats["repaired"] += a.repaired
    stats["truth_cases"] += a.has_truth
    stats["reference_on_truth"] += bool(a.reference_on_truth)


def import_problem(root: str, problem_id: str, out: str) -> dict[str, Any]:
    """Read, judge and flag one problem's published cases into `out` (gzip JSONL); return the
    problem's summary for the manifest (the figures of the spec's sections 3 and 4)."""
    from evaluator.codetrack.published import iter_published_cases

    problem = all_problems()[problem_id]
    direction = "directed" if problem.directed else "undirected"
    cls = label_class(problem)
    if cls not in WRONG_LABEL_CLASSES:
        cls = "unexpected"  # the spec expects these labels right: surface it loudly
    stats: Counter[str] = Counter()
    lines: Counter[str] = Counter()  # the cases of the repaired malformed lines, apart
    kinds: Counter[str] = Counter()
    caught: list[str] = []
    with warnings.catch_warnings(record=True) as seen, CaseWriter(Path(out)) as writer:
        warnings.simplefilter("always")
        for pc in iter_published_cases(Path(root), problem):
            a = assess(problem, pc.args, pc.label)
            _tally(stats, a)
            if pc.repaired:
                _tally(lines, a)
            if a.kind:
                kinds[a.kind] += 1
            writer.write(_case(problem, pc, direction, a, cls))
        caught = [str(w.message) for w in seen]
    has_contract = problem.in_contract is not None
    summary: dict[str, Any] = {
        "direction": direction,
        **{k: stats[k] for k in _COUNTS},
        "agree_unrepaired": stats["agree_unrepaired"] if problem.repair_published else None,
        "affected_by_kind": {k: kinds[k] for k in _kind_order(kinds)},
        "flags": {cls: stats["affected"]} if stats["affected"] else {},
        "label_class": label_class(problem),
        "repaired_lines_cases": lines["cases"],
        "repaired_lines": {k: lines[k] for k in _COUNTS},
        "warnings": caught[:50],
    }
    if not has_contract:
        summary["in_contract"] = summary["in_contract_agree"] = None
    return summary


def _kind_order(kinds: Mapping[str, int]) -> list[str]:
    known = [k for k in KIND_ORDER if kinds.get(k)]
    return known + sorted(k for k in kinds if k not in KIND_ORDER and kinds[k])


def _case(problem: Problem, pc: Any, direction: str, a: Assessment, cls: str) -> Case:
    mapped = map_published_cell(pc.category_file, pc.subcategory)
    category, subcategory = mapped or (pc.category_file, pc.subcategory)
    return Case(
        id=f"{problem.id}/gx/{pc.category_file}/{pc.subcategory}/{pc.index}",
        problem=problem.id,
        direction=direction,
        category=category,
        subcategory=subcategory,
        index=pc.index,
        args=a.args,
        expected=a.truth,
        has_expected=a.has_truth,
        source="grapheval36k",
        cell=pc.cell,
        **case_limits(problem, a.args),  # the cost model's, never the stopwatch's
        label=_json(pc.label),
        has_label=True,
        flag=f"{cls}: {a.kind}: {a.detail}" if a.kind else "",
        repaired=pc.repaired,
        in_contract=a.in_contract,
    )


# --------------------------------------------------------------------------------------------
# All problems
# --------------------------------------------------------------------------------------------


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
    summaries = _run(calls, jobs)
    for p in chosen:
        summary = summaries[p.id]
        if not summary["cases"]:
            empty = dest / "cases" / f"{p.id}.jsonl.gz"
            empty.unlink(missing_ok=True)
            args_path(empty).unlink(missing_ok=True)
            continue  # no published data (lc2328)
        manifest["problems"][p.id] = summary
        unexpected = summary["flags"].get("unexpected")
        if unexpected:
            warnings.warn(
                f"{p.id} is marked consistent but {unexpected} published label(s) differ from "
                "its reference; check the reference or the field mapping", stacklevel=2)
    manifest["total"] = sum(s["cases"] for s in manifest["problems"].values())
    write_manifest(dest, manifest)
    return CaseSet(dest)


def _run(calls: list[tuple[str, str, str]], jobs: int) -> dict[str, dict[str, Any]]:
    if jobs > 1 and len(calls) > 1:
        # the slowest problems first, so no worker is left with a long one at the end
        registry = all_problems()
        calls = sorted(calls, key=lambda c: not registry[c[1]].slow_import)
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [(c[1], pool.submit(import_problem, *c)) for c in calls]
            return {pid: f.result() for pid, f in futures}
    return {c[1]: import_problem(*c) for c in calls}


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------


def agreement_table(case_set: CaseSet) -> list[dict[str, Any]]:
    """Per problem, the figures of the spec's summary table (section 4) and action list
    (section 3), recomputed: cases, agreement with the truth, in-contract agreement, affected
    cases by kind, repaired cases, and the agreement with the reference's own answer.

    `flags` is the display column of `gnncb code import-grapheval`: the affected cases by kind,
    then the repaired ones (which are not affected) as "repaired".
    """
    rows = []
    for pid, s in case_set.manifest["problems"].items():
        kinds: dict[str, int] = dict(s.get("affected_by_kind", {}))
        flags = {**kinds, **({REPAIRED: s["repaired"]} if s.get("repaired") else {})}
        rows.append({
            "problem": pid,
            "direction": s["direction"],
            "cases": s["cases"],
            "agree": s["agree"],
            "agreement": s["agree"] / s["cases"] if s["cases"] else None,
            "agree_reference": s.get("agree_reference"),
            "agree_unrepaired": s.get("agree_unrepaired"),
            "in_contract": s.get("in_contract"),
            "in_contract_agree": s.get("in_contract_agree"),
            "affected": s.get("affected", 0),
            "affected_by_kind": kinds,
            "repaired": s.get("repaired", 0),
            "flags": flags,
            "label_class": s["label_class"],
        })
    return rows


def agreement_lines(case_set: CaseSet) -> list[str]:
    """The agreement table as aligned text lines, for the CLI."""
    out = [f"{'problem':8s} {'cases':>6s} {'agree':>7s} {'in-contract':>12s} {'affected':>8s} "
           f"{'repaired':>8s}  affected by kind"]
    for row in agreement_table(case_set):
        ic = (f"{row['in_contract_agree']}/{row['in_contract']}"
              if row["in_contract"] is not None else "-")
        kinds = ", ".join(f"{k} {v}" for k, v in row["affected_by_kind"].items()) or "-"
        out.append(f"{row['problem']:8s} {row['cases']:6d} {100 * row['agreement']:6.1f}% "
                   f"{ic:>12s} {row['affected']:8d} {row['repaired']:8d}  {kinds}")
    return out
