"""`gnncb verify`: recompute what the repository publishes, with no key.

Why: the ledger, the envelopes, the label commitments, the boards and (after a reveal) the
released evidence are all public, so anyone can check that they agree, and nobody should have
to take a score on faith. Checks, in this order (the report lists every problem found, the
first one first):

1. the ledger's hash chain (`ledger.chain`): any changed, inserted or removed line;
2. every stored envelope hashes to its name (the ledger row's digest);
3. every competition's label commitments are kept (`repo.commitments`, what lint checks);
4. the boards are a pure function of the ledger: rebuilt into a scratch folder and compared
   byte for byte with `leaderboard/` (and, with `site`, the static site with a built copy);
5. after a reveal, from its release alone: every label table and predictions file against its
   commitment, every recorded score and interval recomputed from them, the revealed
   private-part scores and the final ranks.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.competition.boards import Board
from evaluator.competition.schedule import REVEAL
from evaluator.competition.spec import CompetitionSpec, load_spec
from evaluator.errors import GnncbError, Rejection
from evaluator.ledger.chain import check_chain
from evaluator.ledger.ranking import final_standings
from evaluator.ledger.store import SUBMISSION, Ledger, active_submissions
from evaluator.pipeline.evaluate import label_table
from evaluator.render.boards import write_leaderboards
from evaluator.repo.commitments import commitment_problems
from evaluator.repo.record import all_specs, envelopes_dir, ledger_path
from evaluator.repo.release import INDEX, index_sha256, item_table, load_index, read_release
from evaluator.repo.release import commitment_problems as release_problems
from evaluator.scoring.clusters import load_clusters
from evaluator.scoring.score import ALL, PRIVATE, PUBLIC, interval_parts, score_parts
from evaluator.submission import commit, envelope
from evaluator.submission.validate import all_ids, competition_ids, validate_predictions

LEDGER = "leaderboard/ledger.jsonl"
REL_TOL = 1e-9  # scores are recomputed by the same code: only float noise is allowed


@dataclass
class VerifyReport:
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_repository(root: Path, *, boards: Sequence[Board] = (),
                      site: Path | None = None,
                      build_site: Callable[..., list[Path]] | None = None) -> VerifyReport:
    """Every check above on the repository at `root`. `boards`: the track boards (passed by
    the caller above the tracks); `site` + `build_site`: a built site folder to compare with a
    rebuild (`evaluator.render.site.build_site`, passed in so that SciPy-free callers need
    not import the site)."""
    root = Path(root)
    report = VerifyReport()
    path = ledger_path(root)
    data = path.read_bytes() if path.exists() else b""
    chain = check_chain(data, LEDGER)
    if chain.problem:
        report.problems.append(chain.problem)
    if chain.genesis is None:
        report.notes.append(f"{LEDGER}: no line carries a chain link yet ({chain.lines} "
                            "line(s) written before the chain; git history covers them)")
    elif chain.genesis > 1:
        report.notes.append(f"{LEDGER}: lines 1-{chain.genesis - 1} were written before the "
                            f"chain; line {chain.genesis} (the genesis) links to all of them "
                            "at once")
    report.checked.append(f"ledger chain: {chain.lines} line(s)")
    try:
        rows = Ledger(path).rows()
    except GnncbError as err:
        report.problems.append(str(err))
        return report
    _check_envelopes(root, rows, report)
    specs = all_specs(root, boards)
    competitions = [s for s in specs if isinstance(s, CompetitionSpec)]
    for spec in competitions:
        report.problems += commitment_problems(root / "competitions" / spec.slug, spec, rows)
    report.checked.append(f"label commitments: {len(competitions)} competition(s)")
    _check_boards(root, specs, rows, report)
    if site is not None and build_site is not None:
        _check_site(root, specs, rows, site, build_site, report)
    for lineno, row in enumerate(rows, 1):
        if row["type"] == REVEAL:
            _check_reveal(root, rows, lineno, row, report)
    return report


def _check_envelopes(root: Path, rows: list[dict[str, Any]], report: VerifyReport) -> None:
    folder = envelopes_dir(root)
    stored = sorted(folder.glob("*.jwe")) if folder.is_dir() else []
    for path in stored:
        if envelope.digest(path.read_bytes()) != path.stem:
            report.problems.append(f"leaderboard/envelopes/{path.name}: does not hash to its "
                                   "name (the digest of the ledger row it belongs to); "
                                   "restore it from git")
    names = {p.stem for p in stored}
    missing = [r["digest"] for r in rows if r["type"] == SUBMISSION
               and r.get("entrant") != "code" and r["digest"] not in names]
    if missing:
        report.notes.append(f"{len(missing)} submission row(s) have no stored envelope (e.g. "
                            f"{missing[0][:12]}); their predictions cannot be released")
    report.checked.append(f"stored envelopes: {len(stored)}")


def _first_difference(a: bytes, b: bytes) -> tuple[int, str, str]:
    left = a.decode("utf-8", "replace").split("\n")
    right = b.decode("utf-8", "replace").split("\n")
    for i, (x, y) in enumerate(zip(left, right, strict=False), 1):
        if x != y:  # shown from a little before the first differing character
            at = next((k for k, (p, q) in enumerate(zip(x, y, strict=False)) if p != q),
                      min(len(x), len(y)))
            start = max(0, at - 20)
            return i, x[start:], y[start:]
    n = min(len(left), len(right)) + 1
    return n, "\n".join(left[n - 1:n]), "\n".join(right[n - 1:n])


def _compare(committed: Path, rebuilt: Path, shown: str, report: VerifyReport) -> None:
    if not committed.is_file():
        report.problems.append(f"{shown}: missing; the ledger renders it (gnncb leaderboard "
                               "render)")
        return
    a, b = committed.read_bytes(), rebuilt.read_bytes()
    if a != b:
        line, was, want = _first_difference(a, b)
        report.problems.append(f"{shown}, line {line}: differs from the page rebuilt from the "
                               f"ledger (published {was[:80]!r}, rebuilt {want[:80]!r})")


def _check_boards(root: Path, specs: Sequence[Any], rows: list[dict[str, Any]],
                  report: VerifyReport) -> None:
    with tempfile.TemporaryDirectory(prefix="gnncb-verify-") as tmp:
        out = Path(tmp)
        written = write_leaderboards(specs, rows, out, ledger=LEDGER)
        for path in written:
            rel = path.relative_to(out).as_posix()
            _compare(root / "leaderboard" / rel, path, f"leaderboard/{rel}", report)
    report.checked.append(f"boards rebuilt from the ledger: {len(written)} file(s)")


def _check_site(root: Path, specs: Sequence[Any], rows: list[dict[str, Any]], site: Path,
                build_site: Callable[..., list[Path]], report: VerifyReport) -> None:
    with tempfile.TemporaryDirectory(prefix="gnncb-verify-site-") as tmp:
        out = Path(tmp)
        # the ledger as a file: the site's footer names its SHA-256
        written = build_site(specs, rows, out, ledger=ledger_path(root), jobs=1)
        for path in written:
            rel = path.relative_to(out).as_posix()
            _compare(Path(site) / rel, path, f"{site}/{rel}", report)
    report.checked.append(f"site rebuilt from the ledger: {len(written)} file(s)")


def _check_reveal(root: Path, rows: list[dict[str, Any]], lineno: int, row: dict[str, Any],
                  report: VerifyReport) -> None:
    slug, version = row.get("slug"), row.get("version")
    named = row.get("release")
    where = f"{LEDGER}, line {lineno} (the reveal of {slug} v{version})"
    if not isinstance(named, dict):
        report.notes.append(f"{where}: revealed before releases existed; nothing to recompute")
        return
    folder = root / Path(str(named.get("index", ""))).parent
    try:
        spec = load_spec(root / "competitions" / str(slug))
    except GnncbError as err:
        report.problems.append(f"{where}: {err}")
        return
    if spec.version != version:
        report.notes.append(f"{where}: competition.yaml is now at version {spec.version}; "
                            "the release of an earlier version is not recomputed")
        return
    try:
        files = read_release(folder)
        load_index(files, str(folder.relative_to(root)))
    except GnncbError as err:
        report.problems.append(f"{where}: {err}")
        return
    shown = folder.relative_to(root).as_posix()
    if index_sha256(files) != named.get("sha256"):
        report.problems.append(f"{shown}/{INDEX}: is not the index the reveal row names "
                               f"({where}); restore the release from git")
    committed = commit.read_commitments(commit.commitments_path(
        root / "competitions" / spec.slug / "hidden"))
    found = release_problems(files, shown, spec, committed, rows)
    report.problems += found
    if found:
        return  # scores recomputed from evidence that does not match its commitments prove nothing
    _recompute(root, spec, rows, row, files, shown, report)


def _recompute(root: Path, spec: CompetitionSpec, rows: list[dict[str, Any]],
               reveal_row: dict[str, Any], files: dict[str, bytes], shown: str,
               report: VerifyReport) -> None:
    folder = root / "competitions" / spec.slug
    index = load_index(files, shown)
    labels = {name: label_table(spec, files[entry["file"]], f"{shown}/{entry['file']}",
                                f"{shown}/{entry['file']}")
              for name, entry in index["labels"].items() if name in spec.splits}
    ids = all_ids(competition_ids(folder, spec))
    active = {r["digest"]: r for r in active_submissions(rows)}
    line_of = {r["digest"]: n for n, r in enumerate(rows, 1) if r["type"] == SUBMISSION}
    private = reveal_row.get("private") or {}
    recomputed_private: dict[str, dict[str, float]] = {}
    count = 0
    for item in index["submissions"]:
        digest, rel = item["digest"], item.get("file")
        row = active.get(digest)
        if rel is None or row is None:
            continue
        at = f"{LEDGER}, line {line_of[digest]} (submission {digest[:12]})"
        try:
            predictions = validate_predictions(files[rel], spec, ids, filename=f"{shown}/{rel}")
        except Rejection as err:
            report.problems.append(f"{shown}/{rel}: does not validate: {err}")
            continue
        for name, entry in index["labels"].items():
            rel_items = f"items/{name}/{digest}.csv"
            if files.get(rel_items) != item_table(spec, files[entry["file"]], files[rel]):
                report.problems.append(f"{shown}/{rel_items}: differs from the per-item "
                                       "results rebuilt from the released labels and "
                                       "predictions")
        parts = score_parts(spec, labels, predictions)
        intervals = interval_parts(spec, labels, predictions,
                                   clusters_for=lambda t: load_clusters(folder, spec, t))
        live = PUBLIC if spec.has_parts else ALL
        if row.get("stale_since"):
            report.notes.append(f"{at}: marked stale (scored on labels since corrected); its "
                                "scores are not compared")
        else:
            problem = _differs(row["scores"], parts[live], "score")
            if problem is None and "intervals" in row:
                problem = _differs(row["intervals"], intervals[live], "interval")
            if problem:
                report.problems.append(f"{at}: {problem} (recomputed from {shown})")
        if spec.has_parts:
            recomputed_private[digest] = parts[PRIVATE]
            if digest in private:
                problem = _differs(private[digest], parts[PRIVATE], "private score")
                if problem:
                    report.problems.append(f"{LEDGER}: the reveal row's {problem} for "
                                           f"submission {digest[:12]} (recomputed from "
                                           f"{shown})")
        count += 1
    if spec.has_parts and private:
        published = [(e.rank, e.row["participant"]) for e in
                     final_standings(spec, rows, private)]
        ours = [(e.rank, e.row["participant"]) for e in
                final_standings(spec, rows, {d: recomputed_private.get(d, private[d])
                                             for d in private})]
        if published != ours:
            i = next(i for i in range(max(len(published), len(ours)))
                     if published[i:i + 1] != ours[i:i + 1])
            report.problems.append(f"final standings of {spec.slug} v{spec.version}, entry "
                                   f"{i + 1}: published {published[i:i + 1]}, recomputed "
                                   f"{ours[i:i + 1]}")
    report.checked.append(f"{spec.slug} v{spec.version}: {count} released submission(s) "
                          "recomputed")


def _differs(recorded: Any, recomputed: Any, what: str, path: str = "") -> str | None:
    """Where a recorded value tree differs from the recomputed one (floats within REL_TOL)."""
    if isinstance(recorded, dict) and isinstance(recomputed, dict):
        for key in sorted(set(recorded) | set(recomputed)):
            if key not in recorded or key not in recomputed:
                state = "not recorded" if key not in recorded else "not recomputed"
                return f"{what} {path + key!r} is {state}"
            found = _differs(recorded[key], recomputed[key], what, f"{path}{key}.")
            if found:
                return found
        return None
    if isinstance(recorded, bool) or isinstance(recomputed, bool) or not (
            isinstance(recorded, (int, float)) and isinstance(recomputed, (int, float))):
        return None if recorded == recomputed else (
            f"{what} {path.rstrip('.')!r} recorded {recorded!r}, recomputed {recomputed!r}")
    if math.isclose(float(recorded), float(recomputed), rel_tol=REL_TOL, abs_tol=1e-12):
        return None
    return f"{what} {path.rstrip('.')!r} recorded {recorded!r}, recomputed {recomputed!r}"
