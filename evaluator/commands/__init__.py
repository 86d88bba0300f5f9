"""CLI verb groups, one module per track."""
