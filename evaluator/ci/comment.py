"""The bot's answer on a pull request, rendered from Jinja templates with escaping.

Why a hidden marker: a re-run of the workflow must never answer twice, so every answer carries
`<!-- gnncb:result ... -->` and the pipeline looks for it, but only in comments written by the
bot's own account (anyone can paste the marker into a comment of their own).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

from markupsafe import Markup

from evaluator.ci.github import CommentInfo
from evaluator.ci.result import ACCEPTED, Result, ResultBase
from evaluator.render.boards import environment

MARKER_PREFIX = "<!-- gnncb:result"
MAX_COMMENT_CHARS = 60000  # GitHub refuses comments over 65536 characters
DEFAULT_BOT_LOGIN = "github-actions[bot]"
LABELS = {"accepted": "gnncb: accepted", "rejected": "gnncb: rejected"}

_LAYOUT = ("Open a new pull request that only adds `predictions.csv.enc` and `metadata.json` "
           "under `competitions/<slug>/submissions/<your-login>/` (see docs/participants.md).")
HINTS = {
    "unsafe-path": _LAYOUT, "outside-submission": _LAYOUT, "platform-path": _LAYOUT,
    "deletion": _LAYOUT, "rename": _LAYOUT, "unsupported-change": _LAYOUT,
    "extra-file": _LAYOUT, "missing-file": _LAYOUT,
    "other-participant": "Put your files in the folder named after your own GitHub login.",
    "two-submissions": "Open one pull request per competition, each with one submission.",
    "unknown-competition": "Use the folder name of a competition listed in `competitions/`.",
    "symlink": "Commit the encrypted file itself, not a symbolic link to it.",
    "not-a-file": "Commit the two files as regular files.",
    "too-large": "Check that you encrypted the predictions file the competition asks for "
                 "(one row per test id), nothing more.",
    "over-limit": "Wait until a submission slot frees up (the limits are in the competition's "
                  "README); this attempt did not count.",
    "claim-mismatch": "Encrypt again with `gnncb encrypt --participant <your-login> "
                      "--competition competitions/<slug>` (or set the same header claims with "
                      "your JOSE library), and make `participant` in metadata.json your login.",
    "wrong-key": "Encrypt with the current public key in `keys/platform-public.pem`.",
    "tampered": "The encrypted file was changed after encryption; encrypt again and commit the "
                "output unmodified (no line-ending conversion).",
    "malformed-envelope": "Commit the output of `gnncb encrypt` (a JWE compact serialization) "
                          "unmodified.",
    "empty": "Commit the output of `gnncb encrypt`.",
    "invalid-metadata": "Fix metadata.json as described above; `gnncb encrypt` writes a valid "
                        "one for you.",
    "invalid-predictions": "Run `gnncb check --competition competitions/<slug> predictions.csv` "
                           "locally and fix what it reports before encrypting.",
    "copied": "Submit predictions you made yourself, encrypted for your own login.",
    "wrong-base": "Open the pull request against the repository's default branch.",
    "invalid-author": "Submissions come from personal GitHub accounts.",
    "identity-mismatch": "Contact the maintainers: this login was used by a different GitHub "
                         "account in earlier submissions.",
    "closed": "The competition no longer takes submissions; the README gives its dates and "
              "where the final standings are.",
    "not-open": "Submit again once the phase named above has opened (dates in the README).",
    "invalid-final-choice": "List in `final` only digests from the bot's answers to your own "
                            "accepted submissions of this version (at most as many as the "
                            "README allows).",
}
DEFAULT_HINT = "Fix the problem above and open a new pull request."


def marker(status: str, pr: int) -> Markup:
    """The hidden marker; built only from a fixed word and an integer."""
    if status not in ("accepted", "rejected"):
        raise ValueError(status)
    return Markup(f"{MARKER_PREFIX} status={status} pr={int(pr)} -->")  # noqa: S704 - safe


def find_answer(comments: Iterable[CommentInfo], bot_login: str) -> CommentInfo | None:
    """The bot's earlier answer on this PR, if any."""
    for c in comments:
        if c.author_login.lower() == bot_login.lower() and MARKER_PREFIX in c.body:
            return c
    return None


_MARKER = re.compile(re.escape(MARKER_PREFIX) + r" status=(accepted|rejected) pr=[0-9]+ -->")


def answered_status(comment: CommentInfo) -> str:
    """The status our own marker records. Why the marker and not the text: a rejection quotes
    participant text (a file name such as `status=accepted`), which a search of the whole body
    read as an acceptance on a re-run. Participant text is escaped (`<` never survives), so
    only our marker matches."""
    found = _MARKER.search(comment.body)
    return found.group(1) if found else "rejected"


def _link(url: str) -> Markup:
    """A URL we built from validated parts; only characters that cannot end a link remain."""
    return Markup(quote(url, safe=":/#?=&%.-_~"))  # noqa: S704 - quoted


def _split_reason(reason: str) -> tuple[str, list[str]]:
    lines = [ln.strip() for ln in reason.splitlines() if ln.strip()]
    if not lines:
        return "", []
    return lines[0], [ln.removeprefix("- ").strip() for ln in lines[1:]]


def render_answer(result: Result, *, server_url: str, branch: str, run_url: str | None,
                  rank: int | None = None, entries: int | None = None,
                  version: int | None = None, earlier_pr: int | None = None) -> str:
    """Markdown body of the answer comment (escaped by the environment's finalize)."""
    env = environment()
    base = f"{server_url.rstrip('/')}/{result.repo}"
    context: dict[str, Any] = {
        "marker": marker(result.status, result.pr),
        "login": result.author_login,
        "slug": result.slug,
        "run_url": _link(run_url) if run_url else None,
        "participants_doc": _link(f"{base}/blob/{branch}/docs/participants.md"),
    }
    if result.status == ACCEPTED:
        row = result.row or {}
        context |= {
            "scores": sorted(result.scores.items()),
            "duplicate": result.duplicate,
            "earlier_pr": earlier_pr,
            "rank": rank, "entries": entries, "version": version,
            "remaining_version": result.remaining_version,
            "remaining_today": result.remaining_today,
            "digest": (result.digest or "")[:12],
            "scored_at": row.get("scored_at", ""),
            "scored_on": row.get("scored_on", "all"),
            "phase": row.get("phase"), "late": bool(row.get("late")),
            "leaderboard": _link(f"{base}/blob/{branch}/leaderboard/{result.slug}.md"),
        }
        body = env.get_template("pr_comment_accepted.md.j2").render(**context)
    else:
        body = render_rejection(env, context, result, HINTS)
    return bounded(body, context["marker"])


def render_rejection(env: Any, context: dict[str, Any], result: ResultBase,
                     hints: Mapping[str, str]) -> str:
    """The rejection answer, shared by both tracks (each passes its own fix-it hints)."""
    headline, details = _split_reason(result.reason)
    context = context | {
        "headline": headline,
        "details": [] if result.problems else details,
        "problems": [{"path": p.path, "reason": p.reason} for p in result.problems],
        # our own constant Markdown (code spans), never participant text
        "hint": Markup(hints.get(result.code, DEFAULT_HINT)),  # noqa: S704
        "code": result.code,
    }
    return env.get_template("pr_comment_rejected.md.j2").render(**context)


def bounded(body: str, answer_marker: object) -> str:
    """GitHub refuses long comments: cut, but keep the marker that makes re-runs idempotent."""
    if len(body) > MAX_COMMENT_CHARS:
        body = body[:MAX_COMMENT_CHARS] + "\n\n(answer shortened)\n" + str(answer_marker)
    return body
