"""``memscope compare``: two runs matched question by question.

``pairs`` (the caption-proof gain, fixed/broken transitions), ``clusters`` (the cluster
sign-flip test), ``metric`` (which score is compared), ``result`` (the typed ``Comparison``
and its one JSON form).
"""
