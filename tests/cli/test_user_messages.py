"""What participants and maintainers hit when they try the CLI as new users (issue 15): each test
runs the real command and asserts the message a user reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.authoring.demo import predict_label_propagation
from evaluator.cli import PLUGINS, VERBS, build_parser
from evaluator.submission import envelope, keys
from tests.cli.helpers import encrypt, run
from tests.helpers.paths import REPO


def gnncb(*args: str, env: dict | None = None, cwd: Path = REPO) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, "-m", "evaluator.cli", *args], capture_output=True,
                          text=True, cwd=cwd, env=full, timeout=600)


# ------------------------------------------------------------------ 1. slug or path everywhere
def test_check_takes_a_slug(demo_competition, monkeypatch, capsys):
    monkeypatch.setenv("GNNCB_ROOT", str(demo_competition.parent.parent))
    sample = demo_competition / "data" / "sample_submission.csv"
    code, out, err = run(["check", "--competition", demo_competition.name, sample], capsys)
    assert code == 0, err
    assert f"is a valid submission for {demo_competition.name}" in out


def test_unknown_competition_gets_did_you_mean_and_the_list(demo_competition, monkeypatch,
                                                            capsys):
    monkeypatch.setenv("GNNCB_ROOT", str(demo_competition.parent.parent))
    typo = demo_competition.name[:-1] + "x"
    code, _, err = run(["check", "--competition", typo, "f.csv"], capsys)
    assert code == 2
    assert f"competition {typo!r} not found" in err
    assert f"did you mean {demo_competition.name}?" in err
    assert f"competitions: {demo_competition.name}" in err
    assert "Traceback" not in err


def test_repository_slugs_resolve_for_every_verb_that_takes_one(capsys):
    sample = REPO / "competitions" / "gnn-cora" / "data" / "sample_submission.csv"
    code, out, err = run(["check", "--competition", "gnn-cora", sample], capsys)
    assert code == 0, err and "gnn-cora" in out
    code, _, err = run(["evaluate", "--competition", "gnn-kora", "--submission", ".",
                        "--participant", "x"], capsys)
    assert code == 2 and "did you mean gnn-cora" in err


# ------------------------------------------------------------------ 3. --json and --version
def test_version_and_help_import_no_heavy_modules():
    probe = ("import sys, runpy; sys.argv=['gnncb', '{arg}'];\n"
             "try: runpy.run_module('evaluator.cli', run_name='__main__')\n"
             "except SystemExit: pass\n"
             "print('LOADED', sorted(m for m in ('pandas','networkx','numpy','jinja2',"
             "'evaluator.codetrack','evaluator.competition.spec') if m in sys.modules))")
    for arg, shows in (("--version", "gnncb 0.1.0"), ("--help", "graph-coding track")):
        done = subprocess.run([sys.executable, "-c", probe.format(arg=arg)], capture_output=True,
                              text=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
                              timeout=600)
        assert shows in done.stdout, done.stderr
        assert "LOADED []" in done.stdout, done.stdout


@pytest.mark.slow
def test_check_imports_no_networkx(demo_competition):
    sample = demo_competition / "data" / "sample_submission.csv"
    probe = ("import sys; from evaluator.cli import main;\n"
             f"code = main(['check', '--competition', {str(demo_competition)!r}, "
             f"{str(sample)!r}]);\n"
             "print('NX', 'networkx' in sys.modules, 'CODE', code)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=600)
    assert "NX False CODE 0" in done.stdout, done.stdout + done.stderr


def test_verb_table_matches_what_the_plugins_register():
    full = build_parser()
    sub = next(a for a in full._actions if a.__class__.__name__ == "_SubParsersAction")
    assert set(sub.choices) == set(VERBS), "update evaluator.cli.VERBS"
    helps = {a.dest: a.help for a in sub._choices_actions}
    for verb, (help_text, modules) in VERBS.items():
        assert helps[verb] == help_text, verb
        assert set(modules) <= set(PLUGINS)
        one = build_parser(verb)
        sub_one = next(a for a in one._actions if a.__class__.__name__ == "_SubParsersAction")
        full_actions = sub.choices[verb]._actions
        one_actions = sub_one.choices[verb]._actions
        names = lambda acts: sorted(  # noqa: E731
            str(getattr(a, "choices", None) and sorted(a.choices)) + a.dest for a in acts)
        assert names(one_actions) == names(full_actions), verb
    build_parser()  # leave the full GROUPS behind for other tests


def test_check_json_valid_and_invalid(demo_competition, tmp_path, capsys):
    sample = demo_competition / "data" / "sample_submission.csv"
    code, out, _ = run(["check", "--json", "--competition", demo_competition, sample], capsys)
    report = json.loads(out)
    assert code == 0 and report["valid"] is True and report["problems"] == []
    assert report["rows"] > 0 and report["competition"] == demo_competition.name
    lines = sample.read_text().splitlines()
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join([lines[0], lines[1].split(",")[0] + ",", *lines[2:-1]]) + "\n")
    code, out, _ = run(["check", "--json", "--competition", demo_competition, bad], capsys)
    report = json.loads(out)
    assert code == 1 and report["valid"] is False and report["code"] == "invalid-predictions"
    assert any("empty cell at line(s) 2" in p["message"] for p in report["problems"])
    assert any("missing" in p["message"] for p in report["problems"])


# ------------------------------------------------------------------ 4. encrypt
def test_encrypt_warns_about_missing_declarations_and_lowercases(demo_competition, keypair,
                                                                  tmp_path, capsys):
    out = tmp_path / "elsewhere" / "predictions.csv.enc"
    code, stdout, err = encrypt(demo_competition, keypair, tmp_path, capsys, out)
    assert code == 0, err
    assert "warning: not declared: --gnn-only" in err
    assert "warning: not declared: --seed (the rules fix the seed to 25)" in err
    assert "warning: not declared: --tuning-runs" in err
    meta = json.loads((out.parent / "metadata.json").read_text())
    claims = envelope.read_header(out.read_bytes())
    assert meta["participant"] == claims["participant"] == "alice"
    assert f"next: copy both into competitions/{demo_competition.name}/submissions/alice/" \
        in stdout


def test_encrypt_into_submissions_folder_says_ready_to_commit(demo_competition, keypair,
                                                               tmp_path, capsys):
    out = demo_competition / "submissions" / "alice" / "predictions.csv.enc"
    code, stdout, err = encrypt(demo_competition, keypair, tmp_path, capsys, out,
                                "--gnn-only", "--seed", "25", "--tuning-runs", "1",
                                "--training-time-minutes", "2", "--hardware", "laptop")
    assert code == 0, err
    assert "ready to commit" in stdout and "copy both" not in stdout
    assert "warning" not in err


def test_encrypt_bad_option_value_is_a_message_not_a_traceback(demo_competition, keypair,
                                                                 tmp_path, capsys):
    code, _, err = encrypt(demo_competition, keypair, tmp_path, capsys,
                           tmp_path / "x" / "p.enc", "--tuning-runs", "-3")
    assert code == 2 and "cannot write metadata.json: tuning_runs" in err
    assert "Traceback" not in err and "pydantic" not in err


# ------------------------------------------------------------------ 5. evaluate
def test_evaluate_prints_rank_and_remaining(demo_competition, keypair, tmp_path, capsys):
    out = tmp_path / "sub" / "predictions.csv.enc"
    encrypt(demo_competition, keypair, tmp_path, capsys, out, "--seed", "25")
    ledger = tmp_path / "ledger.jsonl"
    code, stdout, err = run(["evaluate", "--competition", demo_competition, "--submission",
                             out.parent, "--participant", "alice", "--private-key",
                             keypair["private_path"], "--ledger", ledger], capsys)
    assert code == 0, err
    assert f"rank: 1 of 1 in {ledger}" in stdout
    assert "remaining: " in stdout and "in the next 24 hours" in stdout


def test_version_mismatch_advice_names_what_to_do(demo_competition, keypair, tmp_path, capsys):
    out = tmp_path / "sub" / "predictions.csv.enc"
    encrypt(demo_competition, keypair, tmp_path, capsys, out)
    spec_path = demo_competition / "competition.yaml"
    spec_path.write_text(spec_path.read_text().replace("version: 1", "version: 2", 1))
    code, _, err = run(["evaluate", "--competition", demo_competition, "--submission",
                        out.parent, "--participant", "alice", "--private-key",
                        keypair["private_path"]], capsys)
    assert code == 1
    assert "claim 'competition_version' is 1, expected 2" in err
    assert "git pull" in err and "encrypt again" in err


# ------------------------------------------------------------------ 6. ledger list/show
def test_ledger_list_show_and_second_withdrawal(demo_competition, keypair, tmp_path, capsys):
    out = tmp_path / "sub" / "predictions.csv.enc"
    encrypt(demo_competition, keypair, tmp_path, capsys, out)
    root = demo_competition.parent.parent  # holds competitions/<slug>
    ledger = root / "leaderboard" / "ledger.jsonl"
    ledger.parent.mkdir(parents=True)
    run(["evaluate", "--competition", demo_competition, "--submission", out.parent,
         "--participant", "alice", "--private-key", keypair["private_path"], "--ledger",
         ledger], capsys)
    digest = json.loads(ledger.read_text().splitlines()[0])["digest"]
    code, stdout, _ = run(["ledger", "list", "--ledger", ledger, "--participant", "ALICE"],
                          capsys)
    assert code == 0 and digest[:16] in stdout and "active" in stdout
    assert f"1 submission(s) in {ledger}" in stdout
    code, stdout, _ = run(["ledger", "list", "--ledger", ledger, "--kind", "baseline"], capsys)
    assert "0 submission(s)" in stdout
    code, stdout, _ = run(["ledger", "list", "--ledger", ledger, "--since", "2999-01-01"],
                          capsys)
    assert "0 submission(s)" in stdout
    code, _, err = run(["ledger", "list", "--ledger", ledger, "--since", "yesterday"], capsys)
    assert code == 2 and "give a date like 2026-12-01" in err

    code, stdout, err = run(["ledger", "withdraw", digest[:10], "--reason", "leaked labels",
                             "--by", "maint1", "--root", root], capsys)
    assert code == 0, err
    code, stdout, _ = run(["ledger", "withdraw", digest[:10], "--reason", "another reason",
                           "--by", "maint2", "--root", root], capsys)
    assert "already withdrawn on " in stdout and "by maint1: leaked labels" in stdout
    assert "another reason" not in stdout.split("(nothing written")[0]
    code, stdout, _ = run(["ledger", "show", digest[:12], "--ledger", ledger], capsys)
    assert code == 0 and f'"digest": "{digest}"' in stdout
    assert "status: withdrawn" in stdout and "by maint1: leaked labels" in stdout
    code, stdout, _ = run(["ledger", "list", "--ledger", ledger, "--json"], capsys)
    assert json.loads(stdout.splitlines()[0])["status"] == "withdrawn"


# ------------------------------------------------------------------ 7. keys reseal
@pytest.mark.slow
def test_keys_reseal_rotates_labels_without_raw_data(demo_competition, keypair, tmp_path,
                                                     capsys):
    new_dir = tmp_path / "new"
    keys.generate(new_dir, bits=3072)
    hidden = sorted((demo_competition / "hidden").glob("*.jwe"))
    before = {p: p.read_bytes() for p in hidden}
    code, stdout, err = run(["keys", "reseal", demo_competition, "--private-key",
                             new_dir / "private.pem", "--public-key", new_dir / "public.pem"],
                            capsys)
    assert code == 2 and "Maintainers: give the private key these labels were sealed to" in err
    assert "encrypt with the public key in keys/" not in err.split("Maintainers")[1]
    assert {p: p.read_bytes() for p in hidden} == before  # nothing written on failure
    code, stdout, err = run(["keys", "reseal", demo_competition, "--private-key",
                             keypair["private_path"], "--public-key", new_dir / "public.pem"],
                            capsys)
    assert code == 0, err
    assert stdout.count("re-sealed ") == len(hidden)
    new_private = keys.load_private_keys((new_dir / "private.pem").read_text())
    for path in hidden:
        header = envelope.read_header(path.read_bytes())
        assert header["kid"] == next(iter(new_private))
        envelope.open_labels(path.read_bytes(), new_private, header["competition"],
                             header["competition_version"], header["split"], source=str(path))
        assert path.read_bytes() != before[path]
    # the competition still evaluates with only the new key
    out = tmp_path / "sub" / "predictions.csv.enc"
    preds = tmp_path / "p.csv"
    predict_label_propagation(demo_competition).to_csv(preds, index=False)
    run(["encrypt", "--competition", demo_competition, "--participant", "bob", "--public-key",
         new_dir / "public.pem", "--method", "m", "-o", out, preds], capsys)
    code, stdout, err = run(["evaluate", "--competition", demo_competition, "--submission",
                             out.parent, "--participant", "bob", "--private-key",
                             new_dir / "private.pem"], capsys)
    assert code == 0, err


def test_keys_reseal_rebinds_labels_after_a_version_bump(demo_competition, keypair, capsys):
    spec_path = demo_competition / "competition.yaml"
    spec_path.write_text(spec_path.read_text().replace("version: 1", "version: 2", 1))
    code, _, err = run(["competition", "lint", demo_competition, "--private-key",
                        keypair["private_path"]], capsys)
    code, stdout, err = run(["keys", "reseal", demo_competition, "--private-key",
                             keypair["private_path"], "--public-key", keypair["public_path"]],
                            capsys)
    assert code == 0, err and "version 1 -> 2" in stdout
    for path in (demo_competition / "hidden").glob("*.jwe"):
        assert envelope.read_header(path.read_bytes())["competition_version"] == 2


def test_over_the_daily_limit_says_when_the_window_reopens(demo_competition):
    from datetime import UTC, datetime

    from evaluator.competition.spec import load_spec
    from evaluator.errors import Rejection
    from evaluator.pipeline.evaluate import check_eligibility

    spec_path = demo_competition / "competition.yaml"
    spec_path.write_text(spec_path.read_text().replace("per_day: 5", "per_day: 2"))
    spec = load_spec(demo_competition)
    per_day = spec.submission.limits.per_day
    assert per_day == 2
    times = [f"2026-12-01T{h:02d}:15:00Z" for h in range(per_day)]
    rows = [{"type": "submission", "digest": f"{i:064x}", "slug": spec.slug,
             "version": spec.version, "participant": "alice", "scored_at": t, "scores": {}}
            for i, t in enumerate(times)]
    try:
        check_eligibility(spec, rows, "alice", datetime(2026, 12, 1, 23, 0, tzinfo=UTC))
    except Rejection as err:
        # the oldest submission in the window leaves it 24 hours after it was scored
        assert "the window reopens at 2026-12-02 00:15 UTC" in str(err)
    else:
        raise AssertionError("over the daily limit was accepted")


# ------------------------------------------------------------------ 10. pasteable commands
def test_printed_follow_up_commands_survive_a_space_in_the_path(tmp_path, capsys):
    import shlex

    root = tmp_path / "my repository"
    root.mkdir()
    code, stdout, err = run(["competition", "new", "toy-space", "--root", root], capsys)
    assert code == 0, err
    lint_line = next(line.strip() for line in stdout.splitlines()
                     if line.strip().startswith("gnncb competition lint"))
    argv = shlex.split(lint_line)[1:]  # what a shell passes when the line is pasted
    assert argv[-3:] == [str(root / "competitions" / "toy-space"), "--root", str(root)]
    code, stdout, _ = run(argv, capsys)
    assert "problem(s)" in stdout  # the fresh scaffold is linted: its unfilled text is a finding


# ------------------------------------------------------------------ 12. legends
def test_code_problems_explains_its_tags(capsys):
    code, stdout, _ = run(["code", "problems"], capsys)
    assert code == 0
    tags = {line.rsplit("[", 1)[1].rstrip("]") for line in stdout.splitlines()
            if line.startswith("lc")}
    legend = stdout.split("[tags]", 1)[1]
    for tag in tags:
        assert f"\n  {tag} " in legend, tag
    code, stdout, _ = run(["code", "show", "lc997", "--examples", "0"], capsys)
    assert "Published labels: constant-answer" in stdout and "says little" in stdout


# ------------------------------------------------------------------ 8./9. stored envelopes, where
def test_evaluate_stores_the_envelope_so_rescore_needs_no_skip(demo_competition, keypair,
                                                               tmp_path, capsys):
    out = tmp_path / "sub" / "predictions.csv.enc"
    encrypt(demo_competition, keypair, tmp_path, capsys, out)
    root = demo_competition.parent.parent
    ledger = root / "leaderboard" / "ledger.jsonl"
    code, _, err = run(["evaluate", "--competition", demo_competition, "--submission",
                        out.parent, "--participant", "alice", "--private-key",
                        keypair["private_path"], "--ledger", ledger], capsys)
    assert code == 0, err
    digest = envelope.digest(out.read_bytes())
    assert (ledger.parent / "envelopes" / f"{digest}.jwe").read_bytes().strip() == \
        out.read_bytes().strip()
    code, stdout, err = run(["ledger", "rescore", demo_competition.name, "--root", root,
                             "--private-key", keypair["private_path"], "--dry-run"], capsys)
    assert code == 0, err
    assert "re-scored 1 active submission(s); 0 changed" in stdout
    code, stdout, _ = run(["leaderboard", "render", "--ledger", ledger, "--competitions",
                           root / "competitions"], capsys)
    assert code == 0
    assert f"from {ledger} into {ledger.parent} (beside the ledger)" in stdout


# ------------------------------------------------------------------ 11. progress
def test_code_generate_reports_progress_in_ci_logs(tmp_path, capsys):
    code, stdout, err = run(["code", "generate", "--per-cell", "2", "--jobs", "1",
                             "--problems", "lc207,lc997", "--out", tmp_path / "set"], capsys)
    assert code == 0, err
    lines = [line for line in err.splitlines() if line.startswith("generating problems")]
    assert lines and "2/2" in lines[-1] and "\r" not in err  # whole lines, not a redrawn bar


def test_progress_is_a_tqdm_bar_on_a_terminal():
    import io

    from evaluator.util.progress import Progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    with Progress(3, "work", stream=stream) as bar:
        for _ in range(3):
            bar.update()
    assert "\r" in stream.getvalue() and "3/3" in stream.getvalue()


def test_rows_a_rescore_cannot_reach_are_marked_stale(demo_competition, keypair, tmp_path,
                                                      capsys):
    out = tmp_path / "sub" / "predictions.csv.enc"
    encrypt(demo_competition, keypair, tmp_path, capsys, out)
    root = demo_competition.parent.parent
    ledger = root / "leaderboard" / "ledger.jsonl"
    run(["evaluate", "--competition", demo_competition, "--submission", out.parent,
         "--participant", "alice", "--private-key", keypair["private_path"], "--ledger",
         ledger], capsys)
    digest = envelope.digest(out.read_bytes())
    (ledger.parent / "envelopes" / f"{digest}.jwe").unlink()  # as for rows from before storing
    code, _, err = run(["ledger", "rescore", demo_competition.name, "--root", root,
                        "--private-key", keypair["private_path"]], capsys)
    assert code == 2 and "pass --skip-missing" in err
    code, stdout, err = run(["ledger", "rescore", demo_competition.name, "--root", root,
                             "--private-key", keypair["private_path"], "--skip-missing",
                             "--by", "maint"], capsys)
    assert code == 0, err
    assert "no stored envelope (marked as scored on old labels)" in stdout
    code, stdout, _ = run(["ledger", "list", "--ledger", ledger, "--status", "stale"], capsys)
    assert digest[:16] in stdout and "1 submission(s)" in stdout
    code, stdout, _ = run(["ledger", "show", digest[:12], "--ledger", ledger], capsys)
    assert "status: stale" in stdout and "scored on old labels: not re-scored" in stdout
    from evaluator.ledger.store import Ledger, active_submissions

    (row,) = active_submissions(Ledger(ledger).rows())
    assert row["stale_since"]
    run(["leaderboard", "render", "--ledger", ledger, "--competitions", root / "competitions"],
        capsys)
    board = (ledger.parent / f"{demo_competition.name}.md").read_text()
    assert " ‡ |" in board and "‡ = scored on hidden labels that were corrected later" in board
