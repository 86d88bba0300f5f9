"""Scores from validated predictions and hidden labels: metric values per part, bootstrap
intervals and the clusters they resample."""
