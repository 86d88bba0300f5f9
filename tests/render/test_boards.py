"""Markdown boards: every participant string renders as exactly its text, the page stays
readable (only what CommonMark needs is escaped), top N + CSV, and the ledger is named.

The check is a real CommonMark parser (markdown-it-py, with GFM tables and strikethrough):
what matters is what a reader of the rendered board sees, not which backslashes we wrote.
"""

from __future__ import annotations

import csv
import io
import re
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from evaluator.competition.spec import parse_spec
from evaluator.render.boards import (
    MENTION_BREAK,
    competition_page,
    index_page,
    md_escape,
    write_leaderboards,
)
from tests.helpers.spec import GOOD

HOSTILE = [
    "[click](https://evil.example)",
    "![img](https://evil.example/x.png)",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "a | b | c",
    "line1\nline2\r\n| injected | row |",
    "@everyone ping",
    "`code` **bold** _it_ ~~s~~",
    "&lt;already&gt; &amp;",
    "javascript:alert(1)",
    "# heading? - list? > quote?",
    "1. not a list",
    "$x^2$ math and :smile: emoji and www.evil.example and https://evil.example",
    "back\\slash \\| pipe",
]
MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])


class Cells(HTMLParser):
    """Table cells of rendered HTML: their text, and the tags found inside each."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[tuple[str, set[str]]]] = []
        self._cell: list[str] | None = None
        self._tags: set[str] = set()

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell, self._tags = [], set()
        elif self._cell is not None:
            self._tags.add(tag)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(("".join(self._cell), self._tags))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def cells_of(markdown: str) -> list[list[tuple[str, set[str]]]]:
    parser = Cells()
    parser.feed(MD.render(markdown))
    return parser.rows


def shown_text(value: str) -> str:
    """What a reader should see for a participant string: the same text on one line (an "@",
    and a "#" or "GH-" before a number, followed by an invisible joiner, so GitHub makes
    neither a mention nor an issue reference)."""
    text = re.sub(r"[\r\n\t\v\f]+", " ", value)
    text = "".join(ch for ch in text if ch.isprintable()).strip().replace("@", MENTION_BREAK)
    return re.sub(r"(#|(?<![A-Za-z0-9])[Gg][Hh]-)(?=[0-9])", "\\1\u200d", text)


def rows_with(method: str, participant: str = "alice", n: int = 1) -> list[dict]:
    return [{"type": "submission", "digest": f"d{i}", "slug": "gta", "version": 1,
             "participant": f"{participant}{i}" if n > 1 else participant, "entrant": "human",
             "method": method, "model": "",
             "scores": {"f1_ideal": 0.9, "f1_perturbed": 0.8 - i / 1000, "robustness_gap": 0.1},
             "scored_at": "2026-01-02T03:04:05Z"} for i in range(n)]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_method_renders_as_its_text_in_one_cell(text):
    page = competition_page(parse_spec(GOOD), rows_with(text))
    rows = cells_of(page)
    assert len(rows) == 2  # header + one entry: a newline or pipe cannot add a row
    header, entry = rows
    assert len(entry) == len(header)  # columns intact
    method = entry[header.index(("method", set()))]
    assert method == (shown_text(text), set())  # the text, and no link/image/em/code tag
    assert "<script" not in MD.render(page) and "<img" not in MD.render(page)


@pytest.mark.parametrize("text", HOSTILE)
def test_github_only_constructs_are_neutralised(text):
    out = md_escape(text)
    assert "\n" not in out and "\r" not in out
    assert not re.search(r"@[A-Za-z0-9]", out)  # no "@login" GitHub could link
    assert not re.search(r"(?<!\\)[$~|`*\[\]]", out)  # no math, strikethrough, cell break
    assert not re.search(r"(?<!\\):(?=//)", out)  # no bare-URL autolink
    assert not re.search(r"(?i)(?<![A-Za-z0-9])www\.", out)
    assert not re.search(r"(?<!\\):[A-Za-z0-9_+-]+:", out)  # no :emoji: shortcode


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
       | st.text(alphabet="\\`*_{}[]()#+-.!|~$:<>&;@ abc1\n", max_size=30))
def test_any_text_renders_as_exactly_itself(text):
    cells = cells_of(f"| x |\n| --- |\n| {md_escape(text)} |\n")
    assert cells[1] == [(shown_text(text), set())]


@pytest.mark.parametrize("text", ["GNN-CoRA: noisy Cora node classification",
                                  "PARK-GNN: Parkinson's detection", "macro_f1",
                                  "2-layer GCN (hidden 64, dropout 0.5), early stopping",
                                  "logistic regression (C=0.1, chosen on val)", "AT&T's graph"])
def test_ordinary_text_is_left_readable(text):
    assert md_escape(text) == text


def test_board_shows_top_n_and_links_the_full_csv(tmp_path):
    spec = parse_spec(GOOD)
    ledger = tmp_path / "ledger.jsonl"
    rows = rows_with("GCN", n=30)
    written = write_leaderboards([spec], rows, tmp_path / "out", ledger=ledger, top=20)
    page = (tmp_path / "out" / "gta.md").read_text(encoding="utf-8")
    table = [r for r in cells_of(page) if r]
    assert len(table) == 1 + 20
    assert "Showing the top 20 of 30 entries" in page and "[gta.csv](gta.csv)" in page
    assert page.startswith(f"<!-- Generated by `gnncb leaderboard render` from {ledger}.")
    with (tmp_path / "out" / "gta.csv").open(encoding="utf-8") as fh:
        full = list(csv.DictReader(fh))
    assert len(full) == 30 and full[0]["participant"] == "alice0"
    assert float(full[-1]["f1_perturbed"]) == rows[-1]["scores"]["f1_perturbed"]  # full precision
    assert sorted(p.name for p in written) == ["README.md", "gta.csv", "gta.md"]


def test_csv_says_which_part_each_score_is_from(tmp_path):
    """`scored_on` (last column): public for a row scored on the public part, all for a row
    scored on the whole split (the ledger's default); every other column as before."""
    rows = rows_with("GCN", n=2)
    rows[0]["scored_on"] = "public"
    write_leaderboards([parse_spec(GOOD)], rows, tmp_path)
    text = (tmp_path / "gta.csv").read_text(encoding="utf-8")
    header, first, second = text.splitlines()
    assert header == ("rank,participant,entrant,method,model,f1_ideal,f1_perturbed,"
                      "robustness_gap,submissions,date,digest,scored_on")
    assert first == "1,alice0,human,GCN,,0.9,0.8,0.1,1,2026-01-02,d0,public"
    assert second.endswith(",d1,all")


def test_csv_cells_cannot_become_spreadsheet_formulas(tmp_path):
    write_leaderboards([parse_spec(GOOD)], rows_with("=HYPERLINK(\"x\")"), tmp_path)
    row = next(csv.DictReader(io.StringIO((tmp_path / "gta.csv").read_text())))
    assert row["method"] == "'=HYPERLINK(\"x\")"


def test_changed_renders_only_that_competition_and_the_index(tmp_path):
    spec = parse_spec(GOOD)
    other = parse_spec(GOOD.replace("slug: gta", "slug: gta-two"))
    written = write_leaderboards([spec, other], rows_with("GCN"), tmp_path, changed=["gta"])
    assert sorted(p.name for p in written) == ["README.md", "gta.csv", "gta.md"]
    index = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "gta-two.md" in index  # the index still lists every competition


def test_rendering_is_deterministic():
    spec = parse_spec(GOOD)
    rows = rows_with("GCN")
    assert competition_page(spec, rows) == competition_page(spec, rows)
    assert index_page([spec], rows) == index_page([spec], rows)
    assert "0.8000" in competition_page(spec, rows)


def test_empty_leaderboard_says_so():
    assert "No accepted submissions yet." in competition_page(parse_spec(GOOD), [])


def test_index_names_the_ledger_and_its_size():
    page = index_page([parse_spec(GOOD)], rows_with("GCN"), source="leaderboard/ledger.jsonl")
    assert page.splitlines()[0] == ("<!-- Generated by `gnncb leaderboard render` from "
                                    "leaderboard/ledger.jsonl (1 rows). Do not edit. -->")


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["submission", "submission", "submission",
                                           "withdrawal", "rescore", "final-choice"]),
                          st.sampled_from(["gta", "gta-two"]), st.sampled_from([1, 2]),
                          st.sampled_from(["ann", "Ann", "bob", "cy"]),
                          st.floats(0, 1), st.integers(0, 30), st.booleans()),
                max_size=40))
def test_one_pass_standings_equal_per_competition_standings(events):
    """The renderers rank every competition from one pass; it must equal `standings`."""
    from evaluator.ledger.ranking import standings, standings_by_competition

    specs = [parse_spec(GOOD), parse_spec(GOOD.replace("slug: gta", "slug: gta-two"))]
    rows: list[dict] = []
    for i, (kind, slug, version, who, score, ref, late) in enumerate(events):
        digests = [r["digest"] for r in rows if r["type"] == "submission"]
        target = digests[ref % len(digests)] if digests else "none"
        scores = {"f1_ideal": 0.9, "f1_perturbed": score, "robustness_gap": 0.9 - score}
        if kind == "submission":
            rows.append({"type": kind, "digest": f"d{i}", "slug": slug, "version": version,
                         "participant": who, "entrant": "human", "method": "m",
                         "scores": scores, "scored_at": "2026-01-01T00:00:00Z", "late": late,
                         **({"final_choice": [target]} if ref % 7 == 0 else {})})
        elif kind == "withdrawal":
            rows.append({"type": kind, "digest": target})
        elif kind == "rescore":
            rows.append({"type": kind, "digest": f"r{i}", "target": target, "scores": scores,
                         "at": "2026-01-02T00:00:00Z"})
        else:
            rows.append({"type": kind, "digest": f"c{i}", "slug": slug, "version": version,
                         "participant": who, "chosen": [target]})
    together = standings_by_competition(specs, rows)
    assert together == {s.slug: standings(s, rows) for s in specs}


SITE_ENV = ("GNNCB_SITE_URL", "GITHUB_ACTIONS", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY")


def _links(page: str) -> list[str]:
    return [t.attrs["href"] for tok in MD.parse(page) for t in (tok.children or [])
            if t.type == "link_open"]


@pytest.mark.parametrize(("env", "site"), [
    ({}, None),  # a local render: no address known, the CSV link only
    ({"GITHUB_ACTIONS": "true", "GITHUB_SERVER_URL": "https://github.com",
      "GITHUB_REPOSITORY": "Some-Org/gnncb"}, "https://some-org.github.io/gnncb/"),
    ({"GITHUB_ACTIONS": "true", "GITHUB_SERVER_URL": "https://github.com",
      "GITHUB_REPOSITORY": "me/me.github.io"}, "https://me.github.io/"),
    ({"GITHUB_ACTIONS": "true", "GITHUB_SERVER_URL": "https://ghe.example",
      "GITHUB_REPOSITORY": "o/r"}, None),  # GitHub Enterprise: Pages hosts differ, say nothing
    ({"GITHUB_ACTIONS": "true", "GITHUB_SERVER_URL": "https://github.com",
      "GITHUB_REPOSITORY": "o/r", "GNNCB_SITE_URL": "https://bench.example.org/site"},
     "https://bench.example.org/site/"),
    ({"GITHUB_ACTIONS": "true", "GITHUB_SERVER_URL": "https://github.com",
      "GITHUB_REPOSITORY": "o/r", "GNNCB_SITE_URL": "none"}, None),
])
def test_boards_link_the_site_the_publish_job_knows(env, site, tmp_path, monkeypatch):
    """In a GitHub Actions job (the publish jobs that commit the boards) the boards link each
    competition's site page at the repository's Pages address with no configuration;
    GNNCB_SITE_URL overrides it (or `none` turns it off); elsewhere only the CSV is linked."""
    for name in SITE_ENV:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    write_leaderboards([parse_spec(GOOD)], rows_with("GCN"), tmp_path)
    links = _links((tmp_path / "gta.md").read_text(encoding="utf-8"))
    index = _links((tmp_path / "README.md").read_text(encoding="utf-8"))
    assert "gta.csv" in links
    if site is None:
        assert not [h for h in links + index if h.startswith("http")]
    else:
        assert f"{site}competitions/gta.html" in links
        assert any(h.startswith(site) for h in index)
