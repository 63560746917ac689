"""Labels: what people say about each failure, and what follows from it.

``events`` (append-only label events, the current label, undo, agreement), ``journal``
(changes not yet committed), ``export`` and ``import_file`` (the label file, both ways),
``sample`` (the stratified sample to label), ``estimate`` (each code's prevalence with
intervals), ``disagreements``, ``instants`` (UTC as stored and written), ``queue`` (which
questions to look at, in which order).
"""
