"""``memscope report``: one run's answer matrix, retrieval access and temporal authority,
with each benchmark's own section.

``build`` (the report and its parts), ``result`` (the typed ``Report`` and its one JSON
form), ``sections`` (the shapes of the benchmarks' own sections), ``cue`` (CUE-Mem's section),
``dmv`` (DMV-Bench's TSR), ``metric_names`` (each metric's name on screen).
"""
