"""What readers see is a pure function of the committed ledger, and a refactor must not move a
byte of it.

The manifest `tests/fixtures/rendered_outputs.json` holds the sha256 of every file the previous
layout produced from the committed ledger: the markdown and CSV boards (`gnncb leaderboard
render`), the static site (`gnncb site build`: pages, CSV downloads, styles) and every competition
README (`gnncb competition readme`). It was recorded before the package was reorganised into
layers (issue: the architecture visible in the tree); the test renders everything again through
the CLI, the public interface that did not change, and compares byte for byte.

Two pages name the module that computes them (`results.html`, and each entry page's protocol
check); the reorganisation moved it from `evaluator.results` to `evaluator.render.results`.
That rename is the one difference allowed (`MOVED`): the test maps it back before hashing, and
any other changed byte fails.

When a change is *meant* to alter what readers see, regenerate the manifest deliberately and
say so in the commit: `python -m tests.package.test_outputs_unchanged --write` (from the
repository root).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import FIXTURES, REPO

ROOT = REPO
MANIFEST = FIXTURES / "rendered_outputs.json"
# the module names pages print, new -> as recorded before the package was reorganised
MOVED = {b"evaluator.render.results": b"evaluator.results"}


def _as_recorded(data: bytes) -> bytes:
    for new, old in MOVED.items():
        data = data.replace(new, old)
    return data


def _gnncb(*args: str | Path, cwd: Path) -> None:
    # this checkout's package, whatever the interpreter has installed (a worktree, a copy)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GNNCB_ROOT": str(ROOT)}
    subprocess.run([sys.executable, "-m", "evaluator.cli", *map(str, args)], cwd=cwd,
                   check=True, capture_output=True, text=True, env=env)


def render_everything(work: Path) -> dict[str, str]:
    """Render boards, site and READMEs from the committed ledger into `work`; return
    {relative path: sha256} of every file written."""
    comps = work / "competitions"
    shutil.copytree(ROOT / "competitions", comps,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    ledger = ROOT / "leaderboard" / "ledger.jsonl"
    _gnncb("leaderboard", "render", "--ledger", ledger, "--competitions", comps,
           "--out", work / "out" / "boards", cwd=work)
    _gnncb("site", "build", "--ledger", ledger, "--competitions", comps,
           "--out", work / "out" / "site", "--jobs", "1", cwd=work)
    readmes = work / "out" / "readmes"
    readmes.mkdir(parents=True)
    for spec in sorted(comps.glob("*/competition.yaml")):
        folder = spec.parent
        _gnncb("competition", "readme", folder, "--ledger", ledger, cwd=work)
        shutil.copyfile(folder / "README.md", readmes / f"{folder.name}.md")
    out = work / "out"
    return {p.relative_to(out).as_posix(): hashlib.sha256(_as_recorded(p.read_bytes())).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_boards_site_and_readmes_are_byte_identical_to_the_recorded_layout(tmp_path) -> None:
    recorded = json.loads(MANIFEST.read_text(encoding="utf-8"))
    now = render_everything(tmp_path)
    missing = sorted(set(recorded) - set(now))
    extra = sorted(set(now) - set(recorded))
    changed = sorted(k for k in set(recorded) & set(now) if recorded[k] != now[k])
    assert (missing, extra, changed) == ([], [], []), (
        f"rendered outputs moved: missing {missing}, new {extra}, changed {changed}")
    assert len(recorded) > 100  # boards, site pages and READMEs of every competition


if __name__ == "__main__":  # deliberate regeneration only
    import tempfile

    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.package.test_outputs_unchanged --write")
    with tempfile.TemporaryDirectory() as tmp:
        hashes = render_everything(Path(tmp))
    MANIFEST.write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {MANIFEST} ({len(hashes)} files)")
