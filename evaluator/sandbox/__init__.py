"""Untrusted code (LLM-written scripts, code-track solutions) run under namespaces, rlimits and
a trusted PID 1 that measures it from outside; see docs/sandbox.md.

Why one sandbox for both tracks: both run code we did not write (an LLM's `solution.py` for
hours, or a participant's solution over thousands of graph cases) and must get the same
guarantees: no network, no access to the repository, keys or other runs' files, a hard deadline
that kills the whole process tree, and resource limits that end a runaway program without
hurting the judge. Where that is impossible (not root, no `unshare`) runs still happen, with
rlimits, a scrubbed environment and a subreaper that kills the tree, but every result says so:
`Isolation.sandboxed` is False and `require_sandbox=True` refuses to run.

This is the package's face: callers import from here (`from evaluator import sandbox`). Behind
it, one module per concern, each importing only those above it in this list:

- `types`: the public data types (Limits, Isolation, SandboxResult) and errors;
- `channel`: a conversation with the workload that PID 1 relays, timed and measured;
- `fdtree`, `fs`: tree walks and copies that follow nothing (PID 1's, and the judge's);
- `launcher`: PID 1 and the workload, standard library only;
- `cgroup`: per-run memory cgroups; `rootfs`: the new root's layout;
- `spawn`: the judge side that starts PID 1, pumps its output and classifies the end;
- `detect`: what isolation this machine gives, found by one real run;
- `judge`: the entry points, `prepare_workspace` and `run`.
"""

from evaluator.sandbox.cgroup import CGROUP_ENV, cgroup_memory_status, cgroup_parent
from evaluator.sandbox.channel import (
    CHANNEL_IN_FD,
    CHANNEL_OUT_FD,
    Channel,
    ChannelClosed,
    Reply,
    credited_wall,
    process_cpu_seconds,
    process_wait_seconds,
)
from evaluator.sandbox.detect import detect_isolation
from evaluator.sandbox.fs import UnsafeTree, remove_tree, scrub_tree, write_file
from evaluator.sandbox.judge import prepare_workspace, run
from evaluator.sandbox.launcher import SANDBOX_HOSTNAME
from evaluator.sandbox.rootfs import python_paths, stdlib_paths, stdlib_python
from evaluator.sandbox.spawn import UID_BASE, UID_SLOTS, sandbox_env
from evaluator.sandbox.types import (
    MEMORY_CGROUP,
    MEMORY_HIT,
    MEMORY_MECHANISM,
    MEMORY_RLIMIT,
    NO_ISOLATION,
    Isolation,
    Limits,
    SandboxError,
    SandboxResult,
    SandboxUnavailable,
    memory_limit_reached,
)

__all__ = [
    "CGROUP_ENV",
    "CHANNEL_IN_FD",
    "CHANNEL_OUT_FD",
    "MEMORY_CGROUP",
    "MEMORY_HIT",
    "MEMORY_MECHANISM",
    "MEMORY_RLIMIT",
    "NO_ISOLATION",
    "SANDBOX_HOSTNAME",
    "UID_BASE",
    "UID_SLOTS",
    "Channel",
    "ChannelClosed",
    "Isolation",
    "Limits",
    "Reply",
    "SandboxError",
    "SandboxResult",
    "SandboxUnavailable",
    "UnsafeTree",
    "cgroup_memory_status",
    "cgroup_parent",
    "detect_isolation",
    "memory_limit_reached",
    "prepare_workspace",
    "process_cpu_seconds",
    "process_wait_seconds",
    "credited_wall",
    "python_paths",
    "remove_tree",
    "run",
    "sandbox_env",
    "scrub_tree",
    "stdlib_paths",
    "stdlib_python",
    "write_file",
]
