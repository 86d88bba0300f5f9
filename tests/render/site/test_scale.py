"""Rendering at scale keeps its output: the shared view, the worker processes and the one-pass
CSV give the same bytes as rendering each part alone, in one process, the old way.

`benchmarks/render_scale.py` measures the speed; these tests pin the bytes on a mixed ledger
(the committed rows, the site fixtures, synthetic rows shaped like the pipeline's, and every
kind of audit line: withdrawals, re-scores, stale marks, final choices, a reveal).
"""

from __future__ import annotations

import csv
import importlib.util
import io
import random
import re
from pathlib import Path

import pytest

from evaluator.cli import main
from evaluator.codetrack.board import load_all_specs
from evaluator.ledger.ranking import standings_by_competition
from evaluator.paths import competitions_dir
from evaluator.render.boards import prepare, standings_csv, write_leaderboards
from tests.render.site.helpers import ROOT, site_rows, write_ledger

pytest.importorskip("matplotlib", reason="the site's plots need the [site] extra")

from evaluator.render.site.build import build_site  # noqa: E402
from evaluator.render.site.parallel import Drawer  # noqa: E402

pytestmark = pytest.mark.slow


def _synthetic(specs: list, n: int) -> list[dict]:
    path = ROOT / "benchmarks" / "render_scale.py"
    spec = importlib.util.spec_from_file_location("render_scale", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.synthetic_rows(specs, n)


def mixed_rows(specs: list, n: int = 1200) -> list[dict]:
    rows = site_rows() + _synthetic(specs, n)
    subs = [r for r in rows if r["type"] == "submission"]
    rng = random.Random(5)
    for i in range(30):
        t = rng.choice(subs)
        kind = ("withdrawal", "rescore", "stale", "final-choice")[i % 4]
        if kind == "withdrawal":
            rows.append({"type": kind, "digest": t["digest"], "at": "2026-12-01T00:00:00Z"})
        elif kind in ("rescore", "stale"):
            rows.append({"type": kind, "digest": f"{kind}{i:058d}", "target": t["digest"],
                         "scores": {k: v * 0.9 for k, v in t["scores"].items()},
                         "at": "2026-12-02T00:00:00Z"})
        else:
            mine = [r["digest"] for r in subs
                    if r["participant"] == t["participant"] and r["slug"] == t["slug"]]
            rows.append({"type": kind, "digest": f"c{i:063d}", "slug": t["slug"],
                         "version": t["version"], "participant": t["participant"],
                         "chosen": mine[:1]})
    cora = [r for r in subs if r["slug"] == "gnn-cora"]
    rows.append({"type": "reveal", "slug": "gnn-cora", "version": cora[0]["version"],
                 "digest": "r" * 64, "public_fraction": 0.3, "at": "2026-12-03T00:00:00Z",
                 "by": "maintainer", "submissions": 40,
                 "private": {r["digest"]: {k: v * 0.95 for k, v in r["scores"].items()}
                             for r in cora[:40]}})
    return rows


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.fixture(scope="module")
def specs() -> list:
    return load_all_specs(competitions_dir())


@pytest.fixture(scope="module")
def alone(specs, tmp_path_factory) -> tuple[list[dict], Path]:
    """Boards and site each rendered alone, everything in this process."""
    rows = mixed_rows(specs)
    base = tmp_path_factory.mktemp("alone")
    write_leaderboards(specs, rows, base / "lb", ledger="ledger.jsonl")
    build_site(specs, rows, base / "site", ledger="ledger.jsonl", jobs=1)
    return rows, base


def test_workers_and_shared_view_give_the_same_bytes(specs, alone, tmp_path):
    rows, base = alone
    assert (base / "lb" / "final" / "gnn-cora.md").is_file()  # the reveal is exercised
    build_site(specs, rows, tmp_path / "site", ledger="ledger.jsonl", jobs=2,
               boards=tmp_path / "lb")
    for part in ("lb", "site"):
        want, got = files(base / part), files(tmp_path / part)
        assert want.keys() == got.keys()
        assert [k for k in want if want[k] != got[k]] == [], part
    shared = prepare(specs, rows)  # the caller's own shared view, in one process
    build_site(specs, rows, tmp_path / "site2", ledger="ledger.jsonl", jobs=1,
               prepared=shared)
    assert files(tmp_path / "site2") == files(base / "site")


def test_only_rewrites_exactly_the_pages_of_a_full_build(specs, alone, tmp_path):
    rows, base = alone
    build_site(specs, rows, tmp_path / "part", ledger="ledger.jsonl", changed=["gta"])
    full, part = files(base / "site"), files(tmp_path / "part")
    assert "competitions/gta.html" in part and "competitions/gnn-cora.html" not in part
    assert {k: full[k] for k in part} == part


def test_the_board_and_site_csv_are_the_old_one_pass_per_row_csv(specs, alone):
    rows, base = alone
    tables = standings_by_competition(specs, rows)
    for spec in specs:
        if not hasattr(spec, "rules"):
            continue
        text = standings_csv(spec, tables[spec.slug])
        assert text == _old_csv(spec, tables[spec.slug])
        assert (base / "lb" / f"{spec.slug}.csv").read_text(encoding="utf-8") == text
        assert (base / "site" / "competitions" / f"{spec.slug}.csv").read_text(
            encoding="utf-8") == text


def _old_csv(spec, entries) -> str:
    """standings_csv as it was before the one-pass writer (the oracle), with the scored_on
    column the boards gained since."""
    names = list(spec.metrics) + list(spec.derived)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["rank", "participant", "entrant", "method", "model", *names, "submissions",
                "date", "digest", "scored_on"])

    def cell(value: object) -> str:
        text = re.sub(r"[\r\n]+", " ", str(value))
        return "'" + text if text[:1] in ("=", "+", "-", "@", "\t") else text

    for e in entries:
        r = e.row
        w.writerow([e.rank, *(cell(r.get(k, "")) for k in
                              ("participant", "entrant", "method", "model")),
                    *(repr(float(r["scores"][n])) if r["scores"].get(n) is not None else ""
                      for n in names),
                    e.submissions, (r.get("submitted_at") or r.get("scored_at") or "")[:10],
                    r.get("digest", ""), r.get("scored_on", "all")])
    return out.getvalue()


def test_a_failing_figure_fails_the_build_with_the_workers_traceback():
    drawer = Drawer(parallel=True)
    try:
        drawer.send([("bad", "no_such_plot", ())])
        with pytest.raises(RuntimeError, match="no_such_plot"):
            drawer.get("bad")
    finally:
        drawer.close()
    inline = Drawer(parallel=False)
    inline.send([("bad", "no_such_plot", ())])
    with pytest.raises(AttributeError, match="no_such_plot"):
        inline.get("bad")


def test_site_build_reports_progress_in_ci_logs(tmp_path, capsys):
    ledger = write_ledger(tmp_path / "ledger.jsonl")
    assert main(["site", "build", "--out", str(tmp_path / "out"), "--ledger", str(ledger),
                 "--boards", str(tmp_path / "lb")]) == 0
    captured = capsys.readouterr()
    lines = [x for x in captured.err.splitlines() if x.startswith("building the site")]
    assert lines and "100%" in lines[-1] and "\r" not in captured.err
    assert "board files into" in captured.out and (tmp_path / "lb" / "gnn-cora.md").is_file()
