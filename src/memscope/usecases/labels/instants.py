"""Instants as the store keeps them (naive UTC) and as memscope writes them (ISO 8601, ``Z``).

Every time memscope stores is UTC, in a naive ``TIMESTAMP`` (DuckDB connections run with
``TimeZone = 'UTC'``, see ``store/connection.py``); what it writes out says so explicitly.
"""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> datetime:
    """Now, as the store keeps it: naive UTC."""
    return datetime.now(UTC).replace(tzinfo=None)


def utc_text(when: datetime) -> str:
    """An instant as ISO 8601 text in UTC with microseconds and an explicit ``Z``.

    A naive ``when`` is taken as UTC (how the store keeps it); an aware one is converted.
    """
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when.isoformat(timespec="microseconds") + "Z"
