"""Run-level use cases shared by the CLI and the app, one subpackage per job.

``runs`` (ingest, resolve and load runs; the store as the front ends open it), ``report``,
``compare``, ``table``, ``figures``, ``labels`` (labels, journal, the label file, sample,
estimate, the triage queue), ``suggest``, ``rerun``; ``benchmarks`` (the installed
benchmark specs) and ``output_files`` (where an ``--out`` may go) serve them all.

Front ends parse input, call these functions and render what they return; neither grows
its own copy of a query or a metric. Below ``memscope.triage`` (the app's view models, which
reach everything through these) and above ``memscope.engine_jobs`` (the app's session reads
the recompute hint and search steps through ``runs.session_io``).
"""
