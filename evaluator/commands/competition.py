"""Maintainer verbs: `gnncb competition new | build | readme` and `gnncb baseline run`.

Why these live together: they are the life of a competition folder before participants arrive.
`new` scaffolds a folder that lint reports as incomplete until it is filled in; `build` runs the
folder's own `build.py` (raw data + secret seed -> public data + sealed labels) into a staging
folder outside the repository, so a failed build never leaves half-written data and plaintext
labels never touch the work tree; `readme` renders the participant README from competition.yaml
and the ledger, so the README and the scorer can never disagree about the metric; `baseline run`
puts the reference solutions on the leaderboard through the normal encrypt/evaluate path.

Conventions for `competitions/<slug>/build.py` (shared by every competition):

    def build(raw: Path, seed: str, out: Path, public_key) -> None

writes `out/data/` (public files; CSV for tables and edge lists, `.npz` for large sparse or
dense matrices, `data/sample_submission.csv`) and `out/hidden/*.jwe` (labels sealed with
`evaluator.authoring.build.seal_labels`), byte-identically for the same seed. It reads its own
`competition.yaml` with `load_spec(Path(__file__).parent)`; it never writes competition.yaml
or README.md (those are committed by hand / rendered).
"""

from __future__ import annotations

import argparse
import importlib.util
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from evaluator.authoring.build import read_seed
from evaluator.commands import GROUPS
from evaluator.competition.spec import SLUG_RE, CompetitionSpec, load_spec
from evaluator.errors import ConfigError
from evaluator.ledger.store import Ledger
from evaluator.metrics.registry import METRICS
from evaluator.paths import (
    competitions_dir,
    default_ledger,
    default_public_key,
    resolve_competition,
    templates_dir,
)
from evaluator.render.boards import fmt_score, md_escape
from evaluator.submission import keys

README_TEMPLATE = "competition_README.md.j2"
SCAFFOLD_DIR = "competition_new"
# scaffold template -> file it becomes inside the new competition folder
SCAFFOLD_FILES = {
    "competition.yaml.j2": "competition.yaml",
    "build.py.j2": "build.py",
    "baseline_gnn.py.j2": "baseline/gnn.py",
    "baseline_nongraph.py.j2": "baseline/nongraph.py",
}

# ----------------------------------------------------------------------------- helpers
def resolve_folder(slug_or_path: str) -> Path:
    """`gnn-cora` -> competitions/gnn-cora; an existing folder path is taken as it is."""
    return resolve_competition(slug_or_path)


def command_arg(folder: Path) -> str:
    """How a printed follow-up command names a competition: its slug when the slug resolves to
    this very folder, else the folder itself, shell-quoted (a pasted line must run as shown)."""
    candidate = competitions_dir() / folder.name
    try:
        same = candidate.resolve() == Path(folder).resolve()
    except OSError:
        same = False
    return folder.name if same else shlex.quote(str(folder))


def _plain_env(directory: Path) -> Environment:
    """Jinja for files we write ourselves (README, scaffolds): maintainer text is Markdown and
    stays as written; participant strings are escaped explicitly with `| md`."""
    env = Environment(loader=FileSystemLoader(str(directory)), undefined=StrictUndefined,
                      keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                      autoescape=False)  # noqa: S701 - Markdown/YAML/Python, not HTML
    env.filters["score"] = fmt_score
    env.filters["md"] = lambda v: Markup(md_escape(v))  # noqa: S704 - escaped
    return env


def human_size(n: int) -> str:
    for unit, scale in (("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def data_files(folder: Path) -> list[Path]:
    data = folder / "data"
    return sorted(p for p in data.rglob("*") if p.is_file()) if data.is_dir() else []


# ----------------------------------------------------------------------------- new
def scaffold(slug: str, root: Path) -> Path:
    """Write a new competition folder from templates/competition_new/; refuse to overwrite."""
    import re

    if not re.fullmatch(SLUG_RE, slug):
        raise ConfigError(f"{slug!r} is not a valid slug: lower-case letters, digits and inner "
                          "hyphens, 3-64 characters")
    folder = root / slug
    if folder.exists():
        raise ConfigError(f"{folder} exists; pick another slug or remove the folder first")
    env = _plain_env(templates_dir() / SCAFFOLD_DIR)
    rendered = {dest: env.get_template(src).render(slug=slug)
                for src, dest in SCAFFOLD_FILES.items()}
    for dest, text in rendered.items():
        path = folder / dest
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def cmd_new(args: argparse.Namespace) -> int:
    folder = scaffold(args.slug, args.root or competitions_dir())
    print(f"created {folder} with {', '.join(SCAFFOLD_FILES.values())}")
    print("next: fill in competition.yaml and build.py, then\n"
          f"  gnncb competition build {shlex.quote(str(folder))} --raw RAW --seed-file SEED\n"
          f"  gnncb competition readme {shlex.quote(str(folder))}\n"
          f"  gnncb competition lint {shlex.quote(str(folder))}")
    return 0


# ----------------------------------------------------------------------------- build
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


def cmd_build(args: argparse.Namespace) -> int:
    folder = resolve_folder(args.slug)
    load_spec(folder)  # a bad spec fails before any work
    seed = read_seed(args.seed_file)
    key_path = args.public_key or default_public_key()
    try:
        public = keys.load_public_key(key_path.read_bytes(), source=str(key_path))
    except OSError as err:
        raise ConfigError(f"{key_path}: cannot read public key: {err.strerror}") from None
    out = args.out or folder
    files = run_build(folder, args.raw, seed, public, out)
    total = sum(p.stat().st_size for p in files)
    for path in files:
        print(f"  {path.relative_to(out)}  {human_size(path.stat().st_size)}")
    print(f"built {folder.name} into {out}: {len(files)} public files, {human_size(total)}; "
          f"labels sealed for kid {keys.thumbprint(public)}")
    return 0


# ----------------------------------------------------------------------------- readme
def _allowed(target: Any) -> str:
    if target.type == "class":
        return ", ".join(f"`{c}`" for c in target.classes)
    if target.type == "probability":
        return f"a number in [0, 1]: the score of class `{target.positive}` (higher = more likely)"
    return "any finite number"


def _formula(spec: CompetitionSpec, name: str) -> str:
    metric = spec.metrics[name]
    record = METRICS[metric.fn]
    positive = spec.target_for(metric).positive if record.binary else ""
    arrow = "higher is better" if spec.higher_is_better(name) else "lower is better"
    return record.formula.format(positive=f"`{positive}`") + f" ({arrow})"


def baseline_rows(spec: CompetitionSpec, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Latest scored row of each baseline participant, GNN first."""
    from evaluator.ledger.ranking import standings

    found = [e.row for e in standings(spec, rows) if e.row.get("entrant") == "baseline"]
    return sorted(found, key=lambda r: (r["participant"] != "baseline:gnn", r["participant"]))


def verdict(spec: CompetitionSpec, rows: list[dict[str, Any]]) -> str:
    """One sentence: does the GNN baseline beat the features-only one on the ranking score?"""
    by = {r["participant"]: r for r in rows}
    if "baseline:gnn" not in by or "baseline:nongraph" not in by:
        return ""
    name = spec.primary_score
    gnn, flat = by["baseline:gnn"]["scores"][name], by["baseline:nongraph"]["scores"][name]
    gain = (gnn - flat) if spec.higher_is_better(name) else (flat - gnn)
    both = f"(`{name}` {gnn:.4f} for the GNN against {flat:.4f} without the graph)"
    if gain > 0.005:
        return f"**The graph helps**: the GNN baseline beats the features-only baseline {both}."
    if gain >= -0.005:
        return (f"**The graph gives no clear gain here**: both baselines score about the same "
                f"{both}. A stronger GNN has to use the structure better than these do.")
    return (f"**The graph does not help the baselines here**: the features-only baseline beats "
            f"the GNN baseline {both}. A GNN that wins must at least match a feature model "
            "on the node features before the structure can add anything.")


def readme_context(folder: Path, spec: CompetitionSpec,
                   rows: list[dict[str, Any]]) -> dict[str, Any]:
    files = data_files(folder)
    rel = {p.relative_to(folder).as_posix(): p for p in files}
    listed_missing = sorted(set(spec.files) - set(rel))
    if listed_missing:
        raise ConfigError(f"{folder / 'competition.yaml'}: files {listed_missing} are described "
                          "but do not exist; run `gnncb competition build` first")
    undocumented = sorted(set(rel) - set(spec.files))
    if undocumented:
        raise ConfigError(f"{folder / 'competition.yaml'}: public files {undocumented} have no "
                          "description under `files:`; participants need to know what they hold")
    baselines = baseline_rows(spec, rows)
    hours = spec.rules.cpu_hours
    return {
        "spec": spec,
        "description": Markup(spec.description.strip()),  # noqa: S704 - maintainer Markdown
        "files": [{"path": path, "about": Markup(spec.files[path]),  # noqa: S704
                   "size": human_size(p.stat().st_size)} for path, p in rel.items()],
        "data_bytes_text": human_size(sum(p.stat().st_size for p in files)),
        "targets": [{"name": t.name, "type": t.type, "allowed": Markup(_allowed(t))}  # noqa: S704
                    for t in spec.targets],
        "header": ",".join([spec.id_column] + [t.name for t in spec.targets]),
        "metrics": [{"name": n, "split": m.split, "description": m.description,
                     "formula": _formula(spec, n)} for n, m in spec.metrics.items()],
        "derived": [{"name": n, "description": d.description,
                     "arrow": "higher is better" if d.higher_is_better else "lower is better",
                     "formula": (f"{n} = " + (" − ".join(d.of) if d.op == "subtract"
                                              else f"mean({', '.join(d.of)})"))}
                    for n, d in spec.derived.items()],
        "baselines": [{"participant": r["participant"], "method": r.get("method", ""),
                       "scores": r["scores"],
                       "training_time_minutes": r.get("declared", {}).get(
                           "training_time_minutes"),
                       "hardware": r.get("declared", {}).get("hardware", "")}
                      for r in baselines],
        "verdict": Markup(verdict(spec, baselines)),  # noqa: S704 - numbers and our words
        "cpu_hours": f"{hours:g}",
    }


def render_readme(folder: Path, ledger_path: Path | None = None) -> str:
    spec = load_spec(folder)
    rows = Ledger(ledger_path or default_ledger()).rows()
    env = _plain_env(templates_dir())
    return env.get_template(README_TEMPLATE).render(**readme_context(folder, spec, rows))


def cmd_readme(args: argparse.Namespace) -> int:
    folder = resolve_folder(args.slug)
    text = render_readme(folder, args.ledger)
    path = folder / "README.md"
    if args.check:
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
        if current != text:
            print(f"{path} is out of date; run "
                  f"`gnncb competition readme {command_arg(folder)}`", file=sys.stderr)
            return 1
        print(f"{path}: up to date")
        return 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0


# ----------------------------------------------------------------------------- baseline
def render_after_baselines(folder: Path, ledger: Ledger) -> None:
    """Re-render leaderboards beside the ledger; the README only for the official ledger (a
    temporary ledger must never rewrite a committed README)."""
    from evaluator.commands.core import load_all_specs
    from evaluator.render.boards import write_leaderboards

    rows = ledger.rows()
    for path in write_leaderboards(load_all_specs(folder.parent), rows, ledger.path.parent,
                                   ledger=ledger.path, changed=[folder.name]):
        print(f"wrote {path}")
    if ledger.path.resolve() == default_ledger().resolve():
        (folder / "README.md").write_text(render_readme(folder, ledger.path), encoding="utf-8")
        print(f"wrote {folder / 'README.md'}")


def cmd_baseline_run(args: argparse.Namespace) -> int:
    from evaluator.authoring.baselines import run_baselines

    folder = resolve_folder(args.slug)
    which = [w.strip() for w in args.which.split(",") if w.strip()]
    results = run_baselines(folder, which=which, smoke=args.smoke,
                            private_key_paths=args.private_key, public_key=args.public_key,
                            ledger_path=args.ledger, timeout_minutes=args.timeout_minutes,
                            after_recording=render_after_baselines)
    for r in results:
        shown = ", ".join(f"{k}={v:.4f}" for k, v in r.scores.items())
        print(f"{r.participant}: {shown}; {r.method}; {r.training_time_minutes:.2f} min")
    return 0


# ----------------------------------------------------------------------------- lint
def cmd_competition_lint(args: argparse.Namespace) -> int:
    import evaluator.codetrack.board  # noqa: F401 - registers the code track's board for lint
    from evaluator.authoring.lint import lint_competition

    private = keys.private_keys_from(args.private_key) if args.private_key else None
    failed = 0
    for value in args.folders:
        folder = resolve_competition(value, folders_only=True)
        problems = lint_competition(folder, private_keys=private, render_readme=render_readme)
        if problems:
            failed += 1
            print(f"{folder}: {len(problems)} problem(s)")
            for p in problems:
                print(f"  - {p}")
        else:
            print(f"{folder}: OK")
    return 1 if failed else 0


# ----------------------------------------------------------------------------- register
def register(sub: argparse._SubParsersAction) -> None:
    cs = GROUPS["competition"]
    lint = cs.add_parser("lint", help="check a competition folder for defects")
    lint.add_argument("folders", nargs="+", metavar="COMPETITION",
                      help="competition slugs (gnn-cora) or folders (competitions/gnn-cora)")
    lint.add_argument("--private-key", type=Path, action="append",
                      help="also decrypt hidden labels to check them against public files")
    lint.set_defaults(func=cmd_competition_lint)
    p = cs.add_parser("new", help="scaffold competitions/SLUG from templates")
    p.add_argument("slug")
    p.add_argument("--root", type=Path, help="folder to create it in (default: competitions/)")
    p.set_defaults(func=cmd_new)

    p = cs.add_parser("build", help="run competitions/SLUG/build.py: raw data -> data/, hidden/")
    p.add_argument("slug", help="competition slug or folder")
    p.add_argument("--raw", type=Path, required=True, help="raw dataset folder")
    p.add_argument("--seed-file", type=Path, required=True, help="file holding the secret seed")
    p.add_argument("--public-key", type=Path, help="default: keys/platform-public.pem")
    p.add_argument("--out", type=Path, help="default: the competition folder itself")
    p.set_defaults(func=cmd_build)

    p = cs.add_parser("readme", help="render README.md from competition.yaml and the ledger")
    p.add_argument("slug", help="competition slug or folder")
    p.add_argument("--ledger", type=Path, help="default: leaderboard/ledger.jsonl")
    p.add_argument("--check", action="store_true",
                   help="exit 1 if README.md differs from the rendering (CI)")
    p.set_defaults(func=cmd_readme)

    p = sub.add_parser("baseline", help="reference baselines")
    bs = p.add_subparsers(dest="baseline_command", metavar="ACTION", required=True)
    GROUPS["baseline"] = bs
    r = bs.add_parser("run", help="train baselines, encrypt, evaluate, record, render")
    r.add_argument("slug", help="competition slug or folder")
    r.add_argument("--smoke", action="store_true",
                   help="a few epochs only; not recorded unless --ledger is given")
    r.add_argument("--which", default="gnn,nongraph", help="comma list of gnn, nongraph")
    r.add_argument("--private-key", type=Path, action="append",
                   help="PEM file; default: $GNNCB_PRIVATE_KEY")
    r.add_argument("--public-key", type=Path, help="default: keys/platform-public.pem")
    r.add_argument("--ledger", type=Path,
                   help="default: leaderboard/ledger.jsonl (full runs); none for --smoke")
    r.add_argument("--timeout-minutes", type=float, default=30.0)
    r.set_defaults(func=cmd_baseline_run)
