"""The execution core shared by the CLI and the app: ingest, resolve, load, report.

Front ends parse input, call these functions and render what they return; neither grows
its own copy of a query or a metric.
"""
