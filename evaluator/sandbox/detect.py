"""What isolation this machine gives a run, found by trying it once.

Why a real run and not a checklist: root, util-linux `unshare` and pidfd_open are necessary but
not sufficient (a container may forbid mount namespaces, a kernel may lack a namespace type);
only a run of `true` through the whole sandbox proves it works, and a result never claims more
isolation than that run showed.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
import tempfile
from pathlib import Path

from evaluator.sandbox.spawn import execute
from evaluator.sandbox.types import FULL_MECHANISM, Isolation, Limits, SandboxError


@functools.cache
def detect_isolation() -> Isolation:
    """Probe once what this machine offers, by actually running `true` in the full sandbox."""
    reason = _full_isolation_blocker()
    if reason is None:
        full = Isolation(True, True, True, True, FULL_MECHANISM)
        try:
            with tempfile.TemporaryDirectory(prefix="gnncb-sandbox-probe-") as tmp:
                probe = execute(
                    ["true"], Path(tmp).resolve(), Limits(wall_seconds=30), {}, None, (), full
                )
            if probe.exit_reason == "ok":
                return full
            reason = f"probe run ended with {probe.exit_reason}: {probe.stderr_tail.strip()}"
        except (SandboxError, OSError) as exc:
            reason = f"probe run failed: {exc}"
    return Isolation(False, False, False, False, "none", detail=reason)


def _full_isolation_blocker() -> str | None:
    if not sys.platform.startswith("linux"):
        return f"namespaces need Linux, this is {sys.platform}"
    if os.geteuid() != 0:
        return "not running as root (mount/network/pid namespaces and uid switching need root)"
    if shutil.which("unshare") is None:
        return "util-linux `unshare` not found (apt-get install util-linux)"
    if not hasattr(os, "pidfd_open"):
        return "os.pidfd_open missing (needs Linux >= 5.3)"
    return None
