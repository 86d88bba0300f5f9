"""PID 1's status never blocks it (issue 23.3): the report of refused files is capped at the
source (count and each path's length) and the judge drains the status pipe while the run lasts.

Before: every refused path went into the status in full and the judge read it only after PID 1
exited; past a pipe's 64 KiB PID 1 blocked, and a valid run ended as a timeout.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from evaluator import sandbox
from evaluator.sandbox import Limits, fdtree, run

ISOLATION = sandbox.detect_isolation()
needs_sandbox = pytest.mark.skipif(
    not ISOLATION.sandboxed, reason=f"no isolation on this machine: {ISOLATION.detail}"
)


def test_shorten_path_keeps_head_and_tail_within_the_cap() -> None:
    deep = "/".join(["d" * 250] * 190) + "/fifo-7"
    cut = fdtree.shorten_path(deep)
    assert len(cut) == fdtree.MAX_REFUSED_CHARS
    assert cut.startswith("d" * 70) and cut.endswith("/fifo-7") and "..." in cut
    assert fdtree.shorten_path("a/b/fifo") == "a/b/fifo"


@pytest.mark.slow
@needs_sandbox
def test_fifos_below_a_deep_chain_of_long_names_end_in_a_verdict(tmp_path: Path) -> None:
    """150 FIFOs under 190 directories of 250 characters: 48 KB per path, 7 MB of names in
    full. The run ends `ok` with every FIFO counted, the first 100 named, each name cut."""
    ws = tmp_path / "workspace"
    ws.mkdir()
    (ws / "solution.py").write_text(textwrap.dedent("""
        import os
        for _ in range(190):
            os.mkdir("d" * 250)
            os.chdir("d" * 250)
        for i in range(150):
            os.mkfifo(f"fifo-{i:03d}")
    """))
    result = run([sys.executable, "solution.py"], workspace=ws, limits=Limits(wall_seconds=60))
    assert result.exit_reason == "ok", (result.exit_reason, result.stderr_tail)
    assert result.returncode == 0
    report = result.workspace
    assert report is not None and report["dropped"] == 150
    assert len(report["refused"]) == fdtree.MAX_REFUSED_NAMES
    for path, what in report["refused"]:
        assert what == "FIFO" and len(path) <= fdtree.MAX_REFUSED_CHARS
        assert path.startswith("d" * 50) and "/fifo-" in path
    assert report["refused"][0][0].endswith("/fifo-000")
    sandbox.remove_tree(ws)
