"""JSON values as memscope reads them from run files and writes them out.

``JSONValue`` is what ``json.loads`` can return; ``JSONObject`` one decoded object. Code
that passes JSON through without looking inside takes these instead of ``Any``, so mypy
still checks what it does with them; code that reads a field narrows with ``isinstance``.
"""

from __future__ import annotations

from typing import TypeAlias

JSONScalar: TypeAlias = str | int | float | bool | None
JSONValue: TypeAlias = JSONScalar | list["JSONValue"] | dict[str, "JSONValue"]
JSONObject: TypeAlias = dict[str, JSONValue]
