"""Phase 2 of a code-track pull request: record, render, commit, answer, label, close.

Runs with the write token and runs no participant code. It validates the artifact, re-downloads
the blobs to check they hash to the judged digest, appends the ledger row, re-renders every
board, commits with rebase-retry (gitops), answers once (marker), labels and closes; the steps
around the ledger commit are the predictions pipeline's (`evaluator.ci.predictions.publish`),
so both pipelines order and repeat them the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from markupsafe import Markup

from evaluator.ci.code.fetch import digest_of
from evaluator.ci.code.result import CodeResult
from evaluator.ci.comment import HINTS, _link, bounded, marker, render_rejection
from evaluator.ci.fetch import fetch_blob
from evaluator.ci.github import GitHubClient
from evaluator.ci.logs import say
from evaluator.ci.predictions.publish import Published, finish_publishing, start_publishing
from evaluator.ci.result import ACCEPTED
from evaluator.codetrack.board import BOARDS, CodeBoard, boards_in
from evaluator.errors import ConfigError
from evaluator.ledger.ranking import standing_of
from evaluator.ledger.store import SUBMISSION, Ledger
from evaluator.render.boards import environment
from evaluator.repo.gitops import Change, commit_and_push
from evaluator.repo.record import ledger_path, rerender

_LAYOUT = ("Open a new pull request that only adds `solutions/<problem id>.py` files (and, "
           "optionally, `metadata.json`) under `competitions/graph-coding/submissions/"
           "<your-login>/` (see competitions/graph-coding/README.md).")
CODE_HINTS = {
    **{code: _LAYOUT for code in ("unsafe-path", "outside-submission", "platform-path",
                                  "deletion", "rename", "unsupported-change", "extra-file",
                                  "missing-file")},
    **{code: HINTS[code] for code in ("other-participant", "two-submissions", "wrong-base",
                                      "invalid-author", "identity-mismatch", "over-limit")},
    "unknown-problem": "Name each file after a problem id that `gnncb code problems` lists, "
                       "e.g. `solutions/lc207.py`.",
    "symlink": "Commit the source file itself, not a symbolic link to it.",
    "not-a-file": "Commit each solution as a regular file.",
    "too-large": "Solutions are short programs: keep each file under 64 KiB and all of them "
                 "under 512 KiB (no embedded data).",
    "invalid-solution": "Save each solution as UTF-8 Python source.",
    "invalid-metadata": "Fix metadata.json: an object with `method` (and optionally `model`, "
                        "`team`, `notes`); a pull request is always entrant `human`.",
    "copied": "Submit solutions you wrote yourself; these exact files were already submitted "
              "by another participant.",
}


def record_code_row(root: Path, row: dict[str, Any], message: str) -> Change | None:
    """Append `row` (idempotent by digest) and re-render; None when it is already recorded."""
    root = Path(root)
    ledger = Ledger(ledger_path(root))
    if any(r["type"] == SUBMISSION and r["digest"] == row["digest"] for r in ledger.rows()):
        return None
    ledger.append(row)
    pages = rerender(root, changed=[row["slug"]],
                     boards=boards_in(Path(root) / "competitions"))
    return Change(paths=[str(p.relative_to(root)) for p in [ledger.path, *pages]],
                  message=message)


def check_case_commitment(root: Path, board: CodeBoard, row: dict[str, Any]) -> None:
    """A row's cases were drawn under the commitment the repository holds for the board's
    version (this job has no secret: the seed itself is checked by `gnncb verify` after the
    reveal). Refuses a digest-seeded row once a secret is committed: a judge that fell back
    to predictable cases is not recorded."""
    from evaluator.codetrack.caseseed import FIELD, current_commitment

    committed = current_commitment(Path(root) / "competitions" / board.slug, board.slug,
                                   board.version)
    if row.get(FIELD) != committed:
        raise ConfigError(f"the judged row's cases were drawn under case commitment "
                          f"{str(row.get(FIELD))[:16]}, the repository commits {board.slug} "
                          f"version {board.version} to {str(committed)[:16]}; refusing to "
                          "record (re-run the workflow)")


def commit_message(result: CodeResult, run_url: str | None) -> str:
    s = (result.row or {}).get("scores", {})
    lines = [f"leaderboard: record {result.author_login.lower()} on {result.slug} "
             f"(PR #{result.pr})", "",
             f"Solutions {result.digest}",
             f"Pass rate: {100 * float(s.get('pass_rate', 0)):.2f} % "
             f"({s.get('passed')}/{s.get('cases')} cases)"]
    if run_url:
        lines.append(f"Workflow run: {run_url}")
    return "\n".join(lines) + "\n"


def verify_files(client: GitHubClient, result: CodeResult) -> None:
    """The blobs named in the artifact hash to the digest that was judged (read as data)."""
    sources = {name: fetch_blob(client, sha, name, None) for name, sha in result.files.items()}
    if digest_of(sources) != result.digest:
        raise ConfigError(f"the submitted files do not hash to the judged digest "
                          f"{result.digest}; refusing to publish")


def render_code_answer(result: CodeResult, *, server_url: str, branch: str,
                       run_url: str | None, rank: int | None = None,
                       entries: int | None = None) -> str:
    """Markdown body of the answer (escaped by the environment's finalize)."""
    env = environment()
    base = f"{server_url.rstrip('/')}/{result.repo}"
    slug = result.slug or "graph-coding"
    context: dict[str, Any] = {
        "marker": marker(result.status, result.pr), "login": result.author_login,
        "slug": result.slug, "run_url": _link(run_url) if run_url else None,
        "participants_doc": _link(f"{base}/blob/{branch}/competitions/{slug}/README.md"),
    }
    if result.status == ACCEPTED:
        row = result.row or {}
        s = row.get("scores", {})
        per = row.get("per_problem", {})
        context |= {
            "pass_rate": Markup(f"{100 * float(s.get('pass_rate', 0)):.2f} %"),  # noqa: S704
            "passed": int(s.get("passed", 0)), "cases": int(s.get("cases", 0)),
            "solved": int(s.get("problems_solved", 0)), "problems": int(s.get("problems", 0)),
            "per_problem": [{"id": pid, "passed": int(v["passed"]), "cases": int(v["cases"])}
                            for pid, v in sorted(per.items())],
            "unsolved": int(s.get("problems", 0)) - len(per),
            "feedback": [f.model_dump() for f in result.feedback],
            "duplicate": result.duplicate, "earlier_pr": row.get("pr"),
            "rank": rank, "entries": entries, "version": row.get("version"),
            "remaining_version": result.remaining_version,
            "remaining_today": result.remaining_today,
            "digest": (result.digest or "")[:12], "entrant": row.get("entrant", ""),
            "scored_at": row.get("scored_at", ""),
            "leaderboard": _link(f"{base}/blob/{branch}/leaderboard/{slug}.md"),
        }
        body = env.get_template("pr_comment_code_accepted.md.j2").render(**context)
    else:
        body = render_rejection(env, context, result, CODE_HINTS)
    return bounded(body, context["marker"])


def publish_code_result(client: GitHubClient, result: CodeResult, *, root: Path,
                        remote: str = "origin", branch: str = "main", bot_login: str,
                        server_url: str = "https://github.com", run_url: str | None = None,
                        git_env: Mapping[str, str] | None = None, push_attempts: int = 5,
                        sleep: Callable[[float], None] = time.sleep) -> Published:
    """Record, render, commit, answer, label, close; every step idempotent (see publish.py)."""
    pull, answer, skipped = start_publishing(client, result, bot_login)
    if skipped is not None:
        return skipped

    push = rank = entries = None
    if result.status == ACCEPTED:
        assert result.row is not None and result.slug
        board = BOARDS[result.slug]
        if not (result.duplicate or result.already_recorded):
            verify_files(client, result)
            row = result.row
            check_case_commitment(root, board, row)
            push = commit_and_push(
                Path(root), lambda: record_code_row(root, row, commit_message(result, run_url)),
                remote=remote, branch=branch, attempts=push_attempts, sleep=sleep, env=git_env)
            say(f"PR #{result.pr}: recorded {(result.digest or '')[:12]} "
                f"(pushed={push.pushed}, attempts={push.attempts})")
        rows = Ledger(ledger_path(root)).rows()
        rank, entries = standing_of(board, rows,  # type: ignore[arg-type]
                                    result.author_login, result.author_id)

    return finish_publishing(
        client, result, pull=pull, answer=answer, bot_login=bot_login,
        render=lambda: render_code_answer(result, server_url=server_url, branch=branch,
                                          run_url=run_url, rank=rank, entries=entries),
        push=push, rank=rank, entries=entries)
