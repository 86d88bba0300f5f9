"""`gnncb site build`: the pages exist, are deterministic, escape participant strings, link
only to files that exist, load nothing from elsewhere, and re-render incrementally."""

from __future__ import annotations

import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from evaluator.cli import main
from tests.render.site.helpers import HOSTILE, HOSTILE_LOGIN, ROOT, write_ledger

pytestmark = pytest.mark.slow

pytest.importorskip("matplotlib", reason="the site's plots need the [site] extra")


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.sources: list[str] = []
        self.metas: list[dict[str, str]] = []
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        self.tags.append(tag)
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        for key in ("src", "href"):
            if key in a and tag != "a":
                self.sources.append(a[key])
        if tag == "meta":
            self.metas.append(a)

    def handle_data(self, data):
        self.text.append(data)


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("site")
    ledger = write_ledger(base / "ledger.jsonl")
    out = base / "out"
    assert main(["site", "build", "--out", str(out), "--ledger", str(ledger)]) == 0
    return out, ledger


def test_every_page_type_is_built(built):
    out, _ = built
    assert (out / "index.html").is_file() and (out / "results.html").is_file()
    slugs = sorted(p.parent.name for p in (ROOT / "competitions").glob("*/competition.yaml"))
    for slug in slugs:
        assert (out / "competitions" / f"{slug}.html").is_file()
        assert (out / "competitions" / f"{slug}.csv").is_file()
    assert (out / "tracks" / "graph-coding.html").is_file()
    entries = sorted((out / "entries").glob("*.html"))
    assert len(entries) >= 2 * len(slugs) + 6  # two baselines each + our 6 counted entries
    cora = parse(out / "competitions" / "gnn-cora.html")
    body = "".join(cora.text)
    assert "0.742" in body and "0.551" in body  # the paper's human reference
    assert "How to take part" in body and "gnncb encrypt" in body
    assert cora.tags.count("svg") == 2 and cora.tags.count("title") >= 3  # 2 plots + page


def test_pages_are_deterministic(built, tmp_path):
    out, ledger = built
    again = tmp_path / "again"
    assert main(["site", "build", "--out", str(again), "--ledger", str(ledger)]) == 0
    first = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    second = {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert first.keys() == second.keys()
    assert [k for k in first if first[k] != second[k]] == []


def test_participant_strings_are_html_escaped(built):
    out, _ = built
    for path in out.rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        assert "<script>alert" not in html and "<b>bold</b>" not in html, path
        assert html.count("<script") == 1  # only the local, optional sort.js
    cora = (out / "competitions" / "gnn-cora.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in cora
    assert "".join(parse(out / "competitions" / "gnn-cora.html").text).count(HOSTILE) == 1
    assert "javascript:" not in "".join(parse(out / "competitions" / "gnn-cora.html").links)


def test_links_resolve_and_nothing_loads_from_elsewhere(built):
    out, _ = built
    for path in out.rglob("*.html"):
        page = parse(path)
        csp = [m["content"] for m in page.metas
               if m.get("http-equiv") == "Content-Security-Policy"]
        assert csp and "script-src 'self'" in csp[0] and "default-src 'none'" in csp[0]
        for ref in page.sources:
            assert not urlsplit(ref).scheme and not ref.startswith("//"), (path, ref)
            assert (path.parent / ref).resolve().is_file(), (path, ref)
        for href in page.links:
            if urlsplit(href).scheme:  # only links to the repository, none here (no --repo-url)
                pytest.fail(f"{path}: external link {href}")
            assert (path.parent / href.split("#")[0]).resolve().is_file(), (path, href)


def test_entry_page_shows_rules_llm_run_and_interval(built):
    out, _ = built
    llm = parse(out / "entries" / f"{5:064x}.html")
    text = "".join(llm.text)
    for expected in ("qwen2.5-coder-7b-instruct", "ab" * 32, "5120 in, 880 out", "repairs",
                     "c2026-11-30", "0.6300 – 0.6900", "LLM protocol"):
        assert expected in text, expected
    human = "".join(parse(out / "entries" / f"{3:064x}.html").text)
    assert HOSTILE in human and HOSTILE_LOGIN in human and "laptop, 4 cores" in human


def test_results_page_uses_the_results_api(built):
    out, _ = built
    page = parse(out / "results.html")
    text = "".join(page.text)
    assert page.tags.count("svg") == 2  # gap heatmap + LLM vs human bars
    assert "qwen2.5-coder-7b-instruct" in text and "gpt-4o" in text
    # cohort of gnn-cora: alice 0.74, bob 0.63 (his latest), mallory 0.58, carol 0.52
    assert "0.6175" in text  # their mean (the platform's cohort, beside the paper's)
    assert "-0.0320" in text  # gpt-4o 0.71 against the reference top 0.742 (GNN-CB C12)


def test_only_rebuilds_one_competition_index_and_results(built, tmp_path):
    out, ledger = built
    part = tmp_path / "part"
    assert main(["site", "build", "--out", str(part), "--ledger", str(ledger),
                 "--only", "gnn-cora"]) == 0
    pages = sorted(str(p.relative_to(part)) for p in part.rglob("*.html"))
    assert "index.html" in pages and "results.html" in pages
    assert "competitions/gnn-cora.html" in pages and "competitions/gta.html" not in pages
    cora_entries = {p.name for p in part.glob("entries/*.html")}
    assert f"{1:064x}.html" in cora_entries and len(cora_entries) == 2 + 7 - 1  # bob once
    assert main(["site", "build", "--out", str(part), "--only", "no-such"]) == 2


def test_the_scoring_path_never_imports_matplotlib(tmp_path):
    ledger = write_ledger(tmp_path / "ledger.jsonl")
    code = ("import sys; from evaluator.cli import main; "
            f"rc = main(['leaderboard', 'render', '--ledger', {str(ledger)!r}, "
            f"'--out', {str(tmp_path / 'lb')!r}]); "
            "assert rc == 0; assert 'matplotlib' not in sys.modules, 'matplotlib imported'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr


def test_a_site_build_does_not_import_scipy(tmp_path):
    """SciPy's import is half a second of every build (benchmarks/render_scale.py): the site
    needs it only for the code-track paired tests of judged runs, which import it themselves."""
    ledger = write_ledger(tmp_path / "ledger.jsonl")
    code = ("import sys; from evaluator.cli import main; "
            f"rc = main(['site', 'build', '--ledger', {str(ledger)!r}, "
            f"'--out', {str(tmp_path / 'site')!r}, '--boards', {str(tmp_path / 'lb')!r}]); "
            "assert rc == 0; assert 'scipy' not in sys.modules, 'scipy imported'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr


def test_site_build_without_matplotlib_says_which_extra_to_install(tmp_path, monkeypatch,
                                                                   capsys):
    """README command 1 installs no [site] extra: the site build must say so, not crash in
    its drawing worker."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else real(name, *a))
    code = main(["site", "build", "--out", str(tmp_path / "site")])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err
    assert "matplotlib, which is not installed" in err and 'pip install -e ".[site]"' in err
    assert not (tmp_path / "site").exists()


def test_the_build_does_not_write_through_a_link_in_the_output_folder(tmp_path, capsys):
    """Issue 24: an `entries` symlink already in the output folder was written through, so
    the build put pages wherever the link pointed."""
    ledger = write_ledger(tmp_path / "ledger.jsonl")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "entries").symlink_to(elsewhere, target_is_directory=True)
    assert main(["site", "build", "--out", str(out), "--ledger", str(ledger)]) == 2
    err = capsys.readouterr().err
    assert f"{out / 'entries'} is a symbolic link" in err and "Traceback" not in err
    assert list(elsewhere.iterdir()) == []


def test_a_humans_declared_llm_block_is_not_shown_as_the_llm_tracks_record(tmp_path):
    """Issue 24: a human's metadata.json may carry an `llm` block; the entry page showed it as
    "recorded by the LLM track" and linked it to a committed campaign it named. Only the LLM
    track's own rows (entrant llm-*) get that table and link."""
    import json

    from tests.render.site.helpers import _row, site_rows

    campaign = json.loads((ROOT / "campaigns" / "qwen2.5-coder-0.5b-local" / "campaign.json"
                           ).read_text())["code"]["campaign"]
    claim = _row(8, "gnn-cora", "dora", "human", "my own GCN", 0.70,
                 llm={"provider": "openai", "repair_depth": 1, "tokens_in": 7,
                      "tokens_out": 9, "prompt_hash": "ee" * 32, "campaign": campaign})
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text("".join(json.dumps(r, sort_keys=True) + "\n"
                              for r in [*site_rows(), claim]), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["site", "build", "--out", str(out), "--ledger", str(ledger), "--only",
                 "gnn-cora", "--repo-url", "https://github.com/gnncb/gnncb"]) == 0
    page = parse(out / "entries" / f"{8:064x}.html")
    text = "".join(page.text)
    assert "dora" in text and "my own GCN" in text
    assert "recorded by the LLM track" not in text and "LLM run" not in text
    assert campaign not in text and "ee" * 32 not in text
    assert not any("campaigns/" in link for link in page.links), page.links
    llm = "".join(parse(out / "entries" / f"{5:064x}.html").text)  # the track's own row
    assert "recorded by the LLM track" in llm and "c2026-11-30" in llm
