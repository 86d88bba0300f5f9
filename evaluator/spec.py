"""`competition.yaml` as builders and baselines import it: a stable face over
`evaluator.competition.spec`, where the schema lives."""

from evaluator.competition.spec import CompetitionSpec, load_spec, parse_spec

__all__ = ["CompetitionSpec", "load_spec", "parse_spec"]
