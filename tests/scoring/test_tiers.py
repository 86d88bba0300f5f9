"""Statistical tiers: the paired bootstrap agrees with an independent resampler written here
(rows and clusters), random ledgers scored through `gnncb evaluate` get the tiers that
resampler predicts on the rendered board, and the final standings show tiers and the
shake-up metric computed here by hand."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.authoring.build import seal_labels, write_csv
from evaluator.cli import main
from evaluator.competition.spec import PART_COLUMN, load_spec, parse_spec
from evaluator.ledger.store import Ledger
from evaluator.pipeline.evaluate import load_labels
from evaluator.scoring.score import paired_difference
from tests.helpers.parts import SEED, spec_dict


# ----------------------------------------------------------------------------- independent
def independent_ci(correct_a: np.ndarray, correct_b: np.ndarray, *, seed: int,
                   groups: np.ndarray | None = None, resamples: int = 4000
                   ) -> tuple[float, float]:
    """95 % percentile interval of accuracy(a) - accuracy(b) by a plain resampler: draw n
    rows (or all rows of n drawn groups) with replacement, the same draw for both entries."""
    rng = np.random.default_rng(seed)
    d = correct_a.astype(float) - correct_b.astype(float)
    if groups is None:
        idx = rng.integers(0, len(d), size=(resamples, len(d)))
        diffs = d[idx].mean(axis=1)
    else:
        names = np.unique(groups)
        sums = np.array([d[groups == g].sum() for g in names])
        sizes = np.array([(groups == g).sum() for g in names])
        pick = rng.integers(0, len(names), size=(resamples, len(names)))
        diffs = sums[pick].sum(axis=1) / sizes[pick].sum(axis=1)
    low, high = np.quantile(diffs, [0.025, 0.975])
    return float(low), float(high)


def _spec(clusters: bool):
    text = {"slug": "tiny", "version": 1, "title": "Tiny test", "task": "node-classification",
            "category": "homogeneous", "difficulty": "easy", "domain": "test",
            "targets": [{"name": "y", "type": "class", "classes": [0, 1, 2]}],
            "splits": {"test": {"ids": "test.csv", "labels": "test.jwe",
                                **({"clusters": {"name": "groups", "column": "g"}}
                                   if clusters else {})}},
            "metrics": {"accuracy": {"fn": "accuracy", "split": "test"}},
            "rank_by": [{"score": "accuracy", "order": "desc"}]}
    return parse_spec(yaml.safe_dump(text))


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(st.integers(30, 120), st.floats(0.4, 0.95), st.floats(0.4, 0.95), st.booleans(),
       st.integers(0, 2**31))
def test_paired_difference_agrees_with_an_independent_resampler(n, skill_a, skill_b,
                                                                 clustered, seed):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < skill_a, truth, (truth + 1) % 3)
    b = np.where(rng.random(n) < skill_b, truth, (truth + 2) % 3)
    groups = rng.integers(0, max(3, n // 4), n) if clustered else None
    index = pd.Index(np.arange(n), name="id")
    labels = {"test": pd.DataFrame({"y": truth}, index=index)}
    clusters = {"test": ("groups", groups.astype(str))} if clustered else None
    ours = paired_difference(_spec(clustered), labels, pd.DataFrame({"y": a}, index=index),
                             pd.DataFrame({"y": b}, index=index), clusters=clusters)
    low, high = independent_ci(a == truth, b == truth, seed=seed, groups=groups)
    assert ours["diff"] == pytest.approx(np.mean(a == truth) - np.mean(b == truth), abs=1e-12)
    assert ours["unit"] == ("clusters" if clustered else "rows")
    step = 1 / n  # resampled accuracies move in steps of 1/n: quantiles may differ by one
    assert ours["low"] == pytest.approx(low, abs=0.02 + step)
    assert ours["high"] == pytest.approx(high, abs=0.02 + step)
    if min(abs(low), abs(high)) > 0.02 + step:  # not at the edge: both resamplers decide alike
        assert ours["significant"] == (not low <= 0 <= high)


def test_identical_entries_are_never_significant():
    n = 50
    index = pd.Index(np.arange(n), name="id")
    truth = np.arange(n) % 3
    pred = pd.DataFrame({"y": (truth + (np.arange(n) % 4 == 0)) % 3}, index=index)
    ours = paired_difference(_spec(False), {"test": pd.DataFrame({"y": truth}, index=index)},
                             pred, pred.copy())
    assert ours == {"diff": 0.0, "low": 0.0, "high": 0.0, "significant": False,
                    "resamples": 2000, "unit": "rows"}


# ----------------------------------------------------------------------------- random ledgers
N = 240


def _competition(root: Path, keypair, truth: np.ndarray, *, parts: bool = False) -> Path:
    folder = root / "competitions" / "toy-tiers"
    folder.mkdir(parents=True)
    spec = spec_dict("toy-tiers")
    if not parts:
        del spec["public_fraction"]
    (folder / "competition.yaml").write_text(yaml.safe_dump(spec))
    frame = pd.DataFrame({"id": np.arange(1000, 1000 + len(truth)), "label": truth})
    write_csv(frame[["id"]], folder / "data" / "test_ids.csv")
    seal_labels(frame, load_spec(folder), "test", keypair["public"],
                folder / "hidden" / "test_labels.jwe", seed=SEED if parts else None)
    return folder


def _submit(tmp: Path, folder: Path, keypair, login: str, labels: np.ndarray) -> None:
    csv = tmp / f"{login}.csv"
    pd.DataFrame({"id": np.arange(1000, 1000 + len(labels)), "label": labels}).to_csv(
        csv, index=False)
    out = tmp / f"sub-{login}" / "predictions.csv.enc"
    assert main(["encrypt", "--competition", str(folder), "--participant", login,
                 "--public-key", str(keypair["public_path"]), "--method", "m", "-o", str(out),
                 str(csv)]) == 0
    ledger = folder.parent.parent / "leaderboard" / "ledger.jsonl"
    assert main(["evaluate", "--competition", str(folder), "--submission", str(out.parent),
                 "--participant", login, "--private-key", str(keypair["private_path"]),
                 "--ledger", str(ledger)]) == 0


def _board(root: Path, name: str = "toy-tiers.md") -> dict[str, list[str]]:
    """participant -> the cells of their row on a rendered markdown board."""
    text = (root / "leaderboard" / name).read_text()
    out = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 3 and re.fullmatch(r"[0-9]+°?", cells[0]):
            out[cells[2]] = cells
    return out


@pytest.mark.slow
@pytest.mark.parametrize("seed", [11, 12, 13])
def test_random_ledgers_get_the_tiers_an_independent_resampler_predicts(tmp_path, keypair,
                                                                         capsys, seed):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, N)
    root = tmp_path / "repo"
    folder = _competition(root, keypair, truth)
    skills = np.sort(rng.uniform(0.35, 0.95, 5))[::-1]
    predictions = {}
    for i, skill in enumerate(skills):
        login = f"p{i}"
        predictions[login] = np.where(rng.random(N) < skill, truth, rng.integers(0, 3, N))
        _submit(tmp_path, folder, keypair, login, predictions[login])
    assert main(["leaderboard", "render", "--root", str(root)]) == 0
    capsys.readouterr()
    board = _board(root)
    assert sorted(board) == sorted(predictions)
    accuracy = {who: float(np.mean(p == truth)) for who, p in predictions.items()}
    order = sorted(accuracy, key=lambda who: (-accuracy[who], who))
    assert [board[who][1].split()[0] for who in order] == [
        str(1 + sum(accuracy[o] > accuracy[who] for o in order)) for who in order]
    checked = 0
    for upper, lower in zip(order, order[1:], strict=False):
        step = int(board[lower][0]) - int(board[upper][0])
        low, high = independent_ci(predictions[upper] == truth, predictions[lower] == truth,
                                   seed=seed)
        if accuracy[upper] == accuracy[lower]:
            assert step == 0
        elif min(abs(low), abs(high)) > 0.015:
            assert step == (0 if low <= 0 <= high else 1), (upper, lower, low, high)
            checked += 1
    assert checked >= 2
    assert board[order[0]][0] == "1"
    text = (root / "leaderboard" / "toy-tiers.md").read_text()
    assert "paired bootstrap over the test rows" in text and "95 %" in text
    assert "°" not in text  # every neighbour pair has a recorded comparison


@pytest.mark.slow
def test_public_board_compares_on_the_public_part_and_the_reveal_shows_the_shake_up(
        tmp_path, keypair, capsys):
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 3, 120)
    root = tmp_path / "repo"
    folder = _competition(root, keypair, truth, parts=True)
    spec = load_spec(folder)
    labels = load_labels(folder, spec, keypair["private"])["test"]
    public = (labels[PART_COLUMN] == "public").to_numpy()
    predictions = {}
    for i, skill in enumerate([0.9, 0.8, 0.6, 0.5]):
        predictions[f"p{i}"] = np.where(rng.random(120) < skill, truth, (truth + 1) % 3)
        _submit(tmp_path, folder, keypair, f"p{i}", predictions[f"p{i}"])
    rows = {r["participant"]: r for r in Ledger(root / "leaderboard" / "ledger.jsonl").rows()}
    last = rows["p3"]["paired"]
    assert last["part"] == "public" and last["score"] == "accuracy"
    assert len(last["vs"]) == 3
    for other in ("p0", "p1", "p2"):  # the difference of the PUBLIC scores, nothing private
        found = last["vs"][rows[other]["digest"]]
        assert found["diff"] == pytest.approx(
            rows["p3"]["scores"]["accuracy"] - rows[other]["scores"]["accuracy"], abs=1e-12)
    assert "private" not in json.dumps(last)

    assert main(["competition", "reveal", "toy-tiers", "--root", str(root), "--early",
                 "--private-key", str(keypair["private_path"])]) == 0
    capsys.readouterr()
    reveal = Ledger(root / "leaderboard" / "ledger.jsonl").rows()[-1]
    assert reveal["paired"]["part"] == "private" and len(reveal["paired"]["pairs"]) == 3
    private_acc = {w: float(np.mean((p == truth)[~public])) for w, p in predictions.items()}
    public_acc = {w: float(np.mean((p == truth)[public])) for w, p in predictions.items()}

    def ranks(acc):
        return {w: 1 + sum(acc[o] > acc[w] for o in acc) for w in acc}

    final, live = ranks(private_acc), ranks(public_acc)
    moved = [abs(live[w] - final[w]) for w in predictions]
    top = sorted(predictions, key=lambda w: (final[w], w))[:1]  # ceil(10 % of 4) = 1
    page = (root / "leaderboard" / "final" / "toy-tiers.md").read_text()
    assert (f"**Shake-up** (mean absolute change between public and private rank): "
            f"{np.mean(moved):.2f} over all 4 entries ranked on both boards, "
            f"{np.mean([abs(live[w] - final[w]) for w in top]):.2f} over the top 10 %") in page
    board = _board(root, "final/toy-tiers.md")
    for upper, lower in zip(sorted(predictions, key=lambda w: (final[w], w)),
                            sorted(predictions, key=lambda w: (final[w], w))[1:], strict=False):
        key = f"{rows[upper]['digest']}:{rows[lower]['digest']}"
        outcome = reveal["paired"]["pairs"][key]
        apart = not outcome["low"] <= 0 <= outcome["high"]
        assert int(board[lower][0]) - int(board[upper][0]) == int(apart)
        assert outcome["diff"] == pytest.approx(private_acc[upper] - private_acc[lower])
    assert "paired bootstrap over the test rows of the private part" in page
