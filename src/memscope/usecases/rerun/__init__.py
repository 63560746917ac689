"""The recency re-ranking of a run's candidate pools (``memscope rerun`` and the app's alpha
keys): ``checks`` (what a re-rank refuses), ``pool`` (the candidate pools),
``question_rerank`` (one question), ``run_rerank`` (a whole run over several alphas) and
``saved`` (results kept in the store).
"""
