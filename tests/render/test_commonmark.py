"""Participant strings stay inert in the RENDERED result, not only in the Markdown source.

Why render: `&#64;` looks safe in the source, but CommonMark decodes entities, so the rendered
text holds "@team" again, and GitHub links mentions after rendering. These tests render the real
outputs (a board written by `gnncb leaderboard render`, the bot's answer on a hostile PR) with
a CommonMark parser (markdown-it-py, GFM tables on) and inspect the text tokens GitHub would
post-process: no mention, no participant link, image, HTML or extra table cell survives.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from evaluator.cli import main
from tests.helpers.arena import Arena, run_pr
from tests.helpers.fake_github import FakeGitHub

# GitHub's mention filter links "@" followed by a login character (user) or "org/team".
MENTION = re.compile(r"@[A-Za-z0-9]")
# the only HTML our templates write: the generated-file / answer markers and <sub>
OUR_HTML = re.compile(r"<!--[^<>]*-->|</?sub>")
HOSTILE_METHODS = [
    "@everyone ping @acme/security-team",
    "email me: someone@example.org or @@alice",
    "[click](https://evil.example) ![x](https://evil.example/x.png)",
    "<img src=x onerror=alert(1)> &#64;admin &commat;root",
    "a | b | c\n| injected | row |",
    "fixes #1 and GH-2, see gnncb/arena#3",
]
# GitHub's issue-reference filter: "#12", "GH-12", "owner/repo#12" become links to (and
# cross-references on) the repository's issues and pull requests
ISSUE_REF = re.compile(r"(?<![A-Za-z0-9_&])#[0-9]|(?i:(?<![A-Za-z0-9])gh-[0-9])")


def _tokens(markdown: str) -> list[Any]:
    md = MarkdownIt("commonmark").enable("table")
    flat = []
    for token in md.parse(markdown):
        flat.append(token)
        flat.extend(token.children or [])
    return flat


def _assert_inert(markdown: str) -> None:
    tokens = _tokens(markdown)
    texts = [t.content for t in tokens if t.type == "text"]
    mentions = [t for t in texts if MENTION.search(t)]
    assert not mentions, mentions
    references = [t for t in texts if ISSUE_REF.search(t)]
    assert not references, references
    assert not [t for t in tokens if t.type == "image"]
    html = [t.content.strip() for t in tokens if t.type in ("html_inline", "html_block")]
    assert all(OUR_HTML.fullmatch(h) for h in html), html
    links = [t.attrs.get("href", "") for t in tokens if t.type == "link_open"]
    assert not [h for h in links if "evil" in str(h)], links


def test_board_rendered_by_cli_has_no_live_mention(arena: Arena, tmp_path: Path,
                                                   capsys: Any) -> None:
    root = arena.clone()
    ledger = tmp_path / "ledger.jsonl"
    with ledger.open("w") as fh:
        for i, method in enumerate(HOSTILE_METHODS):
            fh.write(json.dumps({
                "type": "submission", "digest": f"{i:064x}", "slug": "toy-nodes", "version": 1,
                "participant": f"user{i}", "participant_id": i + 1, "entrant": "human",
                "method": method, "model": "@openai/gpt" if i == 0 else "",
                "scores": {"accuracy": 0.5 + i / 100, "macro_f1": 0.5}, "pr": i + 1,
                "submitted_at": "2026-01-01T00:00:00Z", "scored_at": "2026-01-01T00:00:00Z",
            }) + "\n")
    out = tmp_path / "boards"
    assert main(["leaderboard", "render", "--ledger", str(ledger), "--out", str(out),
                 "--competitions", str(root / "competitions")]) == 0
    page = (out / "toy-nodes.md").read_text()
    _assert_inert(page)
    rows = [t for t in _tokens(page) if t.type == "tr_open"]
    assert len(rows) == 1 + len(HOSTILE_METHODS)  # header + one per entry: no injected row
    text = " ".join(t.content for t in _tokens(page) if t.type == "text")
    assert "everyone" in text and "acme/security" in text  # shown, just not linked
    assert "fixes #" in text and "GH-" in text


def test_rejection_echoing_a_claim_does_not_mention(arena: Arena, fake: FakeGitHub) -> None:
    """The claim-mismatch answer quotes the envelope's participant claim verbatim."""
    files = arena.files("toy-nodes", "alice", claim="@acme/security-team")
    fake.open_pr(1, "alice", files)
    result, _ = run_pr(arena, fake, 1)
    assert (result.status, result.code) == ("rejected", "claim-mismatch")
    [answer] = fake.bot_comments(1)
    _assert_inert(answer)
    text = " ".join(t.content for t in _tokens(answer) if t.type == "text")
    assert "acme/security-team" in text
    assert arena.rows() == []


def test_an_answer_quoting_issue_references_does_not_link_them(arena: Arena,
                                                               fake: FakeGitHub) -> None:
    files = arena.files("toy-nodes", "alice", claim="fixes #1 and GH-2")
    fake.open_pr(1, "alice", files)
    result, _ = run_pr(arena, fake, 1)
    assert (result.status, result.code) == ("rejected", "claim-mismatch")
    [answer] = fake.bot_comments(1)
    _assert_inert(answer)
    assert "fixes #" in " ".join(t.content for t in _tokens(answer) if t.type == "text")
