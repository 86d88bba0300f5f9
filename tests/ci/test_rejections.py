"""Every hostile or broken pull request is refused with a clear answer and no side effect."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from evaluator.ci.comment import MARKER_PREFIX
from evaluator.ci.logs import one_line
from evaluator.submission import envelope, keys
from tests.helpers.arena import Arena, run_pr
from tests.helpers.fake_github import FakeGitHub, Symlink

OWN = "competitions/toy-nodes/submissions/alice"


def _with(extra: dict[str, bytes]) -> Callable[[Arena], dict[str, Any]]:
    return lambda a: {"files": {**a.files("toy-nodes", "alice"), **extra}}


def _rename(a: Arena) -> dict[str, Any]:
    return {"files": a.files("toy-nodes", "alice"),
            "renamed": {f"{OWN}/predictions.csv.enc":
                        "competitions/toy-nodes/submissions/bob/predictions.csv.enc"}}


def _symlink(a: Arena) -> dict[str, Any]:
    files: dict[str, Any] = a.files("toy-nodes", "alice")
    files[f"{OWN}/predictions.csv.enc"] = Symlink("../../../hidden/test_labels.jwe")
    return {"files": files}


def _too_large(a: Arena) -> dict[str, Any]:
    files = a.files("toy-nodes", "alice")
    files[f"{OWN}/predictions.csv.enc"] = a.envelope("toy-nodes", "alice", data=b"9" * 12000)
    return {"files": files}


def _copied(a: Arena) -> dict[str, Any]:
    """eve copies bob's envelope from bob's public PR into her own folder."""
    files = a.files("toy-nodes", "eve", folder_login="alice", meta_login="alice")
    files[f"{OWN}/predictions.csv.enc"] = a.envelope("toy-nodes", "bob")
    return {"files": files}


def _tampered(a: Arena) -> dict[str, Any]:
    files = a.files("toy-nodes", "alice")
    parts = files[f"{OWN}/predictions.csv.enc"].split(b".")
    parts[3] = (b"A" if parts[3][:1] != b"A" else b"B") + parts[3][1:]
    files[f"{OWN}/predictions.csv.enc"] = b".".join(parts)
    return {"files": files}


def _wrong_key(a: Arena, tmp: Any) -> dict[str, Any]:
    keys.generate(tmp / "other", bits=3072)
    other = keys.load_public_key((tmp / "other" / "public.pem").read_bytes())
    files = a.files("toy-nodes", "alice")
    files[f"{OWN}/predictions.csv.enc"] = envelope.seal(
        a.predictions("toy-nodes"), other, envelope.prediction_claims("toy-nodes", 1, "alice"))
    return {"files": files}


def _truncated(a: Arena) -> dict[str, Any]:
    files = a.files("toy-nodes", "alice")
    short = b"\n".join(a.predictions("toy-nodes").split(b"\n")[:-4]) + b"\n"
    files[f"{OWN}/predictions.csv.enc"] = a.envelope("toy-nodes", "alice", data=short)
    return {"files": files}


CASES: dict[str, tuple[Callable[..., dict[str, Any]], str, str]] = {
    # name: (PR builder, expected code, text the answer must contain)
    "dotdot": (_with({f"{OWN}/../bob/metadata.json": b"{}"}), "unsafe-path", "bob"),
    "absolute": (_with({"/etc/passwd": b"x"}), "unsafe-path", "passwd"),
    "dollar-paren": (_with({f"{OWN}/$(touch pwned)": b"x"}), "unsafe-path", "pwned"),
    "backtick": (_with({f"{OWN}/`id`": b"x"}), "unsafe-path", "id"),
    "semicolon": (_with({f"{OWN}/a;reboot": b"x"}), "unsafe-path", "reboot"),
    "newline": (_with({f"{OWN}/x\n::error::boom": b"x"}), "unsafe-path", "boom"),
    "html-name": (_with({f"{OWN}/<img src=x>": b"x"}), "unsafe-path", "img"),
    "symlink": (_symlink, "symlink", "symbolic link"),
    "rename": (_rename, "rename", "renames"),
    "deletion": (lambda a: {"files": a.files("toy-nodes", "alice"),
                            "removed": (f"{OWN}/old.csv",)}, "deletion", "deletes"),
    "extra-file": (_with({f"{OWN}/notes.txt": b"hi"}), "extra-file", "notes"),
    "too-large": (_too_large, "too-large", "limit"),
    "other-folder": (lambda a: {"files": a.files("toy-nodes", "alice", folder_login="bob")},
                     "other-participant", "bob"),
    "unknown-competition": (
        lambda a: {"files": {k.replace("toy-nodes", "no-such-comp"): v
                             for k, v in a.files("toy-nodes", "alice").items()}},
        "unknown-competition", "no"),
    "touches-workflows": (_with({".github/workflows/evil.yml": b"on: push"}), "platform-path",
                          "workflows"),
    "touches-evaluator": (_with({"evaluator/pipeline/evaluate.py": b"print(1)"}), "platform-path",
                          "evaluator"),
    "two-submissions": (lambda a: {"files": {**a.files("toy-nodes", "alice"),
                                             **a.files("toy-graphs", "alice")}},
                        "two-submissions", "one pull request per competition"),
    "copied-envelope": (_copied, "claim-mismatch", "participant"),
    "metadata-claims-other": (lambda a: {"files": a.files("toy-nodes", "alice",
                                                          meta_login="bob")},
                              "claim-mismatch", "metadata"),
    "tampered": (_tampered, "tampered", "tampered"),
    "truncated-predictions": (_truncated, "invalid-predictions", "gnncb check"),
    "wrong-base": (lambda a: {"files": a.files("toy-nodes", "alice"), "base": "dev"},
                   "wrong-base", "dev"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_pr_is_rejected_without_side_effect(name: str, arena: Arena,
                                                    fake: FakeGitHub) -> None:
    build, code, text = CASES[name]
    fake.open_pr(1, "alice", **build(arena))
    head = arena.head()
    result, published = run_pr(arena, fake, 1)
    assert (result.status, result.code) == ("rejected", code), result.reason
    assert result.scores == {} and result.row is None
    assert arena.head() == head and arena.rows() == []  # nothing recorded, nothing pushed
    [answer] = fake.bot_comments(1)
    assert MARKER_PREFIX in answer and "Submission rejected" in answer
    assert text in answer
    assert "accuracy" not in answer  # no score is ever shown for a rejection
    assert "<img" not in answer and "\n::" not in answer  # escaped, one line per item
    assert fake.labels[1] == ["gnncb: rejected"] and fake.pulls[1]["state"] == "closed"
    assert published.status == "rejected"


def test_wrong_key_is_rejected(arena: Arena, fake: FakeGitHub, tmp_path: Any) -> None:
    fake.open_pr(1, "alice", **_wrong_key(arena, tmp_path))
    result, _ = run_pr(arena, fake, 1)
    assert (result.status, result.code) == ("rejected", "wrong-key")
    assert "keys/platform-public.pem" in fake.bot_comments(1)[0]


def test_over_the_limit_is_rejected_before_scoring(arena: Arena, fake: FakeGitHub) -> None:
    rows = [{"type": "submission", "digest": f"{i:064x}", "slug": "toy-nodes", "version": 1,
             "participant": "alice", "participant_id": 77, "entrant": "human", "method": "m",
             "scores": {"accuracy": 0.5, "macro_f1": 0.5}, "pr": 100 + i,
             "submitted_at": "2020-01-01T00:00:00Z", "scored_at": "2020-01-01T00:00:00Z"}
            for i in range(3)]  # per_version is 3 in the toy spec
    arena.commit_rows(rows)
    fake.open_pr(1, "alice", arena.files("toy-nodes", "alice"), author_id=77)
    head = arena.head()
    result, _ = run_pr(arena, fake, 1)
    assert (result.status, result.code) == ("rejected", "over-limit")
    assert result.scores == {} and arena.head() == head
    answer = fake.bot_comments(1)[0]
    assert "used all 3 submissions" in answer and "0.5" not in answer


def test_reused_login_is_refused(arena: Arena, fake: FakeGitHub) -> None:
    arena.commit_rows([{"type": "submission", "digest": "f" * 64, "slug": "toy-nodes",
                        "version": 1, "participant": "alice", "participant_id": 1,
                        "entrant": "human", "method": "m", "scores": {"accuracy": 1.0},
                        "pr": 90, "submitted_at": "2020-01-01T00:00:00Z",
                        "scored_at": "2020-01-01T00:00:00Z"}])
    fake.open_pr(1, "alice", arena.files("toy-nodes", "alice"), author_id=2)
    result, _ = run_pr(arena, fake, 1)
    assert (result.status, result.code) == ("rejected", "identity-mismatch")


def test_bot_accounts_are_not_participants(arena: Arena, fake: FakeGitHub) -> None:
    fake.open_pr(1, "dependabot[bot]", arena.files("toy-nodes", "alice"), author_type="Bot")
    result, _ = run_pr(arena, fake, 1)
    assert (result.status, result.code) == ("rejected", "invalid-author")


def test_closed_pr_is_left_alone(arena: Arena, fake: FakeGitHub) -> None:
    fake.open_pr(1, "alice", arena.files("toy-nodes", "alice"), state="closed")
    head = arena.head()
    result, published = run_pr(arena, fake, 1)
    assert (result.status, result.code) == ("skipped", "closed")
    assert arena.head() == head and fake.comments[1] == [] and fake.writes() == []
    assert not published.closed


def test_log_lines_cannot_carry_workflow_commands() -> None:
    line = one_line("competitions/x/\n::add-mask::secret\x1b[31m")
    assert "\n" not in line and "\x1b" not in line and "\\n::add-mask" in line
