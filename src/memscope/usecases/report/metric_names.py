"""How each metric is called on screen: one name per report key (docs/metrics.md).

The CLI tables and the app's panels take their headings from here. ``SHORT_NAMES`` are the
abbreviations narrow app columns use, defined beside the full names so the two cannot drift.
Stdlib only: the CLI imports it at start-up.
"""

from __future__ import annotations

METRIC_NAMES: dict[str, str] = {
    "em": "EM",
    "judge": "Judge",
    "f1": "F1",
    "latest_at_k": "Latest@K",
    "latest_miss": "Latest-Miss",
    "rank_inversion": "Rank-Inversion",
    "stale_dominance": "Stale-Dominance",
    "any_clue": "Any-Clue@K",
    "coverage": "Coverage@K",
    "full_clue": "Full-Clue@K",
    "mrr": "MRR",
}
"""Report key -> display name."""

RETRIEVAL_METRICS = (
    "any_clue",
    "coverage",
    "full_clue",
    "mrr",
    "latest_at_k",
    "latest_miss",
    "rank_inversion",
    "stale_dominance",
)
"""The per-question retrieval and temporal metrics (docs/metrics.md §3–§4), in report order."""

SHORT_NAMES: dict[str, str] = {
    **METRIC_NAMES,
    "rank_inversion": "Rank-Inv",
    "stale_dominance": "Stale-Dom",
}
"""Report key -> the name in a narrow column (the app's candidate panel)."""


def metric_name(key: str, *, short: bool = False) -> str:
    """The display name of report key ``key`` (the key itself when it has none)."""
    return (SHORT_NAMES if short else METRIC_NAMES).get(key, key)
