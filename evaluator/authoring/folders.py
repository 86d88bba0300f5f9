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


def scaffold(slug: str, root: Path) -> Path:
    """Write a new competition folder from templates/competition_new/; refuse to overwrite."""
    if not re.fullmatch(SLUG_RE, slug):
        raise ConfigError(f"{slug!r} is not a valid slug: lower-case letters, digits and inner "
                          "hyphens, 3-64 characters")
    folder = root / slug
    if folder.exists():
        raise ConfigError(f"{folder} exists; pick another slug or remove the folder first")
    env = markdown_env(templates_dir() / SCAFFOLD_DIR)
    rendered = {dest: env.get_template(src).render(slug=slug)
                for src, dest in SCAFFOLD_FILES.items()}
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
