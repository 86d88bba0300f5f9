"""A competition folder before participants arrive: scaffold it, build its data.

`scaffold` writes a new folder from templates/competition_new/ that lint reports as incomplete
until it is filled in. `run_build` runs the folder's own `build.py` (raw data + secret seed ->
public data + sealed labels) into a staging folder outside the repository, so a failed build
never leaves half-written data and plaintext labels never touch the work tree.

Conventions for `competitions/<slug>/build.py` (shared by every competition):

    def build(raw: Path, seed: str, out: Path, public_key) -> None

writes `out/data/` (public files; CSV for tables and edge lists, `.npz` for large sparse or
dense matrices, `data/sample_submission.csv`) and `out/hidden/*.jwe` (labels sealed with
`evaluator.authoring.build.seal_labels`), byte-identically for the same seed. It reads its own
`competition.yaml` with `load_spec(Path(__file__).parent)`; it never writes competition.yaml
or README.md (those are committed by hand / rendered).
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from evaluator.competition.spec import SLUG_RE
from evaluator.errors import ConfigError
from evaluator.paths import templates_dir
from evaluator.render.readme import data_files, markdown_env

SCAFFOLD_DIR = "competition_new"
# scaffold template -> file it becomes inside the new competition folder
SCAFFOLD_FILES = {
    "competition.yaml.j2": "competition.yaml",
    "build.py.j2": "build.py",
    "baseline_gnn.py.j2": "baseline/gnn.py",
    "baseline_nongraph.py.j2": "baseline/nongraph.py",
}


# the maintainers' checks of the new competition, run with `python -m pytest competitions/SLUG`
TEST_SKELETON = ("test_competition.py.j2", "tests/test_{module}.py")
# the baseline templates read the standard node layout (evaluator/gnn/data.py); other tasks
# write their baselines after the data exist (the committed competitions of the task show how)
NODE_BASELINES = ("node-classification",)

# What differs between the task types the spec supports: the id column, the one target and
# its metric, the public files build.py writes, and the committed competitions to learn from.
_NODE_FILES = {"data/nodes.csv": "`id` + feature columns, one row per node.",
               "data/edges.csv": "`src,dst`: undirected edges between node ids, each once."}
_GRAPH_FILES = {"data/nodes.csv": "`graph_id,node` + feature columns, one row per node of "
                                  "every graph (`node` counts from 0 inside its graph).",
                "data/edges.csv": "`graph_id,src,dst`: undirected edges inside each graph, "
                                  "each once."}
TASK_LAYOUTS: dict[str, dict[str, Any]] = {
    "node-classification": {
        "id": "id", "target": "label", "type": "class", "metric": "macro_f1", "order": "desc",
        "files": {**_NODE_FILES,
                  "data/train_labels.csv": "`id,label`: training nodes.",
                  "data/test_ids.csv": "`id`: the nodes to predict."},
        "examples": ["gnn-cora", "octonode"]},
    "node-regression": {
        "id": "id", "target": "value", "type": "real", "metric": "mae", "order": "asc",
        "files": {**_NODE_FILES,
                  "data/train_labels.csv": "`id,value`: training nodes and their values.",
                  "data/test_ids.csv": "`id`: the nodes whose value to predict."},
        "examples": []},
    "edge-classification": {
        "id": "id", "target": "label", "type": "class", "metric": "macro_f1", "order": "desc",
        "files": {"data/nodes.csv": "`id` + feature columns, one row per node.",
                  "data/train_edges.csv": "`id,src,dst,label`: labelled training edges.",
                  "data/test_ids.csv": "`id,src,dst`: the edges to classify."},
        "examples": ["trust-temporal"]},
    "link-prediction": {
        "id": "id", "target": "link", "type": "probability", "metric": "roc_auc",
        "order": "desc",
        "files": {**_NODE_FILES,
                  "data/train_pairs.csv": "`id,src,dst,link`: observed links (1) and sampled "
                                          "non-links (0).",
                  "data/test_ids.csv": "`id,src,dst`: the candidate pairs to score."},
        "examples": ["netlinkarena"]},
    "graph-classification": {
        "id": "graph_id", "target": "label", "type": "class", "metric": "macro_f1",
        "order": "desc",
        "files": {**_GRAPH_FILES,
                  "data/train_labels.csv": "`graph_id,label`: training graphs.",
                  "data/test_ids.csv": "`graph_id`: the graphs to classify."},
        "examples": ["gnn-bace", "gta"]},
    "graph-regression": {
        "id": "graph_id", "target": "value", "type": "real", "metric": "mae", "order": "asc",
        "files": {**_GRAPH_FILES,
                  "data/train_labels.csv": "`graph_id,value`: training graphs and their "
                                           "values.",
                  "data/test_ids.csv": "`graph_id`: the graphs whose value to predict."},
        "examples": ["solubility", "mix-props"]},
}
DEFAULT_TASK = "node-classification"


def scaffold_files(slug: str, task: str = DEFAULT_TASK) -> dict[str, str]:
    """Every file `gnncb competition new` writes for `task` (folder path -> text); lint
    renders the same to recognise placeholders left as they were."""
    if task not in TASK_LAYOUTS:
        raise ConfigError(f"--task {task!r}: the spec supports {', '.join(TASK_LAYOUTS)}")
    env = markdown_env(templates_dir() / SCAFFOLD_DIR)
    layout = TASK_LAYOUTS[task]
    sample = f"`{layout['id']},{layout['target']}`: a valid submission (every test id, a " \
             "constant prediction)."
    context = {"slug": slug, "task": task, **layout,
               "files": {**layout["files"], "data/sample_submission.csv": sample}}
    templates = dict(SCAFFOLD_FILES)
    if task not in NODE_BASELINES:
        templates = {src: dest for src, dest in templates.items()
                     if not dest.startswith("baseline/")}
    templates[TEST_SKELETON[0]] = TEST_SKELETON[1].format(module=slug.replace("-", "_"))
    return {dest: env.get_template(src).render(**context) for src, dest in templates.items()}


def scaffold(slug: str, root: Path, task: str = DEFAULT_TASK) -> Path:
    """Write a new competition folder from templates/competition_new/; refuse to overwrite."""
    if not re.fullmatch(SLUG_RE, slug):
        raise ConfigError(f"{slug!r} is not a valid slug: lower-case letters, digits and inner "
                          "hyphens, 3-64 characters")
    folder = root / slug
    if folder.exists():
        raise ConfigError(f"{folder} exists; pick another slug or remove the folder first")
    rendered = scaffold_files(slug, task)
    for dest, text in rendered.items():
        path = folder / dest
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def load_builder(folder: Path) -> ModuleType:
    """Import `folder/build.py` by path (competition folders are not a package)."""
    path = folder / "build.py"
    if not path.is_file():
        raise ConfigError(f"{path}: not found; every competition needs a build.py with "
                          "build(raw, seed, out, public_key)")
    module_spec = importlib.util.spec_from_file_location(
        f"gnncb_build_{folder.name.replace('-', '_')}", path)
    if module_spec is None or module_spec.loader is None:
        raise ConfigError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    if not callable(getattr(module, "build", None)):
        raise ConfigError(f"{path}: defines no build(raw, seed, out, public_key) function")
    return module


def run_build(folder: Path, raw: Path, seed: str, public_key: Any, out: Path) -> list[Path]:
    """Build into a staging folder, then replace out/data and out/hidden with the result."""
    if not Path(raw).exists():
        raise ConfigError(f"--raw {raw}: not found; pass the raw dataset folder "
                          "(e.g. ../shared/datasets/<name>)")
    builder = load_builder(folder)
    with tempfile.TemporaryDirectory(prefix=f"gnncb-build-{folder.name}-") as tmp:
        staging = Path(tmp)
        builder.build(Path(raw), seed, staging, public_key)
        if not (staging / "data").is_dir():
            raise ConfigError(f"{folder / 'build.py'}: build() wrote no data/ folder")
        out.mkdir(parents=True, exist_ok=True)
        for sub in ("data", "hidden"):
            if (out / sub).exists():
                shutil.rmtree(out / sub)
            if (staging / sub).exists():
                shutil.copytree(staging / sub, out / sub)
    return data_files(out)
