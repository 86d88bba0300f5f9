"""The fake GitHub the pull-request tests run against: `evaluator.ci.fake_github`, which
`gnncb rehearse` also serves to participants (one owner; the library never imports tests/).
The names the tests use are re-exported here."""

from __future__ import annotations

from evaluator.ci.fake_github import (
    BOT_LOGIN,
    GHOST,
    READ_TOKEN,
    WRITE_TOKEN,
    FakeGitHub,
    Fault,
    Symlink,
    git_blob_sha,
)

__all__ = ["BOT_LOGIN", "GHOST", "READ_TOKEN", "WRITE_TOKEN", "FakeGitHub", "Fault", "Symlink",
           "git_blob_sha"]
