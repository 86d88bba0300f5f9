"""Build mix-props (multi-target graph regression, GNN-CB C17's task type) from ESOL.

Three targets of very different ranges, all columns of `delaney-processed.csv`:
- `log_solubility`: measured log10 solubility in mol/L (about -11.6 to 1.6);
- `mol_weight`: molecular weight in g/mol (about 16 to 780), computed from the structure;
- `polar_surface_area`: topological polar surface area in square angstrom (0 to about 270),
  computed from the structure.
NMAE divides each target's MAE by its range, so none dominates the score.

The graph build, the secret held-out set and the anti-contamination edits are the solubility
builder's, reused (not copied) so that both ESOL competitions hold out exactly the same molecules:
mix-props' training logS never covers a solubility test molecule, and vice versa.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from evaluator.errors import ConfigError
from evaluator.spec import load_spec

HERE = Path(__file__).resolve().parent
TARGETS = {
    "measured log solubility in mols per litre": "log_solubility",
    "Molecular Weight": "mol_weight",
    "Polar Surface Area": "polar_surface_area",
}


def _esol_builder() -> ModuleType:
    path = HERE.parent / "solubility" / "build.py"
    spec = importlib.util.spec_from_file_location("gnncb_solubility_build", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise ConfigError(f"{path}: the ESOL builder shared with solubility is missing")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(raw: Path, seed: str, out: Path, public_key) -> None:
    _esol_builder().build_esol(raw, seed, out, public_key, load_spec(HERE), TARGETS)
