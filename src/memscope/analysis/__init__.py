"""Analysis: pure functions over arrays — the metrics of metrics.md, answer quality,
aggregation, re-ranking, bootstrap and failure suggestions. No I/O, no UI, no DuckDB.
"""
