"""``memscope table``: the paper's results table, systems × the benchmark's axes.

``build`` (the table), ``axes`` (what is laid out on which axis), ``upstream``
(``--check-upstream``: the numbers against the benchmark's own table).
"""
