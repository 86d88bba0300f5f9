"""The judge's entry points: prepare a workspace, run untrusted code in it.

Why these two together: they are what a caller needs (the LLM track's scripts, the code track's
worker), and both guard the same promise from the caller's side: a run's workspace holds only
what was copied in on purpose, and is never a directory whose ownership a run must not take.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from evaluator.sandbox.channel import Channel
from evaluator.sandbox.detect import detect_isolation
from evaluator.sandbox.rootfs import python_paths
from evaluator.sandbox.spawn import execute
from evaluator.sandbox.types import Limits, SandboxError, SandboxResult, SandboxUnavailable


def prepare_workspace(dest: Path, sources: Mapping[str, Path]) -> Path:
    """Copy public files into a fresh directory and return its resolved path.

    `sources` maps a relative name inside the workspace to a file or directory. Contents are
    copied, never linked: a symlink inside a copied directory is followed only when it stays
    inside that directory, otherwise this refuses (it could smuggle a private file in).
    """
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise SandboxError(f"workspace {dest} already exists and is not empty; pass a fresh path")
    dest.mkdir(parents=True, exist_ok=True)
    root = dest.resolve()
    for name, source in sources.items():
        target = _workspace_target(root, name)
        source = Path(source)
        if not source.exists():
            raise SandboxError(f"cannot copy {source} into the workspace as {name!r}: not found")
        target.parent.mkdir(parents=True, exist_ok=True)
        real = source.resolve()
        if real.is_dir():
            _copy_tree(real, target, real)
        else:
            _copy_file(real, target)
    return root


def _workspace_target(root: Path, name: str) -> Path:
    parts = Path(name).parts
    if not name or Path(name).is_absolute() or ".." in parts:
        raise SandboxError(
            f"workspace entry name {name!r} must be a relative path without '..' "
            "(e.g. 'solution.py' or 'data/train.csv')"
        )
    return root.joinpath(*parts)


def _copy_tree(src: Path, dst: Path, top: Path, stack: tuple[Path, ...] = ()) -> None:
    if src in stack:
        raise SandboxError(f"symlink loop at {src}; refusing to copy it into a workspace")
    dst.mkdir(exist_ok=True)
    for entry in sorted(src.iterdir()):
        target = dst / entry.name
        real = entry.resolve()
        if entry.is_symlink() and not real.is_relative_to(top):
            raise SandboxError(
                f"{entry} is a symlink to {real}, outside {top}; refusing to copy it into a "
                "workspace (replace the link by the file itself)"
            )
        if real.is_dir():
            _copy_tree(real, target, top, (*stack, src))
        else:
            _copy_file(real, target)


def _copy_file(src: Path, dst: Path) -> None:
    mode = src.stat().st_mode
    if not stat.S_ISREG(mode):
        raise SandboxError(f"{src} is not a regular file; only files and directories are copied")
    shutil.copyfile(src, dst)
    os.chmod(dst, (stat.S_IMODE(mode) | 0o644) & 0o755)


def run(
    argv: Sequence[str],
    *,
    workspace: Path,
    limits: Limits = Limits(),  # noqa: B008 - frozen dataclass, safe as a default
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    require_sandbox: bool = False,
    readonly_paths: Sequence[Path] = (),
    channel: Callable[[Channel], None] | None = None,
    stdlib_only: bool = False,
    channel_line_bytes: int = 1 << 20,
) -> SandboxResult:
    """Run `argv` in `workspace` under `limits`, isolated as far as this machine allows.

    With `channel`, the workload gets a pipe pair (fd 3 in, fd 4 out) that PID 1 relays, and
    `channel(ch)` runs in this thread while the run lasts: it queues frames (an input line and
    its CPU and wall allowance) and reads their replies, timed and measured by PID 1 (see
    `channel.py`; a reply line is capped at `channel_line_bytes`). It may `ch.stop()` the
    run, which then ends with exit_reason "stopped", as it does when a frame overruns.
    With `stdlib_only` the run sees this Python's interpreter and standard library and nothing
    else of the Python environment (no venv, no site-packages, no other Python's libraries):
    run `stdlib_python()` there, not a venv's `bin/python`.

    The workspace is the only writable place besides a private /tmp; the Python installation
    of this interpreter and `readonly_paths` are visible read-only; nothing else of the host
    is. Raises SandboxUnavailable when `require_sandbox` and the machine cannot isolate, and
    SandboxError when the sandbox cannot be set up; the program's own failures are results.
    """
    if not argv:
        raise SandboxError("run() needs a command: argv is empty")
    workspace = Path(workspace)
    if not workspace.is_dir():
        raise SandboxError(f"workspace {workspace} is not a directory; create it first")
    _check_workspace(workspace.resolve())
    isolation = detect_isolation()
    if require_sandbox and not isolation.sandboxed:
        raise SandboxUnavailable(
            "a sandbox is required but this machine cannot provide one "
            f"({isolation.level}; {isolation.detail}). Run the judge as root on Linux with "
            "util-linux `unshare`, or pass require_sandbox=False for trusted code."
        )
    extra = [Path(p) for p in readonly_paths]
    for path in extra:
        if not path.exists():
            raise SandboxError(f"readonly path {path} does not exist")
        if path.resolve() == Path("/"):
            raise SandboxError("readonly path / would expose the whole host; name a directory")
    return execute(
        list(argv), workspace.resolve(), limits, dict(env or {}), stdin, extra, isolation,
        channel, stdlib_only, channel_line_bytes,
    )


def _check_workspace(workspace: Path) -> None:
    """Refuse directories whose ownership a run must not take over (it is chown'ed)."""
    protected = [Path("/"), Path.home(), Path(tempfile.gettempdir()), *python_paths()]
    protected.append(Path(__file__).resolve().parents[2])  # the repository
    for path in protected:
        real = path.resolve()
        if workspace == real or real.is_relative_to(workspace):
            raise SandboxError(
                f"workspace {workspace} is or contains {real}; runs need a fresh directory of "
                "their own (see prepare_workspace)"
            )
