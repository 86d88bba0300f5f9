"""Price tables: tokens -> US dollars, when the operator provides prices.

Why a file and not built-in prices: prices change often and differ per provider for the same
model; a campaign records the table it was given, and no cost is reported without one.

Format (YAML or JSON), USD per million tokens::

    gpt-4o-mini: {input: 0.15, output: 0.60}
    "Qwen/Qwen2.5-Coder-32B-Instruct": {input: 0.80, output: 0.80}
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from evaluator.errors import ConfigError


@dataclass(frozen=True)
class Price:
    input_per_million: float
    output_per_million: float

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        return (tokens_in * self.input_per_million + tokens_out * self.output_per_million) / 1e6


PriceTable = dict[str, Price]


def load_prices(path: Path) -> PriceTable:
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise ConfigError(f"{path}: cannot read the price table: {err.strerror}") from None
    except yaml.YAMLError as err:
        raise ConfigError(f"{path}: not valid YAML/JSON: {err}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping model -> {{input: USD, output: USD}} "
                          "per million tokens")
    table: PriceTable = {}
    for model, entry in raw.items():
        if not isinstance(entry, dict) or set(entry) != {"input", "output"}:
            raise ConfigError(f"{path}: {model!r} needs exactly 'input' and 'output' "
                              "(USD per million tokens)")
        try:
            price = Price(float(entry["input"]), float(entry["output"]))
        except (TypeError, ValueError):
            raise ConfigError(f"{path}: {model!r}: prices must be numbers") from None
        if price.input_per_million < 0 or price.output_per_million < 0:
            raise ConfigError(f"{path}: {model!r}: prices must not be negative")
        table[str(model)] = price
    return table


def cost_of(table: PriceTable | None, model: str, tokens_in: int, tokens_out: int
            ) -> float | None:
    """Cost in USD, or None when there is no table or the model is not in it."""
    if not table or model not in table:
        return None
    return round(table[model].cost(tokens_in, tokens_out), 6)
