"""``memscope table``: the paper's results table, systems × the benchmark's axes.

``build`` (the table), ``result`` (the typed ``ResultsTable`` and its one JSON form), ``axes`` (what is laid out on which axis), ``upstream``
(``--check-upstream``: the numbers against the benchmark's own table).
"""
