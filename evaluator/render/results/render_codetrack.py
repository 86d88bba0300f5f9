"""`gnncb results codetrack` as Markdown or CSV (JSON is the plain data itself)."""

from __future__ import annotations

from typing import Any

from evaluator.render.results.render import _cell, _table, num, signed, to_csv


def _pct(cell: dict[str, Any] | None) -> str:
    if not cell or cell["rate"] is None:
        return "–"
    return f"{100 * cell['rate']:.1f}"


def _pair(cells: dict[str, Any] | None) -> str:
    if not cells:
        return "–"
    return f"{_pct(cells['directed'])} \\| {_pct(cells['undirected'])}"


def _base(cell: dict[str, Any] | None) -> str:
    if not cell or cell.get("baseline") is None:
        return "–"
    return f"{100 * cell['baseline']:.1f}"


def isolation_text(value: Any) -> str:
    """How a judged run was isolated, as a reader reads it: the judge records a list of the
    isolation layers it applied (`["full"]`), older runs a string."""
    if isinstance(value, list | tuple):
        return ", ".join(str(x) for x in value) or "none recorded"
    return "none recorded" if value in (None, "") else str(value)


def codetrack_markdown(data: dict[str, Any]) -> str:
    runs = list(data["runs"])
    lines = ["# Code track: judged runs side by side (GraphEval36K Tables 2, 3, 5)", "",
             "Pass rates in percent, against the true answers; the trivial baseline (best "
             "constant answer) is given beside each run.", ""]
    lines += _table(["Run", "Pass rate", "Baseline", "Directed", "Undirected", "Cases",
                     "Isolation"],
                    [[_cell(r), _pct(v["overall"]), _base(v["overall"]),
                      _pct(v["directions"].get("directed")),
                      _pct(v["directions"].get("undirected")), str(v["cases"]),
                      _cell(isolation_text(v["isolation"]))] for r, v in data["runs"].items()])
    lines += ["", "## Table 2: category x sub-category, directed | undirected", ""]
    lines += _table(["Category", "Sub-category"] + [_cell(r) for r in runs],
                    [[_cell(row["category"]), _cell(row["abbrev"])]
                     + [_pair(row["runs"].get(r)) for r in runs] for row in data["table2"]])
    for title, key in (("Concepts (Table 3)", "concepts"), ("Difficulty (Table 5)",
                                                            "difficulties")):
        lines += ["", f"## {title}: all (directed \\| undirected), baseline", ""]
        lines += _table([title.split(" ")[0]] + [_cell(r) for r in runs],
                        [[_cell(row["name"])]
                         + [(f"{_pct(c['all'])} ({_pair(c)}), {_base(c['all'])}"
                             if (c := row["runs"].get(r)) else "–") for r in runs]
                         for row in data[key]])
    if data["pairs"]:
        lines += ["", "## Paired comparisons (e.g. vanilla vs SSD)", "", data["test"] + ".", ""]
        lines += _table(["A", "B", "Problems", "Mean A", "Mean B", "B − A", "B better",
                         "A better", "Ties", "Wilcoxon p", "Sign test p"],
                        [[_cell(p["a"]), _cell(p["b"]), str(p["problems"]), num(p["mean_a"]),
                          num(p["mean_b"]), signed(p["mean_difference"]), str(p["b_better"]),
                          str(p["a_better"]), str(p["ties"]),
                          num((p.get("wilcoxon") or {}).get("p")), num(p.get("sign_test_p"))]
                         for p in data["pairs"]])
    return "\n".join(lines) + "\n"


def codetrack_csv(data: dict[str, Any]) -> str:
    rows = []
    for label, v in data["runs"].items():
        for scope, cell in [("overall", v["overall"]), *v["directions"].items()]:
            if cell:
                rows.append([label, "overall", scope, "", cell["rate"], cell["passed"],
                             cell["n"], cell["baseline"]])
    for row in data["table2"]:
        for label, cells in row["runs"].items():
            for direction in ("directed", "undirected"):
                cell = cells[direction]
                if cell:
                    rows.append([label, "table2", f"{row['category']}/{row['subcategory']}",
                                 direction, cell["rate"], cell["passed"], cell["n"],
                                 cell["baseline"]])
    for key in ("concepts", "difficulties"):
        for row in data[key]:
            for label, cells in row["runs"].items():
                for direction in ("all", "directed", "undirected"):
                    cell = cells[direction]
                    if cell:
                        rows.append([label, key, row["name"], direction, cell["rate"],
                                     cell["passed"], cell["n"], cell["baseline"]])
    return to_csv(["run", "table", "group", "direction", "rate", "passed", "n", "baseline"],
                  rows)
