"""Participants told early (issue 25, point 7): `encrypt` names every declaration outside the
rules and writes the canonical folder; `check --json` gives structured problems; counts agree
with their words. Each test runs the real verb."""

from __future__ import annotations

import json

from evaluator.authoring.demo import predict_label_propagation
from tests.cli.helpers import encrypt, run


def test_encrypt_warns_about_every_declaration_outside_the_rules(demo_competition, keypair,
                                                                 tmp_path, capsys):
    out = tmp_path / "elsewhere" / "predictions.csv.enc"
    code, _, err = encrypt(demo_competition, keypair, tmp_path, capsys, out, "--seed", "7",
                           "--tuning-runs", "9", "--no-gnn-only",
                           "--training-time-minutes", "600", "--hardware", "laptop")
    assert code == 0, err
    outside = [line for line in err.splitlines() if line.startswith("warning: outside the rules")]
    assert len(outside) == 4, err
    assert any("seed 7 (the rules fix seed 25)" in line for line in outside)
    assert any("9 tuning runs (at most 5)" in line for line in outside)
    assert any("non-GNN model" in line for line in outside)
    assert any("600 training minutes" in line for line in outside)
    assert all("marked outside the rules" in line for line in outside)


def test_encrypt_within_the_rules_says_nothing_about_rules(demo_competition, keypair, tmp_path,
                                                           capsys):
    out = tmp_path / "elsewhere" / "predictions.csv.enc"
    code, _, err = encrypt(demo_competition, keypair, tmp_path, capsys, out, "--seed", "25",
                           "--tuning-runs", "5", "--gnn-only", "--training-time-minutes", "10",
                           "--hardware", "laptop")
    assert code == 0 and "outside the rules" not in err


def test_encrypt_writes_the_canonical_lower_case_folder(demo_competition, keypair, tmp_path,
                                                        capsys):
    preds = tmp_path / "predictions.csv"
    predict_label_propagation(demo_competition).to_csv(preds, index=False)
    mixed = demo_competition / "submissions" / "Nova-Tester"
    code, out, err = run(["encrypt", "--competition", demo_competition, "--participant",
                          "Nova-Tester", "--public-key", keypair["public_path"], "--method",
                          "label prop", "-o", f"{mixed}/", preds], capsys)
    assert code == 0, err
    canonical = demo_competition / "submissions" / "nova-tester"
    assert (canonical / "predictions.csv.enc").is_file()
    assert (canonical / "metadata.json").is_file()
    assert sorted(p.name for p in (demo_competition / "submissions").iterdir()) == ["nova-tester"]
    assert "ready to commit" in out and "copy both" not in out


def test_check_json_problems_are_structured(demo_competition, tmp_path, capsys):
    sample = demo_competition / "data" / "sample_submission.csv"
    lines = sample.read_text().splitlines()
    bad = tmp_path / "bad.csv"
    first_id = lines[1].split(",")[0]
    bad.write_text("\n".join([lines[0], f"{first_id},", f"{lines[2].split(',')[0]},1.5",
                              *lines[3:-1]]) + "\n")
    code, out, _ = run(["check", "--json", "--competition", demo_competition, bad], capsys)
    report = json.loads(out)
    assert code == 1 and report["valid"] is False
    by_code = {p["code"]: p for p in report["problems"]}
    assert set(by_code) == {"empty-cell", "not-an-integer", "missing-id"}, report
    empty = by_code["empty-cell"]
    assert (empty["file"], empty["line"], empty["column"], empty["count"]) == \
        (str(bad), 2, "label", 1)
    assert empty["message"].endswith("1 empty cell at line(s) 2")
    not_int = by_code["not-an-integer"]
    assert (not_int["line"], not_int["column"]) == (3, "label")
    assert "1 value is not an integer (write" in not_int["message"]
    assert by_code["missing-id"]["count"] == 1 and "1 of " in by_code["missing-id"]["message"]
    assert "test ids is missing" in by_code["missing-id"]["message"]


def test_check_json_gives_the_line_of_a_file_level_problem(demo_competition, tmp_path, capsys):
    bad = tmp_path / "semi.csv"
    bad.write_text("id;label\n1;0\n")
    code, out, _ = run(["check", "--json", "--competition", demo_competition, bad], capsys)
    problems = json.loads(out)["problems"]
    assert code == 1 and len(problems) == 1
    assert (problems[0]["code"], problems[0]["line"], problems[0]["file"]) == \
        ("header", 1, str(bad))


def test_counts_agree_with_their_words(demo_competition, tmp_path, capsys):
    sample = demo_competition / "data" / "sample_submission.csv"
    lines = sample.read_text().splitlines()
    bad = tmp_path / "one.csv"
    bad.write_text("\n".join([lines[0], f"{lines[1].split(',')[0]},1.0", *lines[2:]]) + "\n")
    code, _, err = run(["check", "--competition", demo_competition, bad], capsys)
    assert code == 1
    assert "1 value is not an integer" in err and "1 values" not in err, err
