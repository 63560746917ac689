"""The triage app's view models: the session it opens and the plain-data records its
screens draw (the matrix, a question's evidence chain and candidate rows, the dataset's
rounds, DMV-Bench and CUE-Mem details, the summary left after quitting).

No Textual here: the app renders these records, and they are testable without a terminal.
Built on ``memscope.usecases`` (and may drive ``memscope.engine_jobs``); the CLI does not
use it.
"""
