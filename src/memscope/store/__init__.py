"""The store: the only code that talks to DuckDB.

``Store`` hands out short-lived connections; ``ingest`` loads runs; ``queries`` holds the
named, parameterised reads the front ends use through the use cases.
"""

from __future__ import annotations

from memscope.store.connection import Store

__all__ = ["Store"]
