"""Analysis: pure functions over arrays — the metrics of docs/metrics.md, answer quality,
aggregation, re-ranking, bootstrap and failure suggestions. No I/O, no UI, no DuckDB.
"""
