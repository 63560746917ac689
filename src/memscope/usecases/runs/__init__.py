"""Runs: ingesting run directories into the store, naming and resolving runs, and loading
one run into the arrays the analysis takes.

``ingest`` (ingest folders, resolve a typed run, K), ``names`` (printed ids read back),
``loading`` (``RunData``), ``axes`` (questions on the benchmark's axes), ``question_extras``,
``questions`` (nearest qids for an error), ``qid_order``, ``store_access`` (the store as the
front ends open it), ``store_check`` (``memscope store check``), ``demo`` (the shipped demo).
"""
