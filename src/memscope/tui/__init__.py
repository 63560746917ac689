"""The Textual front end: ``memscope open`` fills an :class:`~memscope.tui.open_request.OpenRequest`
and starts the app through :mod:`memscope.tui.launch` (the only module that imports
:mod:`memscope.tui.app`).

Nothing here imports DuckDB or a model library; data comes from ``memscope.triage`` and ``memscope.usecases``.
"""
