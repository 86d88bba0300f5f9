"""A valid competition.yaml that spec, ranking and rendering tests start from and edit."""

from __future__ import annotations

GOOD = """
slug: gta
version: 1
title: GTA
task: graph-classification
category: generalization
difficulty: hard
domain: bio
targets: [{name: label, type: class, classes: [0, 1]}]
splits:
  ideal: {ids: data/ideal_ids.csv, labels: hidden/ideal.jwe}
  perturbed: {ids: data/perturbed_ids.csv, labels: hidden/perturbed.jwe}
metrics:
  f1_ideal: {fn: macro_f1, split: ideal}
  f1_perturbed: {fn: macro_f1, split: perturbed}
derived:
  robustness_gap: {op: subtract, of: [f1_ideal, f1_perturbed], higher_is_better: false}
rank_by: [{score: f1_perturbed, order: desc}, {score: robustness_gap, order: asc}]
"""
