"""A small in-memory GitHub REST server over real HTTP on 127.0.0.1: the local stand-in of
GitHub that `gnncb rehearse` runs a participant's pull request against, and the pull-request
pipeline's tests run every PR against (tests/helpers/fake_github.py re-exports this module).

Why a real server rather than mocks: PyGithub is exercised exactly as in production (URLs, JSON,
pagination, status codes, headers), and faults (5xx, rate limits, slow responses) are injected at
the HTTP level. It speaks only the endpoints the pipeline uses: repository, pull request, its
files, git trees and blobs, issue comments, labels, and closing. Tokens carry permissions so a
test (and a rehearsal) can prove the scoring phase never writes. Why in the package: a
participant's rehearsal needs it, and the library never imports tests/.

`serve_git(origin)` adds git's smart HTTP protocol for the repository (`git http-backend`, as
GitHub's own server speaks it) at `/{owner}/{name}`, so a real Actions engine can check out and
push: fetches are anonymous (a public repository), pushes must carry a token that may write.
It binds 127.0.0.1 only and holds nothing but what its owner put in it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from evaluator.ci.fetch import git_blob_sha

BOT_LOGIN = "github-actions[bot]"
GHOST = {"login": "ghost", "id": 10137, "type": "User"}  # GitHub's stand-in for deleted users
# the stand-in's own tokens: valid on no server but a FakeGitHub
READ_TOKEN = "ghs_read_only_token"  # noqa: S105
WRITE_TOKEN = "ghs_write_token"  # noqa: S105


@dataclass(frozen=True)
class Symlink:
    """A PR file that is a symbolic link to `target`."""

    target: str


@dataclass
class Fault:
    method: str
    path: re.Pattern[str]
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    delay: float = 0.0
    after: bool = False  # handle the request first, then delay the response (a "lost" reply)
    times: int = 1


class FakeGitHub:
    def __init__(self, owner: str = "gnncb", name: str = "arena",
                 default_branch: str = "main") -> None:
        self.owner, self.name, self.default_branch = owner, name, default_branch
        self.lock = threading.RLock()
        self.blobs: dict[str, bytes] = {}
        self.trees: dict[str, list[dict[str, Any]]] = {}
        self.pulls: dict[int, dict[str, Any]] = {}
        self.files: dict[int, list[dict[str, Any]]] = {}
        self.comments: dict[int, list[dict[str, Any]]] = {}
        self.labels: dict[int, list[str]] = {}
        self.faults: list[Fault] = []
        self.log: list[tuple[str, str, str]] = []  # (method, path, token)
        self.tokens = {READ_TOKEN: False, WRITE_TOKEN: True}  # token -> may write
        self.accounts: dict[str, int] = {}  # lower-cased login -> account id
        self.runs: dict[int, dict[str, Any]] = {}  # workflow run id -> its record
        self._ids = 1000
        self._server: ThreadingHTTPServer | None = None
        self.git_origin: Path | None = None  # the bare repository served by serve_git
        self.pushes: list[str] = []  # the token of every accepted push
        self.git_log: list[tuple[str, str, str]] = []  # (method, service, token) of git requests

    # -- lifecycle ----------------------------------------------------------------------------

    def __enter__(self) -> FakeGitHub:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def repo_url(self) -> str:
        return f"{self.base_url}/repos/{self.full_name}"

    # -- state building -----------------------------------------------------------------------

    def _next_id(self) -> int:
        self._ids += 1
        return self._ids

    def add_blob(self, data: bytes) -> str:
        sha = git_blob_sha(data)
        self.blobs[sha] = data
        return sha

    def _add_tree(self, entries: list[dict[str, Any]]) -> str:
        sha = hashlib.sha1(json.dumps(entries, sort_keys=True).encode(),
                           usedforsecurity=False).hexdigest()
        self.trees[sha] = entries
        return sha

    def build_commit(self, files: dict[str, bytes | Symlink]) -> str:
        """A head commit whose tree holds `files` (nested folders built as git trees)."""
        root: dict[str, Any] = {}
        for path, content in files.items():
            node = root
            parts = path.split("/")
            for part in parts[:-1]:
                node = node.setdefault(part, {})
            node[parts[-1]] = content

        def write(node: dict[str, Any]) -> str:
            entries = []
            for name in sorted(node):
                value = node[name]
                if isinstance(value, dict):
                    entries.append({"path": name, "mode": "040000", "type": "tree",
                                    "sha": write(value)})
                elif isinstance(value, Symlink):
                    data = value.target.encode()
                    entries.append({"path": name, "mode": "120000", "type": "blob",
                                    "sha": self.add_blob(data), "size": len(data)})
                else:
                    entries.append({"path": name, "mode": "100644", "type": "blob",
                                    "sha": self.add_blob(value), "size": len(value)})
            return self._add_tree(entries)

        tree = write({"README.md": b"arena\n", **root})
        commit = hashlib.sha1(f"commit {tree} {self._next_id()}".encode(),
                              usedforsecurity=False).hexdigest()
        self.trees[commit] = self.trees[tree]  # GET /git/trees/{commit} resolves the commit
        return commit

    def account_id(self, login: str) -> int:
        """The account id of `login`, the same in every process and run (GitHub's ids never
        change; `abs(hash(login))` changed with each interpreter's hash seed)."""
        key = login.lower()
        if key not in self.accounts:
            self.accounts[key] = int.from_bytes(
                hashlib.sha256(key.encode()).digest()[:4], "big") % 10**7 + 1
        return self.accounts[key]

    def rename_user(self, old: str, new: str) -> int:
        """The account `old` is now called `new` (same id); its PRs show the new login, as
        GitHub's API does. Returns the account id."""
        with self.lock:
            account = self.account_id(old)
            del self.accounts[old.lower()]
            self.accounts[new.lower()] = account
            for pull in self.pulls.values():
                if pull["user"]["id"] == account:
                    pull["user"] = {**pull["user"], "login": new}
            return account

    def delete_user(self, login: str) -> None:
        """The account is deleted: its PRs show GitHub's `ghost` user."""
        with self.lock:
            account = self.accounts.pop(login.lower(), None)
            for pull in self.pulls.values():
                if pull["user"]["id"] == account:
                    pull["user"] = dict(GHOST)

    def open_pr(self, number: int, author: str, files: dict[str, bytes | Symlink], *,
                author_id: int | None = None, author_type: str = "User", state: str = "open",
                base: str | None = None, removed: tuple[str, ...] = (),
                renamed: dict[str, str] | None = None) -> str:
        """A PR adding `files` (plus deletions/renames); returns the head sha."""
        with self.lock:
            renamed = renamed or {}
            head = self.build_commit(files)
            entries = []
            for path, content in files.items():
                data = content.target.encode() if isinstance(content, Symlink) else content
                entry = {"filename": path, "status": "renamed" if path in renamed else "added",
                         "sha": git_blob_sha(data), "additions": 1, "deletions": 0,
                         "changes": 1}
                if path in renamed:
                    entry["previous_filename"] = renamed[path]
                entries.append(entry)
            for path in removed:
                entries.append({"filename": path, "status": "removed",
                                "sha": git_blob_sha(b"old\n"), "additions": 0, "deletions": 1,
                                "changes": 1})
            self.files[number] = entries
            self.pulls[number] = {
                "number": number, "state": state, "merged": False,
                "title": f"submission by {author}",
                "user": {"login": author, "id": author_id or self.account_id(author),
                         "type": author_type},
                "head_sha": head, "base_ref": base or self.default_branch,
            }
            self.comments.setdefault(number, [])
            self.labels.setdefault(number, [])
            return head

    def push(self, number: int, files: dict[str, bytes | Symlink]) -> str:
        """A new commit on the PR (the participant pushed again)."""
        pull = self.pulls[number]
        return self.open_pr(number, pull["user"]["login"], files,
                            author_id=pull["user"]["id"], state=pull["state"])

    def pr_event(self, number: int, action: str, at: str, *, run_id: int,
                 run_created: str | None = None, run_event: str = "pull_request_target",
                 run_head: str | None = None) -> dict[str, Any]:
        """The payload GitHub writes to $GITHUB_EVENT_PATH for `action` on PR `number` at
        time `at`, and the workflow run it triggered (served at /actions/runs/{run_id},
        created at `run_created`, default `at`)."""
        pull = self.pulls[number]
        time_field = "created_at" if action == "opened" else "updated_at"
        self.runs[run_id] = {"id": run_id, "event": run_event,
                             "head_sha": run_head or pull["head_sha"],
                             "created_at": run_created or at, "status": "queued"}
        return {"action": action, "number": number,
                "pull_request": {"number": number, "head": {"sha": pull["head_sha"]},
                                 "user": dict(pull["user"]), time_field: at,
                                 "created_at": at if action == "opened" else
                                 "2000-01-01T00:00:00Z"}}

    def add_comment(self, number: int, login: str, body: str) -> None:
        with self.lock:
            self.comments[number].append({"id": self._next_id(), "body": body,
                                          "user": {"login": login, "id": 1, "type": "User"}})

    def fail(self, method: str, path: str, status: int | None = None, *,
             headers: dict[str, str] | None = None, message: str = "Server Error",
             delay: float = 0.0, after: bool = False, times: int = 1) -> None:
        """Make the next `times` requests matching METHOD and the path regex misbehave."""
        self.faults.append(Fault(method, re.compile(path), status, headers or {},
                                 {"message": message} if status else None, delay, after, times))

    def serve_git(self, origin: Path) -> None:
        """Serve the bare repository `origin` over git smart HTTP at {base_url}/{owner}/{name}."""
        self.git_origin = Path(origin)

    def writes(self) -> list[tuple[str, str, str]]:
        return [entry for entry in self.log if entry[0] != "GET"]

    def bot_comments(self, number: int) -> list[str]:
        return [c["body"] for c in self.comments[number] if c["user"]["login"] == BOT_LOGIN]

    # -- JSON views ---------------------------------------------------------------------------

    def user_json(self, user: dict[str, Any]) -> dict[str, Any]:
        return {**user, "url": f"{self.base_url}/users/{user['login']}",
                "html_url": f"https://github.com/{user['login']}"}

    def repo_json(self) -> dict[str, Any]:
        return {"id": 1, "name": self.name, "full_name": self.full_name,
                "owner": {"login": self.owner, "id": 2, "type": "Organization"},
                "default_branch": self.default_branch, "private": False,
                "url": self.repo_url(), "html_url": f"https://github.com/{self.full_name}"}

    def pull_json(self, n: int) -> dict[str, Any]:
        p = self.pulls[n]
        repo = self.repo_json()
        return {"url": f"{self.repo_url()}/pulls/{n}", "id": n, "number": n,
                "state": p["state"], "merged": p["merged"], "title": p["title"],
                "user": self.user_json(p["user"]),
                "head": {"sha": p["head_sha"], "ref": "submission", "label": "fork:submission",
                         "repo": repo},
                "base": {"sha": "0" * 40, "ref": p["base_ref"], "label": "base", "repo": repo},
                "changed_files": len(self.files[n]),
                "labels": [{"name": name} for name in self.labels[n]],
                "issue_url": f"{self.repo_url()}/issues/{n}",
                "html_url": f"https://github.com/{self.full_name}/pull/{n}"}

    def issue_json(self, n: int) -> dict[str, Any]:
        p = self.pulls[n]
        return {"url": f"{self.repo_url()}/issues/{n}", "id": n, "number": n,
                "state": p["state"], "title": p["title"], "user": self.user_json(p["user"]),
                "labels": [{"name": name} for name in self.labels[n]],
                "comments_url": f"{self.repo_url()}/issues/{n}/comments",
                "pull_request": {"url": f"{self.repo_url()}/pulls/{n}"}}

    def comment_json(self, n: int, c: dict[str, Any]) -> dict[str, Any]:
        return {**c, "user": self.user_json(c["user"]),
                "url": f"{self.repo_url()}/issues/comments/{c['id']}",
                "html_url": f"https://github.com/{self.full_name}/pull/{n}#c{c['id']}",
                "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeGitHub
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test)

    def _handle(self, method: str) -> None:
        fake = self.fake
        url = urlparse(self.path)
        git = re.fullmatch(rf"/{re.escape(fake.full_name)}(?:\.git)?"
                           r"(/info/refs|/git-upload-pack|/git-receive-pack)", url.path)
        if git and fake.git_origin is not None:
            self._git(method, git.group(1), url.query)
            return
        token = self.headers.get("Authorization", "").removeprefix("token ").removeprefix(
            "Bearer ").strip()
        with fake.lock:
            fake.log.append((method, url.path, token))
            fault = next((f for f in fake.faults if f.method == method
                          and f.path.search(url.path) and f.times > 0), None)
            if fault:
                fault.times -= 1
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if fault and not fault.after:
            if fault.delay:
                time.sleep(fault.delay)
            if fault.status:
                self._send(fault.status, fault.body, fault.headers)
                return
        if token not in fake.tokens:
            self._send(401, {"message": "Bad credentials"})
            return
        if method != "GET" and not fake.tokens[token]:
            self._send(403, {"message": "Resource not accessible by integration"})
            return
        try:
            status, payload, headers = self._route(method, url.path, parse_qs(url.query),
                                                   json.loads(raw) if raw else None)
        except KeyError:
            status, payload, headers = 404, {"message": "Not Found"}, {}
        if fault and fault.after:
            time.sleep(fault.delay)
        self._send(status, payload, headers)

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _git(self, method: str, service_path: str, query: str) -> None:
        """One git smart-HTTP request, answered by `git http-backend` (CGI)."""
        fake = self.fake
        assert fake.git_origin is not None
        body = self._read_body()
        token = ""
        auth = self.headers.get("Authorization", "")
        if auth.lower().startswith("basic "):
            user_pass = base64.b64decode(auth[6:].strip()).decode(errors="replace")
            token = user_pass.partition(":")[2]
        pushing = service_path == "/git-receive-pack" or "service=git-receive-pack" in query
        with fake.lock:
            fake.git_log.append((method, service_path, token))
        if pushing and not fake.tokens.get(token, False):
            status = 401 if token not in fake.tokens else 403
            self.send_response(status)
            self.send_header("WWW-Authenticate", 'Basic realm="fake GitHub"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
               "GIT_PROJECT_ROOT": str(fake.git_origin.parent), "GIT_HTTP_EXPORT_ALL": "1",
               "PATH_INFO": f"/{fake.git_origin.name}{service_path}",
               "REQUEST_METHOD": method, "QUERY_STRING": query,
               "CONTENT_TYPE": self.headers.get("Content-Type", ""),
               "CONTENT_LENGTH": str(len(body)), "REMOTE_USER": "x-access-token",
               "REMOTE_ADDR": "127.0.0.1",
               "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
               "GIT_PROTOCOL": self.headers.get("Git-Protocol", "")}
        proc = subprocess.run(["git", "http-backend"], input=body, capture_output=True,
                              env=env, check=False, timeout=120)
        head, _, payload = proc.stdout.partition(b"\r\n\r\n")
        status, headers = 200, []
        for line in head.decode("latin-1").split("\r\n"):
            key, _, value = line.partition(":")
            if key.lower() == "status":
                status = int(value.split()[0])
            elif key:
                headers.append((key, value.strip()))
        if pushing and method == "POST" and status == 200:
            with fake.lock:
                fake.pushes.append(token)
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _route(self, method: str, path: str, query: dict[str, list[str]],
               body: Any) -> tuple[int, Any, dict[str, str]]:
        fake = self.fake
        prefix = f"/repos/{fake.full_name}"
        if not path.startswith(prefix):
            raise KeyError(path)
        rest = path[len(prefix):]
        with fake.lock:
            if rest == "" and method == "GET":
                return 200, fake.repo_json(), {}
            m = re.fullmatch(r"/pulls/(\d+)", rest)
            if m:
                n = int(m.group(1))
                if method == "PATCH" and "state" in body:
                    fake.pulls[n]["state"] = body["state"]
                return 200, fake.pull_json(n), {}
            m = re.fullmatch(r"/actions/runs/(\d+)", rest)
            if m and method == "GET":
                run = fake.runs[int(m.group(1))]
                return 200, {**run, "url": f"{fake.repo_url()}/actions/runs/{run['id']}"}, {}
            m = re.fullmatch(r"/pulls/(\d+)/files", rest)
            if m and method == "GET":
                return self._page(fake.files[int(m.group(1))], query, path)
            m = re.fullmatch(r"/git/trees/([0-9a-f]{40})", rest)
            if m and method == "GET":
                sha = m.group(1)
                entries = [{**e, "url": f"{fake.repo_url()}/git/{e['type']}s/{e['sha']}"}
                           for e in fake.trees[sha]]
                return 200, {"sha": sha, "url": f"{fake.repo_url()}/git/trees/{sha}",
                             "tree": entries, "truncated": False}, {}
            m = re.fullmatch(r"/git/blobs/([0-9a-f]{40})", rest)
            if m and method == "GET":
                data = fake.blobs[m.group(1)]
                encoded = base64.encodebytes(data).decode("ascii")
                return 200, {"sha": m.group(1), "size": len(data), "encoding": "base64",
                             "content": encoded,
                             "url": f"{fake.repo_url()}/git/blobs/{m.group(1)}"}, {}
            m = re.fullmatch(r"/issues/(\d+)", rest)
            if m:
                n = int(m.group(1))
                if method == "PATCH" and "state" in body:
                    fake.pulls[n]["state"] = body["state"]
                return 200, fake.issue_json(n), {}
            m = re.fullmatch(r"/issues/(\d+)/comments", rest)
            if m:
                n = int(m.group(1))
                if method == "POST":
                    comment = {"id": fake._next_id(), "body": body["body"],
                               "user": {"login": BOT_LOGIN, "id": 41898282, "type": "Bot"}}
                    fake.comments[n].append(comment)
                    return 201, fake.comment_json(n, comment), {}
                return self._page([fake.comment_json(n, c) for c in fake.comments[n]], query,
                                  path)
            m = re.fullmatch(r"/issues/(\d+)/labels", rest)
            if m and method == "POST":
                n = int(m.group(1))
                names = body["labels"] if isinstance(body, dict) else body
                for name in names:
                    if name not in fake.labels[n]:
                        fake.labels[n].append(name)
                return 200, [{"name": name, "url": f"{fake.repo_url()}/labels/{name}"}
                             for name in fake.labels[n]], {}
        raise KeyError(path)

    def _page(self, items: list[Any], query: dict[str, list[str]],
              path: str) -> tuple[int, Any, dict[str, str]]:
        per_page = int(query.get("per_page", ["30"])[0])
        page = int(query.get("page", ["1"])[0])
        chunk = items[(page - 1) * per_page: page * per_page]
        headers = {}
        if page * per_page < len(items):
            headers["Link"] = (f'<{self.fake.base_url}{path}?per_page={per_page}&page={page + 1}>;'
                               ' rel="next"')
        return 200, chunk, headers
