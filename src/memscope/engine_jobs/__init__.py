"""Engine orchestration, beside ``memscope.engine``: open a dataset, embed it (cached),
search its memory, fill a logged run's gaps and write a native run.

Both front ends call these to drive the engine; they bring the store (``memscope.store``)
and the models (``memscope.engine``, loaded lazily) together. Below ``memscope.usecases``
(which may call them) and never importing it.
"""
