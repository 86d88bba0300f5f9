"""Content checks of `gnncb competition lint`: what the files say, not just that they exist.

Why separate from `lint.py` (layout, envelopes, sizes): these checks read the labels and the
public tables and compare them with the spec, the scaffold and the baselines. Each one exists
because a competition shipped broken that way while the layout checks said "OK": a spec that
allowed classes [0, 1] while the labels held class 2, every scaffold placeholder still in the
spec, a README describing an older spec, public files nobody described, a public column that
gave the hidden labels away, test ids that also had training labels, a split smaller than the
spec promised. Every function returns messages naming the file and the fix.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from evaluator.competition.spec import CompetitionSpec, Target
from evaluator.metrics.registry import METRICS

# Fields whose scaffold text is a placeholder: keeping it means the maintainer never wrote one.
PLACEHOLDER_FIELDS = (("title",), ("summary",), ("domain",), ("description",),
                      ("source", "name"), ("source", "license"), ("source", "citation"))
LEAK_TREE_DEPTH = 3  # a one-column rule this small is what "the column gives it away" means
NEAR_PERFECT = 0.95  # without baselines: a single column this good is a leak
PERMUTATIONS = 19  # a leak must also beat every one of these label shuffles (p < 0.05)
SMALL_SPLIT = 50  # below this many rows chance arrangements are common: demand near-perfection
LABEL_TABLE_WORDS = ("train", "label", "val")  # public tables that carry training labels
INDEX_COLUMNS = {"node", "src", "dst"}  # positions inside a graph: their mean is only its size


def _scaffold(slug: str, task: str) -> tuple[dict[str, Any], str]:
    """The scaffold's competition.yaml (parsed) and build.py text for this slug and task."""
    from evaluator.authoring.folders import TASK_LAYOUTS, scaffold_files

    files = scaffold_files(slug, task if task in TASK_LAYOUTS else "node-classification")
    return yaml.safe_load(files["competition.yaml"]), files["build.py"]


def _dig(mapping: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(mapping, dict) or key not in mapping:
            return None
        mapping = mapping[key]
    return mapping


def placeholder_problems(folder: Path, spec: CompetitionSpec) -> list[str]:
    """Spec fields and a build.py still exactly as `gnncb competition new` wrote them."""
    scaffold_spec, scaffold_build = _scaffold(spec.slug, spec.task)
    written = yaml.safe_load((folder / "competition.yaml").read_text(encoding="utf-8"))
    problems = []
    for path in PLACEHOLDER_FIELDS:
        placeholder = _dig(scaffold_spec, path)
        if isinstance(placeholder, str) and _dig(written, path) == placeholder:
            problems.append(f"{folder / 'competition.yaml'}: `{'.'.join(path)}` is still the "
                            f"scaffold's placeholder ({placeholder.strip()[:60]!r}); write the "
                            "real text")
    build = folder / "build.py"
    if build.is_file() and build.read_text(encoding="utf-8") == scaffold_build:
        problems.append(f"{build}: still the scaffold (build() only raises); write the builder")
    return problems


def readme_problems(folder: Path, render_readme: Callable[[Path], str]) -> list[str]:
    """README.md must be what `gnncb competition readme` renders now from the spec + ledger
    (`render_readme` is that renderer, passed in: the core does not import the CLI)."""
    from evaluator.errors import GnncbError

    readme = folder / "README.md"
    try:
        expected = render_readme(folder)
    except GnncbError as err:
        return [f"{readme}: cannot be rendered: {err}"]
    if readme.read_text(encoding="utf-8") != expected:
        return [f"{readme}: older than competition.yaml (or the ledger): it differs from what "
                f"`gnncb competition readme {folder.name}` renders now; re-render it"]
    return []


def undescribed_files(folder: Path, spec: CompetitionSpec) -> list[str]:
    data = folder / "data"
    public = sorted(p.relative_to(folder).as_posix() for p in data.rglob("*")
                    if p.is_file()) if data.is_dir() else []
    problems = [f"{folder / name}: public file not described under `files:` in "
                "competition.yaml; say what it holds" for name in public if name not in spec.files]
    problems += [f"{folder / 'competition.yaml'}: files.{name} is described but does not exist"
                 for name in sorted(set(spec.files) - set(public))]
    return problems


def value_problems(values: pd.Series, target: Target, where: str) -> list[str]:
    """Label values the spec does not allow: unknown classes, NaN, values outside `range`."""
    if values.isna().any():
        return [f"{where}: {int(values.isna().sum())} empty {target.name!r} values"]
    if target.type == "class":
        allowed = {str(c) for c in target.classes or []}
        found = values.astype(str).str.strip()
        extra = sorted(set(found) - allowed)
        if extra:
            return [f"{where}: {target.name!r} holds classes {extra} that the spec does not "
                    f"declare (classes: {target.classes}); fix `targets` or the labels"]
        return []
    numeric = pd.to_numeric(values, errors="coerce")
    if numeric.isna().any() or not np.isfinite(numeric.to_numpy()).all():
        return [f"{where}: {target.name!r} holds non-numeric or infinite values"]
    low, high = (0.0, 1.0) if target.type == "probability" else (target.range or (None, None))
    if low is not None and ((numeric < low) | (numeric > high)).any():
        return [f"{where}: {target.name!r} spans [{numeric.min():g}, {numeric.max():g}], "
                f"outside the spec's range [{low:g}, {high:g}]"]
    return []


def _key(series: pd.Series) -> pd.Series:
    return series.astype(str).str.strip()


def label_tables(folder: Path, spec: CompetitionSpec) -> dict[Path, pd.DataFrame]:
    """Public CSVs with the id column and at least one target column (training labels)."""
    names = {t.name for t in spec.targets}
    found = {}
    for path in sorted((folder / "data").rglob("*.csv")):
        if path.name == "sample_submission.csv":
            continue
        head = pd.read_csv(path, nrows=0)
        if spec.id_column in head.columns and names & set(head.columns):
            found[path] = pd.read_csv(path)
    return found


def public_label_problems(folder: Path, spec: CompetitionSpec) -> list[str]:
    problems = []
    for path, table in label_tables(folder, spec).items():
        for target in spec.targets:
            if target.name in table.columns:
                problems += value_problems(table[target.name], target, str(path))
    return problems


def test_ids_with_training_rows(folder: Path, spec: CompetitionSpec,
                                test_ids: pd.Series) -> list[str]:
    """Test ids listed in a public table of training labels, whatever its column names."""
    keys = set(_key(test_ids))
    split_files = {(folder / s.ids).resolve() for s in spec.splits.values()}
    problems = []
    for path in sorted((folder / "data").rglob("*.csv")):
        if path.resolve() in split_files or path.name == "sample_submission.csv":
            continue
        if not any(word in path.stem.lower() for word in LABEL_TABLE_WORDS):
            continue
        head = pd.read_csv(path, nrows=0)
        if spec.id_column not in head.columns:
            continue
        both = set(_key(pd.read_csv(path, usecols=[spec.id_column])[spec.id_column])) & keys
        if both:
            problems.append(f"{path}: {len(both)} test ids also appear here with training rows "
                            f"(e.g. {sorted(both)[:3]}); a row belongs to one split only")
    return problems


def split_size_problems(folder: Path, spec: CompetitionSpec, per_split: Mapping[str, pd.Series],
                        labels: Mapping[str, pd.DataFrame] | None = None) -> list[str]:
    """Declared `rows` against the public id files, or (given `labels`) the hidden labels."""
    problems = []
    for name, split in spec.splits.items():
        if split.rows is None:
            continue
        if labels is None and len(per_split[name]) != split.rows:
            problems.append(f"{folder / split.ids}: {len(per_split[name])} ids, but "
                            f"splits.{name}.rows says {split.rows}; rebuild or fix the spec")
        if labels is not None and len(labels[name]) != split.rows:
            problems.append(f"{folder / split.labels}: {len(labels[name])} hidden labels, but "
                            f"splits.{name}.rows says {split.rows}")
    return problems


def hidden_label_problems(folder: Path, spec: CompetitionSpec,
                          labels: Mapping[str, pd.DataFrame]) -> list[str]:
    problems = []
    for name, table in labels.items():
        for target in spec.targets:
            problems += value_problems(table[target.name], target,
                                       f"{folder / spec.splits[name].labels} (decrypted)")
    return problems


# ----------------------------------------------------------------------------- leaks
def _primary_metric(spec: CompetitionSpec) -> str:
    """The ranking score when it is a plain metric, else the first metric it derives from."""
    name = spec.primary_score
    while name not in spec.metrics:
        name = spec.derived[name].of[0]
    return name


def column_score(column: np.ndarray, truth: pd.DataFrame, spec: CompetitionSpec,
                 metric_name: str) -> float:
    """How well one public column alone predicts a split's hidden labels: the metric of a
    depth-3 decision tree on that column, cross-validated on the split, by the kind of target
    the metric reads (for a score target: the column itself as the score, either way up)."""
    from sklearn.model_selection import KFold, StratifiedKFold, cross_val_predict
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    metric = spec.metrics[metric_name]
    record = METRICS[metric.fn]
    targets = spec.targets_for(metric)
    x = column.reshape(-1, 1)
    if record.target == "probability":
        target = targets[0]
        y = truth[target.name].to_numpy()
        y = (_key(pd.Series(y)) == str(target.positive)).to_numpy().astype(int)
        value = record.score(y, column, classes=[0, 1], positive=1)
        return max(value, 1 - value)  # a rank metric read the other way up (ROC-AUC)
    if record.target == "real":
        names = [t.name for t in targets]
        preds = []
        for name in names:
            y = truth[name].to_numpy(float)
            preds.append(cross_val_predict(DecisionTreeRegressor(max_depth=LEAK_TREE_DEPTH,
                                                                 random_state=0), x, y,
                                           cv=KFold(5, shuffle=True, random_state=0)))
        if record.multi_target:
            return record.score(truth[names].to_numpy(float), np.column_stack(preds))
        return record.score(truth[names[0]].to_numpy(float), preds[0])
    target = targets[0]
    y = _key(truth[target.name]).to_numpy()
    folds = int(min(5, pd.Series(y).value_counts().min()))
    if folds < 2:
        return float("nan")
    pred = cross_val_predict(DecisionTreeClassifier(max_depth=LEAK_TREE_DEPTH, random_state=0),
                             x, y, cv=StratifiedKFold(folds, shuffle=True, random_state=0))
    classes = [str(c) for c in target.classes or []]
    return record.score(y, pred, classes=classes, positive=str(target.positive))


def best_baseline(spec: CompetitionSpec, rows: list[dict[str, Any]], metric_name: str
                  ) -> float | None:
    scores: list[float] = [r["scores"][metric_name] for r in rows
                           if r.get("slug") == spec.slug and r.get("entrant") == "baseline"
                           and r.get("version", spec.version) == spec.version
                           and metric_name in (r.get("scores") or {})]
    if not scores:
        return None
    return max(scores) if spec.higher_is_better(metric_name) else min(scores)


def far_better(score: float, reference: float | None, higher: bool) -> bool:
    """Higher-is-better: at least half-way from the best baseline to perfect (and 0.05 above
    it); without baselines, NEAR_PERFECT. Lower-is-better: at most half the baseline's error."""
    if not np.isfinite(score):
        return False
    if higher:
        if reference is None:
            return score >= NEAR_PERFECT
        return score >= reference + max(0.05, (1 - reference) / 2)
    if reference is None:
        return score <= 1e-9
    return score <= reference / 2


def _chance(score: float, values: np.ndarray, truth: pd.DataFrame, spec: CompetitionSpec,
            metric_name: str, higher: bool) -> bool:
    """True when some shuffle of the labels scores as well: on a small test set a column of
    random numbers can look predictive (15 graphs, 5 folds), a real leak cannot."""
    rng = np.random.default_rng(0)
    labels = [t.name for t in spec.targets]
    for _ in range(PERMUTATIONS):
        shuffled = truth.copy()
        shuffled[labels] = truth[labels].to_numpy()[rng.permutation(len(truth))]
        other = column_score(values, shuffled, spec, metric_name)
        if (other >= score) if higher else (other <= score):
            return True
    return False


def predictive_columns(folder: Path, spec: CompetitionSpec, labels: Mapping[str, pd.DataFrame],
                       rows: list[dict[str, Any]]) -> list[str]:
    """Public numeric columns that alone predict a split's hidden labels far better than the
    baselines do (e.g. a feature equal to 10 * label + 3). Tables with several rows per id
    (atoms of a molecule) are averaged per id."""
    metric_name = _primary_metric(spec)
    split = spec.metrics[metric_name].split
    truth = labels[split].copy()
    truth.index = _key(pd.Series(truth.index)).to_numpy()
    reference = best_baseline(spec, rows, metric_name)
    higher = spec.higher_is_better(metric_name)
    skip = {(folder / s.ids).resolve() for s in spec.splits.values()}
    problems = []
    for path in sorted((folder / "data").rglob("*.csv")):
        if path.resolve() in skip or path.name == "sample_submission.csv":
            continue
        if spec.id_column not in pd.read_csv(path, nrows=0).columns:
            continue
        table = pd.read_csv(path, low_memory=False)
        table = table[_key(table[spec.id_column]).isin(truth.index)]
        numeric = table.drop(columns=[spec.id_column, *(INDEX_COLUMNS & set(table.columns))]
                             ).select_dtypes("number")
        if numeric.empty or table.empty:
            continue
        per_id = numeric.groupby(_key(table[spec.id_column]).to_numpy()).mean()
        per_id.columns = [f"{c}__public" for c in per_id.columns]
        joined = truth.join(per_id, how="inner")
        if len(joined) < 10:
            continue
        for name in per_id.columns:
            column = name.removesuffix("__public")
            values = joined[name].to_numpy(float)
            if not np.isfinite(values).all() or np.ptp(values) == 0:
                continue
            score = column_score(values, joined, spec, metric_name)
            if len(joined) < SMALL_SPLIT and not far_better(score, None, higher):
                continue  # 15 test graphs: a random column can look good; a leak is perfect
            if far_better(score, reference, higher) and not _chance(
                    score, values, joined, spec, metric_name, higher):
                ref = "no baseline" if reference is None else f"best baseline {reference:.3f}"
                problems.append(f"{path}: column {column!r} alone predicts the hidden {split} "
                                f"labels with {metric_name} {score:.3f} ({ref}): the labels leak "
                                "into public data; drop or perturb the column")
    return problems
