"""The repository is where you stand: verbs run from a copy of the repository, with gnncb
imported from this checkout ("installed elsewhere"), read and write the copy only.

Why these tests: `gnncb ledger withdraw` run in a copy once appended its audit line to the
ledger of the checkout gnncb was installed from, and `ledger show` and `site build` read that
other ledger too (issue 25, point 1). Each verb here runs as a subprocess with `cwd=` the copy
(or a folder outside any repository) and PYTHONPATH naming this checkout, exactly as a
maintainer's shell would; `untouched` checks that this checkout's ledger, boards and READMEs
are byte for byte what they were.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator import paths
from evaluator.cli import build_parser
from evaluator.commands._options import ROOT_HELP
from evaluator.errors import ConfigError
from tests.helpers.paths import REPO

TOP = ("competitions", "leaderboard", "keys", "templates", "campaigns")
NO_REPO = "no gnncb repository here"
SLUG = "gta"  # a competition whose ledger holds several active baseline rows


def make_copy(dest: Path) -> Path:
    """A copy of the repository's top-level folders (no .git, no package)."""
    dest.mkdir(parents=True)
    for name in TOP:
        shutil.copytree(REPO / name, dest / name, symlinks=True)
    return dest


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    return make_copy(tmp_path / "copy")


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A folder with no gnncb repository at or above it."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    assert not any((p / "competitions").is_dir() for p in (folder, *folder.parents))
    return folder


def gnncb(cwd: Path, *args: object, env: dict | None = None) -> subprocess.CompletedProcess:
    """`gnncb ARGS` run in `cwd` with the package imported from this checkout and no
    $GNNCB_ROOT: the checkout is "where gnncb is installed", never where the command runs."""
    env = {k: v for k, v in {**os.environ, **(env or {})}.items() if k != "GNNCB_ROOT"}
    env["PYTHONPATH"] = str(REPO)
    env.setdefault("GNNCB_SITE_URL", "none")
    return subprocess.run([sys.executable, "-m", "evaluator.cli", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=900)


def _snapshot(root: Path) -> dict[str, str]:
    files = [*(root / "leaderboard").rglob("*"), *(root / "competitions").glob("*/README.md"),
             *(root / "competitions").glob("*/hidden/*")]
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in files if p.is_file()}


@pytest.fixture
def untouched() -> Iterator[None]:
    """This checkout (the package's folder) ends the test exactly as it began."""
    before = _snapshot(REPO)
    yield
    after = _snapshot(REPO)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"the package's checkout was written: {changed}"


def _ledger(root: Path) -> list[dict]:
    text = (root / "leaderboard" / "ledger.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _active(cwd: Path, *root: object) -> list[dict]:
    done = gnncb(cwd, "ledger", "list", "--competition", SLUG, "--status", "active", "--json",
                 *root)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _ok(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


# ------------------------------------------------------------------ writes land in the copy
@pytest.mark.slow
def test_every_maintainer_write_from_inside_a_copy_touches_only_the_copy(copy, untouched):
    """Run from a folder inside the copy (found by walking up, as git does)."""
    inside = copy / "competitions" / SLUG
    lines = len(_ledger(copy))
    active = _active(inside)
    latest = max(r["version"] for r in active)
    gone, kept = [r for r in active if r["version"] == latest][:2]

    out = _ok(gnncb(inside, "ledger", "withdraw", gone["digest"][:12], "--reason", "test",
                    "--by", "maintainer"))
    assert f"repository: {copy} (found from the current folder)" in out
    assert f"ledger: {copy / 'leaderboard' / 'ledger.jsonl'}" in out
    out = _ok(gnncb(inside, "ledger", "choose-final", SLUG, kept["digest"][:12],
                    "--participant", kept["participant"], "--reason", "asked", "--by", "m"))
    assert f"repository: {copy}" in out
    rows = _ledger(copy)
    assert len(rows) == lines + 2
    assert rows[-2]["type"] == "withdrawal" and rows[-2]["digest"] == gone["digest"]
    assert rows[-1]["type"] == "final-choice" and rows[-1]["chosen"] == [kept["digest"]]
    # the views read the copy's ledger: the withdrawal is there, not in the checkout's
    out = _ok(gnncb(inside, "ledger", "show", gone["digest"][:12]))
    assert "withdrawn on" in out and f"(in {copy / 'leaderboard' / 'ledger.jsonl'})" in out
    assert gone["digest"] not in {r["digest"] for r in _active(inside)}

    for argv in (("ledger", "rescore", "graph-coding", "--dry-run", "--by", "m"),
                 ("ledger", "rescore", "graph-coding", "--by", "m"),
                 ("leaderboard", "render"),
                 ("competition", "readme", SLUG)):
        out = _ok(gnncb(inside, *argv))
        assert f"repository: {copy}" in out, argv
    assert f"wrote {copy / 'competitions' / SLUG / 'README.md'}" in out
    board = (copy / "leaderboard" / f"{SLUG}.md").read_text(encoding="utf-8")
    assert board != (REPO / "leaderboard" / f"{SLUG}.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_site_build_reads_the_copys_ledger(copy, untouched):
    active = _active(copy)
    latest = max(r["version"] for r in active)  # the site shows the current version's entries
    gone, kept = [r for r in active if r["version"] == latest][:2]
    _ok(gnncb(copy, "ledger", "withdraw", gone["digest"][:12], "--reason", "t", "--by", "m"))
    out = _ok(gnncb(copy, "site", "build", "--out", "site", "--only", SLUG, "--jobs", "1"))
    assert f"ledger: {copy / 'leaderboard' / 'ledger.jsonl'}" in out
    entries = copy / "site" / "entries"
    assert not (entries / f"{gone['digest']}.html").exists()  # withdrawn in the copy only
    assert (entries / f"{kept['digest']}.html").is_file()


@pytest.mark.slow
def test_root_option_from_outside_any_repository_works_the_same(copy, elsewhere, untouched):
    digest = _active(elsewhere, "--root", copy)[0]["digest"]
    out = _ok(gnncb(elsewhere, "ledger", "withdraw", digest[:12], "--reason", "t", "--by", "m",
                    "--root", copy))
    assert f"repository: {copy} (--root)" in out
    assert _ledger(copy)[-1]["digest"] == digest
    for argv in (("leaderboard", "render"), ("competition", "readme", SLUG)):
        out = _ok(gnncb(elsewhere, *argv, "--root", copy))
        assert f"repository: {copy} (--root)" in out, argv
    out = _ok(gnncb(elsewhere, "ledger", "list", "--root", copy))
    assert f"in {copy / 'leaderboard' / 'ledger.jsonl'}" in out


@pytest.mark.slow
def test_a_competition_folder_of_another_repository_is_refused(copy, tmp_path, untouched):
    other = make_copy(tmp_path / "other")
    readme = other / "competitions" / SLUG / "README.md"
    readme.write_text("stale\n", encoding="utf-8")
    done = gnncb(copy, "competition", "readme", readme.parent)
    assert done.returncode == 2
    assert f"is outside the repository {copy}" in done.stderr and "--root" in done.stderr
    assert readme.read_text(encoding="utf-8") == "stale\n"


# ------------------------------------------------------------------ outside any repository
NEEDS_A_REPOSITORY = [
    ("ledger", "list"),
    ("ledger", "show", "abcdef12"),
    ("ledger", "withdraw", "abcdef12", "--reason", "r", "--by", "m"),
    ("ledger", "rescore", SLUG, "--dry-run"),
    ("ledger", "choose-final", SLUG, "abcdef12", "--participant", "x", "--reason", "r"),
    ("leaderboard", "render"),
    ("competition", "readme", SLUG),
    ("competition", "new", "toy-thing"),
    ("site", "build", "--out", "site"),
    ("results", "humans"),
    ("check", "--competition", SLUG, "predictions.csv"),
]


@pytest.mark.slow
@pytest.mark.parametrize("argv", NEEDS_A_REPOSITORY, ids=" ".join)
def test_outside_any_repository_a_verb_says_what_is_missing(argv, elsewhere):
    done = gnncb(elsewhere, *argv)
    assert done.returncode == 2, done.stdout + done.stderr
    assert NO_REPO in done.stderr and "--root" in done.stderr, done.stderr
    assert "cd into a checkout" in done.stderr
    assert "Traceback" not in done.stderr
    assert not any(elsewhere.iterdir())  # nothing written where it stands


@pytest.mark.slow
def test_verbs_that_need_no_repository_run_anywhere(copy, elsewhere):
    folder = copy / "competitions" / SLUG
    sample = folder / "data" / "sample_submission.csv"
    assert "is a valid submission" in _ok(gnncb(elsewhere, "check", "--competition", folder,
                                                sample))
    _ok(gnncb(elsewhere, "keys", "init", "--out", "k", "--bits", "3072"))
    assert (elsewhere / "k" / "public.pem").is_file()
    _ok(gnncb(elsewhere, "encrypt", "--competition", folder, "--participant", "alice",
              "--public-key", elsewhere / "k" / "public.pem", "--method", "m", "-o",
              "sub/predictions.csv.enc", sample))
    assert (elsewhere / "sub" / "metadata.json").is_file()
    assert "usage: gnncb" in _ok(gnncb(elsewhere, "--help"))
    assert "--root DIR" in _ok(gnncb(elsewhere, "ledger", "withdraw", "--help"))


# ------------------------------------------------------------------ one --root, one finder
def _leaves(parser: argparse.ArgumentParser, trail: str = "gnncb") -> Iterator[tuple]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield trail, parser
    for action in subs:
        for name, child in action.choices.items():
            yield from _leaves(child, f"{trail} {name}")


def test_every_verb_takes_the_same_root_option():
    leaves = list(_leaves(build_parser()))
    assert len(leaves) > 40
    for trail, parser in leaves:
        roots = [a for a in parser._actions if "--root" in a.option_strings]
        assert len(roots) == 1, trail
        assert roots[0].help == ROOT_HELP and roots[0].default is None, trail


def test_root_is_found_by_walking_up_and_overridden_by_env_then_option(copy, tmp_path,
                                                                       monkeypatch):
    monkeypatch.delenv("GNNCB_ROOT", raising=False)
    deep = copy / "competitions" / SLUG / "data"
    assert paths.find_root(start=deep) == (copy, "found from the current folder")
    assert paths.find_root(start=tmp_path) is None
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=NO_REPO):
        paths.repo_root()
    monkeypatch.chdir(deep)
    assert paths.default_ledger() == copy / "leaderboard" / "ledger.jsonl"
    monkeypatch.setenv("GNNCB_ROOT", str(REPO))
    assert paths.find_root(start=deep) == (REPO, "$GNNCB_ROOT")
    with paths.using_root(copy):
        assert paths.find_root() == (copy, "--root")
    assert paths.find_root(tmp_path) == (tmp_path, "--root")
    with pytest.raises(ConfigError, match="no such folder"):
        paths.find_root(tmp_path / "missing")


def test_the_package_folder_is_never_the_default(monkeypatch, tmp_path):
    """Run outside any repository, the checkout holding the package is not taken instead."""
    monkeypatch.delenv("GNNCB_ROOT", raising=False)
    monkeypatch.chdir(tmp_path)
    for default in (paths.repo_root, paths.default_ledger, paths.competitions_dir,
                    paths.default_public_key):
        with pytest.raises(ConfigError, match=NO_REPO):
            default()


# ------------------------------------------------------------------ chores that finish
@pytest.mark.slow
def test_withdrawing_a_baseline_re_renders_the_readme_so_lint_passes(copy, untouched):
    """The README shows the baselines' scores: a withdrawal re-renders it in the copy (issue
    25, point 5), and `competition lint` passes right after, as CI runs it."""
    latest = max(r["version"] for r in _active(copy))
    gnn = next(r for r in _active(copy)
               if r["version"] == latest and r["participant"] == "baseline:gnn")
    readme = copy / "competitions" / SLUG / "README.md"
    before = readme.read_text(encoding="utf-8")
    out = _ok(gnncb(copy, "ledger", "withdraw", gnn["digest"][:12], "--reason", "t",
                    "--by", "m"))
    assert f"wrote {readme}" in out
    assert readme.read_text(encoding="utf-8") != before
    assert "The graph does not help the baselines" not in readme.read_text(encoding="utf-8")
    assert f"{copy / 'competitions' / SLUG}: OK" in _ok(gnncb(copy, "competition", "lint",
                                                            SLUG))


@pytest.mark.slow
def test_an_audit_line_always_says_who(copy, untouched, tmp_path):
    """No --by, no $GITHUB_ACTOR, no git user.name: refused, nothing written; with git's
    user.name set in the copy, that name is recorded (issue 25, point 5)."""
    digest = _active(copy)[0]["digest"]
    lines = len(_ledger(copy))
    nobody = {"GIT_CONFIG_GLOBAL": str(tmp_path / "no-gitconfig"), "GIT_CONFIG_NOSYSTEM": "1",
              "GITHUB_ACTOR": ""}
    done = gnncb(copy, "ledger", "withdraw", digest[:12], "--reason", "t", env=nobody)
    assert done.returncode == 2 and "--by is required" in done.stderr, done.stderr
    assert len(_ledger(copy)) == lines
    subprocess.run(["git", "init", "-q", str(copy)], check=True, env={**os.environ, **nobody})
    subprocess.run(["git", "-C", str(copy), "config", "user.name", "Maintainer From Git"],
                   check=True, env={**os.environ, **nobody})
    _ok(gnncb(copy, "ledger", "withdraw", digest[:12], "--reason", "t", env=nobody))
    assert _ledger(copy)[-1]["by"] == "Maintainer From Git"


@pytest.mark.slow
def test_key_verbs_from_a_copy_touch_only_the_copy(copy, untouched, tmp_path, shared_secrets):
    """Keys end to end from a copy (issue 25, point 4): a build with another key is refused;
    a reseal to a new key re-seals the copy's labels and says which old key its stored
    envelopes and sealed scores still need; lint then flags the labels against the copy's
    committed key; the package's checkout is untouched throughout."""
    from evaluator.submission import envelope, keys

    new = tmp_path / "new-key"
    new_kid = keys.generate(new, bits=3072)
    old_kid = keys.thumbprint(keys.read_public_key(copy / "keys" / "platform-public.pem"))
    seed = tmp_path / "seed"
    seed.write_text("not-the-seed-but-long-enough\n")
    done = gnncb(copy, "competition", "build", SLUG, "--raw", tmp_path, "--seed-file", seed,
                 "--public-key", new / "public.pem")
    assert done.returncode == 2 and f"refusing to seal {copy / 'competitions' / SLUG}" \
        in done.stderr, done.stderr
    out = _ok(gnncb(copy, "keys", "reseal", SLUG, "--private-key",
                    shared_secrets / "deploy-private.pem", "--public-key", new / "public.pem"))
    assert f"{SLUG}: the old key {old_kid} is still needed: it opens" in out
    assert "stored envelope" in out and "sealed score" in out
    hidden = sorted((copy / "competitions" / SLUG / "hidden").glob("*.jwe"))
    assert hidden and all(envelope.read_header(p.read_bytes())["kid"] == new_kid
                          for p in hidden)
    done = gnncb(copy, "competition", "lint", SLUG)
    assert done.returncode == 1 and "not to the committed platform key" in done.stdout
