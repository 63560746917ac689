"""A message for the user from the triage session (the app shows it as a toast)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["information", "warning", "error"]


@dataclass(frozen=True)
class Notice:
    """Something the user should be told: why an action did nothing, or what happened."""

    text: str
    title: str = ""
    severity: Severity = "information"
