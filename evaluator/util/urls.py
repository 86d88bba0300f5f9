"""Which addresses are this machine's own loopback.

One owner for the rule both the git pushes (`evaluator.repo.gitops`) and the site's repository
links (`evaluator.render.site.build`) apply: plain http is acceptable only to a local stand-in
(the workflow tests' fake GitHub on `*.localhost`, a preview server), never across a network."""

from __future__ import annotations

from urllib.parse import urlparse


def is_loopback_http(url: str) -> bool:
    """True for an http:// URL whose host is this machine (localhost, *.localhost, 127.0.0.1,
    ::1): `.localhost` names resolve to the loopback address by definition (RFC 6761)."""
    parsed = urlparse(url)
    host = parsed.hostname or ""
    return parsed.scheme == "http" and (
        host in ("localhost", "127.0.0.1", "::1") or host.endswith(".localhost"))
