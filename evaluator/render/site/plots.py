"""Plots for the site: inline SVG drawn at build time with matplotlib.

Why these settings: the same ledger must give the same bytes (Agg backend, `svg.hashsalt`
fixed, no `Date` metadata); text stays text (`svg.fonttype: none`: selectable, read by screen
readers, and ten times cheaper to write than glyph paths) in the reader's own sans-serif font,
so no font is fetched; and math text is off (`text.parse_math: False`) so a `$` in a
participant's name is drawn as a `$`, never parsed. Each SVG carries a <title> and <desc>; the
page puts the same text in a caption and the numbers in a table beside it.

matplotlib is imported only here, and only when a plot is drawn (extra `site`): the scoring
path never imports it.
"""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Sequence
from typing import Any, Protocol

from markupsafe import Markup

COLORS = {"human": "#1f77b4", "llm": "#d62728", "baseline": "#7f7f7f"}
LABELS = {"human": "human", "llm": "LLM", "baseline": "baseline"}
MARKERS = {"human": "o", "llm": "D", "baseline": "s"}
STANDINGS_LIMIT = 30  # entries drawn in a standings plot (the table lists more)
_LABEL_GAP = 7.0  # points between the axes and a row label (tick length + pad, as before)
_PLT: Any = None


def _pyplot() -> Any:
    global _PLT
    if _PLT is None:
        import matplotlib

        matplotlib.use("Agg", force=True)
        import matplotlib.pyplot as plt

        matplotlib.rcParams.update({
            "svg.hashsalt": "gnncb-site", "svg.fonttype": "none", "text.parse_math": False,
            "font.family": "DejaVu Sans", "font.size": 9, "axes.titlesize": 10,
            "figure.dpi": 72, "savefig.dpi": 72, "path.simplify": True,
            # a fixed title height: no figure has ticks or an offset text above its axes,
            # so matplotlib's automatic placement (which measures every tick label of the
            # y axis once per figure) would put the title at 1.0 anyway
            "axes.titley": 1.0,
        })
        _PLT = plt
    return _PLT


def _svg(fig: Any, title: str, desc: str) -> Markup:
    """The figure as an inline <svg> with an accessible title and description."""
    plt = _pyplot()
    buf = io.StringIO()
    # fixed margins (see _figure), not bbox_inches="tight": that draws every figure twice
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]  # drop the XML prolog and DOCTYPE (inline in HTML)
    head_end = text.index(">") + 1
    head = text[:head_end]
    head = re.sub(r'\s(width|height)="[^"]*"', "", head, count=2)
    head = head.replace("<svg", '<svg role="img" class="plot"', 1)
    inner = (f"<title>{html.escape(title)}</title><desc>{html.escape(desc)}</desc>"
             + text[head_end:])
    return Markup(head + inner)  # noqa: S704 - matplotlib's SVG; our strings are escaped


def _figure(width: float, height: float, left: float, right: float, bottom: float = 0.55,
            top: float = 0.35) -> tuple[Any, Any]:
    """A figure with its axes placed by margins in inches (fast and stable, unlike tight
    layouts, which measure every text twice)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(width, height))
    fig.subplots_adjust(left=left / width, right=1 - right / width, bottom=bottom / height,
                        top=1 - top / height)
    return fig, ax


def _short(text: str, n: int = 28) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[:n - 1] + "…"


def standings_plot(entries: Sequence[dict[str, Any]], metric: str, higher: bool,
                   human_ref: HumanRef | None = None, limit: int = STANDINGS_LIMIT) -> Markup:
    """Dot per entry (its counted score) with its 95 % interval as a whisker, colored by kind;
    the paper's human top and mean as vertical lines."""
    from matplotlib import transforms

    shown = [e for e in entries[:limit] if e["primary"] is not None]
    n = max(len(shown), 1)
    fig, ax = _figure(7.6, 0.95 + 0.22 * n, left=2.1, right=1.45, bottom=0.5, top=0.3)
    ys = list(range(len(shown)))[::-1]
    for kind in ("human", "llm", "baseline"):
        mine = [(y, e) for y, e in zip(ys, shown, strict=True) if e["kind"] == kind]
        ranged = [(y, e["interval"]) for y, e in mine if e.get("interval")]
        if ranged:  # one collection per kind: fast however many entries
            ax.hlines([y for y, _ in ranged], [lo for _, (lo, _) in ranged],
                      [hi for _, (_, hi) in ranged], color=COLORS[kind], linewidth=1.4)
            ax.vlines([v for _, iv in ranged for v in iv],
                      [y - 0.2 for y, _ in ranged for _ in (0, 1)],
                      [y + 0.2 for y, _ in ranged for _ in (0, 1)], color=COLORS[kind],
                      linewidth=1)
        ax.plot([float(e["primary"]) for _, e in mine], [y for y, _ in mine],
                marker=MARKERS[kind], color=COLORS[kind], markersize=5, linestyle="none",
                label=LABELS[kind])
    # one text per row where the y tick label would be, not y ticks: each matplotlib tick is
    # two marks, a grid line and two labels, and the thirty of them were half the CPU of
    # this figure (the rows need their labels, not tick marks)
    ax.set_yticks([])
    beside = transforms.blended_transform_factory(ax.transAxes, ax.transData) \
        + transforms.ScaledTranslation(-_LABEL_GAP / 72, 0, fig.dpi_scale_trans)
    for y, e in zip(ys, shown, strict=True):
        ax.text(0, y, f"{e['rank']}. {_short(e['participant'], 24)}", transform=beside,
                ha="right", va="center_baseline", fontsize="medium")
    for value, style, label in _refs(human_ref):
        ax.axvline(value, color="#2ca02c", linestyle=style, linewidth=1, label=label)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    ax.set_xlabel(f"{metric} ({'higher' if higher else 'lower'} is better; score units)")
    ax.set_ylim(-0.8, n - 0.2)
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_title(f"Standings: {metric} with 95 % intervals")
    have = sum(1 for e in shown if e.get("interval"))
    desc = (f"Top {len(shown)} entries by {metric}; {have} of them carry a 95 % interval "
            "(whiskers). " + "; ".join(f"{e['rank']}. {e['participant']} ({LABELS[e['kind']]})"
                                       f" {float(e['primary']):.4f}" for e in shown[:10]))
    return _svg(fig, f"Standings by {metric}", desc)


class HumanRef(Protocol):
    """The paper's human top and mean a plot draws as lines (a spec's `human_reference`,
    sent to the drawing worker as a plain namespace)."""

    @property
    def top(self) -> float | None: ...

    @property
    def mean(self) -> float | None: ...


def _refs(human_ref: HumanRef | None) -> list[tuple[float, str, str]]:
    out = []
    if human_ref is not None and human_ref.top is not None:
        out.append((float(human_ref.top), "-", "paper: best human"))
    if human_ref is not None and human_ref.mean is not None:
        out.append((float(human_ref.mean), "--", "paper: human mean"))
    return out


def spread_plot(spread: dict[str, list[float]], metric: str, higher: bool,
                human_ref: HumanRef | None = None) -> Markup:
    """Histogram of every accepted submission's score (not only the counted ones), stacked by
    kind, so readers see where the field lies and how far the leaders are from it."""
    import numpy as np
    from matplotlib.ticker import MaxNLocator

    fig, ax = _figure(7.6, 2.5, left=0.75, right=1.45, bottom=0.55, top=0.3)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    values = [v for vs in spread.values() for v in vs]
    kinds = [k for k in ("human", "llm", "baseline") if spread.get(k)]
    if values:
        lo, hi = min(values), max(values)
        if hi - lo < 1e-12:
            lo, hi = lo - 0.5, hi + 0.5
        edges = np.linspace(lo, hi, min(40, max(5, int(math.sqrt(len(values))))) + 1)
        base = np.zeros(len(edges) - 1)
        for k in kinds:  # stacked: one filled step outline per kind (not a bar per bin)
            counts, _ = np.histogram(spread[k], bins=edges)
            ax.stairs(base + counts, edges, baseline=base, fill=True, color=COLORS[k],
                      label=LABELS[k])
            base = base + counts
    for value, style, label in _refs(human_ref):
        ax.axvline(value, color="#2ca02c", linestyle=style, linewidth=1, label=label)
    ax.set_xlabel(f"{metric} ({'higher' if higher else 'lower'} is better; score units)")
    ax.set_ylabel("submissions (count)")
    ax.set_title(f"Spread of all {len(values)} accepted submissions")
    if kinds or _refs(human_ref):
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    counts_text = ", ".join(f"{len(spread[k])} {LABELS[k]}" for k in kinds) or "none"
    desc = (f"Histogram of {metric} over every accepted submission ({counts_text})"
            + (f"; range {min(values):.4f} to {max(values):.4f}" if values else "") + ".")
    return _svg(fig, f"Spread of {metric} over all submissions", desc)


def heatmap(rows: Sequence[str], cols: Sequence[str], values: dict[tuple[str, str], float],
            title: str, xlabel: str, ylabel: str, unit: str) -> Markup:
    """A diverging heatmap (0 = white) with each cell's value written in it; empty = no data."""
    import numpy as np

    grid = np.full((len(rows), len(cols)), np.nan)
    for (r, c), v in values.items():
        grid[rows.index(r), cols.index(c)] = v
    width = 3.9 + 0.8 * max(len(cols), 1)
    fig, ax = _figure(width, 1.9 + 0.35 * max(len(rows), 1), left=2.0, right=1.3, bottom=1.2,
                      top=0.35)
    finite = grid[np.isfinite(grid)]
    span = float(np.max(np.abs(finite))) if finite.size else 1.0
    image = ax.imshow(np.ma.masked_invalid(grid), cmap="RdBu", vmin=-span or -1, vmax=span or 1,
                      aspect="auto")
    for i in range(len(rows)):
        for j in range(len(cols)):
            if np.isfinite(grid[i, j]):
                dark = abs(grid[i, j]) > 0.6 * span  # light text on the saturated cells
                ax.text(j, i, f"{grid[i, j]:+.3f}", ha="center", va="center", fontsize=7,
                        color="white" if dark else "black")
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels([_short(c, 16) for c in cols], rotation=40, ha="right")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([_short(r, 24) for r in rows])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.colorbar(image, ax=ax, label=unit, shrink=0.8, pad=0.02)
    desc = f"{title}: " + "; ".join(f"{r} on {c}: {v:+.4f}" for (r, c), v in
                                    sorted(values.items())[:40])
    return _svg(fig, title, desc)


def paired_bars(labels: Sequence[str], a: Sequence[float | None], b: Sequence[float | None],
                a_label: str, b_label: str, title: str, ylabel: str) -> Markup:
    """Two bars per label (a missing value leaves its bar out)."""
    fig, ax = _figure(2.6 + 0.7 * max(len(labels), 1), 3.2, left=0.8, right=1.3, bottom=1.2,
                      top=0.35)
    xs = list(range(len(labels)))
    for offset, values, label, color in ((-0.2, a, a_label, COLORS["llm"]),
                                         (0.2, b, b_label, COLORS["human"])):
        pts = [(x + offset, v) for x, v in zip(xs, values, strict=True) if v is not None]
        if pts:
            ax.bar([p[0] for p in pts], [p[1] for p in pts], width=0.38, color=color,
                   label=label)
    ax.set_xticks(xs)
    ax.set_xticklabels([_short(x, 16) for x in labels], rotation=40, ha="right")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    desc = f"{title}: " + "; ".join(
        f"{x}: {a_label} {'–' if va is None else f'{va:.4f}'}, "
        f"{b_label} {'–' if vb is None else f'{vb:.4f}'}"
        for x, va, vb in zip(labels, a, b, strict=True))
    return _svg(fig, title, desc)
