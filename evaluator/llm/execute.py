"""Run untrusted code on a competition's public files and check what it wrote.

Why here and not in the loop: the API loop and the agent mode must give code exactly the same
workspace (README.md, competition.yaml, data/ — never hidden/, keys or other runs), the same
limits (from the competition's rules unless overridden) and the same validity check, which is
`gnncb check`'s: `validate_predictions` against every split's public ids. Output files are read
without following symlinks and with a size cap, because the code that wrote them is hostile
until proven otherwise (a `predictions.csv` symlinked to a key file must not be echoed back to
the model in a validation message).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from evaluator.competition.spec import CompetitionSpec
from evaluator.errors import ConfigError, Rejection
from evaluator.sandbox import Limits, SandboxResult, prepare_workspace, run
from evaluator.submission.seal import Checked, check_data

PUBLIC_ENTRIES = ("README.md", "competition.yaml", "data")
SOLUTION = "solution.py"
DEFAULT_MEMORY_BYTES = 4 * 1024**3
MAX_SOLUTION_BYTES = 2_000_000  # an agent's solution.py copied into the log


@dataclass(frozen=True)
class LimitOverrides:
    """Command-line overrides; None keeps the value derived from the competition's rules."""

    wall_seconds: float | None = None
    cpu_seconds: float | None = None
    memory_bytes: int | None = None


def run_limits_for(spec: CompetitionSpec, overrides: LimitOverrides = LimitOverrides()) -> Limits:  # noqa: B008
    """Per-run limits: `rules.cpu_hours` as both CPU-time and wall-clock budget by default."""
    budget = spec.rules.cpu_hours * 3600
    wall = overrides.wall_seconds if overrides.wall_seconds is not None else budget
    cpu = overrides.cpu_seconds if overrides.cpu_seconds is not None else budget
    memory = overrides.memory_bytes if overrides.memory_bytes is not None else (
        DEFAULT_MEMORY_BYTES)
    for name, value in (("wall seconds", wall), ("CPU seconds", cpu), ("memory", memory)):
        if value <= 0:
            raise ConfigError(f"limit {name} must be positive, got {value}")
    return replace(Limits(), wall_seconds=float(wall), cpu_seconds=float(cpu),
                   memory_bytes=int(memory))


def public_sources(competition_dir: Path) -> dict[str, Path]:
    competition_dir = Path(competition_dir)
    sources = {name: competition_dir / name for name in PUBLIC_ENTRIES
               if (competition_dir / name).exists()}
    if "competition.yaml" not in sources:
        raise ConfigError(f"{competition_dir}: no competition.yaml; not a competition folder")
    return sources


def make_workspace(dest: Path, competition_dir: Path) -> Path:
    return prepare_workspace(dest, public_sources(competition_dir))


class UnsafeOutput(Exception):
    """An output file that must not be read (symlink, not a regular file, too large)."""


# What the last sandboxed run in each workspace left that the sandbox refused to hand back
# (FIFOs, sockets, devices, too-deep directories), so that a missing output file it refused is
# reported as such, not as "not written". Bounded: only recent workspaces are remembered.
_REFUSED: OrderedDict[str, dict[str, str]] = OrderedDict()
_REFUSED_LOCK = threading.Lock()
_REFUSED_KEEP = 256


def _remember_refused(workspace: Path, result: SandboxResult) -> None:
    refused = {name: what for name, what in (result.workspace or {}).get("refused", [])}
    key = str(Path(workspace).resolve())
    with _REFUSED_LOCK:
        _REFUSED.pop(key, None)
        _REFUSED[key] = refused
        while len(_REFUSED) > _REFUSED_KEEP:
            _REFUSED.popitem(last=False)


def refused_entry(workspace: Path, name: str) -> str | None:
    """What `name` was if the last run in `workspace` left it as something the sandbox
    refused to copy back (e.g. "FIFO"), else None."""
    with _REFUSED_LOCK:
        return _REFUSED.get(str(Path(workspace).resolve()), {}).get(name)


def read_output(workspace: Path, name: str, max_bytes: int) -> bytes | None:
    """A regular file directly in the workspace, or None when absent. Never follows a link."""
    path = Path(workspace) / name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise UnsafeOutput(f"{name} is a symbolic link; write a regular file") from None
        raise UnsafeOutput(f"{name} cannot be read: {err.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeOutput(f"{name} is not a regular file")
        if info.st_size > max_bytes:
            raise UnsafeOutput(f"{name} is {info.st_size:,} bytes; the limit is {max_bytes:,}")
        chunks, total = [], 0
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise UnsafeOutput(f"{name} is larger than {max_bytes:,} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Check:
    """The `gnncb check` verdict on the predictions file a run left behind."""

    valid: bool
    message: str  # empty when valid; else what the model is told
    rows: int = 0
    data: bytes | None = None
    checked: Checked | None = None  # when valid: what the submission seals (no second read)


def check_predictions(competition_dir: Path, spec: CompetitionSpec, workspace: Path) -> Check:
    name = spec.submission.file
    try:
        data = read_output(workspace, name, spec.submission.max_bytes)
    except UnsafeOutput as err:
        return Check(False, f"{err}; {name} is not a valid submission")
    if data is None:
        refused = refused_entry(workspace, name)
        if refused is not None:
            return Check(False, f"{name} was left as a {refused}, not a regular file; the "
                                f"sandbox refused it, so there is no {name}: write a regular "
                                "file")
        return Check(False, f"{name} was not written to the working directory")
    try:
        checked = check_data(competition_dir, spec, data, filename=name)
    except Rejection as err:
        return Check(False, str(err), data=data)
    return Check(True, "", rows=checked.rows, data=data, checked=checked)


def read_solution(workspace: Path) -> str | None:
    """An agent's solution.py for the log (None when absent or unreadable as a plain file)."""
    try:
        data = read_output(workspace, SOLUTION, MAX_SOLUTION_BYTES)
    except UnsafeOutput:
        return None
    return None if data is None else data.decode("utf-8", errors="replace")


def run_solution(workspace: Path, limits: Limits, *, require_sandbox: bool) -> SandboxResult:
    """`python solution.py` in the workspace, with this interpreter (the one whose libraries
    the prompt lists)."""
    result = run([sys.executable, SOLUTION], workspace=workspace, limits=limits,
                 require_sandbox=require_sandbox)
    _remember_refused(workspace, result)
    return result


def run_command(argv: list[str], workspace: Path, limits: Limits, *, env: Mapping[str, str],
                readonly_paths: tuple[Path, ...], require_sandbox: bool) -> SandboxResult:
    result = run(argv, workspace=workspace, limits=limits, env=env,
                 readonly_paths=readonly_paths, require_sandbox=require_sandbox)
    _remember_refused(workspace, result)
    return result


def normalize(text: str, workspace: Path) -> str:
    """Replace the workspace's absolute path by '.' and the Python installation's by
    '<python>', so feedback and logs do not depend on where a run happened (replay by
    request hash needs identical feedback on another machine)."""
    for form in sorted({str(Path(workspace)), str(Path(workspace).resolve())}, key=len,
                       reverse=True):
        text = text.replace(form + "/", "./").replace(form, ".")
    for prefix in sorted({sys.prefix, sys.base_prefix}, key=len, reverse=True):
        if len(prefix) > 1:
            text = text.replace(prefix + "/", "<python>/")
    return text
