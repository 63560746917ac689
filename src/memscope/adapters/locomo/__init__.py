"""LoCoMo (snap-research/LoCoMo, ACL 2024): very long two-speaker conversations with shared
images, and the QA runs its ``task_eval/evaluate_qa.py`` writes.

- ``dataset``: ``locomo10.json`` (a list of samples) into one dataset record.
- ``run``: the run files (``<key>_prediction`` … per QA item), one run per file and key.
- ``summary``: upstream's ``*_stats.json`` recomputed from the run's rows.
- ``axes``: category x evidence age, evidence modality.
"""
