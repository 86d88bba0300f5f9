"""What a reader sees on the site's pages: LLM run facts as text (never a Python list or dict),
run logs linked only where they exist, the ≈ and protocol marks the markdown boards have, the
rows outside the protocol listed, and the code track's paired tests and category table."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from evaluator.cli import main
from tests.helpers.codetrack import code_row
from tests.render.site.helpers import _row, site_rows

pytestmark = pytest.mark.slow

pytest.importorskip("matplotlib", reason="the site's plots need the [site] extra")

REPO = "https://github.com/example/gnncb"
COMMITTED_LLM = "2f427bd862daac8bb0a27a9812583c439a0305b36cae95dd15930fbeed1395ef"
OUTSIDE = f"{8:064x}"


class Visible(HTMLParser):
    """The text a reader sees, the links, and each table row as a list of cell texts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.links: list[tuple[str, str]] = []
        self.rows: list[list[str]] = []
        self._href: str | None = None
        self._anchor: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a":
            self._href, self._anchor = a.get("href") or "", []
        elif tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "a" and self._href is not None:
            self.links.append((self._href, "".join(self._anchor)))
            self._href = None
        elif tag in ("td", "th") and self._cell is not None and self.rows:
            self.rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data):
        self.text.append(data)
        if self._href is not None:
            self._anchor.append(data)
        if self._cell is not None:
            self._cell.append(data)

    @property
    def joined(self) -> str:
        return " ".join(" ".join(self.text).split())


def read(path: Path) -> Visible:
    page = Visible()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def extra_rows() -> list[dict]:
    """A human outside the protocol (seed 7), and one model's vanilla then SSD code-track runs
    on the same three problems (SSD better on each)."""
    outside = _row(8, "gnn-cora", "dave", "human", "GCN with my own seed", 0.69)
    outside["declared"]["seed"] = 7
    runs = []
    for i, (variant, passed) in enumerate((("code_vanilla_v1", {"lc997": 1, "lc207": 2,
                                                                "lc1971": 0}),
                                           ("code_ssd_v1", {"lc997": 3, "lc207": 4,
                                                            "lc1971": 2}))):
        r = code_row("llm:tiny-coder", passed, digest=f"{i + 1:x}" * 64, entrant="llm-api",
                     pr=None, participant_id=None, at=f"2026-12-0{i + 1}T00:00:00Z")
        r["model"] = "tiny-coder"
        r["declared"]["llm"] = {"prompt_variant": variant, "provider": ["local"],
                                "repair_depth": {"lc997": 1, "lc207": 0, "lc1971": 2},
                                "template_hash": "sha256:" + "7" * 64, "campaign": "tiny"}
        runs.append(r)
    return [outside, *runs]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("pages")
    ledger = base / "ledger.jsonl"
    ledger.write_text("".join(json.dumps(r, sort_keys=True) + "\n"
                              for r in site_rows() + extra_rows()), encoding="utf-8")
    out = base / "out"
    assert main(["site", "build", "--out", str(out), "--ledger", str(ledger),
                 "--repo-url", REPO]) == 0
    return out


def test_llm_run_facts_read_as_text_and_link_only_committed_run_logs(site):
    page = read(site / "entries" / f"{COMMITTED_LLM}.html")
    facts = {row[0]: row[1] for row in page.rows if len(row) == 2}
    assert facts["provider"] == "openai-compatible"
    assert facts["prompt template hash"].startswith("sha256:9a497df9df5ef44e")
    assert "variant code_ssd_v1" in facts["prompt template hash"]
    assert facts["repairs"] == "at most 0 per problem (lc1319: 0, lc1615: 0, lc2360: 0); 2 allowed"
    assert facts["campaign"] == "qwen-local-code"
    assert (f"{REPO}/tree/main/campaigns/qwen2.5-coder-0.5b-local",
            "campaigns/qwen2.5-coder-0.5b-local/") in page.links
    uncommitted = read(site / "entries" / f"{5:064x}.html")  # campaign c2026-11-30
    assert "not committed to the repository" in uncommitted.joined
    assert {"prompt hash": "ab" * 32 + " (variant frozen)"}.items() <= {
        r[0]: r[1] for r in uncommitted.rows if len(r) == 2}.items()
    for path in (site / "entries").glob("*.html"):
        seen = read(path)
        assert not any(h.endswith(("llm-runs", "/llm-runs/")) or "/llm-runs/" in h
                       for h, _ in seen.links), path
        assert "['" not in seen.joined and "{'" not in seen.joined, path


def test_standings_mark_overlapping_intervals_and_protocol_like_the_boards(site):
    page = read(site / "competitions" / "gnn-cora.html")
    rows = {r[2]: r for r in page.rows if len(r) > 5 and r[0][:1].isdigit()}
    # alice 0.74 [0.71, 0.77] and gpt-4o 0.71 [0.68, 0.74] overlap: both marked
    assert rows["alice"][1] == "1 ≈" and rows["llm:gpt-4o"][1].endswith("≈")
    # tier first: these rows carry no paired comparison, so overlapping intervals share a tier
    # (°: decided by the intervals), and the note names the paired test and its level
    assert rows["alice"][0] == "1" and rows["llm:gpt-4o"][0] == "1°"
    assert "Tier first, point rank second" in page.joined and "at 95 %" in page.joined
    assert "Resolution: with about 300 test rows in its public part" in page.joined
    assert rows["alice"][-3] == "ok"
    assert rows["llm:gpt-4o"][-3].startswith("† temperature not recorded")
    assert rows["dave"][-3] == "✗ seed 7 (the rules fix seed 25)"
    assert "≈ beside a rank: its 95 % interval of accuracy overlaps" in page.joined


def test_results_page_lists_the_rows_outside_the_protocol(site):
    page = read(site / "results.html")
    listed = [r for r in page.rows if r and r[0] == "gnn-cora" and "dave" in r]
    assert listed == [["gnn-cora", "dave", "human", "0.6900", OUTSIDE[:12],
                       "seed 7 (the rules fix seed 25)"]]
    assert "1 accepted submission outside the competition's protocol" in page.joined


def test_code_track_page_tests_vanilla_against_ssd_and_says_what_is_not_shown(site):
    page = read(site / "tracks" / "graph-coding.html")
    [pair] = [r for r in page.rows if r[:2] == ["tiny-coder vanilla", "tiny-coder SSD"]]
    problems, b_better, a_better, ties = pair[2], pair[6], pair[7], pair[8]
    assert (problems, b_better, a_better, ties) == ("3", "3", "0", "0")
    assert pair[10] == "0.25"  # exact sign test, 3 of 3 problems better
    assert "Not shown in this build" in page.joined and "--code-runs RUN_DIR" in page.joined
    assert "the command gnncb code report writes it" not in page.joined


def test_code_track_standings_show_each_entrys_interval_over_problems(site):
    from tests.render.site.helpers import code_rows

    page = read(site / "tracks" / "graph-coding.html")
    for row in code_rows():
        lo, hi = (row["intervals"]["pass_rate"][k] for k in ("low", "high"))
        [shown] = [r for r in page.rows if len(r) > 5 and r[1] == row["participant"]]
        assert f"{100 * lo:.2f} – {100 * hi:.2f} %" in shown, shown
    assert "95 % interval (problems resampled)" in page.joined
    # every interval here starts at 0.00 % (few cases passed), so each entry's interval meets
    # its neighbour's: every rank is marked as not separable
    standings = [r for r in page.rows if len(r) > 5 and r[5].endswith("%") and "–" in r[5]]
    assert len(standings) >= 3 and all(r[5].startswith("0.00 –") for r in standings)
    assert all(r[0].endswith("≈") for r in standings), standings


def test_code_track_page_links_the_per_problem_solve_rates_as_data(site):
    """The page links a CSV and a JSON file of per-problem solve rates; their figures are the
    counted entries' own per-problem counts (the entries the standings show)."""
    import csv

    page = read(site / "tracks" / "graph-coding.html")
    links = {href for href, _ in page.links}
    assert {"graph-coding-problems.csv", "graph-coding-problems.json"} <= links
    table = list(csv.DictReader((site / "tracks" / "graph-coding-problems.csv").open()))
    data = json.loads((site / "tracks" / "graph-coding-problems.json").read_text())
    from evaluator.codetrack.problem import all_problems

    assert [r["problem"] for r in table] == [r["problem"] for r in data] == sorted(all_problems())
    # the counted entries: each standings row's participant and passed / cases
    shown = {(r[1], r[6]) for r in page.rows if len(r) > 6 and " / " in r[6]
             and r[6][0].isdigit()}
    ledger = [r for r in site_rows() + extra_rows()
              if r.get("slug") == "graph-coding" and r.get("type") == "submission"]
    counted = [r for r in ledger if (r["participant"], f"{int(r['scores']['passed'])} / "
                                     f"{int(r['scores']['cases'])}") in shown]
    assert len(counted) == len(shown) >= 3
    by_id = {r["problem"]: r for r in data}
    for pid in ("lc997", "lc207", "lc1971"):
        got = [r["per_problem"][pid] for r in counted if pid in r["per_problem"]]
        passed, cases = sum(g["passed"] for g in got), sum(g["cases"] for g in got)
        solved = sum(g["passed"] == g["cases"] > 0 for g in got)
        row = by_id[pid]
        assert (row["entries"], row["cases_passed"], row["cases"]) == (len(got), passed, cases)
        assert row["solve_rate"] == pytest.approx(solved / len(got))
        assert row["pass_rate"] == pytest.approx(passed / cases)
        assert float(next(r for r in table if r["problem"] == pid)["pass_rate"]) == \
            pytest.approx(passed / cases)
    assert by_id["lc997"]["mutants_killed"] is not None
    untouched = next(r for r in data if r["entries"] == 0)
    assert untouched["solve_rate"] is None and untouched["pass_rate"] is None


@pytest.fixture(scope="module")
def judged(tmp_path_factory) -> tuple[Path, Path]:
    """Two judged code-track runs (the reference labelled vanilla, constants labelled ssd)."""
    from tests.helpers.codetrack import judged_runs

    tmp = tmp_path_factory.mktemp("judged")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GNNCB_CACHE", str(tmp / "cache"))
        return judged_runs(tmp)


def test_code_track_page_shows_judged_runs_by_category_and_the_paired_test(judged, tmp_path,
                                                                           capsys):
    ref, const = judged
    out = tmp_path / "site"
    assert main(["site", "build", "--out", str(out), "--only", "graph-coding",
                 "--code-runs", str(ref), "--code-runs", str(const),
                 "--code-pair", "vanilla=ssd"]) == 0
    page = read(out / "tracks" / "graph-coding.html")
    text = page.joined
    assert "Not shown in this build" not in text
    header = next(r for r in page.rows if r[:2] == ["category", "sub-category"])
    assert header[2:] == ["vanilla", "ssd"]
    table2 = [r for r in page.rows if len(r) == 4 and " | " in r[2]]
    assert table2 and all(r[2].startswith("100.0 | ") or r[2].startswith("– | ")
                          or r[2].startswith("100.0 | –") for r in table2)
    assert all("(trivial " in r[2] for r in table2)
    [pair] = [r for r in page.rows if r[:2] == ["vanilla", "ssd"]]
    assert pair[2] == "3" and pair[3] == "100.0"  # 3 problems; the reference passes them all
    runs = {r[0]: r for r in page.rows if r and r[0] in ("vanilla", "ssd") and len(r) == 7}
    assert runs["vanilla"][1] == "100.0" and "[" not in runs["vanilla"][6]
    capsys.readouterr()
    assert main(["results", "codetrack", str(ref), str(const)]) == 0
    markdown = capsys.readouterr().out
    rows = [line for line in markdown.splitlines() if line.startswith("| vanilla |")]
    assert rows and "[" not in rows[0] and "'" not in rows[0]  # isolation as text, not a list
