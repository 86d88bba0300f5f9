"""What a reader sees is what was measured (issue 25, points 2 and 3), read in headless Chromium.

One site built through `gnncb site build` from the browser tests' ledger plus one human on
diagraph (a competition replicating GNN-CB C06), an LLM and a human on solubility (MAE), the
committed campaign's five failed LLM runs, and a campaign summary holding the attempt log of
one LLM entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli import main
from tests.helpers.paths import REPO
from tests.render.results.helpers import PROTOCOL_HUMAN, ledger_row, llm_row
from tests.render.site.helpers import site_rows

# importing the browser tests skips this module with them (no chromium, no selenium)
from tests.render.site.test_browser import (  # noqa: F401
    By,
    browser,
    console_errors,
    open_page,
)

pytestmark = pytest.mark.slow

QWEN = REPO / "campaigns" / "qwen2.5-coder-0.5b-local" / "gnn"
LLM_ENTRY = f"entries/{5:064x}.html"  # qwen2.5-coder-7b on gnn-cora, 2 repairs
ATTEMPTS = [{"index": 1, "parse_status": "missing_code", "exit_reason": None, "valid": False,
             "failure": {"mode": "response_format", "evidence": "no code block"}},
            {"index": 2, "parse_status": "ok", "exit_reason": "timeout", "valid": False,
             "failure": {"mode": "timeout", "evidence": "wall limit 600 s"}},
            {"index": 3, "parse_status": "ok", "exit_reason": "ok", "valid": True,
             "failure": None}]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("claims-site")
    rows = site_rows() + [
        ledger_row(90, "diagraph", "nova", {"macro_f1": 0.8558}, declared=dict(PROTOCOL_HUMAN)),
        ledger_row(91, "solubility", "dave", {"mae": 0.90}, declared=dict(PROTOCOL_HUMAN)),
        llm_row(92, "solubility", "gpt-4o", {"mae": 0.80})]
    ledger = base / "ledger.jsonl"
    ledger.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows),
                      encoding="utf-8")
    summaries = base / "campaign" / "summaries"
    summaries.mkdir(parents=True)
    (summaries / "gnn-cora.json").write_text(json.dumps({
        "model": "qwen2.5-coder-7b-instruct", "slug": "gnn-cora", "status": "scored",
        "digest": f"{5:064x}", "repair_depth": 2, "attempt_log": ATTEMPTS}), encoding="utf-8")
    out = base / "site"
    assert main(["site", "build", "--out", str(out), "--ledger", str(ledger), "--runs",
                 str(QWEN), "--runs", str(base / "campaign"), "--jobs", "1"]) == 0
    return out


def cells_of(page, selector: str, first: str) -> list[str]:
    for row in page.find_elements(By.CSS_SELECTOR, f"{selector} tbody tr"):
        cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
        if cells and cells[0].startswith(first):
            return cells
    raise AssertionError(f"no row starting with {first!r} in {selector}")


def test_the_papers_cohort_stays_beside_one_human_here(browser, site):  # noqa: F811
    page = open_page(browser, site, "results.html")
    row = cells_of(page, "#cohorts", "DiaGraph")
    # reference: n, top, mean, sd, source; then the platform: n, top, mean, sd
    assert row[2:6] == ["15", "0.8220", "0.5700", "0.1250"]
    assert row[6].startswith("GNN-CB Table 2")
    assert row[7:9] == ["1", "0.8558"]
    index = open_page(browser, site, "index.html")
    row = cells_of(index, "#competitions", "DiaGraph")
    assert row[3] == "0.8220 (n = 15, GNN-CB Table 2)"
    assert row[4] == "0.8558 (n = 1)"
    assert console_errors(index) == []


def test_every_llm_outcome_the_cli_counts_is_on_the_site(browser, site):  # noqa: F811
    page = open_page(browser, site, "results.html")
    # the committed campaign's five failures ran with overridden limits: one protocol rule for
    # successes and failures lists them apart, with the reason, as `gnncb results gaps` does
    failed = [r for r in page.find_elements(By.CSS_SELECTOR, "table tbody tr")
              if "execution limits overridden" in r.text and "qwen2.5-coder-0.5b" in r.text]
    assert len(failed) == 5
    index = open_page(browser, site, "index.html")
    status = index.find_element(By.ID, "llm-status").text
    assert status.startswith("3 LLM outcomes with a valid file")


def test_charts_keep_one_unit_and_one_direction(browser, site):  # noqa: F811
    page = open_page(browser, site, "results.html")
    figures = page.find_elements(By.TAG_NAME, "figure")
    heatmap = next(f for f in figures if "Gap to the best human" in f.text)
    assert "solubility" not in heatmap.find_element(By.TAG_NAME, "svg").get_attribute(
        "innerHTML")  # an MAE gap never shares the colour scale of accuracy gaps
    assert "solubility" in heatmap.find_element(By.TAG_NAME, "figcaption").text
    bars = next(f for f in figures if "LLM mean vs human mean" in f.text)
    assert "solubility" not in bars.find_element(By.TAG_NAME, "svg").get_attribute("innerHTML")
    table = [r.text for r in page.find_elements(By.CSS_SELECTOR, "table tbody tr")
             if r.text.startswith("gpt-4o solubility")]
    assert table and "+0.1000" in table[0]  # still in the table, in its own units


def test_an_llm_entry_shows_its_protocol_attempts_part_and_gap(browser, site):  # noqa: F811
    page = open_page(browser, site, LLM_ENTRY)
    headings = [h.text for h in page.find_elements(By.TAG_NAME, "h2")]
    assert "LLM protocol" in headings and "Declared rules" not in headings
    rules = {r.find_elements(By.TAG_NAME, "td")[0].text: r.find_elements(By.TAG_NAME, "td")[2].text
             for r in page.find_elements(By.CSS_SELECTOR, "#llm-rules tbody tr")}
    assert set(rules) >= {"temperature", "output-token budget per call", "seed",
                          "repairs allowed", "repairs used", "execution limits", "sandbox"}
    assert rules["repairs used"] == "2" and rules["temperature"] == "not recorded"
    attempts = [li.text for li in page.find_elements(By.CSS_SELECTOR, "#failed-attempts li")]
    assert attempts == ["attempt 1: response_format; no code block; parse missing_code",
                        "attempt 2: timeout; wall limit 600 s; exit timeout"]
    assert page.find_element(By.ID, "scored-on").text.startswith("These scores are on")
    gap = {r.find_elements(By.TAG_NAME, "td")[0].text: r.find_elements(By.TAG_NAME, "td")
           for r in page.find_elements(By.CSS_SELECTOR, "#gap-to-human tbody tr")}
    ref = gap["reference (GNN-CB Table 2)"]
    assert [c.text for c in ref[1:]] == ["14", "0.7420", "-0.0820"]  # 0.66 - C12's 0.742
    here = gap["humans on this platform"]
    assert [c.text for c in here[1:]] == ["4", "0.7400", "-0.0800"]  # alice's 0.74
    assert console_errors(page) == []


def test_a_tiny_public_part_is_flagged_where_its_number_is_shown(browser, site):  # noqa: F811
    index = open_page(browser, site, "index.html")
    row = cells_of(index, "#competitions", "GRAPE")
    assert "(small: 4 rows of the public part)" in row[6]  # grape's baseline 1.0000
