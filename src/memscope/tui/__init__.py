"""The Textual front end: ``memscope open`` builds the app with :func:`memscope.tui.app.make_app`.

Nothing here imports DuckDB or a model library; data comes from ``memscope.triage`` and ``memscope.usecases``.
"""
