"""competition.yaml: a bad spec fails with the field path and what is wrong."""

from __future__ import annotations

import pytest

from evaluator.competition.spec import parse_spec
from evaluator.errors import ConfigError
from tests.helpers.spec import GOOD


def test_good_spec_with_derived_score():
    spec = parse_spec(GOOD)
    assert spec.primary_score == "f1_perturbed"
    assert spec.higher_is_better("robustness_gap") is False
    assert spec.rules.seed == 25 and spec.submission.limits.per_version == 5


@pytest.mark.parametrize("edit,fragment", [
    (("slug: gta", "slug: GTA!"), "slug"),
    (("version: 1", "version: 0"), "version"),
    (("task: graph-classification", "task: dancing"), "task"),
    (("split: ideal}", "split: nowhere}"), "metrics.f1_ideal.split: unknown split 'nowhere'"),
    (("of: [f1_ideal, f1_perturbed]", "of: [f1_ideal, f9]"), "derived.robustness_gap.of"),
    (("{score: robustness_gap, order: asc}", "{score: speed, order: asc}"),
     "rank_by[1].score: unknown score 'speed'"),
    (("classes: [0, 1]", "classes: [0]"), "targets.0"),
    (("fn: macro_f1, split: ideal", "fn: mae, split: ideal"), "mae needs a 'real' target"),
    (("domain: bio", "domain: bio\ncolour: red"), "colour"),
])
def test_bad_spec_names_the_field(edit, fragment):
    with pytest.raises(ConfigError) as err:
        parse_spec(GOOD.replace(*edit), source="competitions/gta/competition.yaml")
    assert "competitions/gta/competition.yaml" in str(err.value)
    assert fragment in str(err.value)


def test_not_yaml_and_not_mapping():
    with pytest.raises(ConfigError, match="not valid YAML"):
        parse_spec("slug: [unclosed")
    with pytest.raises(ConfigError, match="mapping"):
        parse_spec("- a list")


@pytest.mark.parametrize("fn,hint", [("magic", ""), ("AUC", "; 'AUC' is called 'roc_auc' here"),
                                     ("3", "")])
def test_unknown_metric_lists_the_registered_ones(fn, hint):
    with pytest.raises(ConfigError) as err:
        parse_spec(GOOD.replace("fn: macro_f1, split: ideal", f"fn: {fn}, split: ideal"))
    assert ("  - metrics.f1_ideal.fn: Input should be 'macro_f1', 'f1', 'accuracy', 'roc_auc', "
            f"'mae' or 'nmae'{hint}\n") in str(err.value) + "\n"
