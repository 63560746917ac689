"""The recency re-ranking probe: ``probe`` re-ranks one question or a whole run
(``memscope rerun`` and the app's alpha keys) and stores the results.
"""
