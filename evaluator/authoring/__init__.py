"""Competition authoring: the builder kit (ids, parts, sealing, chemistry and spatial helpers),
lint, reference baselines and the demo. `evaluator.build` is the builders' stable face."""
