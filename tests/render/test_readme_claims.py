"""A competition README claims what its numbers show (issue 25, points 2 and 3), rendered through
`gnncb competition readme` on copies of the committed competitions and ledger."""

from __future__ import annotations

import json
import shutil

import pytest

from evaluator.cli import main as gnncb
from tests.helpers.paths import REPO
from tests.render.results.helpers import PROTOCOL_HUMAN, ledger_row


def render(tmp_path, slug: str, extra: list[dict] | None = None) -> str:
    folder = tmp_path / "competitions" / slug
    shutil.copytree(REPO / "competitions" / slug, folder)
    ledger = tmp_path / "ledger.jsonl"
    text = (REPO / "leaderboard" / "ledger.jsonl").read_text(encoding="utf-8")
    ledger.write_text(text + "".join(json.dumps(r) + "\n" for r in extra or []),
                      encoding="utf-8")
    assert gnncb(["competition", "readme", str(folder), "--ledger", str(ledger)]) == 0
    return (folder / "README.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_grape_makes_no_claim_its_four_graphs_cannot_carry(tmp_path, capsys):
    readme = render(tmp_path, "grape")
    assert "The graph helps" not in readme  # both intervals overlap on 4 graphs
    assert "**No clear difference between the baselines**" in readme
    assert "on 4 rows of the public part" in readme and "**Small test set**" in readme


@pytest.mark.slow
def test_one_human_leaves_the_papers_cohort_in_the_readme(tmp_path, capsys):
    nova = ledger_row(90, "diagraph", "nova", {"macro_f1": 0.8558},
                      declared=dict(PROTOCOL_HUMAN))
    readme = render(tmp_path, "diagraph", [nova])
    section = readme.split("### Human reference and humans here", 1)[1]
    assert "Reference (GNN-CB Table 2): 15 participants, best 0.8220, mean 0.5700" in section
    assert "Humans on this platform: n = 1, best 0.8558" in section
    # the separated baselines may still be called apart, with the size they were measured on
    assert "**The graph helps**" in readme and "on 5767 rows of the public part" in readme
