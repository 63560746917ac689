"""Runs: ingesting run directories into the store, naming and resolving runs, and loading
one run into the arrays the analysis takes.

``ingest`` (ingest folders, resolve a typed run, K), ``selection`` (``select_runs``: what
the user typed as run ids, for every command and the app), ``names`` (printed ids read
back), ``run_info`` (``RunInfo``, a run's stored row), ``loading`` (``RunData``),
``session_io`` (the app's triage session's store reads and writes), ``question_scores``
(per-question numbers the app's views show), ``axes`` (questions on the benchmark's axes), ``question_extras``,
``questions`` (nearest qids for an error), ``qid_order``, ``store_access`` (the store as the
front ends open it), ``store_check`` (``memscope store check``), ``demo`` (the shipped demo).
"""
