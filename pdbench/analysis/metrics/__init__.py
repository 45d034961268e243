"""Metrics and aggregation: the metric catalogue, the per-match computations, and
aggregates.parquet (per condition x replicate and per condition)."""
