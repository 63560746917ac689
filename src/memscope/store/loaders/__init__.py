"""Bulk loaders: files the store reads with DuckDB itself.

A loader stages a file with DuckDB's readers (no Python row loop), checks every row,
reports bad ones by ``file:line`` and inserts the good ones. A run's per-question file is
read as its benchmark declares it (``json_lines``: a
:class:`~memscope.records.BulkSource` carries the format), and so is a dataset file
(``json_dataset``: a :class:`~memscope.records.DatasetSource` carries it).
"""
