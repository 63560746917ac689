"""``memscope report``: one run's answer matrix, retrieval access and temporal authority,
with each benchmark's own section.

``build`` (the report and its parts), ``cue`` (CUE-Mem's section), ``dmv`` (DMV-Bench's TSR),
``metric_names`` (each metric's name on screen).
"""
