"""The triage app's view models: the session it opens and the plain-data records its
screens draw (the matrix, a question's evidence chain and candidate rows, the dataset's
rounds, DMV-Bench details, the summary left after quitting).

No Textual here: the app renders these records, and they are testable without a terminal.
Built on ``memscope.usecases`` alone (and the shared core): the store, adapters, analysis
and engine jobs are reached through use cases (``usecases.runs.session_io``,
``usecases.runs.selection`` …; the ``triage-calls-usecases`` contract). The CLI does not
use it.
"""
