"""Rule-based failure suggestions: ``rules`` (facts and stored suggestions), ``changes``
(keeping them current and saying what changed), ``twins`` (the twin runs they use, pinned).
"""
