"""The PR file policy on its own: which changed-file lists are a submission, which are refused."""

from __future__ import annotations

import pytest

from evaluator.ci.github import ChangedFile
from evaluator.ci.policy import PolicyRejection, check_pr_files

SLUGS = {"toy-nodes", "toy-graphs"}
BASE = "competitions/toy-nodes/submissions/alice"
SHA = "a" * 40


def added(path: str, status: str = "added", previous: str | None = None) -> ChangedFile:
    return ChangedFile(filename=path, status=status, sha=SHA, previous_filename=previous)


def good() -> list[ChangedFile]:
    return [added(f"{BASE}/predictions.csv.enc"), added(f"{BASE}/metadata.json")]


def check(files: list[ChangedFile], author: str = "alice", total: int | None = None):
    return check_pr_files(files, author, competition_exists=SLUGS.__contains__,
                          total_files=total)


def refused(files: list[ChangedFile], author: str = "alice") -> PolicyRejection:
    with pytest.raises(PolicyRejection) as info:
        check(files, author)
    return info.value


def test_two_files_in_own_folder_are_a_submission() -> None:
    sub = check(good())
    assert (sub.slug, sub.login, sub.folder) == ("toy-nodes", "alice", BASE)
    assert sub.envelope.filename.endswith("predictions.csv.enc")


def test_login_case_does_not_matter() -> None:
    assert check(good(), author="Alice").login == "alice"


HOSTILE = {
    "dotdot": (f"{BASE}/../bob/predictions.csv.enc", "unsafe-path"),
    "absolute": ("/etc/passwd", "unsafe-path"),
    "dollar-paren": (f"{BASE}/$(curl evil).csv", "unsafe-path"),
    "backtick": (f"{BASE}/`id`.csv", "unsafe-path"),
    "semicolon": (f"{BASE}/a;rm -rf ~", "unsafe-path"),
    "newline": (f"{BASE}/x\n::set-output name=a::b", "unsafe-path"),
    "space": (f"{BASE}/my file.csv", "unsafe-path"),
    "html": (f"{BASE}/<img src=x onerror=alert(1)>", "unsafe-path"),
    "empty-segment": (f"{BASE}//metadata.json", "unsafe-path"),
    "workflow": (".github/workflows/evil.yml", "platform-path"),
    "evaluator": ("evaluator/pipeline/evaluate.py", "platform-path"),
    "ledger": ("leaderboard/ledger.jsonl", "platform-path"),
    "competition-spec": ("competitions/toy-nodes/competition.yaml", "outside-submission"),
    "hidden-labels": ("competitions/toy-nodes/hidden/test_labels.jwe", "outside-submission"),
    "extra-file": (f"{BASE}/notes.txt", "extra-file"),
    "unknown-competition": ("competitions/nope/submissions/alice/metadata.json",
                            "unknown-competition"),
    "other-participant": ("competitions/toy-nodes/submissions/bob/predictions.csv.enc",
                          "other-participant"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_path_is_refused_and_named(name: str) -> None:
    path, code = HOSTILE[name]
    err = refused([*good(), added(path)])
    assert err.code == code
    assert [p.path for p in err.problems] == [path]
    assert repr(path) in str(err)  # named, with control characters escaped


def test_deletion_rename_and_copy_are_refused() -> None:
    err = refused([*good(), added(f"{BASE}/old.csv", status="removed")])
    assert err.code == "deletion"
    err = refused([added(f"{BASE}/predictions.csv.enc", "renamed",
                         previous="competitions/toy-nodes/submissions/bob/predictions.csv.enc"),
                   added(f"{BASE}/metadata.json")])
    assert err.code == "rename" and "bob" in str(err)
    assert refused([*good()[:1], added(f"{BASE}/metadata.json", "copied")]).code == \
        "unsupported-change"


def test_rename_from_a_hostile_name_is_refused_for_the_name() -> None:
    err = refused([added(f"{BASE}/metadata.json", "renamed", previous="a/$(x)")])
    assert err.code == "unsafe-path"


def test_two_submissions_in_one_pr() -> None:
    other = "competitions/toy-graphs/submissions/alice"
    err = refused([*good(), added(f"{other}/predictions.csv.enc"),
                   added(f"{other}/metadata.json")])
    assert err.code == "two-submissions" and len(err.problems) == 4


@pytest.mark.parametrize("keep", ["predictions.csv.enc", "metadata.json"])
def test_missing_file(keep: str) -> None:
    err = refused([added(f"{BASE}/{keep}")])
    assert err.code == "missing-file"


def test_empty_pr_and_truncated_listing() -> None:
    assert refused([]).code == "missing-file"
    with pytest.raises(PolicyRejection) as info:
        check(good(), total=500)
    assert "500 files" in str(info.value)


def test_every_offender_is_listed_but_the_list_is_bounded() -> None:
    err = refused([added(f"x/{i}.txt") for i in range(50)])
    assert len(err.problems) == 20 and "30 more" in str(err)
