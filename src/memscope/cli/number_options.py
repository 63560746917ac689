"""The range of every integer a command takes: an integer option outside it is a usage
error that states the range (exit 2), never an overflow deep in numpy, DuckDB or torch.

``tests/cli/test_number_options.py`` holds every integer option of every command to a
range with both ends.
"""

from __future__ import annotations

SEED_MIN, SEED_MAX = 0, 2**63 - 1
"""Seeds: numpy takes any non-negative integer; the store keeps a sample's seed as BIGINT."""
RANK_MAX = 10_000
"""Cut-offs and candidate pools (``--k``, ``--pool``): ranks per question; the engine holds
questions × pool scores in memory."""
COUNT_MAX = 2**31 - 1
"""Counts of questions or labels (``--sample-size``, ``--limit``): a 32-bit column."""
RESAMPLES_MAX = 1_000_000
"""Bootstrap resamples: each is drawn and kept in memory (100 × the default)."""
THREADS_MAX = 1024
BATCH_MAX = 65_536
TOKENS_MAX = 1_000_000

SEED = {"min": SEED_MIN, "max": SEED_MAX}
RANK = {"min": 1, "max": RANK_MAX}
COUNT = {"min": 1, "max": COUNT_MAX}
RESAMPLES = {"min": 1, "max": RESAMPLES_MAX}
THREADS = {"min": 1, "max": THREADS_MAX}
BATCH = {"min": 1, "max": BATCH_MAX}
TOKENS = {"min": 1, "max": TOKENS_MAX}
"""Keyword arguments for ``typer.Option`` (``typer.Option("--seed", **SEED)``)."""
