"""Issue 15, part 3: every verb that takes a competition takes a slug or a folder and answers a
typo with "did you mean"; printed follow-up commands survive a space in the path; `gnncb check`
reports what a participant reads; over-limit and claim-mismatch advice through the CLI; the
code report's legend. Each test runs the real command and asserts the message a user sees."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import encrypt, run
from tests.helpers.paths import REPO

TYPO = "gnn-kora"  # one letter from gnn-cora, a committed competition

# Every verb that names a competition, with the least it needs to reach the lookup.
VERBS = {
    "check": ["check", "--competition", TYPO, "f.csv"],
    "encrypt": ["encrypt", "--competition", TYPO, "--participant", "x", "--method", "m",
                "f.csv"],
    "evaluate": ["evaluate", "--competition", TYPO, "--submission", ".", "--participant", "x"],
    "keys reseal": ["keys", "reseal", TYPO],
    "competition build": ["competition", "build", TYPO, "--raw", "r", "--seed-file", "s"],
    "competition readme": ["competition", "readme", TYPO, "--check"],
    "competition lint": ["competition", "lint", TYPO],
    "competition reveal": ["competition", "reveal", TYPO, "--dry-run"],
    "competition relabel": ["competition", "relabel", TYPO, "--split", "test", "--labels",
                            "l.csv"],
    "baseline run": ["baseline", "run", TYPO, "--smoke"],
    "ledger rescore": ["ledger", "rescore", TYPO, "--dry-run"],
    "ledger choose-final": ["ledger", "choose-final", TYPO, "abcdef12", "--participant", "x",
                            "--reason", "r"],
    "ledger list": ["ledger", "list", "--competition", TYPO],
    "llm run": ["llm", "run", "--competition", TYPO, "--model", "m"],
    "llm campaign": ["llm", "campaign", "--models", "m", "--competitions", "gnn-cora", TYPO],
}


@pytest.mark.parametrize("verb", list(VERBS))
def test_every_verb_answers_a_typo_with_did_you_mean_and_the_list(verb, capsys, monkeypatch):
    monkeypatch.delenv("GNNCB_PRIVATE_KEY", raising=False)  # the lookup comes before any key
    code, _, err = run(VERBS[verb], capsys)
    assert code == 2, err
    assert f"competition {TYPO!r} not found" in err, err
    assert "did you mean gnn-cora" in err
    assert "competitions: " in err and "gnn-cora" in err.split("competitions: ", 1)[1]
    assert "Traceback" not in err


def test_lint_takes_a_slug_a_folder_and_a_track_board(demo_competition, monkeypatch, capsys):
    """`gnncb competition lint grape` used to fail with "grape/competition.yaml: not found"."""
    root = demo_competition.parent.parent
    (root / "templates").symlink_to(REPO / "templates")  # lint renders the README to compare
    monkeypatch.setenv("GNNCB_ROOT", str(root))
    slug = demo_competition.name
    for given in (slug, demo_competition, f"competitions/{slug}"):
        monkeypatch.chdir(root if given == f"competitions/{slug}" else REPO)
        code, out, err = run(["competition", "lint", given], capsys)
        assert "not found" not in out + err, (given, out, err)
        assert f"{slug}: " in out, (given, out)
    monkeypatch.delenv("GNNCB_ROOT")
    monkeypatch.chdir(REPO.parent)  # outside the checkout: slugs resolve in the --root named
    code, out, err = run(["competition", "lint", "graph-coding", "--root", REPO], capsys)
    assert "graph-coding: " in out and "not found" not in err, err
    code, out, err = run(["competition", "lint", "graph-coding"], capsys)  # and without one:
    assert code == 2 and "no gnncb repository here" in err and "--root" in err, err


@pytest.mark.slow
def test_ledger_verbs_take_a_folder_as_well_as_a_slug(demo_competition, keypair, tmp_path,
                                                      monkeypatch, capsys):
    """`ledger rescore competitions/grape` used to look in competitions/competitions/grape."""
    out = tmp_path / "sub" / "predictions.csv.enc"
    encrypt(demo_competition, keypair, tmp_path, capsys, out)
    root = demo_competition.parent.parent
    ledger = root / "leaderboard" / "ledger.jsonl"
    code, _, err = run(["evaluate", "--competition", demo_competition, "--submission",
                        out.parent, "--participant", "alice", "--private-key",
                        keypair["private_path"], "--ledger", ledger], capsys)
    assert code == 0, err
    slug = demo_competition.name
    monkeypatch.chdir(root)
    for given in (f"competitions/{slug}", demo_competition, slug):
        code, stdout, err = run(["ledger", "rescore", given, "--root", root, "--private-key",
                                 keypair["private_path"], "--dry-run"], capsys)
        assert code == 0, (given, err)
        assert f"{slug} v1: re-scored 1 active submission(s)" in stdout
    code, _, err = run(["ledger", "rescore", slug[:-1] + "x", "--root", root, "--dry-run"],
                       capsys)
    assert code == 2 and f"did you mean {slug}?" in err
    code, stdout, _ = run(["ledger", "list", "--ledger", ledger, "--competition",
                           f"competitions/{slug}/"], capsys)
    assert code == 0 and "1 submission(s)" in stdout
    code, _, err = run(["ledger", "list", "--ledger", ledger, "--competition", slug + "s"],
                       capsys)
    assert code == 2 and f"did you mean {slug}" in err  # not a silent "0 submission(s)"
    digest = json.loads(ledger.read_text().splitlines()[0])["digest"]
    code, stdout, err = run(["ledger", "choose-final", f"competitions/{slug}", digest[:12],
                             "--participant", "alice", "--reason", "asked by mail", "--by", "m",
                             "--root", root], capsys)
    assert code == 0, err
    assert f"alice on {slug} v1: final = {digest[:12]}" in stdout


# ------------------------------------------------------------------ 2. gnncb check
def _sample_rows(competition: Path) -> tuple[str, list[str]]:
    lines = (competition / "data" / "sample_submission.csv").read_text().splitlines()
    return lines[0], [line.split(",")[0] for line in lines[1:]]


def _check(competition, path: Path, capsys) -> tuple[int, str]:
    code, out, err = run(["check", "--competition", competition, path], capsys)
    return code, out + err


def test_check_reports_every_problem_of_a_column_in_one_run(tmp_path, capsys):
    """NaN on line 2, inf on line 3, an empty cell on line 4: one run, three findings."""
    header, ids = _sample_rows(REPO / "competitions" / "solubility")
    bad = tmp_path / "predictions.csv"
    bad.write_text("\n".join([header, f"{ids[0]},NaN", f"{ids[1]},inf", f"{ids[2]},",
                              *(f"{i},0.5" for i in ids[3:])]) + "\n")
    code, text = _check("solubility", bad, capsys)
    assert code == 1
    assert "1 NaN value at line(s) 2, e.g. 'NaN'" in text
    assert "1 infinite value at line(s) 3, e.g. 'inf'" in text
    assert "1 empty cell at line(s) 4" in text


def test_check_quotes_classes_as_written_and_rejects_float_spellings(demo_competition,
                                                                    tmp_path, capsys):
    header, ids = _sample_rows(demo_competition)
    bad = tmp_path / "p.csv"
    bad.write_text("\n".join([header, f"{ids[0]},7", f"{ids[1]},3.0", f"{ids[2]},=A2*2",
                              *(f"{i},0" for i in ids[3:])]) + "\n")
    code, text = _check(demo_competition, bad, capsys)
    assert code == 1
    assert "1 value is not an allowed class [0, 1] at line(s) 2, e.g. '7'" in text
    assert "7.0" not in text
    assert "not integers (write classes as integers, e.g. 3, not 3.0) at line(s) 3, 4" in text
    assert "'3.0'" in text
    assert "'=A2*2'; these look like spreadsheet formulas: export the values" in text


def test_check_hints_at_utf16_semicolons_and_gives_the_byte_of_the_line(demo_competition,
                                                                       tmp_path, capsys):
    header, ids = _sample_rows(demo_competition)
    rows = [header, *(f"{i},0" for i in ids)]
    u16 = tmp_path / "u16.csv"
    u16.write_bytes(("\n".join(rows) + "\n").encode("utf-16"))
    code, text = _check(demo_competition, u16, capsys)
    assert code == 1 and "looks like UTF-16" in text and "save it as CSV UTF-8" in text
    semi = tmp_path / "semi.csv"
    semi.write_text("\n".join(r.replace(",", ";") for r in rows) + "\n")
    code, text = _check(demo_competition, semi, capsys)
    assert code == 1 and "separated by ';'" in text and "use commas" in text
    latin = tmp_path / "latin.csv"
    body = "\n".join(rows[:3]).encode() + b"\n" + ids[2].encode() + b",\xff\n"
    latin.write_bytes(body + ("\n".join(rows[4:]) + "\n").encode())
    code, text = _check(demo_competition, latin, capsys)
    column = len(ids[2]) + 2  # the byte after "<id>," counted from the start of line 4
    assert code == 1 and f"line 4: not UTF-8 (byte {column} of the line is 0xff)" in text
    nul = tmp_path / "nul.csv"
    nul.write_bytes(("\n".join(rows[:2]) + "\n").encode() + ids[1].encode() + b",\x00\n")
    code, text = _check(demo_competition, nul, capsys)
    column = len(ids[1]) + 2
    assert code == 1 and f"line 3: a NUL byte (byte {column} of the line)" in text


# ------------------------------------------------------------------ 3. evaluate's advice
def test_evaluate_over_the_daily_limit_says_when_the_window_reopens(demo_competition, keypair,
                                                                    tmp_path, capsys):
    from datetime import datetime, timedelta

    spec = demo_competition / "competition.yaml"
    spec.write_text(spec.read_text().replace("per_day: 5", "per_day: 2"))
    ledger = tmp_path / "ledger.jsonl"
    for n in range(3):
        out = tmp_path / f"sub{n}" / "predictions.csv.enc"
        encrypt(demo_competition, keypair, tmp_path, capsys, out)
        code, stdout, err = run(["evaluate", "--competition", demo_competition, "--submission",
                                 out.parent, "--participant", "alice", "--private-key",
                                 keypair["private_path"], "--ledger", ledger], capsys)
        if n < 2:
            assert code == 0, err
    assert code == 1
    first = json.loads(ledger.read_text().splitlines()[0])["scored_at"]
    reopens = (datetime.fromisoformat(first.replace("Z", "+00:00")) + timedelta(days=1))
    assert ("alice has made 2 submissions to demo-cancer-knn in the last 24 hours (limit 2); "
            f"the window reopens at {reopens:%Y-%m-%d %H:%M} UTC") in err


def test_evaluate_claim_mismatch_names_the_flag_to_fix(demo_competition, keypair, tmp_path,
                                                       capsys):
    out = tmp_path / "sub" / "predictions.csv.enc"
    encrypt(demo_competition, keypair, tmp_path, capsys, out)  # encrypted for alice
    meta = out.parent / "metadata.json"  # as if bob had copied alice's folder and renamed it
    meta.write_text(meta.read_text().replace('"alice"', '"bob"'))
    code, _, err = run(["evaluate", "--competition", demo_competition, "--submission",
                        out.parent, "--participant", "bob", "--private-key",
                        keypair["private_path"]], capsys)
    assert code == 1
    assert "claim 'participant' is 'alice', expected 'bob'" in err
    assert "encrypt again with --participant set to your GitHub login" in err
    meta.write_text(meta.read_text().replace('"bob"', '"alice"'))
    spec = demo_competition / "competition.yaml"
    spec.write_text(spec.read_text().replace("version: 1", "version: 2", 1))
    code, _, err = run(["evaluate", "--competition", demo_competition, "--submission",
                        out.parent, "--participant", "alice", "--private-key",
                        keypair["private_path"]], capsys)
    # no flag sets the version: the advice says where it comes from instead of naming one
    assert code == 1 and "gnncb encrypt reads the version from competition.yaml" in err
    assert "--competition-version" not in err


# ------------------------------------------------------------------ 4. pasteable follow-ups
def _pasted(stdout: str, prefix: str) -> list[str]:
    """The argv a shell passes when the printed `gnncb ...` line is pasted."""
    line = next(line for line in stdout.splitlines() if prefix in line)
    return shlex.split(line[line.index(prefix):].strip().strip("`()"))[1:]


def test_readme_check_prints_a_command_that_runs_from_a_spaced_path(tmp_path, capsys):
    folder = tmp_path / "my comps" / "park-gnn"
    shutil.copytree(REPO / "competitions" / "park-gnn", folder)
    (folder / "README.md").write_text("stale\n")
    empty = tmp_path / "ledger.jsonl"
    empty.write_text("")
    code, _, err = run(["competition", "readme", folder, "--check", "--ledger", empty], capsys)
    assert code == 1 and "is out of date" in err
    argv = _pasted(err, "gnncb competition readme")
    assert argv == ["competition", "readme", str(folder)]
    code, stdout, err = run([*argv, "--ledger", empty], capsys)
    assert code == 0 and f"wrote {folder / 'README.md'}" in stdout, err
    # a repository slug stays a slug (an empty ledger drops the committed baseline rows)
    code, _, err = run(["competition", "readme", "gnn-cora", "--check", "--ledger", empty],
                       capsys)
    assert code == 1
    assert _pasted(err, "gnncb competition readme") == ["competition", "readme", "gnn-cora"]


@pytest.mark.slow
def test_code_judge_next_command_survives_a_space_and_the_report_explains_itself(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GNNCB_CACHE", str(tmp_path / "cache"))
    out_dir = tmp_path / "judge runs" / "run 1"
    code, stdout, err = run(["code", "judge", "--reference", "--problems", "lc207",
                             "--per-cell", "2", "--jobs", "1", "--no-memory", "--out", out_dir],
                            capsys)
    assert code == 0, err
    argv = _pasted(stdout, "gnncb code report")
    assert argv == ["code", "report", str(out_dir)]
    code, stdout, err = run(argv, capsys)
    assert code == 0, err
    # 5. the legend: verdict columns, the direction column and the sub-category letters
    for said in ("WA = wrong answer", "RE = runtime error", "TLE = time limit exceeded",
                 "MLE = memory limit exceeded", "dir. = direction (D directed, U undirected)",
                 "c = connected", "dc = disconnected", "cy = cyclic", "acy = acyclic"):
        assert said in stdout, said
    md = (out_dir / "report" / "report.md").read_text()
    table = md.split("## By problem", 1)[1]
    assert "WA = wrong answer" in table.split("| problem |", 1)[0]  # said before the table
    assert "dir. = direction" in md and "c = connected" in md


def test_llm_campaign_report_command_survives_a_space(tmp_path, keypair, monkeypatch, capsys):
    import evaluator.llm.campaign as campaign

    def fake_campaign(models, competitions, config, options, **_):
        (options.runs_root / options.campaign).mkdir(parents=True)
        return [{"status": "failed", "model": models[0], "slug": competitions[0].name}]

    monkeypatch.setattr(campaign, "run_campaign", fake_campaign)
    runs = tmp_path / "my runs"
    code, stdout, err = run(["llm", "campaign", "--models", "m", "--competitions", "gnn-cora",
                             "--runs", runs, "--campaign", "c1", "--no-score", "--public-key",
                             keypair["public_path"]], capsys)
    assert code == 0, err
    assert "campaign c1: 1 failed" in stdout
    argv = _pasted(stdout, "gnncb llm report")
    assert argv == ["llm", "report", "--runs", str(runs / "c1")]
    code, _, err = run(argv, capsys)
    assert code == 0, err


def test_code_llm_run_judge_later_command_survives_a_space(tmp_path, monkeypatch, capsys):
    import evaluator.codetrack.llmrun.repair as repair
    import evaluator.commands._code_llm as code_cmd
    import evaluator.llm.session as session

    monkeypatch.setattr(code_cmd, "_provider", lambda args: (object(), None))
    monkeypatch.setattr(session, "check_isolation", lambda required, echo: None)
    monkeypatch.setattr(repair, "run_problem", lambda *a, **k: {"status": "sealed"})
    runs = tmp_path / "code runs"
    code, stdout, err = run(["code", "llm", "run", "--model", "m", "--problems", "lc207",
                             "--runs", runs, "--campaign", "c1", "--no-score"], capsys)
    assert code == 0, err
    argv = _pasted(stdout, "gnncb code llm score")
    assert argv == ["code", "llm", "score", "--runs", str(runs / "c1" / "m")]


def test_competition_new_next_commands_all_survive_a_space(tmp_path, capsys):
    root = tmp_path / "my repository"
    root.mkdir()
    code, stdout, err = run(["competition", "new", "toy-space", "--root", root], capsys)
    assert code == 0, err
    folder = root / "competitions" / "toy-space"
    for verb in ("build", "readme", "lint"):
        argv = _pasted(stdout, f"gnncb competition {verb}")
        assert argv[:3] == ["competition", verb, str(folder)], verb
        assert argv[-2:] == ["--root", str(root)], verb  # the pasted line finds it again


# ------------------------------------------------------------------ 6. README
def test_readme_mentions_version_and_its_quick_start_is_two_commands():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert "gnncb --version" in text
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = quick.split("```")[1::2]
    commands = [line for block in blocks for line in block.splitlines()[1:]
                if line.strip() and not line.lstrip().startswith("#")]
    assert len(commands) == 2, commands
    done = subprocess.run([sys.executable, "-m", "evaluator.cli", "--version"],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    assert done.stdout.startswith("gnncb ")


