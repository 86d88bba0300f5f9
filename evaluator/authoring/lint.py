"""`gnncb competition lint`: every defect a competition folder can ship with, found before
participants do.

Why each check: GNN-CB repositories shipped with hidden labels in public CSVs and in git
history, sample files that did not match the scorer, READMEs that omitted the metric, and data
too large to clone. Each check returns a message naming the file and the fix.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator.authoring import lint_content
from evaluator.competition.boards import board_of_folder
from evaluator.competition.spec import CompetitionSpec, load_spec
from evaluator.errors import GnncbError, Rejection
from evaluator.repo.commitments import commitment_problems
from evaluator.submission import envelope, keys
from evaluator.submission.commit import COMMITMENTS_NAME
from evaluator.submission.validate import _id_key, all_ids, competition_ids, validate_predictions

README_SECTIONS = ("## Task", "## Data", "## Evaluation", "## Rules", "## How to submit",
                   "## Source and licence")
MAX_PUBLIC_BYTES = 15 * 1024 * 1024
ALLOWED_TOP = {"README.md", "competition.yaml", "build.py", "data", "hidden", "baseline",
               "submissions", "tests", "__pycache__"}


def _public_tables(folder: Path) -> list[Path]:
    return sorted(p for p in (folder / "data").rglob("*.csv") if p.is_file())


def committed_platform_key(folder: Path) -> tuple[Path, str] | None:
    """(path, kid) of the platform key committed in the repository holding `folder`
    (`keys/platform-public.pem` beside `competitions/`), None outside a repository. Why: a
    competition sealed to any other key passed lint and failed on its first submission."""
    repo = Path(folder).resolve().parent.parent
    path = repo / "keys" / "platform-public.pem"
    if Path(folder).resolve().parent.name != "competitions" or not path.is_file():
        return None
    try:
        return path, keys.thumbprint(keys.load_public_key(path.read_bytes(), source=str(path)))
    except GnncbError:
        return None


def lint_competition(folder: Path, *, private_keys: Mapping[str, rsa.RSAPrivateKey] | None = None,
                     render_readme: Callable[[Path], str] | None = None,
                     max_public_bytes: int = MAX_PUBLIC_BYTES) -> list[str]:
    """All problems found in one competition folder (empty list = clean)."""
    folder = Path(folder)
    board = board_of_folder(folder)  # a track's folder (registered board), e.g. the code track
    if board is not None:  # README + submissions layout, no spec: the track checks it
        return board.lint_folder(folder)
    try:
        spec = load_spec(folder)
    except GnncbError as err:
        return [str(err)]
    problems: list[str] = []
    for entry in sorted(folder.iterdir()):
        if entry.name not in ALLOWED_TOP:
            problems.append(f"{entry}: unexpected top-level entry; allowed: {sorted(ALLOWED_TOP)}")
        if entry.is_symlink():
            problems.append(f"{entry}: symlinks are not allowed in competition folders")
    for path in folder.rglob("*"):
        if path.is_symlink():
            problems.append(f"{path}: symlinks are not allowed in competition folders")

    problems += lint_content.placeholder_problems(folder, spec)
    readme = folder / "README.md"
    if not readme.is_file():
        problems.append(f"{readme}: missing; generate it from templates/competition_README.md.j2")
    else:
        text = readme.read_text(encoding="utf-8")
        for section in README_SECTIONS:
            if section not in text:
                problems.append(f"{readme}: missing section '{section}'")

    structural: list[str] = []  # problems that make the data checks below meaningless
    for name, split in spec.splits.items():
        for rel in (split.ids, split.labels):
            if not (folder / rel).is_file():
                structural.append(f"{folder / rel}: referenced by splits.{name} but missing")
        if not split.labels.startswith("hidden/"):
            problems.append(f"splits.{name}.labels: hidden labels must live under hidden/")
    hidden = folder / "hidden"
    platform = committed_platform_key(folder)
    if hidden.is_dir():
        for path in sorted(p for p in hidden.rglob("*") if p.is_file()):
            if path == hidden / COMMITMENTS_NAME:  # public promises, checked below
                continue
            try:
                header = envelope.read_header(path.read_bytes())
            except Rejection:
                problems.append(f"{path}: not a JWE envelope; hidden/ may hold only encrypted "
                                "labels (plaintext labels must never be committed)")
                continue
            if header.get("purpose") != envelope.PURPOSE_LABELS or header.get(
                    "competition") != spec.slug:
                problems.append(f"{path}: envelope header is not hidden labels of {spec.slug}")
            elif platform and header.get("kid") != platform[1]:
                problems.append(f"{path}: sealed to key {header.get('kid')}, not to the "
                                f"committed platform key {platform[0]} (kid {platform[1]}): "
                                "the evaluator would fail on the first submission; re-seal "
                                "with `gnncb keys reseal` (or rebuild with the committed key)")
    problems += commitment_problems(folder, spec, _ledger_rows())
    if structural:
        return problems + structural
    problems += lint_content.undescribed_files(folder, spec)
    if render_readme is not None and readme.is_file() and not any(
            "files." in p or "not described" in p for p in problems):
        problems += lint_content.readme_problems(folder, render_readme)

    try:
        per_split = competition_ids(folder, spec)
    except GnncbError as err:
        return problems + [str(err)]
    test_ids = all_ids(per_split)
    test_keys = set(_id_key(test_ids).astype(str))

    sample = folder / "data" / "sample_submission.csv"
    if not sample.is_file():
        problems.append(f"{sample}: missing; it must list every test id with a valid value")
    else:
        try:
            validate_predictions(sample.read_bytes(), spec, test_ids, filename=str(sample))
        except Rejection as err:
            problems.append(f"sample submission does not pass `gnncb check`: {err}")

    target_names = {t.name for t in spec.targets}
    for table_path in _public_tables(folder):
        if table_path == sample:
            continue
        try:
            table = pd.read_csv(table_path, nrows=None, low_memory=False)
        except (ValueError, OSError) as err:
            problems.append(f"{table_path}: unreadable CSV: {err}")
            continue
        if spec.id_column in table.columns and target_names & set(table.columns):
            leaked = set(_id_key(table[spec.id_column]).astype(str)) & test_keys
            if leaked:
                problems.append(f"{table_path}: has target columns for {len(leaked)} test ids "
                                f"(e.g. {sorted(leaked)[:3]}): hidden labels leak into public "
                                "data")

    problems += lint_content.public_label_problems(folder, spec)
    problems += lint_content.test_ids_with_training_rows(folder, spec, test_ids)
    problems += lint_content.split_size_problems(folder, spec, per_split)

    size = sum(p.stat().st_size for p in (folder / "data").rglob("*") if p.is_file())
    if size > max_public_bytes:
        problems.append(f"{folder / 'data'}: {size / 1e6:.1f} MB of public data; the limit is "
                        f"{max_public_bytes / 1e6:.0f} MB (use .npz for sparse features)")

    if private_keys is not None:
        problems += _check_hidden_against_public(folder, spec, private_keys)
    return problems


def _check_hidden_against_public(folder: Path, spec: CompetitionSpec,
                                 private_keys: Mapping[str, rsa.RSAPrivateKey]) -> list[str]:
    """With the key: hidden labels cover exactly the public ids, hold only values the spec
    allows, have the declared split sizes, and no public column predicts them far better than
    the baselines do."""
    from evaluator.pipeline.evaluate import load_labels

    problems = []
    try:
        labels = load_labels(folder, spec, private_keys)
        per_split = competition_ids(folder, spec)
    except GnncbError as err:
        return [str(err)]
    for name, table in labels.items():
        public = set(_id_key(per_split[name]).astype(str))
        hidden = set(pd.Index(table.index).astype(str))
        if public != hidden:
            problems.append(f"split {name}: public ids and hidden label ids differ "
                            f"({len(public - hidden)} public only, {len(hidden - public)} "
                            "hidden only)")
    problems += lint_content.hidden_label_problems(folder, spec, labels)
    problems += lint_content.split_size_problems(folder, spec, per_split, labels)
    # the repository's ledger: scores the columns are compared with
    rows = [r for r in _ledger_rows() if r.get("type") == "submission"]
    problems += lint_content.predictive_columns(folder, spec, labels, rows)
    return problems


def _ledger_rows() -> list[dict[str, Any]]:
    """The rows of the repository's ledger (none outside a repository)."""
    from evaluator.ledger.store import Ledger
    from evaluator.paths import find_root

    found = find_root()
    return Ledger(found.path / "leaderboard" / "ledger.jsonl").rows() if found else []
