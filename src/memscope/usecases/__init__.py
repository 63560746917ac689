"""Run-level use cases shared by the CLI and the app: ingest and resolve runs, load
them, report, compare, re-rank, table, plot, sample, estimate, suggest, label, export and
import labels.

Front ends parse input, call these functions and render what they return; neither grows
its own copy of a query or a metric. ``store_access`` hands the front ends the store, read
options and the app's lease. Below ``memscope.triage`` (the app's view models) and
independent of ``memscope.engine_jobs``.
"""
